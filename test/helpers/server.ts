import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import type * as Mysql from 'mysql2/promise';
import request from 'supertest';
import { openDb, type Db, type DbOptions } from '../../src/db';
import { configureLogging } from '../../src/logging';
import { realmKeys } from '../../src/auth/realm-keys';
import { type AppOptions, createApp } from '../../src/server';
import { bootstrap } from '../../src/services/realms/realms';

/** A statement that may change the database (a false positive only costs a check). */
const MAY_WRITE = /\b(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|TRUNCATE|RENAME)\b/i;

/** mysql2, loaded only by the MariaDB pass. */
const mysql = () => require('mysql2/promise') as typeof Mysql;
/**
 * Test harness: a real database (a fresh SQLite file, or a fresh MariaDB/MySQL database per jest
 * worker when IDSERVER_TEST_DB_URL is set), migrated and bootstrapped with admin/admin, and the
 * real express app. Nothing is mocked.
 */
export const TEST_DB_URL = process.env.IDSERVER_TEST_DB_URL;
export const ADMIN = { username: 'admin', password: 'admin' };

export interface TestServer {
  app: Express;
  db: Db;
  /**
   * Counts SQL statements while `fn` runs. Realm signing keys are cached for a few seconds, so the
   * cache is filled first: a count must not depend on whether that cache happened to expire.
   */
  countSql<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; statements: string[] }>;
  /**
   * The statements that may write (INSERT, UPDATE, DELETE, REPLACE, DDL; a SELECT quoting such a word
   * counts too) issued while `fn` runs. None means the database is as it was: what a "refused write
   * changes nothing" check can skip its table dump on.
   */
  writesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; writes: string[] }>;
  /** An admin-cli access token for the master admin (or for the given user/realm). */
  token(opts?: { realm?: string; username?: string; password?: string; clientId?: string }): Promise<string>;
  /** supertest with a bearer token (master admin by default) on each request. */
  /**
   * Supertest with a caller's token (the master admin by default). `live`: on the listening server
   * instead of the app, for requests that must really run at once (supertest on the app opens a
   * server per request).
   */
  api(opts?: { realm?: string; username?: string; password?: string; clientId?: string; live?: boolean }): Promise<AdminApi>;
  /** Listens on an ephemeral port (for clients that need a URL, such as the admin client). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface AdminApi {
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  put(path: string, body?: unknown): request.Test;
  delete(path: string, body?: unknown): request.Test;
}

export async function freshDbOptions(): Promise<{ opts: DbOptions; cleanup: () => Promise<void> }> {
  if (TEST_DB_URL) {
    const url = new URL(TEST_DB_URL);
    const name = `idserver_t${process.env.JEST_WORKER_ID ?? '0'}_${process.pid}`;
    const conn = await mysql().createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username) || 'root',
      password: decodeURIComponent(url.password) || undefined,
    });
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await conn.end();
    url.pathname = `/${name}`;
    return {
      opts: { vendor: 'mariadb', url: url.toString(), poolMax: 10 },
      cleanup: async () => {
        const c = await mysql().createConnection({
          host: url.hostname,
          port: Number(url.port || 3306),
          user: decodeURIComponent(url.username) || 'root',
          password: decodeURIComponent(url.password) || undefined,
        });
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'idserver-test-'));
  return { opts: { vendor: 'sqlite', url: join(dir, 'test.sqlite') }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A migrated and bootstrapped database, made once per jest worker process and copied for each test
 * server: migrations and the master realm cost seconds, a copy milliseconds. The copy is a real
 * database of its own (a file, or a MariaDB database of copied tables), so no test sees another's rows.
 */
async function templatedDbOptions(): Promise<{ opts: DbOptions; cleanup: () => Promise<void> }> {
  if (TEST_DB_URL) return mariadbCopy();
  const fresh = await freshDbOptions();
  copyFileSync(await sqliteTemplate(), fresh.opts.url as string);
  return fresh;
}

/** Tables of the template that are the pool's bookkeeping, not the application's. */
const POOL_TABLES = new Set(['template_ready', 'pool']);
/** The tables the template's triggers write (cache versions, ADR 23; the search shadow, ADR 24). */
async function triggerTargets(conn: Awaited<ReturnType<typeof connect>>, schema: string): Promise<Set<string>> {
  const [rows] = await conn.query('SELECT action_statement AS a FROM information_schema.triggers WHERE trigger_schema = ?', [schema]);
  const out = new Set<string>();
  for (const { a } of rows as Array<{ a: string }>)
    for (const m of a.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+`?(\w+)`?/gi)) out.add(m[1]);
  return out;
}

async function applicationTables(conn: Awaited<ReturnType<typeof connect>>, schema: string): Promise<string[]> {
  const [rows] = await conn.query('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ?', [schema]);
  return (rows as Array<{ t: string }>).map((r) => r.t).filter((t) => !POOL_TABLES.has(t));
}

