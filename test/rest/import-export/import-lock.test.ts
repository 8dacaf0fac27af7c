import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sqlite3 from 'sqlite3';
import request from 'supertest';
import { openDb } from '../../../src/db';
import { configureLogging } from '../../../src/logging';
import { createApp } from '../../../src/server';
import { bootstrap } from '../../../src/services/realms/realms';
import { realmServer } from '../../helpers/fixtures';
import { ADMIN, type AdminApi, freshDbOptions, TEST_DB_URL, type TestServer } from '../../helpers/server';

/**
 * Long writes do not block the database for long (issue 10, item 5). A realm or partial import reads,
 * checks and hashes its whole document before its transaction starts and then writes its users and
 * groups with a few bulk INSERTs per table, so the write phase, and on SQLite the one write lock,
 * does not grow with the number of users; a lock that stays taken is a 503, never a 500.
 */
let ts: TestServer;
let api: AdminApi;
const OTHER = 'lock-other';

beforeAll(async () => {
  ({ ts, api } = await realmServer(OTHER));
});
afterAll(() => ts.close());

/** An already hashed password credential (as exports carry them): nothing to hash on import. */
const HASHED = {
  type: 'password',
  secretData: JSON.stringify({
    value: 'q1MqiZ1Bk1t4jUJ0b5xIDdwSGFHtQ+9Ndpu1z2vuA5I=',
    salt: 'c2FsdHNhbHRzYWx0c2FsdA==',
    additionalParameters: {},
  }),
  credentialData: JSON.stringify({ hashIterations: 5, algorithm: 'argon2', additionalParameters: {} }),
};

/**
 * `users` users and `groups` groups (every tenth with a subgroup), all mapped to realm and client
 * roles; e-mail addresses end in `@<domain>`.
 */
function contents(users: number, groups: number, credential: (i: number) => object = () => HASHED, domain = 'example.org') {
  return {
    roles: {
      realm: Array.from({ length: 5 }, (_, i) => ({ name: `r${i}` })),
      client: { 'lock-app': [{ name: 'c0' }, { name: 'c1' }] },
    },
    clients: [{ clientId: 'lock-app' }],
    groups: Array.from({ length: groups }, (_, i) => ({
      name: `g${i}`,
      attributes: { n: [String(i)] },
      realmRoles: [`r${i % 5}`],
      clientRoles: { 'lock-app': ['c0'] },
      subGroups: i % 10 === 0 ? [{ name: `sub${i}`, realmRoles: ['r1'] }] : [],
    })),
    users: Array.from({ length: users }, (_, i) => ({
      username: `user${i}`,
      email: `user${i}@${domain}`,
      firstName: 'F',
      lastName: `L${i}`,
      enabled: true,
      credentials: [credential(i)],
      realmRoles: [`r${i % 5}`, 'r0'],
      clientRoles: { 'lock-app': ['c1'] },
      groups: [`/g${i % groups}`, ...(i % groups === 0 ? [`/g${i % groups}/sub${i % groups}`] : [])],
    })),
  };
}

