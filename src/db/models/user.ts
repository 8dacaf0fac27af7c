import { DataTypes, Model, type Sequelize } from 'sequelize';
import { bool, idColumn, ref, str } from './common';

/**
 * A user. Username and email are stored lower-case. `emailConstraint` is the email when the realm
 * forbids duplicate emails and the user id otherwise, so a unique index enforces the realm's rule.
 */
export class UserModel extends Model {
  declare id: string;
  declare realmId: string;
  declare username: string;
  declare email: string | null;
  declare emailConstraint: string;
  declare firstName: string | null;
  declare lastName: string | null;
  declare enabled: boolean;
  declare emailVerified: boolean;
  declare createdTimestamp: number;
  declare serviceAccountClientLink: string | null;
  declare federationLink: string | null;
  declare notBefore: number;
}

export function initUser(sequelize: Sequelize) {
  UserModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      username: str(255, false),
      email: str(255),
      emailConstraint: str(255, false),
      firstName: str(255),
      lastName: str(255),
      enabled: bool(false),
      emailVerified: bool(false),
      createdTimestamp: { type: DataTypes.BIGINT, allowNull: false },
      serviceAccountClientLink: ref(true),
      federationLink: str(255),
      notBefore: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    },
    {
      sequelize,
      tableName: 'user_entity',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'uq_user_realm_username', unique: true, fields: ['realm_id', 'username'] },
        { name: 'uq_user_realm_email_constraint', unique: true, fields: ['realm_id', 'email_constraint'] },
        { name: 'ix_user_realm_email', fields: ['realm_id', 'email'] },
        { name: 'ix_user_service_account', fields: ['service_account_client_link'] },
      ],
    },
  );
}

/** One value of a user attribute (multi-valued attributes have several rows). */
export class UserAttributeModel extends Model {
  declare id: string;
  declare userId: string;
  declare name: string;
  declare value: string;
}

/** A required action pending for a user. */
export class UserRequiredActionModel extends Model {
  declare userId: string;
  declare requiredAction: string;
}

/** A credential (password, otp ...). Secret data never leaves the service layer. */
export class CredentialModel extends Model {
  declare id: string;
  declare userId: string;
  declare type: string;
  declare userLabel: string | null;
  declare secretData: string;
  declare credentialData: string;
  declare priority: number;
  declare createdDate: number;
}

export function initUserParts(sequelize: Sequelize) {
  UserAttributeModel.init(
    {
      id: idColumn(),
      userId: ref(),
      name: str(255, false),
      value: { type: DataTypes.TEXT, allowNull: true },
    },
    {
      sequelize,
      tableName: 'user_attribute',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_user_attribute_user', fields: ['user_id'] },
        { name: 'ix_user_attribute_name', fields: ['name'] },
      ],
    },
  );
  UserRequiredActionModel.init(
    {
      userId: { type: DataTypes.STRING(36), primaryKey: true },
      requiredAction: { type: DataTypes.STRING(255), primaryKey: true },
    },
    { sequelize, tableName: 'user_required_action', underscored: true, timestamps: false },
  );
  CredentialModel.init(
    {
      id: idColumn(),
      userId: ref(),
      type: str(255, false),
      userLabel: str(255),
      secretData: { type: DataTypes.TEXT, allowNull: false },
      credentialData: { type: DataTypes.TEXT, allowNull: false },
      priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 10 },
      createdDate: { type: DataTypes.BIGINT, allowNull: false },
    },
    {
      sequelize,
      tableName: 'credential',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_credential_user', fields: ['user_id'] }],
    },
  );
}

/** Direct realm/client role mapping of a user. */
export class UserRoleMappingModel extends Model {
  declare userId: string;
  declare roleId: string;
  /** The hardcoded-ldap-role-mapper that gave it (migration 0040), null for an admin's mapping. */
  declare mapperId: string | null;
}

/** Direct membership of a user in a group. */
export class UserGroupMembershipModel extends Model {
  declare userId: string;
  declare groupId: string;
  /** The hardcoded-ldap-group-mapper that gave it (migration 0040), null for an admin's or a sync's membership. */
  declare mapperId: string | null;
}

export function initUserLinks(sequelize: Sequelize) {
  UserRoleMappingModel.init(
    {
      userId: { type: DataTypes.STRING(36), primaryKey: true },
      roleId: { type: DataTypes.STRING(36), primaryKey: true },
      mapperId: { type: DataTypes.STRING(36), allowNull: true },
    },
    {
      sequelize,
      tableName: 'user_role_mapping',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_user_role_mapping_role', fields: ['role_id'] },
        { name: 'ix_user_role_mapping_mapper', fields: ['mapper_id'] },
      ],
    },
  );
  UserGroupMembershipModel.init(
    {
      userId: { type: DataTypes.STRING(36), primaryKey: true },
      groupId: { type: DataTypes.STRING(36), primaryKey: true },
      mapperId: { type: DataTypes.STRING(36), allowNull: true },
    },
    {
      sequelize,
      tableName: 'user_group_membership',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'ix_user_group_membership_group', fields: ['group_id'] },
        { name: 'ix_user_group_membership_mapper', fields: ['mapper_id'] },
      ],
    },
  );
}
