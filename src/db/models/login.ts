import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/**
 * A login in progress (one browser tab's authorization request): its request, the flow's execution
 * statuses and notes in `data`, the user identified so far, the code its next form must carry.
 */
export class AuthSessionModel extends Model {
  declare id: string;
  declare rootId: string;
  declare realmId: string;
  declare clientId: string;
  declare userId: string | null;
  declare sessionCode: string;
  declare expires: number;
  declare data: Record<string, unknown>;
}

/** A one-time authorization code, stored under its SHA-256; `data` holds what the code exchange checks. */
export class AuthCodeModel extends Model {
  declare id: string;
  declare realmId: string;
  declare clientId: string;
  declare userSessionId: string;
  declare expires: number;
  declare used: boolean;
  declare data: Record<string, unknown>;
}

export function initLogin(sequelize: Sequelize) {
  AuthSessionModel.init(
    {
      id: idColumn(),
      rootId: ref(),
      realmId: ref(),
      clientId: ref(),
      userId: str(300),
      sessionCode: str(64, false),
      expires: { type: DataTypes.INTEGER, allowNull: false },
      data: jsonColumn('data', {}),
    },
    {
      sequelize,
      tableName: 'authentication_session',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_auth_session_root', fields: ['root_id'] },
        { name: 'ix_auth_session_expires', fields: ['realm_id', 'expires'] },
      ],
    },
  );
  AuthCodeModel.init(
    {
      id: { type: DataTypes.STRING(64), primaryKey: true },
      realmId: ref(),
      clientId: ref(),
      userSessionId: ref(),
      expires: { type: DataTypes.INTEGER, allowNull: false },
      used: bool(false),
      data: jsonColumn('data', {}),
    },
    {
      sequelize,
      tableName: 'authorization_code',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_authorization_code_expires', fields: ['realm_id', 'expires'] },
        { name: 'ix_authorization_code_session', fields: ['user_session_id'] },
      ],
    },
  );
}