/** Rows of a table whose `column` is one of `values` (to prove that nothing was written, which the API cannot show for a realm that does not exist). */
async function rowsWith(table: string, column: string, values: string[]): Promise<number> {
  const [rows] = await ts.db.sequelize.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} IN (:values)`, {
    replacements: { values },
  });
  return Number((rows as Array<{ n: number | string }>)[0].n);
}

describe('an import does not hold the write lock while it prepares', () => {
  test('a group created in another realm while an import hashes its passwords is answered first', async () => {
    const finished: string[] = [];
    // The realm's key comes with it (no key generation before the import's transaction), and its
    // users' passwords are plain: hashing them (argon2, tens of ms each) is most of the import's time.
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const body = {
      realm: 'lock-plain',
      enabled: true,
      components: {
        'org.keycloak.keys.KeyProvider': [{ name: 'rsa', providerId: 'rsa', config: { priority: ['100'], privateKey: [pem] } }],
      },
      ...contents(200, 10, (i) => ({ type: 'password', value: `secret-${i}` })),
    };
    const importing = api.post('/admin/realms', body).then((res) => {
      finished.push('import');
      return res;
    });
    // Sent once the import is under way (its keys are made and its hashing has begun).
    await new Promise((r) => setTimeout(r, 300));
    const group = await api.post(`/admin/realms/${OTHER}/groups`, { name: 'during-import' });
    finished.push('group');
    expect(group.status).toBe(201);
    expect((await importing).status).toBe(201);
    expect(finished).toEqual(['group', 'import']);

    // The import is whole: its users log in with the passwords hashed before the transaction.
    const users = await api.get('/admin/realms/lock-plain/users/count');
    expect(users.body).toBe(200);
    const login = await request(ts.app)
      .post('/realms/lock-plain/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'user199', password: 'secret-199' });
    expect(login.status).toBe(200);
  });

  test('the statements of a realm import do not grow with its users and groups', async () => {
    const count = async (realm: string, users: number, groups: number) => {
      // Each creation writes master (the realm's admin client): the caller's caches are warmed first (ADR 23).
      await api.get('/admin/realms/master').expect(200);
      const { result, count } = await ts.countSql(() => api.post('/admin/realms', { realm, enabled: true, ...contents(users, groups) }));
      expect(result.status).toBe(201);
      return count;
    };
    const small = await count('lock-small', 10, 5);
    const large = await count('lock-large', 50, 25);
    expect(large).toBe(small);

    // What was written in bulk reads back as one by one would have written it.
    const user = (await api.get('/admin/realms/lock-large/users?username=user25&exact=true')).body[0];
    expect(user).toMatchObject({ username: 'user25', email: 'user25@example.org', firstName: 'F', lastName: 'L25', enabled: true });
    const roles = await api.get(`/admin/realms/lock-large/users/${user.id}/role-mappings`);
    expect(roles.body.realmMappings.map((r: { name: string }) => r.name).sort()).toEqual(['r0']);
    expect(roles.body.clientMappings['lock-app'].mappings.map((r: { name: string }) => r.name)).toEqual(['c1']);
    const groups = await api.get(`/admin/realms/lock-large/users/${user.id}/groups`);
    expect(groups.body.map((g: { path: string }) => g.path).sort()).toEqual(['/g0', '/g0/sub0']);
    const g10 = (await api.get('/admin/realms/lock-large/group-by-path/g10')).body;
    expect(g10).toMatchObject({ name: 'g10', attributes: { n: ['10'] }, realmRoles: ['r0'], clientRoles: { 'lock-app': ['c0'] } });
    const children = await api.get(`/admin/realms/lock-large/groups/${g10.id}/children`);
    expect(children.body.map((g: { name: string; realmRoles?: string[] }) => [g.name, g.realmRoles])).toEqual([['sub10', ['r1']]]);
    const members = await api.get(`/admin/realms/lock-large/groups/${g10.id}/members`);
    expect(members.body.map((u: { username: string }) => u.username).sort()).toEqual(['user10', 'user35']);
  });

  test('the statements of a partial import do not grow with its users and groups', async () => {
    const count = async (realm: string, users: number, groups: number) => {
      expect((await api.post('/admin/realms', { realm, enabled: true, ...contents(0, 0) })).status).toBe(201);
      const { roles, users: u, groups: g } = contents(users, groups);
      const body = { ifResourceExists: 'FAIL', users: u, groups: g, roles: { realm: roles.realm.map((r) => ({ name: `x${r.name}` })) } };
      const { result, count } = await ts.countSql(() => api.post(`/admin/realms/${realm}/partialImport`, body));
      expect(result.status).toBe(200);
      expect(result.body.added).toBe(users + groups + 5);
      return count;
    };
    expect(await count('lock-partial-large', 50, 25)).toBe(await count('lock-partial-small', 10, 5));
    expect((await api.get('/admin/realms/lock-partial-large/users/count')).body).toBe(50);
    expect((await api.get('/admin/realms/lock-partial-large/groups/count')).body).toEqual({ count: 28 }); // with 3 subgroups
  });
});

describe('an import stays all or nothing', () => {
  test('a realm import failing at its last user leaves nothing: no realm, user, group or role mapping', async () => {
    const body = { realm: 'lock-failing', enabled: true, ...contents(300, 30, () => HASHED, 'failing.example') };
    body.users[299].realmRoles = ['no-such-role'];
    const res = await api.post('/admin/realms', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'Realm role no-such-role does not exist' });
    expect((await api.get('/admin/realms/lock-failing')).status).toBe(404);
    expect(await rowsWith('realm', 'name', ['lock-failing'])).toBe(0);
    expect(await rowsWith('user_entity', 'email', ['user0@failing.example', 'user298@failing.example'])).toBe(0);
    const realmIds = (await api.get('/admin/realms')).body.map((r: { id: string }) => r.id);
    const [groups] = await ts.db.sequelize.query('SELECT COUNT(*) AS n FROM keycloak_group WHERE realm_id NOT IN (:realmIds)', {
      replacements: { realmIds },
    });
    expect(Number((groups as Array<{ n: number | string }>)[0].n)).toBe(0);
  });

  test('a partial import failing at its last user leaves the realm as it was', async () => {
    const realm = 'lock-partial-failing';
    expect((await api.post('/admin/realms', { realm, enabled: true, ...contents(0, 0) })).status).toBe(201);
    const { users, groups } = contents(200, 20);
    users[199].groups = ['/no/such/group'];
    const res = await api.post(`/admin/realms/${realm}/partialImport`, { ifResourceExists: 'FAIL', users, groups });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'Could not create user' });
    expect((await api.get(`/admin/realms/${realm}/users/count`)).body).toBe(0);
    expect((await api.get(`/admin/realms/${realm}/groups/count`)).body).toEqual({ count: 0 });
  });

  test('duplicates inside one import are the single creates’ 409s, and nothing is written', async () => {
    const dupUser = { realm: 'lock-dup-user', enabled: true, ...contents(20, 2) };
    dupUser.users[19].username = 'USER3';
    let res = await api.post('/admin/realms', dupUser);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'User exists with same username' });

    const dupEmail = { realm: 'lock-dup-email', enabled: true, ...contents(20, 2) };
    dupEmail.users[19].email = 'USER3@example.org';
    res = await api.post('/admin/realms', dupEmail);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'User exists with same email' });

    const dupGroup = { realm: 'lock-dup-group', enabled: true, ...contents(2, 3) };
    dupGroup.groups[2].name = 'g1';
    res = await api.post('/admin/realms', dupGroup);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: "Top level group named 'g1' already exists." });

    const dupChild = { realm: 'lock-dup-child', enabled: true, ...contents(2, 3) };
    dupChild.groups[0].subGroups.push({ name: 'sub0', realmRoles: [] });
    res = await api.post('/admin/realms', dupChild);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: "Sibling group named 'sub0' already exists." });

    for (const realm of ['lock-dup-user', 'lock-dup-email', 'lock-dup-group', 'lock-dup-child']) {
      expect((await api.get(`/admin/realms/${realm}`)).status).toBe(404);
    }
  });
});

// SQLite's one writer: a lock held by another connection (another process on the same file) past the
// busy timeout and the transaction's retries. MariaDB's lock wait timeout (50 s) is too long for a test;
// its deadlocks and timeouts take the same path (mapDbError).
const sqliteOnly = TEST_DB_URL ? describe.skip : describe;

sqliteOnly('a database that stays locked', () => {
  let server: Server | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => {
    server?.close();
    await close?.();
    await cleanup?.();
  });

  test('is a 503 with Retry-After, never a 500; once free, the write goes through', async () => {
    configureLogging({ root: 'fatal', categories: {} });
    const fresh = await freshDbOptions();
    cleanup = fresh.cleanup;
    // A short busy timeout, so that the six attempts of a transaction give up within seconds.
    const db = await openDb({ ...fresh.opts, busyTimeoutMs: 50 });
    close = () => db.close();
    await bootstrap(db, { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password });
    const app = await createApp(db, { hostname: 'http://localhost:8080' });
    server = app.listen(0);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const token = (
      await request(url)
        .post('/realms/master/protocol/openid-connect/token')
        .type('form')
        .send({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN })
    ).body.access_token;
    const createGroup = (name: string) =>
      request(url).post('/admin/realms/master/groups').set('Authorization', `Bearer ${token}`).send({ name });

    const other = new sqlite3.Database(fresh.opts.url as string);
    const exec = (sql: string) => new Promise<void>((ok, fail) => other.exec(sql, (e) => (e ? fail(e) : ok())));
    await exec('BEGIN IMMEDIATE');
    try {
      const res = await createGroup('while-locked');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'The database is busy; retry the request shortly.' });
    } finally {
      await exec('COMMIT');
    }
    expect((await createGroup('after-lock')).status).toBe(201);
    const names = (await request(url).get('/admin/realms/master/groups').set('Authorization', `Bearer ${token}`)).body.map(
      (g: { name: string }) => g.name,
    );
    expect(names).toEqual(['after-lock']);
    await new Promise<void>((ok) => other.close(() => ok()));
  });
});