/**
 * A MariaDB copy of the template, reused within the worker process. Creating some fifty InnoDB tables
 * costs seconds per test server (a file and fsyncs each), while emptying a closed server's copy and
 * copying the template's rows back is DML (a tenth of that). Which copies are free is kept in the
 * template database (module state does not survive jest's per-file registry); copies of processes that
 * are gone are dropped with their template.
 */
async function mariadbCopy(): Promise<{ opts: DbOptions; cleanup: () => Promise<void> }> {
  const template = await mariadbTemplate();
  const url = new URL(TEST_DB_URL as string);
  const conn = await connect(url);
  let name: string | undefined;
  try {
    const [free] = await conn.query(`SELECT name FROM \`${template}\`.pool WHERE free = 1`);
    for (const row of free as Array<{ name: string }>) {
      const [claimed] = await conn.query(`UPDATE \`${template}\`.pool SET free = 0 WHERE name = ? AND free = 1`, [row.name]);
      if ((claimed as { affectedRows: number }).affectedRows === 1) {
        name = row.name;
        break;
      }
    }
    if (!name) {
      name = `idserver_t${process.env.JEST_WORKER_ID ?? '0'}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      await conn.query(`INSERT INTO \`${template}\`.pool (name, free) VALUES (?, 0)`, [name]);
      // CREATE TABLE ... LIKE drops foreign keys: the template's own definitions are replayed instead
      // (they name parent tables without a schema, so they land in the target), in any table order.
      await conn.query(`USE \`${name}\``);
      await conn.query('SET foreign_key_checks = 0');
      for (const t of await applicationTables(conn, template)) {
        const [[def]] = (await conn.query(`SHOW CREATE TABLE \`${template}\`.\`${t}\``)) as unknown as [[{ 'Create Table': string }]];
        await conn.query(def['Create Table']);
        await conn.query(`INSERT INTO \`${name}\`.\`${t}\` SELECT * FROM \`${template}\`.\`${t}\``);
      }
      // Triggers (the cache versions, ADR 23) last, so that copying the rows does not fire them.
      const [triggers] = await conn.query(`SHOW TRIGGERS FROM \`${template}\``);
      for (const { Trigger } of triggers as Array<{ Trigger: string }>) {
        const [[def]] = (await conn.query(`SHOW CREATE TRIGGER \`${template}\`.\`${Trigger}\``)) as unknown as [
          [{ 'SQL Original Statement': string }],
        ];
        await conn.query(def['SQL Original Statement'].replace(/^CREATE\s+DEFINER=\S+\s+/i, 'CREATE '));
      }
    }
  } finally {
    await conn.end();
  }
  const copy = name;
  url.pathname = `/${copy}`;
  return { opts: { vendor: 'mariadb', url: url.toString(), poolMax: 10 }, cleanup: () => releaseMariadbCopy(template, copy) };
}

/**
 * Puts a closed server's copy back as the template has it and marks it free: every table emptied and
 * refilled in one transaction, the tables that triggers write (cache versions, search shadow) emptied again and refilled last. A copy whose tables no longer
 * match the template's (a test renamed one and failed before renaming it back) is dropped instead.
 */
async function releaseMariadbCopy(template: string, name: string): Promise<void> {
  const conn = await connect(new URL(TEST_DB_URL as string), true);
  try {
    const tables = await applicationTables(conn, template);
    const own = new Set(await applicationTables(conn, name));
    if (own.size !== tables.length || tables.some((t) => !own.has(t))) {
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.query(`DELETE FROM \`${template}\`.pool WHERE name = ?`, [name]);
      return;
    }
    const target = (t: string) => `\`${name}\`.\`${t}\``;
    const refill = (t: string) => `INSERT INTO ${target(t)} SELECT * FROM \`${template}\`.\`${t}\``;
    const written = await triggerTargets(conn, template);
    const versions = tables.filter((t) => written.has(t));
    const rest = tables.filter((t) => !written.has(t));
    const statements = [
      'SET foreign_key_checks = 0',
      'START TRANSACTION',
      ...tables.map((t) => `DELETE FROM ${target(t)}`),
      ...rest.map(refill),
      ...versions.map((t) => `DELETE FROM ${target(t)}`),
      ...versions.map(refill),
      'COMMIT',
    ];
    await conn.query(statements.join(';\n'));
    await conn.query(`UPDATE \`${template}\`.pool SET free = 1 WHERE name = ?`, [name]);
  } finally {
    await conn.end();
  }
}

const connect = (url: URL, multipleStatements = false) =>
  mysql().createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password) || undefined,
    multipleStatements,
  });

/** Migrates and bootstraps a database as every test server starts from. */
async function prepareTemplate(opts: DbOptions): Promise<void> {
  const db = await openDb(opts);
  await bootstrap(db, { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password });
  // Long-lived tokens keep slow suites from hitting master's 60 s default.
  const master = await db.models.Realm.findOne({ where: { name: 'master' } });
  if (master) {
    master.settings = { ...master.settings, accessTokenLifespan: 3600 };
    await master.save();
  }
  await db.close();
}

