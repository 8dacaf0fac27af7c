import { DataTypes, Model, type Sequelize } from 'sequelize';
import { idColumn, jsonColumn, ref, str } from './common';

/**
 * A realm role (clientId null) or a client role. `containerId` is the realm id or the client id; the
 * unique index on (container_id, name) makes role names unique per container under concurrency.
 */
export class RoleModel extends Model {
  declare id: string;
  declare realmId: string;
  declare clientId: string | null;
  declare containerId: string;
  declare name: string;
  declare description: string | null;
  declare attributes: Record<string, string[]>;
}

export function initRole(sequelize: Sequelize) {
  RoleModel.init(
    {
      id: idColumn(),
      realmId: ref(),
      clientId: ref(true),
      containerId: ref(),
      name: str(255, false),
      description: str(255),
      attributes: jsonColumn('attributes', {}),
    },
    {
      sequelize,
      tableName: 'role',
      underscored: true,
      timestamps: false,
      indexes: [
        { name: 'uq_role_container_name', unique: true, fields: ['container_id', 'name'] },
        { name: 'ix_role_realm', fields: ['realm_id'] },
      ],
    },
  );
}

/** Composite role edge: `compositeId` includes `childId`. */
export class CompositeRoleModel extends Model {
  declare compositeId: string;
  declare childId: string;
}

export function initCompositeRole(sequelize: Sequelize) {
  CompositeRoleModel.init(
    {
      compositeId: { type: DataTypes.STRING(36), primaryKey: true },
      childId: { type: DataTypes.STRING(36), primaryKey: true },
    },
    {
      sequelize,
      tableName: 'composite_role',
      underscored: true,
      timestamps: false,
      indexes: [{ name: 'ix_composite_role_child', fields: ['child_id'] }],
    },
  );
}
