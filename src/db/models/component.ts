import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/** A component (key providers, registration policies, user profile ...); config is name → values. */
export class ComponentModel extends Model {
  declare id: string;
  declare realmId: string;
  declare parentId: string;
  declare name: string;
  declare providerId: string;
  declare providerType: string;
  declare subType: string | null;
  declare config: Record<string, string[]>;
}

export function initComponent(sequelize: Sequelize) {
  ComponentModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      parentId: ref(),
      name: str(255, false),
      providerId: str(255, false),
      providerType: str(255, false),
      subType: str(255),
      config: jsonColumn('config', {}),
    },
    {
      sequelize,
      tableName: 'component',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_component_realm_type', fields: ['realm_id', 'provider_type'] },
        { name: 'ix_component_parent_type', fields: ['parent_id', 'provider_type'] },
      ],
    },
  );
}

/** A registered required action of a realm. */
export class RequiredActionModel extends Model {
  declare id: string;
  declare realmId: string;
  declare alias: string;
  declare name: string;
  declare providerId: string;
  declare enabled: boolean;
  declare defaultAction: boolean;
  declare priority: number;
  declare config: Record<string, string>;
}

export function initRequiredAction(sequelize: Sequelize) {
  RequiredActionModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      alias: str(255, false),
      name: str(255, false),
      providerId: str(255, false),
      enabled: bool(true),
      defaultAction: bool(false),
      priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      config: jsonColumn('config', {}),
    },
    {
      sequelize,
      tableName: 'required_action_provider',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_required_action_realm_alias', unique: true, fields: ['realm_id', 'alias'] }],
    },
  );
}

/** A user session created by the token endpoint; tokens carry its id as `sid`. */
export class UserSessionModel extends Model {
  declare id: string;
  declare realmId: string;
  declare userId: string;
  declare clientId: string;
  declare ipAddress: string | null;
  declare started: number;
  declare lastAccess: number;
  declare offline: boolean;
  declare notes: Record<string, string>;
  declare rememberMe: boolean;
  declare authMethod: string | null;
}

export function initUserSession(sequelize: Sequelize) {
  UserSessionModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      // A local user's id or a transient federated user's StorageId (`f:...`, migration 0036).
      userId: str(300, false),
      clientId: ref(),
      ipAddress: str(64),
      started: { type: DataTypes.INTEGER, allowNull: false },
      lastAccess: { type: DataTypes.INTEGER, allowNull: false },
      offline: bool(false),
      notes: jsonColumn('notes', {}),
      rememberMe: bool(false),
      authMethod: str(64),
    },
    {
      sequelize,
      tableName: 'user_session',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_user_session_user', fields: ['user_id'] },
        { name: 'ix_user_session_realm', fields: ['realm_id'] },
        { name: 'ix_user_session_realm_offline', fields: ['realm_id', 'offline', 'last_access'] },
      ],
    },
  );
}
