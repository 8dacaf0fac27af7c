import { GRAPHQL_DEFAULTS } from '../../src/config/graphql-options';
import { createGroup, createRealm, createUser } from '../helpers/fixtures';
import { type TestServer, startTestServer } from '../helpers/server';
import { gqlClient } from './gql';

/** `graphql-timeout`: once a query's time is up, its remaining object fields fail with TIMEOUT instead of running. */
let ts: TestServer;
const REALM = 'limits';

beforeAll(async () => {
  ts = await startTestServer({ graphql: { ...GRAPHQL_DEFAULTS, timeout: 1 } });
  await createRealm(await ts.api(), REALM);
  const api = await ts.api();
  const group = await createGroup(api, REALM, 'staff');
  for (const u of ['ann', 'bob']) {
    const id = await createUser(ts, REALM, u);
    await api.put(`/admin/realms/${REALM}/users/${id}/groups/${group}`);
  }
}, 60_000);
afterAll(() => ts.close());

it('a query running past the deadline stops with TIMEOUT errors and a 503 status in extensions', async () => {
  // Four levels, each waiting on SQL: the deadline of 1 ms passes before the last ones start.
  const r = await gqlClient(ts)(
    `{ realm(name: "${REALM}") { users(max: 2) { groups(max: 2) { members(max: 2) { groups(max: 2) { id } } } } } }`,
  );
  const timeouts = (r.errors ?? []).filter((e) => e.extensions.code === 'TIMEOUT');
  expect(timeouts.length).toBeGreaterThan(0);
  expect(timeouts[0].message).toBe('The query ran longer than 1 ms and was stopped.');
  expect(timeouts[0].extensions.http?.status).toBe(503);
});

it('a mutation is not stopped: the write that ran is reported with its selection', async () => {
  const r = await gqlClient(ts)(
    `mutation { createGroup(realm: "${REALM}", input: { name: "late" }) { group { id name subGroups { id } members(max: 2) { id } } userErrors { code } } }`,
  );
  expect(r.errors).toBeUndefined();
  expect(r.data?.createGroup).toMatchObject({ group: { name: 'late', subGroups: [], members: [] }, userErrors: [] });
  const api = await ts.api();
  expect((await api.get(`/admin/realms/${REALM}/groups/${r.data?.createGroup.group.id}`)).body.name).toBe('late');
});
