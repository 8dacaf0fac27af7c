import type { QueryInterface } from 'sequelize';
import { createTriggerSql } from './0013-cache-versions';

/**
 * The realm's default groups raise its cache version (ADR 23, migrations 0013 and 0028): a transient
 * federated user (ADR 46) is a member of them (Keycloak's InMemoryUserAdapter#addDefaults), and a node
 * keeps what it resolved of them, with the hardcoded mappers' roles and groups, under the realm's version.
 * A group's delete removes its default-group row through the service (its own trigger raises the version too).
 */
export const DEFAULT_GROUP_TRIGGERS = (['INSERT', 'DELETE'] as const).map((event) => ({
  name: `trg_realm_default_group_cv_${event === 'INSERT' ? 'ai' : 'ad'}`,
  table: 'realm_default_group',
  event,
  body: `UPDATE realm_cache_version SET version = version + 1 WHERE realm_id = ${event === 'DELETE' ? 'OLD' : 'NEW'}.realm_id`,
}));

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const dialect = qi.sequelize.getDialect();
  for (const t of DEFAULT_GROUP_TRIGGERS) await qi.sequelize.query(createTriggerSql(dialect, t));
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of DEFAULT_GROUP_TRIGGERS) await qi.sequelize.query(`DROP TRIGGER IF EXISTS ${t.name}`);
}
