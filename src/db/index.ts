import { guardLengths } from './lengths';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Options, QueryTypes, type QueryInterface, Sequelize, Transaction } from 'sequelize';
import type * as UmzugModule from 'umzug';
import { checkCollation } from './preflight';
import { getLogger } from '../logging';
import { watchStatements } from './write-watch';
import { als, inTransaction } from './cls';
import { fastModelReads } from './fast-select';
import { fastRowBuilds } from './model-build';
import { fastAttributeReads } from './model-get';
import { isRetryable } from './errors';
import {
  ClientModel,
  ClientScopeClientModel,
  ClientScopeModel,
  ProtocolMapperModel,
  RealmDefaultClientScopeModel,
  ScopeMappingModel,
  initClient,
  initClientScope,
  initProtocolMapper,
  initScopeLinks,
  initScopeMapping,
} from './models/client';
import {
  ComponentModel,
  RequiredActionModel,
  UserSessionModel,
  initComponent,
  initRequiredAction,
  initUserSession,
} from './models/component';
import { AuthExecutionModel, AuthFlowModel, AuthenticatorConfigModel, initAuthentication } from './models/authentication';
import { FederatedIdentityModel, UserConsentClientScopeModel, UserConsentModel, initConsents } from './models/consent';
import { IdentityProviderModel, IdpMapperModel, initIdentityProviders } from './models/identity-provider';
import {
  AuthzAssociatedPolicyModel,
  AuthzPolicyModel,
  AuthzResourceModel,
  AuthzResourcePolicyModel,
  AuthzResourceScopeModel,
  AuthzScopeModel,
  AuthzScopePolicyModel,
  ResourceServerModel,
  initAuthorization,
} from './models/authorization';
import { RealmLocalizationModel, initRealmLocalization } from './models/localization';
import { AuthCodeModel, AuthSessionModel, initLogin } from './models/login';
import {
  OrganizationAttributeModel,
  OrganizationDomainModel,
  OrganizationInvitationModel,
  OrganizationMemberModel,
  OrganizationModel,
  initOrganizations,
} from './models/organization';
import { ClientInitialAccessModel, initClientInitialAccess } from './models/client-initial-access';
import { AdminEventModel, EventModel, initEvents } from './models/event';
import { ClientSessionModel, LoginFailureModel, initClientSession, initLoginFailure } from './models/session';
import { GroupModel, GroupRoleMappingModel, initGroup, initGroupRoleMapping } from './models/group';
import { RealmDefaultGroupModel, RealmModel, initRealm, initRealmDefaultGroup } from './models/realm';
import { CompositeRoleModel, RoleModel, initCompositeRole, initRole } from './models/role';
import { dbStatements } from '../metrics';
import {
  CredentialModel,
  UserAttributeModel,
  UserGroupMembershipModel,
  UserModel,
  UserRequiredActionModel,
  UserRoleMappingModel,
  initUser,
  initUserLinks,
  initUserParts,
} from './models/user';

