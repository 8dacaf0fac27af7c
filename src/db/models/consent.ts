import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, ref, str } from './common';

/** A user's consent to a client (reference §4.9); the granted client scopes are link rows. */
export class UserConsentModel extends Model {
  declare id: string;
  declare userId: string;
  /** Client UUID. */
  declare clientId: string;
  declare createdDate: number;
  declare lastUpdatedDate: number;
}

/** One client scope granted by a consent. */
export class UserConsentClientScopeModel extends Model {
  declare userConsentId: string;
  declare scopeId: string;
}

/** A link of a user to an account at an identity provider (reference §4.10). */
export class FederatedIdentityModel extends Model {
  declare userId: string;
  /** Identity provider alias. */
  declare identityProvider: string;
  declare realmId: string;
  declare federatedUserId: string | null;
  declare federatedUsername: string | null;
  declare token: string | null;
}

export function initConsents(sequelize: Sequelize) {
  UserConsentModel.init(
    {
      id: idColumn(),
      // A StorageId for a transient federated user (migration 0039).
      userId: str(300, false),
      clientId: ref(),
      createdDate: { type: DataTypes.BIGINT, allowNull: false },
      lastUpdatedDate: { type: DataTypes.BIGINT, allowNull: false },
    },
    {
      sequelize,
      tableName: 'user_consent',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'uq_user_consent_user_client', unique: true, fields: ['user_id', 'client_id'] },
        { name: 'ix_user_consent_client', fields: ['client_id'] },
      ],
    },
  );
  UserConsentClientScopeModel.init(
    {
      userConsentId: { type: DataTypes.STRING(36), primaryKey: true },
      scopeId: { type: DataTypes.STRING(36), primaryKey: true },
    },
    {
      sequelize,
      tableName: 'user_consent_client_scope',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_user_consent_scope', fields: ['scope_id'] }],
    },
  );
  FederatedIdentityModel.init(
    {
      userId: { type: DataTypes.STRING(300), primaryKey: true },
      identityProvider: { type: DataTypes.STRING(255), primaryKey: true },
      realmId: ref(),
      federatedUserId: str(),
      federatedUsername: str(),
      token: { type: DataTypes.TEXT, allowNull: true },
    },
    {
      sequelize,
      tableName: 'federated_identity',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_federated_identity_external', unique: true, fields: ['realm_id', 'identity_provider', 'federated_user_id'] }],
    },
  );
}
