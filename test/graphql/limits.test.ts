import request from 'supertest';
import { GRAPHQL_DEFAULTS } from '../../src/config/graphql-options';
import { createClient, createRealm, createUser } from '../helpers/fixtures';
import { type TestServer, startTestServer } from '../helpers/server';
import { type GqlResult, type Json, gqlClient, ok } from './gql';

/**
 * The gateway's protection against abusive queries: size, depth, aliases, page sizes and cost are
 * checked before anything runs (no SQL beyond the caller's authentication), a running query stops at
 * its deadline, introspection and suggestions are for administrators, persisted queries are off, and
 * CORS follows the token's allowed origins.
 */
let ts: TestServer;
let gql: ReturnType<typeof gqlClient>;
const REALM = 'limits';

beforeAll(async () => {
  ts = await startTestServer();
  gql = gqlClient(ts);
  await createRealm(await ts.api(), REALM);
  for (const u of ['ann', 'bob', 'cid']) await createUser(ts, REALM, u);
}, 60_000);
afterAll(() => ts.close());

const codes = (r: GqlResult) => (r.errors ?? []).map((e) => e.extensions.code);

/** Statements a request ran, minus the bearer verification every request pays. */
async function statementsOf(query: string): Promise<{ result: GqlResult; statements: number }> {
  let result: GqlResult = { status: 0, data: null };
  const token = await ts.token();
  const baseline = await ts.countSql(() =>
    request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ __typename }' }),
  );
  const run = await ts.countSql(async () => {
    result = await gql(query);
  });
  return { result, statements: run.count - baseline.count };
}

describe('rejected before execution', () => {
  it('a query whose nested pages multiply past the cost limit is rejected with its cost and runs no SQL', async () => {
    const q = `{ realm(name: "${REALM}") { users(max: 100) { groups { members(max: 100) { groups { members(max: 100) { id } } } } } } }`;
    const { result, statements } = await statementsOf(q);
    expect(result.status).toBe(400);
    expect(result.data).toBeNull();
    expect(codes(result)).toEqual(['QUERY_TOO_COSTLY']);
    expect(result.errors?.[0].message).toMatch(/cost \d+ exceeds the limit of 100000/);
    expect(statements).toBe(0);
  });

  it('a query deeper than the depth limit is a validation error', async () => {
    const deep = `{ realm(name: "${REALM}") { groups { ${'subGroups { '.repeat(12)}id${' }'.repeat(12)} } } }`;
    const r = await gql(deep);
    expect(r.status).toBe(400);
    expect(codes(r)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(r.errors?.[0].message).toMatch(/depth limit of 12 exceeded/);
  });

  it('more aliases than allowed are rejected, and a flood of 20,000 stops at the token limit', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: realm(name: "${REALM}") { id }`).join(' ')} }`;
    expect(ok(await gql(aliases(GRAPHQL_DEFAULTS.maxAliases)))).toBeTruthy();
    const over = await gql(aliases(GRAPHQL_DEFAULTS.maxAliases + 1));
    expect(over.status).toBe(400);
    expect(over.errors?.[0].message).toMatch(/Aliases limit of 20 exceeded/);
    const flood = await gql(aliases(20_000));
    expect(flood.status).toBe(400);
    expect(flood.errors?.[0].message).toMatch(/Document contains more tha[nt] 10000 tokens/);
  });

  it('a page size outside 0..100 is rejected, also through a variable', async () => {
    for (const max of [-1, 101, 100_000]) {
      const r = await gql(`{ realm(name: "${REALM}") { users(max: ${max}) { id } } }`);
      expect(r.status).toBe(400);
      expect(codes(r)).toEqual(['BAD_USER_INPUT']);
      expect(r.errors?.[0].message).toBe(`Argument "max" must be between 0 and 100, got ${max}.`);
    }
    const v = await gql('query($m: Int) { realm(name: "limits") { users(max: $m) { id } } }', { m: -1 });
    expect(codes(v)).toEqual(['BAD_USER_INPUT']);
  });

  it('abusive queries sent together with a normal one are all rejected and the normal one answers', async () => {
    const heavy = `{ realm(name: "${REALM}") { ${Array.from({ length: 20 }, (_, i) => `u${i}: users(max: 100) { groups { members(max: 100) { id } } }`).join(' ')} } }`;
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => gql(heavy)),
      gql(`{ realm(name: "${REALM}") { users { username } } }`),
    ]);
    const normal = results.pop() as GqlResult;
    for (const r of results) expect(codes(r)).toEqual(['QUERY_TOO_COSTLY']);
    expect(ok(normal).realm.users.map((u: Json) => u.username)).toEqual(['ann', 'bob', 'cid']);
  });
});

