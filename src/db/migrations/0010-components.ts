import type { QueryInterface } from 'sequelize';

/** Component lookups by parent (`GET /components?parent=`, sub-components of an LDAP provider, cascading deletes). */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('component', ['parent_id', 'provider_type'], { name: 'ix_component_parent_type' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('component', 'ix_component_parent_type');
}
