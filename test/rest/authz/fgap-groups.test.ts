import type { AdminApi, TestServer } from '../../helpers/server';
import { gqlClient } from '../../graphql/gql';
import { clientUuid, createGroup, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Fine-grained admin permissions on groups themselves (Keycloak 26 GroupPermissions, FGAP v1, and the
 * checks of GroupsResource / GroupResource), for admins holding no view-users / manage-users role, granted
 * permissions through one group policy ("members of helpdesk") on realm-management's resource server:
 *
 *   teams (view, manage-members)        secret (nothing)        loose (nothing)      helpdesk
 *   ├─ red (manage)                   └─ inner (view)
 *   └─ blue (nothing)
 *
 * "lead" (query-groups) and "agent" (no role at all) are members of helpdesk. Viewing, updating,
 * deleting, children, moving, listings (flat and with their ancestors), counts, group by path, a user's
 * groups, the access maps, GraphQL, deleting the permissions with the group, and what it all costs.
 */
let ts: TestServer;
let api: AdminApi;
let lead: AdminApi;
let agent: AdminApi;
const R = 'fgapgroups';
const base = `/admin/realms/${R}`;
let rsPath: string;
let policyId: string;
const g: Record<string, string> = {};
const u: Record<string, string> = {};
type Rep = Record<string, unknown>;
const NO_SUCH = '00000000-0000-4000-8000-000000000000';

/** Attaches the helpdesk policy to the permission of `scope` on group `id` (turning its permissions on). */
async function grant(id: string, scope: string): Promise<void> {
  const ref = expectStatus(await api.put(`${base}/groups/${id}/management/permissions`, { enabled: true }), 200, 'on').body;
  const permissionId = ref.scopePermissions[scope];
  const p = expectStatus(await api.get(`${rsPath}/permission/scope/${permissionId}`), 200, 'permission').body;
  const resources = (await api.get(`${rsPath}/policy/${permissionId}/resources`)).body.map((r: Rep) => r._id);
  const scopes = (await api.get(`${rsPath}/policy/${permissionId}/scopes`)).body.map((s: Rep) => s.id);
  expectStatus(
    await api.put(`${rsPath}/permission/scope/${permissionId}`, { ...p, resources, scopes, policies: [policyId] }),
    201,
    `grant ${scope}`,
  );
}

const status = async (caller: AdminApi, method: 'get' | 'put' | 'delete' | 'post', path: string, body?: unknown) =>
  (await caller[method](`${base}${path}`, body)).status;
const names = (reps: Rep[]): unknown[] =>
  reps.map((r) => (Array.isArray(r.subGroups) && r.subGroups.length ? { [String(r.name)]: names(r.subGroups as Rep[]) } : r.name));

const NONE = { view: false, viewMembers: false, manageMembers: false, manage: false, manageMembership: false };

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  rsPath = `${base}/clients/${await clientUuid(api, R, 'realm-management')}/authz/resource-server`;
  g.helpdesk = await createGroup(api, R, 'helpdesk');
  g.teams = await createGroup(api, R, 'teams');
  g.red = await createGroup(api, R, 'red', g.teams);
  g.blue = await createGroup(api, R, 'blue', g.teams);
  g.secret = await createGroup(api, R, 'secret');
  g.inner = await createGroup(api, R, 'inner', g.secret);
  g.loose = await createGroup(api, R, 'loose');
  u.lead = await createUser(ts, R, 'lead', { roles: ['query-groups'] });
  u.agent = await createUser(ts, R, 'agent');
  u.member = await createUser(ts, R, 'member');
  for (const [user, group] of [
    ['lead', 'helpdesk'],
    ['agent', 'helpdesk'],
    ['member', 'teams'],
    ['member', 'secret'],
  ])
    expectStatus(await api.put(`${base}/users/${u[user]}/groups/${g[group]}`), 204, `${user} joins ${group}`);
  // Turning permissions on creates the resource server's scopes; the policy comes after.
  expectStatus(await api.put(`${base}/groups/${g.teams}/management/permissions`, { enabled: true }), 200, 'teams on');
  policyId = expectStatus(
    await api.post(`${rsPath}/policy/group`, { name: 'helpdesk members', groups: [{ id: g.helpdesk, extendChildren: false }] }),
    201,
    'group policy',
  ).body.id;
  await grant(g.teams, 'view');
  await grant(g.teams, 'manage-members');
  await grant(g.red, 'manage');
  await grant(g.inner, 'view');
  lead = await ts.api({ realm: R, username: 'lead', password: 'pw' });
  agent = await ts.api({ realm: R, username: 'agent', password: 'pw' });
});
afterAll(() => ts.close());

