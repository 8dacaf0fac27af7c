import request from 'supertest';
import { createGroup, createRealm, createRole, createUser } from '../helpers/fixtures';
import { type TestServer, startTestServer } from '../helpers/server';
import { type GqlResult, type Json, gqlClient, ok } from './gql';

/**
 * Relay connections: `first`/`after` forward, `last`/`before` backward, pageInfo and totalCount
 * agree with the whole list, cursors are opaque and checked, page sizes are limited.
 */
let ts: TestServer;
let gql: ReturnType<typeof gqlClient>;
const REALM = 'conn';
const NAMES = Array.from({ length: 7 }, (_, i) => `user${i}`);

beforeAll(async () => {
  ts = await startTestServer();
  gql = gqlClient(ts);
  await createRealm(await ts.api(), REALM);
  for (const [i, u] of NAMES.entries()) await createUser(ts, REALM, u, { extra: { enabled: i % 2 === 0 } });
}, 60_000);
afterAll(() => ts.close());

const PAGE = `edges { cursor node { username } } nodes { username } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount`;
async function users(args: string): Promise<Json> {
  const a = args ? `(${args})` : '';
  return ok(await gql(`{ realm(name: "${REALM}") { usersConnection${a} { ${PAGE} } } }`)).realm.usersConnection;
}
const names = (c: Json) => c.nodes.map((n: Json) => n.username);
const codes = (r: GqlResult) => (r.errors ?? []).map((e) => e.extensions.code);

it('pages forward with first/after until hasNextPage is false', async () => {
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const c: Json = await users(`first: 3${after ? `, after: "${after}"` : ''}`);
    pages++;
    expect(c.totalCount).toBe(7);
    expect(c.edges.map((e: Json) => e.node.username)).toEqual(names(c));
    expect(c.pageInfo.hasPreviousPage).toBe(seen.length > 0);
    seen.push(...names(c));
    if (!c.pageInfo.hasNextPage) break;
    after = c.pageInfo.endCursor;
  }
  expect(pages).toBe(3);
  expect(seen).toEqual(NAMES);
});

