import { execFile, spawn } from 'node:child_process';
import { pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import { type Db, type DbOptions, initModels, openDb } from '../../src/db';
import { createApp } from '../../src/server';
import { fullExport } from '../../src/services/import-export/full-export';
import { fullImport } from '../../src/services/import-export/full-import';
import { bootstrap } from '../../src/services/realms/realms';
import { realmServer } from '../helpers/fixtures';
import { seedEverything } from './exim-realm';
import { type AdminApi, TEST_DB_URL, type TestServer } from '../helpers/server';
import { cliArgs } from '../helpers/cli';

/**
 * `idserver export` / `idserver import` (Keycloak's kc.sh export|import): a realm holding one of
 * everything (./exim-realm.ts), seeded through the REST API, goes out and into an empty database
 * (SQLite, or MariaDB with IDSERVER_TEST_DB_URL) and comes out the same from the first cycle, ids and
 * all; its users log in with their old passwords; master of the file against a database's own master;
 * a Keycloak 26 realm file with a pbkdf2-sha512 hash imports and logs in; the filters and --override
 * behave as Keycloak's; an import killed midway leaves nothing half-written.
 */

// Each test runs the CLI as child processes (under ts-node) and migrates fresh databases: on MariaDB under a
// loaded CI machine one took 44 s, past jest's 30 s default.
jest.setTimeout(120_000);

const R = 'exim';
const ROOT = join(__dirname, '..', '..');
let ts: TestServer;
let api: AdminApi;
/** The first test's export, for the tests that import it again (made anew when run alone). */
let roundTrip: string | undefined;
const work = mkdtempSync(join(tmpdir(), 'idserver-exim-'));
const cleanups: Array<() => Promise<void>> = [];

/** An empty database of its own (migrated when opened): a SQLite file, or a MariaDB database. Returns its CLI options. */
async function emptyDatabase(tag: string): Promise<{ opts: DbOptions; args: string[] }> {
  if (!TEST_DB_URL) {
    const file = join(work, `${tag}.sqlite`);
    return { opts: { vendor: 'sqlite', url: file }, args: ['--db=sqlite', `--db-url=${file}`] };
  }
  const base = new URL(TEST_DB_URL);
  const name = `idserver_exim_${tag}_${process.pid}`;
  const admin = () =>
    createConnection({
      host: base.hostname,
      port: Number(base.port || 3306),
      user: decodeURIComponent(base.username) || 'root',
      password: decodeURIComponent(base.password) || undefined,
    });
  const conn = await admin();
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await conn.end();
  cleanups.push(async () => {
    const c = await admin();
    await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await c.end();
  });
  const url = new URL(TEST_DB_URL);
  url.pathname = `/${name}`;
  return { opts: { vendor: 'mariadb', url: url.toString() }, args: ['--db=mariadb', `--db-url=${url}`] };
}

/**
 * Runs `fn` on another database in this process. The models are bound to one Sequelize instance per
 * process (a server or a CLI command has one database), so they are bound back to the test server's after.
 */
async function withDb<T>(opts: DbOptions, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(opts);
  try {
    return await fn(db);
  } finally {
    await db.close();
    initModels(ts.db.sequelize);
  }
}

/** The CLI options of the test server's own database. */
function sourceArgs(db: Db): string[] {
  if (!TEST_DB_URL) return ['--db=sqlite', `--db-url=${(db.sequelize as unknown as { options: { storage: string } }).options.storage}`];
  const url = new URL(TEST_DB_URL);
  url.pathname = `/${db.sequelize.getDatabaseName()}`;
  return ['--db=mariadb', `--db-url=${url}`];
}

/** Runs `idserver <args>` as an operator would: a process of its own. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IDSERVER_')));
  return new Promise((resolve) => {
    execFile(process.execPath, cliArgs([...args, '--log-level=warn']), { cwd: ROOT, env, maxBuffer: 1 << 24 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const readJson = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));

/** Every leaf as `path=value`, array elements keyed by their name (so that a value lost anywhere shows as missing). */
function leaves(v: unknown, path = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      const o = x && typeof x === 'object' ? (x as Record<string, unknown>) : {};
      const key = o.username ?? o.clientId ?? o.alias ?? o.name ?? o.type ?? (typeof x === 'string' ? x : i);
      leaves(x, `${path}[${String(key)}]`, out);
    });
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) leaves(x, `${path}.${k}`, out);
  } else out.add(`${path}=${JSON.stringify(v)}`);
  return out;
}

