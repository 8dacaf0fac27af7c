import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Cache versions (ADR 23): a counter per realm and per user that the database itself raises, in the
 * writing transaction, whenever something a node may cache about them changes. A node keeps what it
 * caches stamped with the counter it read; the admin request's bearer statement reads the counters of
 * the caller's realm, the caller and the target realm, so a write committed through any node is seen
 * by the next request on every node, whatever code path (service, import, bulk SQL) wrote it.
 *
 * The counters live in tables of their own rather than in `realm` and `user_entity`: inserting a
 * child row takes a shared lock on its parent row (foreign keys), and raising a counter on that same
 * parent would upgrade it to an exclusive lock: two concurrent inserts would deadlock on MariaDB.
 *
 * Triggers, not service code, raise them, so no writer can forget. On MariaDB a foreign-key cascade
 * does not fire triggers: every cascade starts from a parent whose own trigger raises the counter
 * (a role's delete removes its mappings; the role trigger raises the realm's version).
 */
export const CACHE_VERSION_TABLES = ['realm_cache_version', 'user_cache_version'] as const;

/** What raises the realm counter: table, events, and the realm id of the row (`ROW` is NEW or OLD). */
const REALM_SOURCES: Array<{ table: string; events: Array<'INSERT' | 'UPDATE' | 'DELETE'>; realmOf: (row: string) => string }> = [
  { table: 'client', events: ['INSERT', 'UPDATE', 'DELETE'], realmOf: (r) => `${r}.realm_id` },
  { table: 'role', events: ['INSERT', 'UPDATE', 'DELETE'], realmOf: (r) => `${r}.realm_id` },
  {
    table: 'composite_role',
    events: ['INSERT', 'DELETE'],
    realmOf: (r) => `(SELECT realm_id FROM role WHERE id = ${r}.composite_id)`,
  },
  { table: 'keycloak_group', events: ['UPDATE', 'DELETE'], realmOf: (r) => `${r}.realm_id` },
  {
    table: 'group_role_mapping',
    events: ['INSERT', 'DELETE'],
    realmOf: (r) => `(SELECT realm_id FROM keycloak_group WHERE id = ${r}.group_id)`,
  },
  { table: 'component', events: ['INSERT', 'UPDATE', 'DELETE'], realmOf: (r) => `${r}.realm_id` },
  { table: 'identity_provider', events: ['INSERT', 'UPDATE', 'DELETE'], realmOf: (r) => `${r}.realm_id` },
];

/** What raises a user's counter: its direct role mappings and its group memberships. */
const USER_SOURCES = ['user_role_mapping', 'user_group_membership'];

const rowOf = (event: string) => (event === 'DELETE' ? 'OLD' : 'NEW');
const short = { INSERT: 'ai', UPDATE: 'au', DELETE: 'ad' } as const;

/** Every trigger as [name, table, event, body statement]. */
export function cacheVersionTriggers(): Array<{ name: string; table: string; event: string; body: string }> {
  const out: Array<{ name: string; table: string; event: string; body: string }> = [];
  out.push({
    name: 'trg_realm_cv_ai',
    table: 'realm',
    event: 'INSERT',
    body: 'INSERT INTO realm_cache_version (realm_id, version) VALUES (NEW.id, 0)',
  });
  out.push({
    name: 'trg_realm_cv_au',
    table: 'realm',
    event: 'UPDATE',
    body: 'UPDATE realm_cache_version SET version = version + 1 WHERE realm_id = NEW.id',
  });
  for (const s of REALM_SOURCES) {
    for (const e of s.events) {
      out.push({
        name: `trg_${s.table}_cv_${short[e]}`,
        table: s.table,
        event: e,
        body: `UPDATE realm_cache_version SET version = version + 1 WHERE realm_id = ${s.realmOf(rowOf(e))}`,
      });
    }
  }
  out.push({
    name: 'trg_user_cv_ai',
    table: 'user_entity',
    event: 'INSERT',
    body: 'INSERT INTO user_cache_version (user_id, version) VALUES (NEW.id, 0)',
  });
  for (const table of USER_SOURCES) {
    for (const e of ['INSERT', 'DELETE'] as const) {
      out.push({
        name: `trg_${table}_cv_${short[e]}`,
        table,
        event: e,
        body: `UPDATE user_cache_version SET version = version + 1 WHERE user_id = ${rowOf(e)}.user_id`,
      });
    }
  }
  return out;
}

/** The CREATE TRIGGER statement of one trigger in the dialect's syntax. */
export function createTriggerSql(dialect: string, t: { name: string; table: string; event: string; body: string }): string {
  return dialect === 'sqlite'
    ? `CREATE TRIGGER ${t.name} AFTER ${t.event} ON ${t.table} FOR EACH ROW BEGIN ${t.body}; END`
    : `CREATE TRIGGER ${t.name} AFTER ${t.event} ON ${t.table} FOR EACH ROW ${t.body}`;
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  const dialect = sequelize.getDialect();
  const counter = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };
  await qi.createTable('realm_cache_version', {
    realm_id: {
      type: DataTypes.STRING(36),
      primaryKey: true,
      allowNull: false,
      references: { model: 'realm', key: 'id' },
      onDelete: 'CASCADE',
    },
    version: counter,
  });
  await qi.createTable('user_cache_version', {
    user_id: {
      type: DataTypes.STRING(36),
      primaryKey: true,
      allowNull: false,
      references: { model: 'user_entity', key: 'id' },
      onDelete: 'CASCADE',
    },
    version: counter,
  });
  await sequelize.query('INSERT INTO realm_cache_version (realm_id, version) SELECT id, 0 FROM realm');
  await sequelize.query('INSERT INTO user_cache_version (user_id, version) SELECT id, 0 FROM user_entity');
  for (const t of cacheVersionTriggers()) await sequelize.query(createTriggerSql(dialect, t));
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of cacheVersionTriggers()) await qi.sequelize.query(`DROP TRIGGER IF EXISTS ${t.name}`);
  for (const table of CACHE_VERSION_TABLES) await qi.dropTable(table);
}
