import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Organization groups (Keycloak 26.7's organization groups, ADR 39): a group row may belong to an
 * organization (`organization_id`). A top-level group of an organization has the organization's id as
 * its `parent_id`, so the sibling-name unique index (realm_id, parent_id, name) makes names unique among
 * the organization's top-level groups and among the children of any group, apart from the realm's own
 * top-level groups (`parent_id` ' '). Not a foreign key: the rows go with their organization in the
 * service's delete transaction.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('keycloak_group', 'organization_id', { type: DataTypes.STRING(36), allowNull: true });
  await qi.addIndex('keycloak_group', ['organization_id'], { name: 'ix_group_organization' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('keycloak_group', 'ix_group_organization');
  await qi.removeColumn('keycloak_group', 'organization_id');
}