it('pages backward with last/before', async () => {
  const tail = await users('last: 3');
  expect(names(tail)).toEqual(['user4', 'user5', 'user6']);
  expect(tail.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  const before = await users(`last: 3, before: "${tail.pageInfo.startCursor}"`);
  expect(names(before)).toEqual(['user1', 'user2', 'user3']);
  const head = await users(`last: 3, before: "${before.pageInfo.startCursor}"`);
  expect(names(head)).toEqual(['user0']);
  expect(head.pageInfo.hasPreviousPage).toBe(false);
});

it('defaults to 20 items; an empty page has null cursors', async () => {
  expect(names(await users(''))).toEqual(NAMES);
  const empty = await users('first: 0');
  expect(empty.nodes).toEqual([]);
  expect(empty.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
});

it('filters as GET /users does, and totalCount counts the filtered list', async () => {
  const enabled = await users('first: 10, filter: { enabled: true }');
  expect(names(enabled)).toEqual(['user0', 'user2', 'user4', 'user6']);
  expect(enabled.totalCount).toBe(4);
  const api = await ts.api();
  const rest = await api.get(`/admin/realms/${REALM}/users?enabled=true&first=1&max=2`);
  const page2 = await users(`first: 2, after: "${enabled.edges[0].cursor}", filter: { enabled: true }`);
  expect(names(page2)).toEqual(rest.body.map((u: Json) => u.username));
});

it('refuses a foreign cursor, first with last, negative and oversized pages', async () => {
  const bad = await gql(`{ realm(name: "${REALM}") { usersConnection(after: "bm9wZQ") { totalCount } } }`);
  expect(codes(bad)).toEqual(['BAD_USER_INPUT']);
  expect(bad.errors?.[0].message).toBe('Argument "after" is not a cursor of this connection.');
  const both = await gql(`{ realm(name: "${REALM}") { usersConnection(first: 1, last: 1) { totalCount } } }`);
  expect(both.errors?.[0].message).toBe('Pass "first" or "last", not both.');
  const big = await gql(`{ realm(name: "${REALM}") { usersConnection(first: 101) { totalCount } } }`);
  expect(big.status).toBe(400);
  expect(big.errors?.[0].message).toBe('Argument "first" must be between 0 and 100, got 101.');
  const neg = await gql(`{ realm(name: "${REALM}") { usersConnection(last: -1) { totalCount } } }`);
  expect(codes(neg)).toEqual(['BAD_USER_INPUT']);
});

it('costs its page size times what each node holds', async () => {
  const token = await ts.token();
  const res = await request(ts.app)
    .post('/graphql')
    .set('Authorization', `Bearer ${token}`)
    .send({
      query: `{ realm(name: "${REALM}") { usersConnection(first: 5) { pageInfo { hasNextPage } edges { node { groups(max: 3) { id } } } } } }`,
    });
  // realm 1 + connection 5 × (1 + pageInfo 1 + 5... per node: node 1 + groups 3)
  expect(res.body.extensions.cost.requested).toBe(1 + 5 * (1 + 1 + (1 + 3)));
});

describe('other connections and counts', () => {
  let groupIds: string[];
  beforeAll(async () => {
    const api = await ts.api();
    groupIds = [];
    for (const g of ['alpha', 'beta', 'gamma']) groupIds.push(await createGroup(api, REALM, g));
    await createGroup(api, REALM, 'alpha-child', groupIds[0]);
    const users = (await api.get(`/admin/realms/${REALM}/users?max=100`)).body as Json[];
    for (const u of users.slice(0, 3)) await api.put(`/admin/realms/${REALM}/users/${u.id}/groups/${groupIds[0]}`);
    await api.put(`/admin/realms/${REALM}/users/${users[0].id}/groups/${groupIds[1]}`);
    const role = await createRole(api, REALM, 'auditor');
    for (const u of users.slice(0, 2)) await api.post(`/admin/realms/${REALM}/users/${u.id}/role-mappings/realm`, [role]);
  });

  it('groups: top-level by name, a search at any level, members and subgroups with counts', async () => {
    const q = `{ realm(name: "${REALM}") {
      top: groupsConnection(first: 2) { nodes { name memberCount } totalCount pageInfo { hasNextPage } }
      found: groupsConnection(filter: { search: "alpha" }) { nodes { name } totalCount }
    } }`;
    const realm = ok(await gql(q)).realm;
    expect(realm.top.nodes).toEqual([
      { name: 'alpha', memberCount: 3 },
      { name: 'beta', memberCount: 1 },
    ]);
    expect(realm.top.totalCount).toBe(3);
    expect(realm.top.pageInfo.hasNextPage).toBe(true);
    expect(realm.found).toEqual({ nodes: [{ name: 'alpha' }, { name: 'alpha-child' }], totalCount: 2 });
    const g = ok(
      await gql(`{ group(realm: "${REALM}", id: "${groupIds[0]}") {
        membersConnection(first: 2) { nodes { username } totalCount pageInfo { hasNextPage } }
        subGroupsConnection { nodes { name } totalCount }
      } }`),
    ).group;
    expect(g.membersConnection).toEqual({
      nodes: [{ username: 'user0' }, { username: 'user1' }],
      totalCount: 3,
      pageInfo: { hasNextPage: true },
    });
    expect(g.subGroupsConnection).toEqual({ nodes: [{ name: 'alpha-child' }], totalCount: 1 });
  });

  it('roles: a search, holders and their count', async () => {
    const r = ok(
      await gql(`{ realm(name: "${REALM}") { rolesConnection(filter: { search: "audit" }) {
        totalCount nodes { name userCount usersConnection(first: 1) { nodes { username } totalCount } } } } }`),
    ).realm.rolesConnection;
    expect(r).toEqual({
      totalCount: 1,
      nodes: [{ name: 'auditor', userCount: 2, usersConnection: { nodes: [{ username: 'user0' }], totalCount: 2 } }],
    });
  });

  it('clients: by clientId infix, counted', async () => {
    const c = ok(
      await gql(`{ realm(name: "${REALM}") { clientsConnection(first: 1, filter: { clientId: "admin", search: true }) {
        nodes { clientId } totalCount pageInfo { hasNextPage } } } }`),
    ).realm.clientsConnection;
    expect(c).toEqual({ nodes: [{ clientId: 'admin-cli' }], totalCount: 2, pageInfo: { hasNextPage: true } }); // and security-admin-console
  });

  it('admin events: typed filters, oldest first on request, backward only from a cursor', async () => {
    const api = await ts.api();
    await api.put(`/admin/realms/${REALM}/events/config`, { adminEventsEnabled: true, adminEventsDetailsEnabled: false });
    for (const name of ['e1', 'e2', 'e3']) await api.post(`/admin/realms/${REALM}/roles`, { name });
    const q = (args: string) =>
      gql(
        `{ realm(name: "${REALM}") { adminEventsConnection(${args}) { nodes { operationType resourcePath } pageInfo { hasNextPage endCursor } } } }`,
      );
    const asc = ok(await q('first: 2, filter: { operationTypes: [CREATE], resourceTypes: [REALM_ROLE] }, orderBy: { direction: ASC }'))
      .realm.adminEventsConnection;
    expect(asc.nodes.map((n: Json) => n.resourcePath)).toEqual(['roles/e1', 'roles/e2']);
    expect(asc.pageInfo.hasNextPage).toBe(true);
    const desc = ok(await q('first: 1, filter: { resourceTypes: [REALM_ROLE] }')).realm.adminEventsConnection;
    expect(desc.nodes).toEqual([{ operationType: 'CREATE', resourcePath: 'roles/e3' }]);
    const back = await q('last: 2');
    expect(back.errors?.[0].message).toBe('This connection pages backward from a cursor: pass "before" with "last".');
    const badType = await q('filter: { operationTypes: [EXPLODE] }');
    expect(codes(badType)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('memberCount and userCount cost the same statements for 3 groups as for 1', async () => {
    const one = await ts.countSql(() => gql(`{ realm(name: "${REALM}") { groupsConnection(first: 1) { nodes { memberCount } } } }`));
    const three = await ts.countSql(() => gql(`{ realm(name: "${REALM}") { groupsConnection(first: 3) { nodes { memberCount } } } }`));
    expect(three.count).toBe(one.count);
    const roles1 = await ts.countSql(() => gql(`{ realm(name: "${REALM}") { rolesConnection(first: 1) { nodes { userCount } } } }`));
    const roles3 = await ts.countSql(() => gql(`{ realm(name: "${REALM}") { rolesConnection(first: 3) { nodes { userCount } } } }`));
    expect(roles3.count).toBe(roles1.count);
  });
});