export const models = {
  Realm: RealmModel,
  RealmDefaultGroup: RealmDefaultGroupModel,
  Client: ClientModel,
  ClientScope: ClientScopeModel,
  RealmDefaultClientScope: RealmDefaultClientScopeModel,
  ClientScopeClient: ClientScopeClientModel,
  ProtocolMapper: ProtocolMapperModel,
  ScopeMapping: ScopeMappingModel,
  Role: RoleModel,
  CompositeRole: CompositeRoleModel,
  User: UserModel,
  UserAttribute: UserAttributeModel,
  UserRequiredAction: UserRequiredActionModel,
  Credential: CredentialModel,
  UserRoleMapping: UserRoleMappingModel,
  UserGroupMembership: UserGroupMembershipModel,
  Group: GroupModel,
  GroupRoleMapping: GroupRoleMappingModel,
  Component: ComponentModel,
  RequiredAction: RequiredActionModel,
  UserSession: UserSessionModel,
  ClientSession: ClientSessionModel,
  LoginFailure: LoginFailureModel,
  Event: EventModel,
  AdminEvent: AdminEventModel,
  ClientInitialAccess: ClientInitialAccessModel,
  AuthFlow: AuthFlowModel,
  AuthExecution: AuthExecutionModel,
  AuthenticatorConfig: AuthenticatorConfigModel,
  UserConsent: UserConsentModel,
  UserConsentClientScope: UserConsentClientScopeModel,
  FederatedIdentity: FederatedIdentityModel,
  IdentityProvider: IdentityProviderModel,
  RealmLocalization: RealmLocalizationModel,
  IdpMapper: IdpMapperModel,
  ResourceServer: ResourceServerModel,
  AuthzResource: AuthzResourceModel,
  AuthzScope: AuthzScopeModel,
  AuthzPolicy: AuthzPolicyModel,
  AuthzResourceScope: AuthzResourceScopeModel,
  AuthzResourcePolicy: AuthzResourcePolicyModel,
  AuthzScopePolicy: AuthzScopePolicyModel,
  AuthzAssociatedPolicy: AuthzAssociatedPolicyModel,
  AuthSession: AuthSessionModel,
  AuthCode: AuthCodeModel,
  Organization: OrganizationModel,
  OrganizationDomain: OrganizationDomainModel,
  OrganizationAttribute: OrganizationAttributeModel,
  OrganizationMember: OrganizationMemberModel,
  OrganizationInvitation: OrganizationInvitationModel,
};
export type Models = typeof models;

interface Migration {
  name: string;
  up(arg: { context: QueryInterface }): Promise<void>;
  down(arg: { context: QueryInterface }): Promise<void>;
}

/**
 * The migrations, in name order: every `NNNN-title.ts` (or compiled `.js`) file of ./migrations.
 * Checked in; run at start. A new migration is a new file with the next number.
 */
function loadMigrations(): Migration[] {
  return migrationFiles().map(({ name, path }) => ({ name, ...(require(path) as Omit<Migration, 'name'>) }));
}

/** The migration files, in name order, with the name each is recorded under (the file name without extension). */
function migrationFiles(): Array<{ name: string; path: string }> {
  const dir = join(__dirname, 'migrations');
  return readdirSync(dir)
    .filter((f) => /^\d{4}-[\w-]+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => ({ name: f.replace(/\.(ts|js)$/, ''), path: join(dir, f) }));
}

/**
 * True when every migration file is recorded as run (one SELECT): a start on an up-to-date database
 * then loads neither umzug nor the migration modules. Anything unexpected (no table yet) says no, and
 * umzug decides under the migration lock as before.
 */
async function upToDate(sequelize: Sequelize): Promise<boolean> {
  try {
    const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', { type: QueryTypes.SELECT });
    const done = new Set(rows.map((r) => r.name));
    return migrationFiles().every((m) => done.has(m.name));
  } catch {
    return false;
  }
}

export interface DbOptions {
  vendor: 'sqlite' | 'mysql' | 'mariadb';
  /** sqlite: a file path or ':memory:'; mysql: mysql://host:port/database */
  url?: string;
  /** Measure every statement's time for the metrics (idserver_db_statement_seconds). */
  statementMetrics?: boolean;
  username?: string;
  password?: string;
  poolMax?: number;
  /** SQLite: how long a statement waits for another connection's write lock before SQLITE_BUSY (default 10 s; tests shorten it). */
  busyTimeoutMs?: number;
}

