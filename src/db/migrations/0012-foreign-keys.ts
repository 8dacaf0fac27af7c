import { type QueryInterface, QueryTypes, type Sequelize } from 'sequelize';
import { getLogger } from '../../logging';
import { sqliteRebuild as rebuildTables } from './sqlite-rebuild';

/**
 * Foreign keys on every real reference between rows (ADR 21), so that a delete racing an insert can
 * never leave an orphan: the database refuses the child whose parent is gone, and removes (or
 * unlinks) the children of a deleted parent itself. Existing databases may already hold orphans;
 * they are removed first, parents before children, so the constraints can be added.
 *
 * Not constrained, because the column is not always a row id: keycloak_group.parent_id (' ' for
 * top-level groups, ADR 5), component.parent_id (a realm or a component), role.container_id and
 * scope_mapping.owner_id (realm or client, client or client scope), user_session.client_id (may be
 * empty for impersonation), federated_identity.identity_provider (an alias; Keycloak imports links
 * to providers that do not exist), user_entity.federation_link (free text), and the event tables
 * (a log of values that outlives what it names, as in Keycloak).
 */
export interface ForeignKey {
  table: string;
  column: string;
  parent: string;
  onDelete: 'CASCADE' | 'SET NULL';
}

const fk = (table: string, column: string, parent: string, onDelete: ForeignKey['onDelete'] = 'CASCADE'): ForeignKey => ({
  table,
  column,
  parent,
  onDelete,
});

/** Parents before children: removing a table's orphans may orphan rows of tables further down. */
export const FOREIGN_KEYS: ForeignKey[] = [
  fk('realm_localization', 'realm_id', 'realm'),
  fk('client_initial_access', 'realm_id', 'realm'),
  fk('required_action_provider', 'realm_id', 'realm'),
  fk('component', 'realm_id', 'realm'),
  fk('client', 'realm_id', 'realm'),
  fk('client_scope', 'realm_id', 'realm'),
  fk('role', 'realm_id', 'realm'),
  fk('role', 'client_id', 'client'),
  fk('user_entity', 'realm_id', 'realm'),
  fk('user_entity', 'service_account_client_link', 'client'),
  fk('keycloak_group', 'realm_id', 'realm'),
  fk('realm_default_group', 'realm_id', 'realm'),
  fk('realm_default_group', 'group_id', 'keycloak_group'),
  fk('realm_default_client_scope', 'realm_id', 'realm'),
  fk('realm_default_client_scope', 'scope_id', 'client_scope'),
  fk('client_scope_client', 'client_id', 'client'),
  fk('client_scope_client', 'scope_id', 'client_scope'),
  fk('protocol_mapper', 'client_id', 'client'),
  fk('protocol_mapper', 'client_scope_id', 'client_scope'),
  fk('scope_mapping', 'role_id', 'role'),
  fk('composite_role', 'composite_id', 'role'),
  fk('composite_role', 'child_id', 'role'),
  fk('user_attribute', 'user_id', 'user_entity'),
  fk('user_required_action', 'user_id', 'user_entity'),
  fk('credential', 'user_id', 'user_entity'),
  fk('user_role_mapping', 'user_id', 'user_entity'),
  fk('user_role_mapping', 'role_id', 'role'),
  fk('user_group_membership', 'user_id', 'user_entity'),
  fk('user_group_membership', 'group_id', 'keycloak_group'),
  fk('group_role_mapping', 'group_id', 'keycloak_group'),
  fk('group_role_mapping', 'role_id', 'role'),
  fk('user_session', 'realm_id', 'realm'),
  fk('user_session', 'user_id', 'user_entity'),
  fk('client_session', 'user_session_id', 'user_session'),
  fk('client_session', 'client_id', 'client'),
  fk('client_session', 'realm_id', 'realm'),
  fk('login_failure', 'user_id', 'user_entity'),
  fk('login_failure', 'realm_id', 'realm'),
  fk('user_consent', 'user_id', 'user_entity'),
  fk('user_consent', 'client_id', 'client'),
  fk('user_consent_client_scope', 'user_consent_id', 'user_consent'),
  fk('user_consent_client_scope', 'scope_id', 'client_scope'),
  fk('federated_identity', 'user_id', 'user_entity'),
  fk('federated_identity', 'realm_id', 'realm'),
  fk('identity_provider', 'realm_id', 'realm'),
  fk('idp_mapper', 'realm_id', 'realm'),
  fk('idp_mapper', 'identity_provider_id', 'identity_provider'),
  fk('authentication_flow', 'realm_id', 'realm'),
  fk('authenticator_config', 'realm_id', 'realm'),
  fk('authentication_execution', 'realm_id', 'realm'),
  fk('authentication_execution', 'parent_flow_id', 'authentication_flow'),
  fk('authentication_execution', 'sub_flow_id', 'authentication_flow'),
  // Keycloak keeps an execution whose config is deleted; it just has no config any more.
  fk('authentication_execution', 'config_id', 'authenticator_config', 'SET NULL'),
];

/** Primary key column of each parent table. */
const PARENT_KEY: Record<string, string> = { identity_provider: 'internal_id' };
const keyOf = (parent: string) => PARENT_KEY[parent] ?? 'id';