describe('cost', () => {
  it('is reported in extensions: each object 1, multiplied by the pages above it, an unpaged list counting 10', async () => {
    const token = await ts.token();
    const res = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({ query: `{ realm(name: "${REALM}") { users(max: 10) { username groups(max: 5) { id } realmRoles { id } } } }` });
    expect(res.status).toBe(200);
    // realm 1 + 10 users × (1 + 5 groups + 10 unpaged roles)
    expect(res.body.extensions.cost).toEqual({ requested: 161, limit: 100_000 });
  });
});

describe('the same query text sent again', () => {
  // Apollo hands repeated query texts the same parsed document; what the gateway learns of a document is
  // kept with it, so these pin that what depends on the variables is still decided per request.
  const Q = `query($max: Int, $gmax: Int) { realm(name: "${REALM}") { users(max: $max) { groups(max: $gmax) { members(max: 100) { id } } } } }`;
  const send = async (variables: Record<string, unknown>) =>
    request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await ts.token()}`)
      .send({ query: Q, variables });

  it('is costed for its own variables, and refused when they make it too costly', async () => {
    const small = await send({ max: 2, gmax: 1 });
    expect(small.status).toBe(200);
    // realm 1 + 2 users × (1 + 1 group × (1 + 100 members))
    expect(small.body.extensions.cost.requested).toBe(205);
    const bigger = await send({ max: 10, gmax: 1 });
    expect(bigger.body.extensions.cost.requested).toBe(1021);
    const tooBig = await send({ max: 100, gmax: 100 });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
    expect((await send({ max: 2, gmax: 1 })).body.extensions.cost.requested).toBe(205);
  });

  it('with bad text in a variable is refused, though the document itself was accepted before', async () => {
    const res = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await ts.token()}`)
      .send({ query: 'query($s: String!) { realm(name: "limits") { users(search: $s) { id } } }', variables: { s: 'ann' } });
    expect(res.status).toBe(200);
    const bad = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await ts.token()}`)
      .send({ query: 'query($s: String!) { realm(name: "limits") { users(search: $s) { id } } }', variables: { s: 'a\u0000n' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toBe('Text must not contain NUL characters or unpaired surrogates.');
  });
});

describe('introspection and suggestions', () => {
  const INTROSPECT = '{ __schema { queryType { name } } }';
  const TYPO = `{ realm(name: "${REALM}") { usrs { id } } }`;

  it('are open to administrators', async () => {
    expect(ok(await gql(INTROSPECT)).__schema.queryType.name).toBe('Query');
    const typo = await gql(TYPO);
    expect(typo.errors?.[0].message).toMatch(/Did you mean "users"/);
  });

  it('are closed to a caller without any admin role: FORBIDDEN, and the error names no other field', async () => {
    await createUser(ts, REALM, 'plain');
    const plain = gqlClient(ts, { realm: REALM, username: 'plain', password: 'pw' });
    const r = await plain(INTROSPECT);
    expect(r.status).toBe(403);
    expect(codes(r)).toEqual(['FORBIDDEN']);
    const typo = await plain(TYPO);
    expect(typo.status).toBe(400);
    expect(typo.errors?.[0].message).toBe('Cannot query field "usrs" on type "Realm".');
  });

  it('are open to a realm administrator of another realm than master', async () => {
    await createUser(ts, REALM, 'viewer', { roles: ['view-users'], password: 'pw' });
    const viewer = gqlClient(ts, { realm: REALM, username: 'viewer', password: 'pw' });
    expect(ok(await viewer(INTROSPECT)).__schema.queryType.name).toBe('Query');
  });
});

describe('persisted queries', () => {
  it('are off: a hash is refused, with or without its query', async () => {
    const token = await ts.token();
    const res = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } });
    // Apollo's APQ protocol answers 200 so clients fall back to sending the query text.
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toBe('PersistedQueryNotSupported');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'PERSISTED_QUERY_NOT_SUPPORTED', http: { status: 200 } });
    const withQuery = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({ query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'b'.repeat(64) } } });
    expect(withQuery.body.errors[0].message).toBe('PersistedQueryNotSupported');
  });
});

describe('CORS', () => {
  it('a preflight is answered without a token', async () => {
    const res = await request(ts.app)
      .options('/graphql')
      .set('Origin', 'https://dash.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://dash.example');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
  });

  it("a request gets CORS headers only for an origin its token's client allows", async () => {
    await createClient(await ts.api(), 'master', {
      clientId: 'dashboard',
      publicClient: true,
      directAccessGrantsEnabled: true,
      webOrigins: ['https://dash.example'],
    });
    const token = await ts.token({ clientId: 'dashboard' });
    const post = (origin: string) =>
      request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).set('Origin', origin).send({ query: '{ __typename }' });
    const allowed = await post('https://dash.example');
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://dash.example');
    const other = await post('https://evil.example');
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