/** The SQLite template file of this process (module state does not survive jest's per-file registry, the file does). */
async function sqliteTemplate(): Promise<string> {
  const file = join(tmpdir(), `idserver-template-${process.pid}.sqlite`);
  if (existsSync(file)) return file;
  const dir = mkdtempSync(join(tmpdir(), 'idserver-template-'));
  await prepareTemplate({ vendor: 'sqlite', url: join(dir, 'db.sqlite') });
  renameSync(join(dir, 'db.sqlite'), file);
  rmSync(dir, { recursive: true, force: true });
  process.once('exit', () => rmSync(file, { force: true }));
  return file;
}

/** The MariaDB template database of this process; templates of processes that are gone are dropped. */
async function mariadbTemplate(): Promise<string> {
  const name = `idserver_tpl_${process.pid}`;
  const url = new URL(TEST_DB_URL as string);
  const conn = await connect(url);
  try {
    const [rows] = await conn.query("SELECT schema_name AS s FROM information_schema.schemata WHERE schema_name LIKE 'idserver\\_t%'");
    const names = (rows as Array<{ s: string }>).map((r) => r.s);
    if (names.includes(name)) {
      const [[ready]] = (await conn.query(
        `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = 'template_ready'`,
        [name],
      )) as unknown as [[{ n: number }]];
      if (Number(ready.n) > 0) return name;
    }
    // Templates and copies (`idserver_tpl_<pid>`, `idserver_t<worker>_<pid>[_<copy>]`) of processes that are gone.
    for (const other of names) {
      const pid = Number(other.startsWith('idserver_tpl_') ? other.slice('idserver_tpl_'.length) : other.split('_')[2]);
      // Best effort: two workers may drop the same one at once, and a drop that loses that race can leave
      // files behind ("Directory not empty"); a leftover costs disk, not this test run.
      if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
        await conn.query(`DROP DATABASE IF EXISTS \`${other}\``).catch((e: Error) => console.warn(`Could not drop ${other}: ${e.message}`));
    }
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    url.pathname = `/${name}`;
    await prepareTemplate({ vendor: 'mariadb', url: url.toString(), poolMax: 2 });
    // Marks the template complete (a worker killed half-way leaves an incomplete one, made again); copies skip it.
    await conn.query(`CREATE TABLE \`${name}\`.pool (name VARCHAR(64) PRIMARY KEY, free TINYINT NOT NULL)`);
    await conn.query(`CREATE TABLE \`${name}\`.template_ready (id INT)`);
    return name;
  } finally {
    await conn.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let sqlListener: ((sql: string) => void) | undefined;

export async function startTestServer(appOptions: AppOptions = {}): Promise<TestServer> {
  configureLogging({ root: process.env.IDSERVER_TEST_LOG_LEVEL ?? 'error', categories: {} });
  const { opts, cleanup } = await templatedDbOptions();
  const db = await openDb(opts, (sql) => sqlListener?.(sql));
  const app = await createApp(db, { hostname: 'http://localhost:8080', ...appOptions });
  let server: Server | undefined;
  const tokens = new Map<string, string>();

  const token: TestServer['token'] = async (o = {}) => {
    const key = JSON.stringify(o);
    const cached = tokens.get(key);
    if (cached) return cached;
    const res = await request(app)
      .post(`/realms/${o.realm ?? 'master'}/protocol/openid-connect/token`)
      .type('form')
      .send({
        grant_type: 'password',
        client_id: o.clientId ?? 'admin-cli',
        username: o.username ?? ADMIN.username,
        password: o.password ?? ADMIN.password,
      });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
    tokens.set(key, res.body.access_token);
    return res.body.access_token as string;
  };

  const listen = async () => {
    if (!server) {
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
    }
    const addr = server.address();
    return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  };

  return {
    app,
    db,
    async countSql(fn) {
      for (const r of await db.models.Realm.findAll({ attributes: ['id'] })) await realmKeys(db, r);
      const statements: string[] = [];
      sqlListener = (sql) => statements.push(sql);
      try {
        const result = await fn();
        return { result, count: statements.length, statements };
      } finally {
        sqlListener = undefined;
      }
    },
    async writesDuring(fn) {
      const writes: string[] = [];
      const previous = sqlListener;
      sqlListener = (sql) => {
        previous?.(sql);
        if (MAY_WRITE.test(sql)) writes.push(sql);
      };
      try {
        return { result: await fn(), writes };
      } finally {
        sqlListener = previous;
      }
    },
    token,
    async api(opts = {}) {
      const { live, ...who } = opts;
      const bearer = `Bearer ${await token(who)}`;
      const target = live ? await listen() : app;
      const auth = (t: request.Test, body?: unknown) => {
        t.set('Authorization', bearer);
        return body === undefined ? t : t.send(body as object);
      };
      return {
        get: (path) => auth(request(target).get(path)),
        post: (path, body) => auth(request(target).post(path), body),
        put: (path, body) => auth(request(target).put(path), body),
        delete: (path, body) => auth(request(target).delete(path), body),
      };
    },
    listen,
    async close() {
      if (server) await new Promise<void>((resolve) => server?.close(() => resolve()));
      await db.close();
      await cleanup();
    },
  };
}