describe('one group: view, update, delete (GroupResource)', () => {
  test('GET /groups/{id}: the groups he may view, with the access map of each; 404 before 403', async () => {
    const teams = expectStatus(await agent.get(`${base}/groups/${g.teams}`), 200, 'teams').body;
    expect(teams).toMatchObject({ name: 'teams', path: '/teams', subGroupCount: 2 });
    expect(teams.access).toEqual({ ...NONE, view: true, viewMembers: true, manageMembers: true });
    const red = expectStatus(await agent.get(`${base}/groups/${g.red}`), 200, 'red').body;
    // manage implies view and manage-membership (GroupPermissions#canView, #canManageMembership).
    expect(red.access).toEqual({ ...NONE, view: true, manage: true, manageMembership: true });
    expect((await agent.get(`${base}/groups/${g.inner}`)).status).toBe(200);
    for (const name of ['blue', 'secret', 'loose', 'helpdesk'])
      expect([name, await status(agent, 'get', `/groups/${g[name]}`)]).toEqual([name, 403]);
    expect(await status(agent, 'get', `/groups/${NO_SUCH}`)).toBe(404);
  });

  test('PUT needs manage of the group', async () => {
    expectStatus(await agent.put(`${base}/groups/${g.red}`, { name: 'red', description: 'managed' }), 204, 'update red');
    expect((await api.get(`${base}/groups/${g.red}`)).body.description).toBe('managed');
    for (const name of ['teams', 'blue', 'inner'])
      expect([name, await status(agent, 'put', `/groups/${g[name]}`, { name })]).toEqual([name, 403]);
    expect((await api.get(`${base}/groups/${g.teams}`)).body.name).toBe('teams');
  });

  test('group by path: 404 for an unknown path, then view of the group', async () => {
    expect(expectStatus(await agent.get(`${base}/group-by-path/teams/red`), 200, 'by path').body.id).toBe(g.red);
    expect(await status(agent, 'get', '/group-by-path/secret')).toBe(403);
    expect(await status(agent, 'get', '/group-by-path/secret/inner')).toBe(200);
    expect(await status(agent, 'get', '/group-by-path/nowhere')).toBe(404);
  });
});

