import { GRAPHQL_DEFAULTS } from '../../src/config/graphql-options';
import { createRealm, createUser } from '../helpers/fixtures';
import { type TestServer, startTestServer } from '../helpers/server';
import { type GqlResult, gqlClient, ok } from './gql';

/** The GraphQL limits follow the configuration (`graphql-max-page-size`, `graphql-max-cost`). */
let ts: TestServer;
let gql: ReturnType<typeof gqlClient>;
const REALM = 'limits';
const codes = (r: GqlResult) => (r.errors ?? []).map((e) => e.extensions.code);

beforeAll(async () => {
  ts = await startTestServer({ graphql: { ...GRAPHQL_DEFAULTS, maxPageSize: 2, maxCost: 30 } });
  gql = gqlClient(ts);
  await createRealm(await ts.api(), REALM);
  for (const u of ['ann', 'bob', 'cid']) await createUser(ts, REALM, u);
}, 60_000);
afterAll(() => ts.close());

it('an omitted max is the configured page size, a larger one is rejected', async () => {
  expect(
    ok(await gql(`{ realm(name: "${REALM}") { users { username } } }`)).realm.users.map((u: { username: string }) => u.username),
  ).toEqual(['ann', 'bob']);
  const over = await gql(`{ realm(name: "${REALM}") { users(max: 3) { id } } }`);
  expect(codes(over)).toEqual(['BAD_USER_INPUT']);
  expect(over.errors?.[0].message).toBe('Argument "max" must be between 0 and 2, got 3.');
});

it('the configured cost limit applies', async () => {
  // realm 1 + twice 2 users × (1 + 10 unpaged roles)
  const costly = await gql(`{ realm(name: "${REALM}") { a: users { realmRoles { id } } b: users { realmRoles { id } } } }`);
  expect(costly.status).toBe(400);
  expect(costly.errors?.[0].message).toMatch(/cost 45 exceeds the limit of 30/);
  expect(ok(await gql(`{ realm(name: "${REALM}") { a: users { realmRoles { id } } } }`)).realm.a).toHaveLength(2);
});
