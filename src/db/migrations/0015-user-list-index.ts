import type { QueryInterface } from 'sequelize';

/**
 * GET /users without a filter lists the realm's users that are not service accounts, by username,
 * and a prefix search's username branch reads the same users (ADR 24). `ix_user_realm_list`
 * (realm, service-account link, username, id) serves both from the index alone: a page at offset
 * 500 k steps over index entries instead of reading 500 k rows to check their service-account link
 * (on MariaDB at a million users, with the default buffer pool, that read took ~15 s).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('user_entity', ['realm_id', 'service_account_client_link', 'username', 'id'], { name: 'ix_user_realm_list' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('user_entity', 'ix_user_realm_list');
}