describe('children (GroupResource#getSubGroups, #addChild)', () => {
  test('GET children: view of the parent, then only the children he may view, paged after the filter', async () => {
    const kids = expectStatus(await agent.get(`${base}/groups/${g.teams}/children`), 200, 'children').body;
    expect(kids.map((k: Rep) => [k.name, k.access])).toEqual([['red', { ...NONE, view: true, manage: true, manageMembership: true }]]);
    // blue sorts before red: without the filter first paging, max=1 would be blue and hidden.
    expect((await agent.get(`${base}/groups/${g.teams}/children?first=0&max=1`)).body.map((k: Rep) => k.name)).toEqual(['red']);
    expect((await agent.get(`${base}/groups/${g.teams}/children?first=1&max=1`)).body).toEqual([]);
    expect(await status(agent, 'get', `/groups/${g.secret}/children`)).toBe(403);
    expect(await status(agent, 'get', `/groups/${g.blue}/children`)).toBe(403);
    // An admin whose roles decide sees both.
    expect((await api.get(`${base}/groups/${g.teams}/children`)).body.map((k: Rep) => k.name)).toEqual(['blue', 'red']);
  });

  test('POST children creates under a group he manages; a move needs manage of the new parent only', async () => {
    const res = expectStatus(await agent.post(`${base}/groups/${g.red}/children`, { name: 'crimson' }), 201, 'create child');
    g.crimson = res.body.id;
    expect(res.body.access).toEqual(NONE);
    expect(await status(agent, 'post', `/groups/${g.teams}/children`, { name: 'nope' })).toBe(403);
    expect(await status(agent, 'post', `/groups/${g.blue}/children`, { id: g.loose, name: 'loose' })).toBe(403);
    expect(await status(agent, 'post', `/groups/${g.red}/children`, { id: g.loose, name: 'loose' })).toBe(204);
    expect((await api.get(`${base}/groups/${g.loose}`)).body.path).toBe('/teams/red/loose');
    // Creating or moving to the top level stays a manage-users matter.
    expect(await status(agent, 'post', '/groups', { name: 'top' })).toBe(403);
    expect(await status(agent, 'post', '/groups', { id: g.loose, name: 'loose' })).toBe(403);
    expectStatus(await api.post(`${base}/groups`, { id: g.loose, name: 'loose' }), 204, 'back to the top');
  });
});

describe('listings (GroupsResource#getGroups, #getGroupCount)', () => {
  test('query-groups is needed to list at all', async () => {
    expect(await status(agent, 'get', '/groups')).toBe(403);
    expect(await status(agent, 'get', '/groups/count')).toBe(403);
  });

  test('top-level groups: only those he may view', async () => {
    const top = expectStatus(await lead.get(`${base}/groups`), 200, 'groups').body;
    expect(top.map((x: Rep) => [x.name, x.access])).toEqual([['teams', { ...NONE, view: true, viewMembers: true, manageMembers: true }]]);
    expect((await lead.get(`${base}/groups?populateHierarchy=false`)).body.map((x: Rep) => x.name)).toEqual(['teams']);
  });

  test('a search keeps a match only when he may view it and all its ancestors', async () => {
    expect(names((await lead.get(`${base}/groups?search=r`)).body)).toEqual([{ teams: ['red'] }]);
    // inner is viewable, its parent secret is not.
    expect((await lead.get(`${base}/groups?search=inner`)).body).toEqual([]);
    // Flat: every viewable match, at any level.
    const flat = (await lead.get(`${base}/groups?search=e&populateHierarchy=false`)).body.map((x: Rep) => x.name);
    expect(flat).toEqual(['inner', 'red', 'teams']);
    expect((await api.get(`${base}/groups?search=e&populateHierarchy=false`)).body.map((x: Rep) => x.name)).toEqual([
      'blue',
      'helpdesk',
      'inner',
      'loose',
      'red',
      'secret',
      'teams',
    ]);
  });

  test('counts are not filtered (Keycloak counts every group for whoever may list them)', async () => {
    expect(expectStatus(await lead.get(`${base}/groups/count`), 200, 'count').body).toEqual({ count: 8 });
    expect((await lead.get(`${base}/groups/count?top=true`)).body).toEqual({ count: 4 });
    expect((await lead.get(`${base}/groups/count?search=inner`)).body).toEqual({ count: 1 });
  });

  test("a user's groups: only the groups he may view", async () => {
    // lead views member through manage-members on teams; member is in teams and secret.
    const groups = expectStatus(await lead.get(`${base}/users/${u.member}/groups`), 200, 'user groups').body;
    expect(groups.map((x: Rep) => x.name)).toEqual(['teams']);
    expect((await api.get(`${base}/users/${u.member}/groups`)).body.map((x: Rep) => x.name)).toEqual(['secret', 'teams']);
    expect((await lead.get(`${base}/users/${u.member}/groups/count`)).body).toEqual({ count: 2 });
  });
});

