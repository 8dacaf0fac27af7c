import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * The rows an LDAP provider's hardcoded-ldap-role-mapper or hardcoded-ldap-group-mapper gives its
 * imported users carry the mapper's id (`mapper_id`, NULL for a mapping an admin made): creating the
 * mapper gives the role or group to every user the provider has imported, and deleting it (or
 * pointing it at another role or group) takes back exactly those rows, never an admin's own grant
 * (Keycloak's mapper proxies add the role or group on every read; ADR 47).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of ['user_role_mapping', 'user_group_membership']) {
    await qi.addColumn(table, 'mapper_id', { type: DataTypes.STRING(36), allowNull: true });
    await qi.addIndex(table, ['mapper_id'], { name: `ix_${table}_mapper` });
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of ['user_role_mapping', 'user_group_membership']) {
    await qi.removeIndex(table, `ix_${table}_mapper`);
    await qi.removeColumn(table, 'mapper_id');
  }
}
