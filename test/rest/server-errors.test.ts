import request from 'supertest';
import { setConsoleStream } from '../../src/logging';
import { createUser, realmServer } from '../helpers/fixtures';
import { type AdminApi, TEST_DB_URL, type TestServer } from '../helpers/server';
import { Capture } from '../logging/helpers';

/**
 * Diagnosable errors (issue 10): every response carries an `X-Request-Id`, and a 5xx — here a real
 * database error, a table renamed away in this test's own database — is logged once at ERROR with the
 * route template, the request id, the driver's message and its SQL state / error code, while the
 * client sees only Keycloak's generic body. Never the query string, the SQL parameters or the token.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'diag';
const out = new Capture();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GENERIC_500 = { error: 'unknown_error', error_description: 'For more on this error consult the server log.' };

beforeAll(async () => {
  setConsoleStream(out); // the test server's logging (root ERROR) writes here
  ({ ts, api } = await realmServer(R));
});
afterAll(async () => {
  await ts.close();
  setConsoleStream(undefined);
});

/** Runs `fn` while `table` is renamed away, so statements reading it fail in the driver. */
async function withoutTable<T>(table: string, fn: () => Promise<T>): Promise<T> {
  const q = (sql: string) => ts.db.sequelize.query(sql);
  await q(`ALTER TABLE ${table} RENAME TO ${table}_away`);
  try {
    return await fn();
  } finally {
    await q(`ALTER TABLE ${table}_away RENAME TO ${table}`);
  }
}

/** The log text of one request: every line from the one naming its id up to the next log line. */
function logOf(requestId: string): string[] {
  return out.text.split(/\n(?=\d{4}-\d\d-\d\d )/).filter((entry) => entry.includes(`(request ${requestId})`));
}

/** The driver's message and codes on this database, for a missing `table`. */
const missingTable = (table: string) =>
  TEST_DB_URL
    ? new RegExp(`Table '[^']+\\.${table}' doesn't exist \\(sqlState=42S02, code=ER_NO_SUCH_TABLE, errno=1146\\)`)
    : new RegExp(`SQLITE_ERROR: no such table: ${table} \\(code=SQLITE_ERROR, errno=1\\)`);

test('a GET answer carries no ETag, as Keycloak sends none (and If-None-Match never turns it into a 304)', async () => {
  const res = await api.get(`/admin/realms/${R}`);
  expect(res.status).toBe(200);
  expect(res.headers.etag).toBeUndefined();
  expect((await api.get(`/admin/realms/${R}`).set('If-None-Match', '*')).status).toBe(200);
});