describe('GraphQL answers through the same decisions', () => {
  const gql = () => gqlClient(ts, { realm: R, username: 'lead', password: 'pw' });
  const statusOf = (r: { errors?: Array<{ extensions: { code: string; http?: { status: number } } }> }) =>
    r.errors?.[0]?.extensions.http?.status ?? r.errors?.[0]?.extensions.code;

  test('lookups, listings, children and member counts', async () => {
    const q = `query($r: String!, $teams: ID!, $blue: ID!) {
      realm(name: $r) { groups { name access } groupsCount(top: true) team: group(id: $teams) { name memberCount subGroups { name } } }
      hidden: group(realm: $r, id: $blue) { name }
    }`;
    const res = await gql()(q, { r: R, teams: g.teams, blue: g.blue });
    expect(res.data?.realm).toEqual({
      groups: [{ name: 'teams', access: { ...NONE, view: true, viewMembers: true, manageMembers: true } }],
      groupsCount: 4,
      team: { name: 'teams', memberCount: 1, subGroups: [{ name: 'red' }] },
    });
    expect(res.data?.hidden).toBeNull();
    expect(statusOf(res)).toBe(403);
  });

  test('update, create a child, move, under the groups he manages', async () => {
    const call = gql();
    const upd = await call(
      'mutation($r: String!, $id: ID!) { updateGroup(realm: $r, id: $id, input: { name: "red", description: "gql" }) { group { description } } }',
      {
        r: R,
        id: g.red,
      },
    );
    expect(upd.errors).toBeUndefined();
    expect(upd.data?.updateGroup.group).toEqual({ description: 'gql' });
    const refused = await call(
      'mutation($r: String!, $id: ID!) { updateGroup(realm: $r, id: $id, input: { name: "x" }) { group { name } } }',
      {
        r: R,
        id: g.teams,
      },
    );
    expect(statusOf(refused)).toBe(403);
    const child = await call(
      'mutation($r: String!, $p: ID!) { createChildGroup(realm: $r, parentId: $p, input: { name: "scarlet" }) { group { id path access } } }',
      { r: R, p: g.red },
    );
    expect(child.errors).toBeUndefined();
    expect(child.data?.createChildGroup.group).toMatchObject({ path: '/teams/red/scarlet', access: NONE });
    const moved = await call(
      'mutation($r: String!, $id: ID!, $p: ID!) { moveGroup(realm: $r, id: $id, parentId: $p) { group { path } } }',
      {
        r: R,
        id: g.loose,
        p: g.red,
      },
    );
    expect(moved.errors).toBeUndefined();
    expect(moved.data?.moveGroup.group).toEqual({ path: '/teams/red/loose' });
    expectStatus(await api.post(`${base}/groups`, { id: g.loose, name: 'loose' }), 204, 'back to the top');
    const del = await call('mutation($r: String!, $id: ID!) { deleteGroup(realm: $r, id: $id) { ok } }', { r: R, id: g.blue });
    expect(statusOf(del)).toBe(403);
  });
});

