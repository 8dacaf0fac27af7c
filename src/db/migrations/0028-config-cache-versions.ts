import type { QueryInterface } from 'sequelize';
import { createTriggerSql } from './0013-cache-versions';

/**
 * More of a realm's configuration raises its cache version (ADR 23, migration 0013): client scopes,
 * the links between clients and scopes, protocol mappers, scope mappings, the realm's default client
 * scopes, and the authentication configuration (flows, executions, authenticator configs, required
 * actions). A node may then keep what it computes from them (a client's token configuration: its
 * scopes, mappers and scope roles) stamped with the realm's version, as it keeps realm rows and keys.
 *
 * On MariaDB a foreign-key cascade fires no trigger; each cascade here starts at a parent whose own
 * trigger raises the version (a client, a client scope, a role, a flow, the realm).
 */
const ownerRealm = (r: string, column: string) =>
  `COALESCE((SELECT realm_id FROM client WHERE id = ${r}.${column}), (SELECT realm_id FROM client_scope WHERE id = ${r}.${column}))`;

type Event = 'INSERT' | 'UPDATE' | 'DELETE';
const ALL: Event[] = ['INSERT', 'UPDATE', 'DELETE'];

export const CONFIG_SOURCES: Array<{ table: string; events: Event[]; realmOf: (row: string) => string }> = [
  { table: 'client_scope', events: ALL, realmOf: (r) => `${r}.realm_id` },
  { table: 'client_scope_client', events: ALL, realmOf: (r) => `(SELECT realm_id FROM client WHERE id = ${r}.client_id)` },
  {
    table: 'protocol_mapper',
    events: ALL,
    realmOf: (r) =>
      `COALESCE((SELECT realm_id FROM client WHERE id = ${r}.client_id), (SELECT realm_id FROM client_scope WHERE id = ${r}.client_scope_id))`,
  },
  { table: 'scope_mapping', events: ['INSERT', 'DELETE'], realmOf: (r) => ownerRealm(r, 'owner_id') },
  { table: 'realm_default_client_scope', events: ALL, realmOf: (r) => `${r}.realm_id` },
  { table: 'authentication_flow', events: ALL, realmOf: (r) => `${r}.realm_id` },
  { table: 'authentication_execution', events: ALL, realmOf: (r) => `${r}.realm_id` },
  { table: 'authenticator_config', events: ALL, realmOf: (r) => `${r}.realm_id` },
  { table: 'required_action_provider', events: ALL, realmOf: (r) => `${r}.realm_id` },
];

const short = { INSERT: 'ai', UPDATE: 'au', DELETE: 'ad' } as const;

/** The triggers of this migration as [name, table, event, body]. */
export function configCacheVersionTriggers(): Array<{ name: string; table: string; event: string; body: string }> {
  return CONFIG_SOURCES.flatMap((s) =>
    s.events.map((e) => ({
      name: `trg_${s.table}_cv_${short[e]}`,
      table: s.table,
      event: e,
      body: `UPDATE realm_cache_version SET version = version + 1 WHERE realm_id = ${s.realmOf(e === 'DELETE' ? 'OLD' : 'NEW')}`,
    })),
  );
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const dialect = qi.sequelize.getDialect();
  for (const t of configCacheVersionTriggers()) await qi.sequelize.query(createTriggerSql(dialect, t));
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of configCacheVersionTriggers()) await qi.sequelize.query(`DROP TRIGGER IF EXISTS ${t.name}`);
}
