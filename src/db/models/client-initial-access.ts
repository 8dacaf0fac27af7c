import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, ref } from './common';

/** A client initial access token's record (the token itself is a signed JWT naming this id, never stored). */
export class ClientInitialAccessModel extends Model {
  declare id: string;
  declare realmId: string;
  /** Issue time, epoch seconds. */
  declare timestamp: number;
  /** Lifetime in seconds; 0 = never expires. */
  declare expiration: number;
  declare count: number;
  declare remainingCount: number;
}

export function initClientInitialAccess(sequelize: Sequelize) {
  const int = () => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  ClientInitialAccessModel.init(
    { id: idColumn(), realmId: ref(), timestamp: int(), expiration: int(), count: int(), remainingCount: int() },
    {
      sequelize,
      tableName: 'client_initial_access',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_client_initial_access_realm', fields: ['realm_id'] }],
    },
  );
}
