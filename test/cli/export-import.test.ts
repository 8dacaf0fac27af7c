import { execFile } from 'node:child_process';
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
import { createClient, createdId, createGroup, createRole, createUser, grantClientRoles, realmServer } from '../helpers/fixtures';
import { type AdminApi, TEST_DB_URL, type TestServer } from '../helpers/server';

/**
 * `idserver export` / `idserver import` (Keycloak's kc.sh export|import): a realm seeded through the
 * REST API goes out and into an empty database (SQLite, or MariaDB with IDSERVER_TEST_DB_URL) and
 * comes out the same; its users log in with their old passwords; a Keycloak 26 realm file with a
 * pbkdf2-sha512 hash imports and logs in; the filters and --override behave as Keycloak's.
 */

const R = 'exim';
const ROOT = join(__dirname, '..', '..');
let ts: TestServer;
let api: AdminApi;
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
    execFile(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'src/cli.ts', ...args, '--log-level=warn'],
      { cwd: ROOT, env, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const readJson = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));

/** Regenerated on import, as in Keycloak: internal ids of built-in parts, creation times. */
const REGENERATED = new Set(['id', 'containerId', 'parentId', 'internalId', 'createdTimestamp', 'client.secret.creation.time']);

/** An export's JSON with regenerated fields left out, users by username, string lists sorted (composites come in table order). */
function normalized(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(normalized);
    if (items.every((x) => typeof x === 'string')) return [...(items as string[])].sort();
    if (items.every((x) => x && typeof x === 'object' && typeof (x as { username?: unknown }).username === 'string'))
      return [...(items as Array<{ username: string }>)].sort((a, b) => (a.username < b.username ? -1 : 1));
    return items;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => !REGENERATED.has(k))
        .map((k) => [k, normalized((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

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
  // What a realm holds: roles, a group tree, a confidential client with roles, an identity provider.
  const reader = await createRole(api, R, 'reader', { description: 'reads' });
  const parent = await createGroup(api, R, 'staff');
  await createGroup(api, R, 'ops', parent);
  const app = await createClient(api, R, {
    clientId: 'billing',
    publicClient: false,
    secret: 'billing-secret',
    serviceAccountsEnabled: true,
  });
  expect((await api.post(`/admin/realms/${R}/clients/${app}/roles`, { name: 'invoice' })).status).toBe(201);
  expect(
    (
      await api.post(`/admin/realms/${R}/identity-provider/instances`, {
        alias: 'github',
        providerId: 'github',
        config: { clientId: 'gh-id', clientSecret: 'gh-secret' },
      })
    ).status,
  ).toBe(201);
  // Users: passwords, a role, a client role, a group, an identity link; one without credentials but with required actions.
  const alice = await createUser(ts, R, 'alice', { password: 'alice-pw' });
  expect((await api.post(`/admin/realms/${R}/users/${alice}/role-mappings/realm`, [reader])).status).toBe(204);
  await grantClientRoles(api, R, alice, 'billing', ['invoice']);
  const ops = (await api.get(`/admin/realms/${R}/groups/${parent}/children`)).body[0].id;
  expect((await api.put(`/admin/realms/${R}/users/${alice}/groups/${ops}`)).status).toBe(204);
  expect(
    (await api.post(`/admin/realms/${R}/users/${alice}/federated-identity/github`, { userId: 'gh-1', userName: 'alice-gh' })).status,
  ).toBe(204);
  await createUser(ts, R, 'bob', { password: 'bob-pw' });
  const carol = createdId(
    await api.post(`/admin/realms/${R}/users`, {
      username: 'carol',
      enabled: true,
      requiredActions: ['VERIFY_EMAIL', 'UPDATE_PASSWORD'],
    }),
    'user',
  );
  expect(carol).toBeTruthy();
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
  const users = exportedUsers(d1, R);
  const alice = users.find((u) => u.username === 'alice') as Record<string, unknown> & { credentials: Array<Record<string, unknown>> };
  expect(alice).toMatchObject({
    realmRoles: expect.arrayContaining(['reader']),
    clientRoles: { billing: ['invoice'] },
    groups: ['/staff/ops'],
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
  const content = (dir: string, f: string) => (f.includes('-users-') ? exportedUsers(dir, f.split('-users-')[0]) : readJson(dir, f));
  // Nothing of the first export is lost in the second (ids and creation times of built-in parts aside).
  for (const f of readdirSync(d1)) {
    const after = leaves(normalized(content(d2, f)));
    expect([...leaves(normalized(content(d1, f)))].filter((l) => !after.has(l))).toEqual([]);
  }
  // And from then on the round trip is exact: import the second export, export again, same files.
  const third = await emptyDatabase('c');
  const d3 = join(work, 'd3');
  await withDb(third.opts, async (db) => {
    await fullImport(db, { dir: d2 });
    await fullExport(db, { dir: d3, usersPerFile: 2 });
  });
  for (const f of readdirSync(d2)) expect(normalized(content(d3, f))).toEqual(normalized(content(d2, f)));
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