describe('cost', () => {
  test('a listing of many groups costs the SQL of a listing of one', async () => {
    // Both pages hold one subgroup whose parent is not among them (one read of the parents each).
    // A first request warms what earlier writes made stale (the realm's cached settings).
    expectStatus(await lead.get(`${base}/groups?populateHierarchy=false&search=inner`), 200, 'warm');
    const one = await ts.countSql(
      async () => expectStatus(await lead.get(`${base}/groups?populateHierarchy=false&search=inner`), 200, 'one').body,
    );
    const all = await ts.countSql(
      async () => expectStatus(await lead.get(`${base}/groups?populateHierarchy=false&search=e`), 200, 'all').body,
    );
    expect(one.result).toHaveLength(1);
    expect(all.result).toHaveLength(3);
    expect(all.count).toBe(one.count);
  });

  test('an admin whose roles decide reads nothing of the permissions', async () => {
    await createUser(ts, R, 'boss', { roles: ['manage-users'] });
    const admin = await ts.api({ realm: R, username: 'boss', password: 'pw' });
    const { statements, result } = await ts.countSql(async () => [
      (await admin.get(`${base}/groups`)).body,
      (await admin.get(`${base}/groups/${g.teams}/children`)).body,
      (await admin.get(`${base}/groups/${g.teams}`)).body,
    ]);
    expect(result[0].map((x: Rep) => x.name)).toEqual(['helpdesk', 'loose', 'secret', 'teams']);
    expect(result[2].access).toEqual({ view: true, viewMembers: true, manageMembers: true, manage: true, manageMembership: true });
    expect(statements.filter((s) => /resource_server|associated_policy/.test(s))).toEqual([]);
  });

  test('in a realm without fine-grained permissions, a view-users admin pays at most one statement for them', async () => {
    const R2 = 'fgapgroupsoff';
    expectStatus(await api.post('/admin/realms', { realm: R2, enabled: true }), 201, 'realm');
    const top = await createGroup(api, R2, 'top');
    await createGroup(api, R2, 'sub', top);
    await createUser(ts, R2, 'viewer', { roles: ['view-users'] });
    const viewer = await ts.api({ realm: R2, username: 'viewer', password: 'pw' });
    const { statements, result } = await ts.countSql(async () => (await viewer.get(`/admin/realms/${R2}/groups/${top}/children`)).body);
    expect(result.map((x: Rep) => [x.name, x.access])).toEqual([['sub', { ...NONE, view: true, viewMembers: true }]]);
    expect(statements.filter((s) => /resource_server|associated_policy/.test(s))).toHaveLength(1);
    // query-groups alone: the listing is empty, and no group is read.
    await createUser(ts, R2, 'lister', { roles: ['query-groups'] });
    const lister = await ts.api({ realm: R2, username: 'lister', password: 'pw' });
    const listed = await ts.countSql(async () => expectStatus(await lister.get(`/admin/realms/${R2}/groups`), 200, 'list').body);
    expect(listed.result).toEqual([]);
    expect(listed.statements.filter((s) => /resource_server|associated_policy/.test(s))).toHaveLength(1);
    expect(listed.statements.filter((s) => /FROM `keycloak_group`/.test(s))).toEqual([]);
  });
});

describe('deleting a group deletes its management permissions and those of its subgroups', () => {
  test('DELETE needs manage; the resources and permissions of the subtree go with it', async () => {
    expect(await status(agent, 'delete', `/groups/${g.teams}`)).toBe(403);
    expectStatus(await api.put(`${base}/groups/${g.crimson}/management/permissions`, { enabled: true }), 200, 'crimson on');
    const owned = async () =>
      (await api.get(`${rsPath}/resource?max=1000`)).body
        .map((r: Rep) => r.name)
        .filter((n: string) => n === `group.resource.${g.red}` || n === `group.resource.${g.crimson}`);
    expect((await owned()).sort()).toEqual([`group.resource.${g.crimson}`, `group.resource.${g.red}`].sort());
    expectStatus(await agent.delete(`${base}/groups/${g.red}`), 204, 'delete red');
    expect(await owned()).toEqual([]);
    const policies = (await api.get(`${rsPath}/policy?max=1000`)).body.map((p: Rep) => String(p.name));
    expect(policies.filter((n: string) => n.endsWith(g.red) || n.endsWith(g.crimson))).toEqual([]);
    expect(policies).toContain(`view.permission.group.${g.teams}`);
    expect((await api.get(`${base}/groups/${g.crimson}`)).status).toBe(404);
    // The policy attached to the deleted permissions stays.
    expect(policies).toContain('helpdesk members');
  });
});
