import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, jsonColumn, str } from './common';

/**
 * A realm. The realm representation has about a hundred scalar settings; those the server does not
 * query by are kept in the `settings` JSON column (see docs/adr/0003-realm-settings-json.md).
 */
export class RealmModel extends Model {
  declare id: string;
  declare name: string;
  declare enabled: boolean;
  declare settings: Record<string, unknown>;
  declare createdAt: number;
}

export function initRealm(sequelize: Sequelize) {
  RealmModel.init(
    {
      id: idColumn(),
      name: { ...str(255, false), unique: 'uq_realm_name' },
      enabled: bool(false),
      settings: jsonColumn('settings', {}),
      createdAt: { type: DataTypes.BIGINT, allowNull: false, field: 'created_at' },
    },
    { sequelize, tableName: 'realm', underscored: true, timestamps: false },
  );
}

/** Realm default groups (`defaultGroups`): joined by every user created through the API. */
export class RealmDefaultGroupModel extends Model {
  declare realmId: string;
  declare groupId: string;
}

export function initRealmDefaultGroup(sequelize: Sequelize) {
  RealmDefaultGroupModel.init(
    {
      realmId: { type: DataTypes.STRING(36), primaryKey: true },
      groupId: { type: DataTypes.STRING(36), primaryKey: true },
    },
    { sequelize, tableName: 'realm_default_group', underscored: true, timestamps: false },
  );
}