/** All the users of an exported realm in a directory (realm file and user files). */
function exportedUsers(dir: string, realm: string): Array<Record<string, unknown>> {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${realm}-users-`) || f === `${realm}-realm.json`)
    .flatMap((f) => readJson(dir, f).users ?? []);
}

async function login(db: Db, realm: string, username: string, password: string): Promise<number> {
  const app = await createApp(db, { hostname: 'http://localhost:8080' });
  const res = await request(app)
    .post(`/realms/${realm}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });
  if (res.status !== 200 && res.body.error_description !== 'Invalid user credentials') {
    throw new Error(`token endpoint: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.status;
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  await seedEverything(ts, api, R);
});

afterAll(async () => {
  await ts.close();
  for (const c of cleanups) await c();
  rmSync(work, { recursive: true, force: true });
});

test('export --dir → import into an empty database → export: the same files, users log in with their old passwords', async () => {
  const d1 = join(work, 'd1');
  const out = await cli(['export', `--dir=${d1}`, '--users-per-file=2', ...sourceArgs(ts.db)]);
  expect(out.stderr).toContain(`Exported realm '${R}': 4 users`);
  expect(out.code).toBe(0);
  // Keycloak's layout: realm files, user files of at most 2 users each, master included.
  expect(readdirSync(d1).sort()).toEqual(
    ['master-realm.json', 'master-users-0.json', `${R}-realm.json`, `${R}-users-0.json`, `${R}-users-1.json`].sort(),
  );
  // The files hold password hashes and client secrets in clear: only their owner may read them.
  for (const f of readdirSync(d1)) expect([f, statSync(join(d1, f)).mode & 0o777]).toEqual([f, 0o600]);
  const realm = readJson(d1, `${R}-realm.json`);
  expect(realm.users).toBeUndefined();
  expect(realm.clients.find((c: { clientId: string }) => c.clientId === 'billing').secret).toBe('billing-secret');
  expect(realm.identityProviders[0].config.clientSecret).toBe('gh-secret');
  // Organizations name their members by username; the members come back after the user files are imported.
  expect(realm.organizations).toEqual([
    expect.objectContaining({ alias: 'exim', members: [{ username: 'alice' }], identityProviders: [{ alias: 'github' }] }),
  ]);
  const users = exportedUsers(d1, R);
  const alice = users.find((u) => u.username === 'alice') as Record<string, unknown> & { credentials: Array<Record<string, unknown>> };
  expect(alice).toMatchObject({
    realmRoles: expect.arrayContaining(['reader']),
    clientRoles: { billing: ['invoice'] },
    groups: ['/newcomers', '/staff/ops'],
    federatedIdentities: [{ identityProvider: 'github', userId: 'gh-1', userName: 'alice-gh' }],
  });
  // The hash, not the password: Keycloak's secretData / credentialData JSON strings.
  expect(alice.credentials).toHaveLength(1);
  expect(JSON.parse(alice.credentials[0].secretData as string)).toEqual(
    expect.objectContaining({ value: expect.any(String), salt: expect.any(String) }),
  );
  expect(JSON.parse(alice.credentials[0].credentialData as string)).toEqual(expect.objectContaining({ algorithm: expect.any(String) }));
  expect(JSON.stringify(users)).not.toContain('alice-pw');
  expect(users.find((u) => u.username === 'carol')).toMatchObject({
    credentials: [],
    requiredActions: ['UPDATE_PASSWORD', 'VERIFY_EMAIL'],
  });
  expect(users.find((u) => u.username === 'service-account-billing')).toMatchObject({ serviceAccountClientId: 'billing' });

  const target = await emptyDatabase('b');
  const imported = await cli(['import', `--dir=${d1}`, ...target.args]);
  expect(imported.stderr).toContain(`Imported realm '${R}': 4 users`);
  expect(imported.code).toBe(0);

  const d2 = join(work, 'd2');
  await withDb(target.opts, async (db) => {
    await fullExport(db, { dir: d2, usersPerFile: 2 });
    // Old passwords work on a server over the imported database, in the realm and in master.
    expect(await login(db, R, 'alice', 'alice-pw')).toBe(200);
    expect(await login(db, R, 'alice', 'wrong')).not.toBe(200);
    expect(await login(db, 'master', 'admin', 'admin')).toBe(200);
  });
  expect(readdirSync(d2).sort()).toEqual(readdirSync(d1).sort());
  // Users keep their ids and their credentials (ids and hashes).
  const again = exportedUsers(d2, R);
  for (const u of users.filter((x) => !x.serviceAccountClientId)) {
    expect(again.find((x) => x.id === u.id)).toEqual(u);
  }
  // The first cycle is exact: every file the same, ids and creation times included.
  const changes = readdirSync(d1).map((f) => {
    const [before, after] = [leaves(readJson(d1, f)), leaves(readJson(d2, f))];
    return { f, lost: [...before].filter((l) => !after.has(l)), added: [...after].filter((l) => !before.has(l)) };
  });
  expect(changes).toEqual(readdirSync(d1).map((f) => ({ f, lost: [], added: [] })));
  for (const f of readdirSync(d1)) expect(readJson(d2, f)).toEqual(readJson(d1, f));
  roundTrip = d1;
});

test('into a database that bootstrapped its own master: --override=false keeps that master, true (the default) takes the file’s', async () => {
  const d1 = roundTrip ?? join(work, 'd1');
  if (!roundTrip) await fullExport(ts.db, { dir: d1, usersPerFile: 2 });
  const target = await emptyDatabase('boot');
  const files = (dir: string, realm?: string) => readdirSync(dir).filter((f) => !realm || f.startsWith(`${realm}-`));
  const same = (a: string, b: string, realm?: string) => {
    expect(files(b, realm).sort()).toEqual(files(a, realm).sort());
    for (const f of files(a, realm)) expect([f, readJson(b, f)]).toEqual([f, readJson(a, f)]);
  };
  await withDb(target.opts, async (db) => {
    await bootstrap(db, { mode: 'start', username: 'root', password: 'root-pw' });
    const notices: string[] = [];
    const done = await fullImport(db, { dir: d1, override: false, notice: (n) => notices.push(n) });
    expect(done).toEqual([
      { realm: 'master', users: 0, skipped: true },
      { realm: R, users: 4 },
    ]);
    expect(notices).toEqual(["Realm 'master' already exists; skipped (--override=false)"]);
    // The database's own master and admin stay; the imported realm got its admin client there, and is as exported.
    expect(await login(db, 'master', 'root', 'root-pw')).toBe(200);
    expect(await login(db, 'master', 'admin', 'admin')).not.toBe(200);
    const master = await db.models.Realm.findOne({ where: { name: 'master' } });
    expect(await db.models.Client.count({ where: { realmId: master?.id, clientId: `${R}-realm` } })).toBe(1);
    const kept = join(work, 'boot-kept');
    await fullExport(db, { dir: kept, realm: R, usersPerFile: 2 });
    same(d1, kept, R);

    // The default replaces master with the file's (its admin, its clients), and the realm again: the database is the file's.
    await fullImport(db, { dir: d1 });
    expect(await login(db, 'master', 'admin', 'admin')).toBe(200);
    expect(await login(db, 'master', 'root', 'root-pw')).not.toBe(200);
    const replaced = join(work, 'boot-replaced');
    await fullExport(db, { dir: replaced, usersPerFile: 2 });
    same(d1, replaced);
  });
});

test('a Keycloak 26 realm file with a pbkdf2-sha512 hash imports, and its user logs in with the old password', async () => {
  const salt = randomBytes(16);
  const iterations = 1000; // the realm's policy says so; Keycloak's default is 210000
  const hash = pbkdf2Sync('kc-password', salt, iterations, 64, 'sha512');
  const userId = randomUUID();
  const file = join(work, 'keycloak-realm.json');
  writeFileSync(
    file,
    JSON.stringify([
      {
        id: randomUUID(),
        realm: 'from-keycloak',
        enabled: true,
        passwordPolicy: `hashAlgorithm(pbkdf2-sha512) and hashIterations(${iterations})`,
        roles: { realm: [{ name: 'user' }] },
        users: [
          {
            id: userId,
            username: 'legacy',
            email: 'legacy@example.com',
            firstName: 'Legacy',
            lastName: 'User',
            emailVerified: true,
            enabled: true,
            createdTimestamp: 1700000000000,
            totp: false,
            credentials: [
              {
                id: randomUUID(),
                type: 'password',
                userLabel: 'My password',
                createdDate: 1700000000000,
                secretData: JSON.stringify({ value: hash.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
                credentialData: JSON.stringify({ hashIterations: iterations, algorithm: 'pbkdf2-sha512', additionalParameters: {} }),
                priority: 10,
              },
            ],
            disableableCredentialTypes: [],
            requiredActions: [],
            realmRoles: ['user'],
            notBefore: 0,
            groups: [],
          },
        ],
        keycloakVersion: '26.0.7',
      },
    ]),
  );
  const target = await emptyDatabase('kc');
  await withDb(target.opts, async (db) => {
    const done = await fullImport(db, { file });
    expect(done).toEqual([{ realm: 'from-keycloak', users: 1 }]);
    expect(await login(db, 'from-keycloak', 'legacy', 'kc-password')).toBe(200);
    expect(await login(db, 'from-keycloak', 'legacy', 'other')).not.toBe(200);
    // Stored as given, not re-hashed: the export gives the same secretData back, under the same ids.
    const out = join(work, 'kc-out.json');
    await fullExport(db, { file: out, realm: 'from-keycloak' });
    const [realm] = JSON.parse(readFileSync(out, 'utf8'));
    expect(realm.users[0]).toMatchObject({ id: userId, username: 'legacy', realmRoles: expect.arrayContaining(['user']) });
    expect(JSON.parse(realm.users[0].credentials[0].secretData).value).toBe(hash.toString('base64'));
  });
});

test('--realm exports one realm, --users=skip leaves users out, --users=same_file writes one user file', async () => {
  const one = join(work, 'one');
  await fullExport(ts.db, { dir: one, realm: R, users: 'skip' });
  expect(readdirSync(one)).toEqual([`${R}-realm.json`]);
  expect(readJson(one, `${R}-realm.json`).users).toBeUndefined();
  const same = join(work, 'same');
  await fullExport(ts.db, { dir: same, realm: R, users: 'same_file' });
  expect(readdirSync(same).sort()).toEqual([`${R}-realm.json`, `${R}-users-0.json`]);
  expect(
    readJson(same, `${R}-users-0.json`)
      .users.map((u: { username: string }) => u.username)
      .sort(),
  ).toEqual(['alice', 'bob', 'carol', 'service-account-billing']);
  await expect(fullExport(ts.db, { dir: join(work, 'none'), realm: 'no-such-realm' })).rejects.toThrow(
    "Realm 'no-such-realm' does not exist",
  );
  // Through the CLI: bad options are exit 2 naming the option.
  const bad = await cli(['export', `--file=${join(work, 'x.json')}`, '--users=different_files', ...sourceArgs(ts.db)]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("'--users'");
});

test('--override=false leaves an existing realm alone; true replaces it; a failed import leaves the realm as it was', async () => {
  const dir = join(work, 'override');
  await fullExport(ts.db, { dir, realm: R });
  // A user file that cannot be imported (an unknown group).
  const broken = join(work, 'broken');
  await fullExport(ts.db, { dir: broken, realm: R });
  const last = readdirSync(broken)
    .filter((f) => f.includes('-users-'))
    .sort()
    .pop() as string;
  const content = readJson(broken, last);
  content.users.push({ username: 'zed', enabled: true, groups: ['/no/such/group'] });
  writeFileSync(join(broken, last), JSON.stringify(content));

  const target = await emptyDatabase('ov');
  await withDb(target.opts, async (db) => {
    await fullImport(db, { dir });
    const displayName = async () => (await db.models.Realm.findOne({ where: { name: R } }))?.settings.displayName;
    const model = await db.models.Realm.findOne({ where: { name: R } });
    if (!model) throw new Error('not imported');
    model.settings = { ...model.settings, displayName: 'changed after import' };
    await model.save();

    const notices: string[] = [];
    expect(await fullImport(db, { dir, override: false, notice: (m) => notices.push(m) })).toEqual([{ realm: R, users: 0, skipped: true }]);
    expect(notices).toEqual([`Realm '${R}' already exists; skipped (--override=false)`]);
    expect(await displayName()).toBe('changed after import');

    // The failed import rolls back whole: the realm it was to replace is still there, as it was
    // (read from the tables: what must not be half-written).
    await expect(fullImport(db, { dir: broken })).rejects.toThrow(/Users of realm 'exim' in .* could not be imported/);
    expect(await displayName()).toBe('changed after import');
    expect(await db.models.User.count({ where: { realmId: model.id } })).toBe(4);

    // override=true (the default): replaced by the file's realm, users and all.
    await fullImport(db, { dir });
    expect(await displayName()).not.toBe('changed after import');
    expect(await login(db, R, 'bob', 'bob-pw')).toBe(200);
  });

  // Into an empty database the same failure leaves no realm at all.
  const empty = await emptyDatabase('fail');
  await withDb(empty.opts, async (db) => {
    await expect(fullImport(db, { dir: broken })).rejects.toThrow();
    expect(await db.models.Realm.findOne({ where: { name: R } })).toBeNull();
    expect(await db.models.User.count()).toBe(0);
  });
});

/** A realm file of `n` users with stored pbkdf2 hashes (nothing to hash on import): big enough for an import to take a while. */
function bigRealmFile(path: string, realm: string, n: number): void {
  const salt = randomBytes(16).toString('base64');
  const value = pbkdf2Sync('pw', salt, 1000, 64, 'sha512').toString('base64');
  const users = Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    username: `user${String(i).padStart(6, '0')}`,
    email: `user${i}@example.com`,
    enabled: true,
    attributes: { department: [`dept-${i % 17}`] },
    credentials: [
      {
        type: 'password',
        secretData: JSON.stringify({ value, salt, additionalParameters: {} }),
        credentialData: JSON.stringify({ hashIterations: 1000, algorithm: 'pbkdf2-sha512', additionalParameters: {} }),
      },
    ],
    realmRoles: ['offline_access'],
  }));
  writeFileSync(path, JSON.stringify({ realm, enabled: true, displayName: 'from the file', users }));
}

/** Runs `idserver import` and SIGKILLs it at its first progress line (some users written, the realm's transaction open). */
function importKilledMidway(args: string[]): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IDSERVER_')));
  const child = spawn(process.execPath, cliArgs(['import', ...args, '--log-level=warn']), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (/Imported '[^']+': \d+ users/.test(stderr)) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve({ signal, stderr })));
}

test('an import killed midway leaves no realm, and with --override=true the realm it was replacing as it was', async () => {
  const file = join(work, 'big.json');
  bigRealmFile(file, 'big', 3000);
  const target = await emptyDatabase('kill');
  const killed = await importKilledMidway([`--file=${file}`, ...target.args]);
  // Killed while importing: users were being written, the realm was not done.
  expect(killed.signal).toBe('SIGKILL');
  expect(killed.stderr).toMatch(/Imported 'big': \d+ users/);
  expect(killed.stderr).not.toContain("Imported realm 'big'");
  // A fresh connection finds nothing of it (read from the tables: what must not be half-written).
  await withDb(target.opts, async (db) => {
    expect(await db.models.Realm.count({ where: { name: 'big' } })).toBe(0);
    expect(await db.models.User.count()).toBe(0);
    // The realm as it was before the next attempt: a small one with one user and another display name.
    const small = join(work, 'small.json');
    writeFileSync(
      small,
      JSON.stringify({ realm: 'big', enabled: true, displayName: 'before', users: [{ username: 'keeper', enabled: true }] }),
    );
    await fullImport(db, { file: small });
  });
  const again = await importKilledMidway([`--file=${file}`, '--override=true', ...target.args]);
  expect(again.signal).toBe('SIGKILL');
  await withDb(target.opts, async (db) => {
    const realm = await db.models.Realm.findOne({ where: { name: 'big' } });
    expect(realm?.settings.displayName).toBe('before');
    expect((await db.models.User.findAll({ where: { realmId: realm?.id }, attributes: ['username'] })).map((u) => u.username)).toEqual([
      'keeper',
    ]);
  });
});
