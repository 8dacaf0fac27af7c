import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * LDAP federation at scale (ADR 45):
 *
 * - `user_storage_sync_lease`: one row per user-storage provider while a node syncs it (the node's
 *   id and when its lease ends, in ms), so that of many nodes only one runs a provider's periodic or
 *   manual sync at a time (Keycloak's cluster-wide task lock); a node that dies frees it when the
 *   lease ends. Not a foreign key: a row of a deleted provider is harmless and is reused by nobody.
 * - `ix_user_attribute_name_value` (name, value): the look-up of local copies by LDAP_ID (and of
 *   users by any attribute value), which the name-only index left to a scan of every user's
 *   LDAP_ID row. MariaDB indexes a prefix of the TEXT value.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('user_storage_sync_lease', {
    component_id: { type: DataTypes.STRING(36), allowNull: false, primaryKey: true },
    holder: { type: DataTypes.STRING(100), allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  const prefix = qi.sequelize.getDialect() === 'sqlite' ? 'value' : 'value(191)';
  await qi.sequelize.query(`CREATE INDEX ix_user_attribute_name_value ON user_attribute (name, ${prefix})`);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('user_attribute', 'ix_user_attribute_name_value');
  await qi.dropTable('user_storage_sync_lease');
}