describe('X-Request-Id', () => {
  test('every response carries one: a new UUID each time unless the client sent a sane one', async () => {
    const a = await request(ts.app).get('/health');
    const b = await request(ts.app).get('/admin/realms'); // 401
    const c = await request(ts.app).get('/nowhere'); // 404
    const ids = [a, b, c].map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(3);
    expect((await api.get(`/admin/realms/${R}`).set('X-Request-Id', 'trace-42/abc:1')).headers['x-request-id']).toBe('trace-42/abc:1');
    const token = await request(ts.app)
      .post('/realms/master/protocol/openid-connect/token')
      .set('X-Request-Id', 'tok-1')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'wrong' });
    expect([token.status, token.headers['x-request-id']]).toEqual([400, 'tok-1']);
    const gql = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await ts.token()}`)
      .set('X-Request-Id', 'gql-1')
      .send({ query: '{ __typename }' });
    expect([gql.status, gql.headers['x-request-id']]).toEqual([200, 'gql-1']);
  });

  test('an id that is too long, empty or not printable ASCII is replaced by a UUID', async () => {
    for (const sent of ['x'.repeat(129), '', 'with space', 'tab\there', 'ünïcode']) {
      const res = await api.get(`/admin/realms/${R}`).set('X-Request-Id', sent);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
    expect((await api.get(`/admin/realms/${R}`).set('X-Request-Id', 'y'.repeat(128))).headers['x-request-id']).toBe('y'.repeat(128));
  });
});

describe('a database error', () => {
  test('REST: the generic 500, and one ERROR line with route template, request id, driver message and codes, no secrets', async () => {
    const token = await ts.token();
    const res = await withoutTable('keycloak_group', () =>
      request(ts.app)
        .get(`/admin/realms/${R}/groups?search=secret-search-term-7f&first=0`)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Request-Id', 'rest-db-error-1'),
    );
    expect([res.status, res.body, res.headers['x-request-id']]).toEqual([500, GENERIC_500, 'rest-db-error-1']);
    const entries = logOf('rest-db-error-1');
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatch(
      /^\S+ \S+ ERROR \[idserver\.server\] \(main\) Server error on GET \/admin\/realms\/:realm\/groups \(request rest-db-error-1\): /,
    );
    expect(entry).toMatch(missingTable('keycloak_group'));
    expect(entry).not.toContain('Unhandled error: Error');
    // Neither the query string nor the SQL (whose LIKE carries the search term) nor the token.
    for (const secret of ['secret-search-term-7f', 'first=0', 'SELECT', token]) expect(entry).not.toContain(secret);
  });

  test('the route template names the parameters of every router on the way, not their values', async () => {
    const userId = await createUser(ts, R, 'templ-user');
    const client = (await api.get(`/admin/realms/${R}/clients?clientId=account`)).body[0].id as string;
    // Each case with a table its route must read (renamed away for the request).
    const cases: Array<[string, string, string]> = [
      [
        `/admin/realms/${R}/users/${userId}/groups?briefRepresentation=false`,
        '/admin/realms/:realm/users/:userId/groups',
        'keycloak_group',
      ],
      [
        `/admin/realms/${R}/users/${userId}/role-mappings/realm`,
        '/admin/realms/:realm/users/:ownerId/role-mappings/realm',
        'user_role_mapping',
      ],
      [
        `/admin/realms/${R}/clients/${client}/roles/manage-account/users`,
        '/admin/realms/:realm/clients/:clientUuid/roles/:roleName/users',
        'user_role_mapping',
      ],
      [`/admin/realms/${R}/groups/${userId}/children`, '/admin/realms/:realm/groups/:id/children', 'keycloak_group'],
    ];
    const token = await ts.token();
    const seen: string[] = [];
    for (const [i, [url, , table]] of cases.entries()) {
      const res = await withoutTable(table, () =>
        request(ts.app).get(url).set('Authorization', `Bearer ${token}`).set('X-Request-Id', `templ-${i}`),
      );
      expect(res.status).toBe(500);
      seen.push(/Server error on GET (\S+) /.exec(logOf(`templ-${i}`).join(''))?.[1] ?? '');
    }
    expect(seen).toEqual(cases.map(([, template]) => template));
  });

  test('GraphQL: masked as INTERNAL_SERVER_ERROR, logged once with the operation, field path and request id', async () => {
    const token = await ts.token();
    const res = await withoutTable('keycloak_group', () =>
      request(ts.app)
        .post('/graphql')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Request-Id', 'gql-db-error-1')
        .send({ query: `query Groups { realm(name: "${R}") { groups { name } } }`, operationName: 'Groups' }),
    );
    expect(res.headers['x-request-id']).toBe('gql-db-error-1');
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'For more on this error consult the server log.',
        extensions: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
      }),
    ]);
    const entries = logOf('gql-db-error-1');
    expect(entries).toHaveLength(1);
    // The admin-permission check of `realm` reads group memberships already: the fault is on that field.
    expect(entries[0]).toMatch(
      /ERROR \[idserver\.graphql\] \(main\) Server error on POST \/graphql operation Groups field realm(\.groups)? \(request gql-db-error-1\): /,
    );
    expect(entries[0]).toMatch(missingTable('keycloak_group'));
    expect(entries[0]).not.toContain('SELECT');
  });

  test('token endpoint: the generic 500 and one ERROR line, without the password', async () => {
    await createUser(ts, R, 'diaguser', { password: 'Secret-Pa55-never-logged' });
    const res = await withoutTable('credential', () =>
      request(ts.app)
        .post(`/realms/${R}/protocol/openid-connect/token?trace=qs-secret`)
        .set('X-Request-Id', 'oidc-db-error-1')
        .type('form')
        .send({ grant_type: 'password', client_id: 'admin-cli', username: 'diaguser', password: 'Secret-Pa55-never-logged' }),
    );
    expect([res.status, res.body, res.headers['x-request-id']]).toEqual([500, GENERIC_500, 'oidc-db-error-1']);
    const entries = logOf('oidc-db-error-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toContain('Server error on POST /realms/:realm/protocol/openid-connect/token (request oidc-db-error-1): ');
    expect(entries[0]).toMatch(missingTable('credential'));
    for (const secret of ['Secret-Pa55-never-logged', 'qs-secret', 'diaguser']) expect(entries[0]).not.toContain(secret);
  });
});