export const constraintName = (f: ForeignKey) => `fk_${f.table}_${f.column}`;

/**
 * Referencing columns no index starts with: without one, every delete of a parent row scans the
 * child table on SQLite (MariaDB would create such an index itself, under the constraint's name).
 */
const NEW_INDEXES: Array<[string, string, string]> = [
  ['realm_default_group', 'group_id', 'ix_realm_default_group_group'],
  ['role', 'client_id', 'ix_role_client'],
  ['authentication_execution', 'sub_flow_id', 'ix_auth_execution_sub_flow'],
];

const log = getLogger('idserver.db.migrations');

/** Removes (or unlinks, for SET NULL) rows whose parent is missing; returns how many per table.column. */
export async function removeOrphans(sequelize: Sequelize): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const f of FOREIGN_KEYS) {
    const missing = `${f.table}.${f.column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${f.parent} p WHERE p.${keyOf(f.parent)} = ${f.table}.${f.column})`;
    const sql =
      f.onDelete === 'SET NULL' ? `UPDATE ${f.table} SET ${f.column} = NULL WHERE ${missing}` : `DELETE FROM ${f.table} WHERE ${missing}`;
    const n = await affected(sequelize, sql);
    if (n) removed[`${f.table}.${f.column}`] = n;
  }
  return removed;
}

async function affected(sequelize: Sequelize, sql: string): Promise<number> {
  if (sequelize.getDialect() === 'sqlite') {
    // The sqlite dialect reports no change count for raw statements: ask the connection.
    await sequelize.query(sql);
    const [row] = await sequelize.query<{ n: number }>('SELECT changes() AS n', { type: QueryTypes.SELECT });
    return Number(row.n);
  }
  const [result] = (await sequelize.query(sql)) as unknown as [{ affectedRows?: number }];
  return Number(result?.affectedRows ?? 0);
}

const clause = (f: ForeignKey) =>
  `CONSTRAINT \`${constraintName(f)}\` FOREIGN KEY (\`${f.column}\`) REFERENCES \`${f.parent}\` (\`${keyOf(f.parent)}\`) ON DELETE ${f.onDelete}`;

const tablesOf = () => [...new Set(FOREIGN_KEYS.map((f) => f.table))];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  const started = Date.now();
  for (const [table, column, name] of NEW_INDEXES) await qi.addIndex(table, [column], { name });
  if (sequelize.getDialect() === 'sqlite') await sqliteRebuild(sequelize, (t, sql) => withForeignKeys(t, sql), true);
  else {
    const removed = await removeOrphans(sequelize);
    if (Object.keys(removed).length) log.warn(`Removed rows whose parent is missing: ${JSON.stringify(removed)}`);
    // One ALTER per table: InnoDB copies a table once for all of its constraints.
    for (const table of tablesOf()) {
      const adds = FOREIGN_KEYS.filter((f) => f.table === table).map((f) => `ADD ${clause(f)}`);
      await sequelize.query(`ALTER TABLE \`${table}\` ${adds.join(', ')}`);
    }
  }
  log.info(`Foreign keys added in ${Date.now() - started} ms`);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  if (sequelize.getDialect() === 'sqlite') await sqliteRebuild(sequelize, (_t, sql) => withoutForeignKeys(sql), false);
  else {
    for (const table of tablesOf()) {
      const drops = FOREIGN_KEYS.filter((f) => f.table === table).map((f) => `DROP FOREIGN KEY \`${constraintName(f)}\``);
      await sequelize.query(`ALTER TABLE \`${table}\` ${drops.join(', ')}`);
    }
  }
  for (const [table, , name] of NEW_INDEXES) await qi.removeIndex(table, name);
}

/** The CREATE TABLE statement with this table's constraints appended to its column list. */
function withForeignKeys(table: string, sql: string): string {
  const close = sql.lastIndexOf(')');
  const added = FOREIGN_KEYS.filter((f) => f.table === table).map(clause);
  return `${sql.slice(0, close)}, ${added.join(', ')}${sql.slice(close)}`;
}

const withoutForeignKeys = (sql: string) =>
  sql.replace(/, CONSTRAINT `fk_\w+` FOREIGN KEY \(`\w+`\) REFERENCES `\w+` \(`\w+`\) ON DELETE [A-Z ]+?(?=[,)])/g, '');

/**
 * SQLite cannot add a constraint to a table: each table is made again with the new definition
 * (sqlite-rebuild.ts: create, copy, drop, rename, indexes again, foreign keys off meanwhile, one
 * transaction, `PRAGMA foreign_key_check` clean before it commits), orphans removed first when asked.
 */
async function sqliteRebuild(sequelize: Sequelize, define: (table: string, sql: string) => string, cleanOrphans: boolean): Promise<void> {
  await rebuildTables(sequelize, tablesOf(), define, async () => {
    if (!cleanOrphans) return;
    const removed = await removeOrphans(sequelize);
    if (Object.keys(removed).length) log.warn(`Removed rows whose parent is missing: ${JSON.stringify(removed)}`);
  });
}
