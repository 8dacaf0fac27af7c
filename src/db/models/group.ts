import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, jsonColumn, ref, str } from './common';

/** Parent id used for top-level groups, so that the unique (realm, parent, name) index covers them too. */
export const TOP_LEVEL = ' ';

/** A group. Names are unique among siblings, enforced by a unique index. */
export class GroupModel extends Model {
  declare id: string;
  declare realmId: string;
  declare parentId: string;
  declare name: string;
  declare description: string | null;
  declare attributes: Record<string, string[]>;
  /** The organization of an organization group (migration 0029); null for the realm's own groups. */
  declare organizationId: string | null;
}

export function initGroup(sequelize: Sequelize) {
  GroupModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      parentId: { ...ref(), defaultValue: TOP_LEVEL },
      name: str(255, false),
      description: str(255),
      attributes: jsonColumn('attributes', {}),
      organizationId: { type: DataTypes.STRING(36), allowNull: true },
    },
    {
      sequelize,
      tableName: 'keycloak_group',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'uq_group_sibling_name', unique: true, fields: ['realm_id', 'parent_id', 'name'] },
        { name: 'ix_group_parent', fields: ['parent_id'] },
        { name: 'ix_group_organization', fields: ['organization_id'] },
      ],
    },
  );
}

/** Direct realm/client role mapping of a group. */
export class GroupRoleMappingModel extends Model {
  declare groupId: string;
  declare roleId: string;
}

export function initGroupRoleMapping(sequelize: Sequelize) {
  GroupRoleMappingModel.init(
    {
      groupId: { type: DataTypes.STRING(36), primaryKey: true },
      roleId: { type: DataTypes.STRING(36), primaryKey: true },
    },
    {
      sequelize,
      tableName: 'group_role_mapping',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_group_role_mapping_role', fields: ['role_id'] }],
    },
  );
}