export interface Db {
  sequelize: Sequelize;
  models: Models;
  vendor: DbOptions['vendor'];
  /** Runs `fn` in one transaction (serialised on SQLite, which has a single writer). */
  transaction<T>(fn: (t: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs database work nobody awaits (an amortised purge, a timer's batch): `close()` waits for it before
   * the pool closes, and once closing has begun new work is skipped. `work` handles its own failure.
   */
  background(work: () => Promise<unknown>): void;
  /** Waits for the background work still running (until `deadline`, epoch ms, if given), then closes the pool. */
  close(deadline?: number): Promise<void>;
}

const sqlLog = getLogger('idserver.db');

/**
 * Continuation-local transaction context on AsyncLocalStorage: every query issued inside
 * `db.transaction(fn)` joins the transaction without passing it by hand (Sequelize's CLS hook).
 */
export { inTransaction };

/** Serialises SQLite write transactions: SQLite has one writer, and Sequelize gives each transaction its own connection. */
function serialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}

export function createSequelize(opts: DbOptions, onSql?: (sql: string) => void): Sequelize {
  // SQL logging follows the level configured at start: when nobody listens, Sequelize is told not to
  // log at all (formatting and level checks cost about 0.15 ms per statement otherwise).
  const debug = sqlLog.isDebugEnabled();
  // Statement times for the metrics (option metrics-enabled): Sequelize measures them only when asked.
  const benchmark = opts.statementMetrics === true;
  const logging =
    onSql || debug || benchmark
      ? (sql: string, ms?: unknown) => {
          onSql?.(sql);
          if (debug) sqlLog.debug(sql);
          if (typeof ms === 'number') dbStatements.observe(ms / 1000);
        }
      : false;
  if (opts.vendor === 'sqlite') {
    const storage = opts.url && opts.url !== ':memory:' ? resolve(opts.url.replace(/^sqlite:/, '')) : ':memory:';
    if (storage !== ':memory:') mkdirSync(dirname(storage), { recursive: true });
    // foreignKeys: false stops Sequelize's own unawaited pragma; prepareSqliteConnections sets it, awaited.
    const s = new Sequelize({ dialect: 'sqlite', storage, logging, benchmark, foreignKeys: false } as Options);
    prepareSqliteConnections(s, opts.busyTimeoutMs ?? 10000, storage !== ':memory:');
    return s;
  }
  const url = new URL(opts.url ?? 'mysql://127.0.0.1:3306/idserver');
  return new Sequelize({
    dialect: 'mysql',
    host: url.hostname,
    port: Number(url.port || 3306),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'idserver',
    username: opts.username ?? (decodeURIComponent(url.username) || 'root'),
    password: opts.password ?? (decodeURIComponent(url.password) || undefined),
    logging,
    benchmark,
    pool: { max: opts.poolMax ?? 10, min: 0, acquire: 30000, idle: 10000 },
    // typeCast: mysql2's own conversions. Sequelize's default is a callback per column of every row, which
    // only DATETIME, DATE and GEOMETRY columns need (none here: test/db/model-build.test.ts): ~10 % of the
    // CPU of a 100-user page.
    dialectOptions: { charset: 'utf8mb4', supportBigNumbers: true, bigNumberStrings: false, typeCast: true },
    define: { charset: 'utf8mb4', collate: 'utf8mb4_bin' },
  });
}

interface SqliteConnection {
  uuid?: string;
  close(cb?: (e: Error | null) => void): void;
  configure(option: 'busyTimeout', value: number): void;
  run(sql: string, cb: (e: Error | null) => void): void;
  all(sql: string, ...args: unknown[]): unknown;
}

/**
 * Sequelize's SQLite dialect opens its connections itself (one shared for reads, one per transaction)
 * without running `afterConnect` hooks, so each connection is prepared here when first handed out:
 * WAL (readers never wait for the writer), a 10 s busy timeout, foreign keys enforced, and a cache of
 * `PRAGMA table_info`.
 * Sequelize runs that pragma before every model SELECT to learn column types; the schema only
 * changes in migrations, so once they have run (`cacheTableInfo` set by openDb) the answer is
 * reused instead of costing a second round trip per statement (ADR 16).
 */
function prepareSqliteConnections(s: Sequelize, busyTimeoutMs: number, onDisk: boolean): void {
  const cm = s.connectionManager as unknown as {
    getConnection(o?: { uuid?: string }): Promise<SqliteConnection>;
    releaseConnection(c: SqliteConnection, force?: boolean): void;
    _onProcessExit(): Promise<void>;
    connections: Record<string, SqliteConnection>;
  };
  const getConnection = cm.getConnection.bind(cm);
  const releaseConnection = cm.releaseConnection.bind(cm);
  const onProcessExit = cm._onProcessExit.bind(cm);
  const prepared = new WeakSet<SqliteConnection>();
  const tableInfo = new Map<string, unknown>();
  const state = s as unknown as { cacheTableInfo?: boolean };
  const exec = (c: SqliteConnection, sql: string) => new Promise<void>((ok, fail) => c.run(sql, (e) => (e ? fail(e) : ok())));
  // Sequelize opens a connection for every transaction and closes it at the end: a file open, the
  // pragmas below and a parse of the whole schema (tables, indexes, triggers) on its first statement,
  // all inside the one write lock. A finished transaction's connection is kept for the next one instead
  // (transactions are serialised, so one or two spares are enough); it has committed or rolled back.
  const spare: SqliteConnection[] = [];
  cm.releaseConnection = (c, force) => {
    const uuid = c.uuid;
    if (!uuid || force || !onDisk || spare.length >= 2) return releaseConnection(c, force);
    delete cm.connections[uuid];
    spare.push(c);
  };
  cm._onProcessExit = async () => {
    await Promise.all(spare.splice(0).map((c) => new Promise<void>((ok) => c.close(() => ok()))));
    return onProcessExit();
  };
  cm.getConnection = async (o) => {
    const reuse = o?.uuid && o.uuid !== 'default' && onDisk ? spare.pop() : undefined;
    if (reuse && o?.uuid) {
      cm.connections[o.uuid] = reuse;
      return reuse;
    }
    const c = await getConnection(o);
    if (prepared.has(c)) return c;
    prepared.add(c);
    c.configure('busyTimeout', busyTimeoutMs);
    await exec(c, 'PRAGMA journal_mode=WAL');
    // SQLite enforces foreign keys (ADR 21) only on connections that ask for it.
    await exec(c, 'PRAGMA foreign_keys=ON');
    const all = c.all.bind(c);
    c.all = (sql: string, ...args: unknown[]) => {
      const cb = args[args.length - 1] as (e: Error | null, rows?: unknown) => void;
      if (!state.cacheTableInfo || !sql.startsWith('PRAGMA table_info(') || typeof cb !== 'function') return all(sql, ...args);
      const hit = tableInfo.get(sql);
      if (hit) {
        process.nextTick(cb, null, hit);
        return c;
      }
      return all(sql, ...args.slice(0, -1), (e: Error | null, rows?: unknown) => {
        if (!e) tableInfo.set(sql, rows);
        cb(e, rows);
      });
    };
    return c;
  };
}

export function initModels(sequelize: Sequelize): Models {
  for (const init of [
    initRealm,
    initRealmDefaultGroup,
    initClient,
    initClientScope,
    initScopeLinks,
    initProtocolMapper,
    initScopeMapping,
    initRole,
    initCompositeRole,
    initUser,
    initUserParts,
    initUserLinks,
    initGroup,
    initGroupRoleMapping,
    initComponent,
    initRequiredAction,
    initUserSession,
    initClientSession,
    initLoginFailure,
    initEvents,
    initClientInitialAccess,
    initConsents,
    initAuthentication,
    initIdentityProviders,
    initRealmLocalization,
    initAuthorization,
    initLogin,
    initOrganizations,
  ]) {
    init(sequelize);
  }
  guardLengths(sequelize);
  return models;
}

/** Runs the pending migrations (up to and including `to`, when given: tests build older schemas). */
export async function migrate(sequelize: Sequelize, to?: string): Promise<void> {
  if (to === undefined && (await upToDate(sequelize))) return;
  const { SequelizeStorage, Umzug } = require('umzug') as typeof UmzugModule;
  const umzug = new Umzug({
    migrations: loadMigrations().map((m) => ({
      name: m.name,
      up: () => m.up({ context: sequelize.getQueryInterface() }),
      down: () => m.down({ context: sequelize.getQueryInterface() }),
    })),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  await underMigrationLock(sequelize, () => umzug.up(to ? { to } : undefined));
}

/**
 * Nodes starting together on one MariaDB/MySQL database migrate one at a time: a named lock
 * (`GET_LOCK`, held by a connection pinned for the purpose) makes the second wait, then find nothing
 * pending. SQLite is one process's file; its migrations need no lock.
 */
async function underMigrationLock<T>(sequelize: Sequelize, run: () => Promise<T>): Promise<T> {
  if (sequelize.getDialect() !== 'mysql' && sequelize.getDialect() !== 'mariadb') return run();
  const name = `idserver_migrations_${sequelize.getDatabaseName()}`.slice(0, 64);
  const conn = (await sequelize.connectionManager.getConnection({ type: 'write' })) as unknown as {
    query: (sql: string, values: unknown[], cb: (err: Error | null, rows: Array<Record<string, unknown>>) => void) => void;
  };
  const query = (sql: string) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => conn.query(sql, [name], (e, rows) => (e ? reject(e) : resolve(rows))));
  try {
    const [row] = await query('SELECT GET_LOCK(?, 300) AS locked');
    if (Number(row?.locked) !== 1) throw new Error('Another node held the migration lock for 300 s');
    try {
      return await run();
    } finally {
      await query('SELECT RELEASE_LOCK(?)');
    }
  } finally {
    sequelize.connectionManager.releaseConnection(conn as never);
  }
}

/** Opens the database, runs pending migrations and returns the handle. */
/** Attempts of an outermost transaction that lost a lock race (deadlock, lock wait timeout, SQLite busy). */
export const TRANSACTION_ATTEMPTS = 6;

/**
 * The one retry on deadlock: an outermost transaction that lost a lock race is rolled back by the
 * database and run again as a whole, after a randomised pause that doubles with each attempt (at most
 * about 0.6 s in all), up to TRANSACTION_ATTEMPTS times.
 */
async function retryingLockRaces<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryable(e)) throw e;
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 10 * 2 ** attempt)));
    }
  }
}

