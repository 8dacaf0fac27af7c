import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, ref, str } from './common';

/** An OAuth client. Fields the server queries or authenticates with are columns; the rest is `settings`. */
export class ClientModel extends Model {
  declare id: string;
  declare realmId: string;
  declare clientId: string;
  declare name: string | null;
  declare enabled: boolean;
  declare protocol: string;
  declare publicClient: boolean;
  declare bearerOnly: boolean;
  declare serviceAccountsEnabled: boolean;
  declare directAccessGrantsEnabled: boolean;
  declare fullScopeAllowed: boolean;
  declare secret: string | null;
  declare realmClient: boolean;
  declare settings: Record<string, unknown>;
}

export function initClient(sequelize: Sequelize) {
  ClientModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      clientId: str(255, false),
      name: str(255),
      enabled: bool(true),
      protocol: { ...str(64, false), defaultValue: 'openid-connect' },
      publicClient: bool(),
      bearerOnly: bool(),
      serviceAccountsEnabled: bool(),
      directAccessGrantsEnabled: bool(),
      fullScopeAllowed: bool(true),
      secret: str(255),
      realmClient: bool(),
      settings: jsonColumn('settings', {}),
    },
    {
      sequelize,
      tableName: 'client',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_client_realm_client_id', unique: true, fields: ['realm_id', 'client_id'] }],
    },
  );
}

/** A client scope of a realm. */
export class ClientScopeModel extends Model {
  declare id: string;
  declare realmId: string;
  declare name: string;
  declare protocol: string;
  declare description: string | null;
  declare attributes: Record<string, string>;
}

export function initClientScope(sequelize: Sequelize) {
  ClientScopeModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      name: str(255, false),
      protocol: { ...str(64, false), defaultValue: 'openid-connect' },
      description: str(255),
      attributes: jsonColumn('attributes', {}),
    },
    {
      sequelize,
      tableName: 'client_scope',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'uq_client_scope_realm_name', unique: true, fields: ['realm_id', 'name'] }],
    },
  );
}

/** Realm-level default/optional client scope (`defaultDefaultClientScopes` / `defaultOptionalClientScopes`). */
export class RealmDefaultClientScopeModel extends Model {
  declare realmId: string;
  declare scopeId: string;
  declare defaultScope: boolean;
}

/** Client-level default/optional client scope link. */
export class ClientScopeClientModel extends Model {
  declare clientId: string;
  declare scopeId: string;
  declare defaultScope: boolean;
}

export function initScopeLinks(sequelize: Sequelize) {
  RealmDefaultClientScopeModel.init(
    {
      realmId: { type: DataTypes.STRING(36), primaryKey: true },
      scopeId: { type: DataTypes.STRING(36), primaryKey: true },
      defaultScope: bool(true),
    },
    { sequelize, tableName: 'realm_default_client_scope', underscored: true, timestamps: false },
  );
  ClientScopeClientModel.init(
    {
      clientId: { type: DataTypes.STRING(36), primaryKey: true },
      scopeId: { type: DataTypes.STRING(36), primaryKey: true },
      defaultScope: bool(true),
    },
    {
      sequelize,
      tableName: 'client_scope_client',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_client_scope_client_scope', fields: ['scope_id'] }],
    },
  );
}

/** A protocol mapper of a client or of a client scope (exactly one of the two owners is set). */
export class ProtocolMapperModel extends Model {
  declare id: string;
  declare name: string;
  declare protocol: string;
  declare protocolMapper: string;
  declare clientId: string | null;
  declare clientScopeId: string | null;
  declare config: Record<string, string>;
}

export function initProtocolMapper(sequelize: Sequelize) {
  ProtocolMapperModel.init(
    {
      id: idColumn(),
      name: str(255, false),
      protocol: str(64, false),
      protocolMapper: str(255, false),
      clientId: ref(true),
      clientScopeId: ref(true),
      config: jsonColumn('config', {}),
    },
    {
      sequelize,
      tableName: 'protocol_mapper',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_protocol_mapper_client', fields: ['client_id'] },
        { name: 'ix_protocol_mapper_scope', fields: ['client_scope_id'] },
      ],
    },
  );
}

/** Scope mapping: a role that a client or a client scope may put into tokens. */
export class ScopeMappingModel extends Model {
  declare ownerId: string;
  declare roleId: string;
}

export function initScopeMapping(sequelize: Sequelize) {
  ScopeMappingModel.init(
    {
      ownerId: { type: DataTypes.STRING(36), primaryKey: true },
      roleId: { type: DataTypes.STRING(36), primaryKey: true },
    },
    {
      sequelize,
      tableName: 'scope_mapping',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_scope_mapping_role', fields: ['role_id'] }],
    },
  );
}