export async function openDb(opts: DbOptions, onSql?: (sql: string) => void): Promise<Db> {
  const sequelize = createSequelize(opts, onSql);
  await sequelize.authenticate();
  try {
    await checkCollation(sequelize);
  } catch (e) {
    await sequelize.close();
    throw e;
  }
  initModels(sequelize);
  watchStatements(sequelize);
  await migrate(sequelize);
  fastModelReads(sequelize);
  fastAttributeReads();
  fastRowBuilds();
  (sequelize as unknown as { cacheTableInfo?: boolean }).cacheTableInfo = true;
  const running = new Set<Promise<unknown>>();
  let closing = false;
  const queue = opts.vendor === 'sqlite' ? serialQueue() : <T>(job: () => Promise<T>) => job();
  // SQLite: take the write lock at BEGIN (waiting out the busy timeout for a writer outside the queue)
  // rather than at the first write, where a snapshot older than that writer's commit fails at once.
  const txOptions = opts.vendor === 'sqlite' ? { type: Transaction.TYPES.IMMEDIATE } : {};
  return {
    sequelize,
    models,
    vendor: opts.vendor,
    transaction: (fn) => {
      const current = als.getStore()?.get('transaction') as Transaction | undefined;
      if (current) return fn(current); // nested: join the outer transaction
      return retryingLockRaces(() => queue(() => sequelize.transaction(txOptions, (t) => fn(t))));
    },
    background: (work) => {
      if (closing) return;
      const p: Promise<unknown> = work()
        .catch(() => undefined)
        .finally(() => running.delete(p));
      running.add(p);
    },
    close: async (deadline) => {
      closing = true;
      while (running.size) {
        const wait = deadline === undefined ? undefined : deadline - Date.now();
        if (wait !== undefined && wait <= 0) {
          sqlLog.warn(`Closing the database pool with ${running.size} background job(s) still running`);
          break;
        }
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(running), new Promise((r) => (timer = setTimeout(r, wait ?? 2 ** 31 - 1)))]);
        clearTimeout(timer);
      }
      await sequelize.close();
    },
  };
}
