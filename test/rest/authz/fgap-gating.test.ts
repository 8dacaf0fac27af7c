import { fgapGroup, fgapOn, fgapUsers, fgapUsersByGroup, type GroupScope } from '../../../src/auth/fgap';
import { createContext, type RequestContext } from '../../../src/core/context';
import type { RealmModel } from '../../../src/db/models/realm';
import type { AdminApi, TestServer } from '../../helpers/server';
import { gqlClient } from '../../graphql/gql';
import { clientUuid, createGroup, createUser, expectStatus, realmServer } from '../../helpers/fixtures';
import { attachPolicies } from '../../helpers/fgap';

/**
 * The decisions of fine-grained admin permissions (src/auth/fgap.ts) for an admin holding none of the
 * realm-management roles, granted one thing through a policy on realm-management's resource server:
 * `manage-members` on group "customers" to the members of group "helpdesk". The matrix: every group
 * scope on every group, the realm-wide users scopes, users by their groups (batched), the same admin
 * from another realm, and a realm without fine-grained permissions. Then the same grant against the
 * admin API, over REST and GraphQL: group members, users and their sub-resources, group membership,
 * user listings (with query-users), and everything else refused.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'fgapgate';
const base = `/admin/realms/${R}`;
let rsPath: string;
let realm: RealmModel;
const g: Record<string, string> = {};
const u: Record<string, string> = {};
let adminCli: string;
type Rep = Record<string, unknown>;

/** A request context for a caller of `realmId` (what the bearer middleware builds). */
async function callerCtx(userId: string, realmOfCaller: RealmModel = realm): Promise<RequestContext> {
  return createContext(ts.db, { realmId: realmOfCaller.id, realmName: realmOfCaller.name, userId, clientId: adminCli }, 'http://x');
}

/** Attaches policies to a permission (as the admin console does: PUT the permission with its policies). */
const attach = (permissionId: string, policyIds: string[]): Promise<void> => attachPolicies(api, rsPath, permissionId, policyIds);

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  rsPath = `${base}/clients/${await clientUuid(api, R, 'realm-management')}/authz/resource-server`;
  adminCli = await clientUuid(api, R, 'admin-cli');
  realm = (await ts.db.models.Realm.findOne({ where: { name: R } })) as RealmModel;
  g.helpdesk = await createGroup(api, R, 'helpdesk');
  g.customers = await createGroup(api, R, 'customers');
  g.vip = await createGroup(api, R, 'vip', g.customers);
  g.staff = await createGroup(api, R, 'staff');
  u.agent = await createUser(ts, R, 'agent');
  u.cust = await createUser(ts, R, 'cust');
  u.vipcust = await createUser(ts, R, 'vipcust');
  u.employee = await createUser(ts, R, 'employee');
  for (const [user, group] of [
    ['agent', 'helpdesk'],
    ['cust', 'customers'],
    ['vipcust', 'vip'],
    ['employee', 'staff'],
  ])
    expectStatus(await api.put(`${base}/users/${u[user]}/groups/${g[group]}`), 204, `${user} joins ${group}`);
});
afterAll(() => ts.close());

describe('a realm without fine-grained permissions', () => {
  test('nothing is granted, and asking costs one statement per request', async () => {
    const ctx = await callerCtx(u.agent);
    const { count, result } = await ts.countSql(async () => [
      await fgapGroup(ctx, realm, g.customers, 'manage-members'),
      await fgapUsers(ctx, realm, 'view'),
      await fgapUsersByGroup(ctx, realm, [u.cust, u.vipcust], 'view'),
    ]);
    expect(result).toEqual([false, false, [false, false]]);
    expect(count).toBe(1);
    // Permissions turned on but with no policy attached decide nothing either.
    expectStatus(await api.put(`${base}/groups/${g.customers}/management/permissions`, { enabled: true }), 200, 'on');
    expect(await fgapOn(await callerCtx(u.agent), realm)).toBeNull();
  });
});

describe('manage-members on "customers" for the members of "helpdesk"', () => {
  beforeAll(async () => {
    const ref = (await api.get(`${base}/groups/${g.customers}/management/permissions`)).body;
    const policy = expectStatus(
      await api.post(`${rsPath}/policy/group`, { name: 'helpdesk members', groups: [{ id: g.helpdesk, extendChildren: false }] }),
      201,
      'group policy',
    ).body;
    await attach(ref.scopePermissions['manage-members'], [policy.id]);
    // Another group's permissions are on too, without policies: they grant nothing.
    expectStatus(await api.put(`${base}/groups/${g.staff}/management/permissions`, { enabled: true }), 200, 'staff on');
  });

  const SCOPES: GroupScope[] = ['view', 'manage', 'view-members', 'manage-members', 'manage-membership'];

  test('the permission matrix of the helpdesk agent over groups', async () => {
    const ctx = await callerCtx(u.agent);
    const matrix: Record<string, string[]> = {};
    for (const [name, id] of Object.entries(g)) {
      matrix[name] = [];
      for (const s of SCOPES) if (await fgapGroup(ctx, realm, id, s)) matrix[name].push(s);
    }
    // Keycloak: view-members follows from manage-members; a subgroup inherits nothing from its parent's group permission.
    expect(matrix).toEqual({ helpdesk: [], customers: ['view-members', 'manage-members'], vip: [], staff: [] });
  });

  test('realm-wide users scopes are not granted by a group permission', async () => {
    const ctx = await callerCtx(u.agent);
    for (const s of ['view', 'manage', 'map-roles', 'manage-group-membership', 'impersonate'] as const)
      expect([s, await fgapUsers(ctx, realm, s)]).toEqual([s, false]);
  });

  test('users by group: members of customers and of its subgroups, and nobody else', async () => {
    const ctx = await callerCtx(u.agent);
    const ids = [u.cust, u.vipcust, u.employee, u.agent];
    expect(await fgapUsersByGroup(ctx, realm, ids, 'view')).toEqual([true, true, false, false]);
    expect(await fgapUsersByGroup(ctx, realm, ids, 'manage')).toEqual([true, true, false, false]);
  });

  test('someone outside helpdesk, and the agent when leaving helpdesk, get nothing', async () => {
    const ctx = await callerCtx(u.employee);
    expect(await fgapGroup(ctx, realm, g.customers, 'manage-members')).toBe(false);
    expectStatus(await api.delete(`${base}/users/${u.agent}/groups/${g.helpdesk}`), 204, 'leave');
    expect(await fgapGroup(await callerCtx(u.agent), realm, g.customers, 'manage-members')).toBe(false);
    expectStatus(await api.put(`${base}/users/${u.agent}/groups/${g.helpdesk}`), 204, 'rejoin');
    expect(await fgapGroup(await callerCtx(u.agent), realm, g.customers, 'manage-members')).toBe(true);
  });

  test('a caller from another realm (master) is not evaluated', async () => {
    const master = (await ts.db.models.Realm.findOne({ where: { name: 'master' } })) as RealmModel;
    const ctx = await callerCtx(u.agent, master);
    expect(await fgapGroup(ctx, realm, g.customers, 'manage-members')).toBe(false);
  });

  describe('the grant gates the admin API (REST and GraphQL), roles still first', () => {
    let agent: AdminApi;
    let desk: AdminApi;
    const NO_SUCH = '00000000-0000-4000-8000-000000000000';
    beforeAll(async () => {
      agent = await ts.api({ realm: R, username: 'agent', password: 'pw' });
      u.desk = await createUser(ts, R, 'desk', { roles: ['query-users'] });
      expectStatus(await api.put(`${base}/users/${u.desk}/groups/${g.helpdesk}`), 204, 'desk joins helpdesk');
      desk = await ts.api({ realm: R, username: 'desk', password: 'pw' });
    });

    const status = async (caller: AdminApi, method: 'get' | 'put' | 'delete' | 'post', path: string, body?: unknown) =>
      (await caller[method](`${base}${path}`, body)).status;

    test('group members: the members of customers, and no other group', async () => {
      const members = expectStatus(await agent.get(`${base}/groups/${g.customers}/members`), 200, 'members').body;
      expect(members.map((m: Rep) => m.username)).toEqual(['cust']);
      for (const name of ['helpdesk', 'vip', 'staff'])
        expect([name, await status(agent, 'get', `/groups/${g[name]}/members`)]).toEqual([name, 403]);
    });

    test('users: view and manage the members of customers and of its subgroups, nobody else', async () => {
      const cust = expectStatus(await agent.get(`${base}/users/${u.cust}`), 200, 'cust').body;
      expect(cust.access).toEqual({ view: true, manage: true, mapRoles: true, manageGroupMembership: true, impersonate: false });
      expect(await status(agent, 'get', `/users/${u.vipcust}`)).toBe(200);
      for (const name of ['employee', 'agent', 'desk'])
        expect([name, await status(agent, 'get', `/users/${u[name]}`)]).toEqual([name, 403]);
      // Not allowed to query users: an unknown id is 403, not 404.
      expect(await status(agent, 'get', `/users/${NO_SUCH}`)).toBe(403);
      expectStatus(await agent.put(`${base}/users/${u.cust}`, { firstName: 'Cee' }), 204, 'update cust');
      expect((await api.get(`${base}/users/${u.cust}`)).body.firstName).toBe('Cee');
      expect(await status(agent, 'put', `/users/${u.employee}`, { firstName: 'X' })).toBe(403);
      expect((await api.get(`${base}/users/${u.employee}`)).body.firstName).toBe('F');
      // Sub-resources that need view (or manage) of the user.
      for (const sub of ['groups', 'groups/count', 'credentials', 'consents', 'federated-identity']) {
        expect([sub, await status(agent, 'get', `/users/${u.vipcust}/${sub}`)]).toEqual([sub, 200]);
        expect([sub, await status(agent, 'get', `/users/${u.employee}/${sub}`)]).toEqual([sub, 403]);
      }
      // DELETE needs manage of the user too (UserResource#deleteUser).
      const leaving = await createUser(ts, R, 'leaving');
      expectStatus(await api.put(`${base}/users/${leaving}/groups/${g.vip}`), 204, 'leaving joins vip');
      expect(await status(agent, 'delete', `/users/${u.employee}`)).toBe(403);
      expect(await status(agent, 'delete', `/users/${leaving}`)).toBe(204);
      expect((await api.get(`${base}/users/${leaving}`)).status).toBe(404);
    });

    test('group membership needs manage-membership on the group and a manageable user', async () => {
      // manage-members alone does not allow adding or removing members.
      expect(await status(agent, 'put', `/users/${u.cust}/groups/${g.customers}`)).toBe(403);
      const ref = (await api.get(`${base}/groups/${g.customers}/management/permissions`)).body;
      const policy = (await api.get(`${rsPath}/policy?name=${encodeURIComponent('helpdesk members')}`)).body[0];
      await attach(ref.scopePermissions['manage-membership'], [policy.id]);
      expect(await status(agent, 'put', `/users/${u.vipcust}/groups/${g.customers}`)).toBe(204);
      expect((await api.get(`${base}/users/${u.vipcust}/groups`)).body.map((x: Rep) => x.name).sort()).toEqual(['customers', 'vip']);
      expect(await status(agent, 'delete', `/users/${u.vipcust}/groups/${g.customers}`)).toBe(204);
      expect((await api.get(`${base}/users/${u.vipcust}/groups`)).body.map((x: Rep) => x.name)).toEqual(['vip']);
      // Not a manageable user; a group without manage-membership; an unknown group after the user check.
      expect(await status(agent, 'put', `/users/${u.employee}/groups/${g.customers}`)).toBe(403);
      expect(await status(agent, 'put', `/users/${u.cust}/groups/${g.staff}`)).toBe(403);
      expect(await status(agent, 'delete', `/users/${u.cust}/groups/${g.staff}`)).toBe(403);
      expect(await status(agent, 'put', `/users/${u.cust}/groups/${NO_SUCH}`)).toBe(404);
      expect(await status(agent, 'put', `/users/${u.employee}/groups/${NO_SUCH}`)).toBe(403);
      expect((await api.get(`${base}/users/${u.employee}/groups`)).body.map((x: Rep) => x.name)).toEqual(['staff']);
    });

    test('everything else stays refused', async () => {
      const refused: Array<['get' | 'post' | 'put' | 'delete', string, unknown?]> = [
        ['get', '/users'],
        ['get', '/users/count'],
        ['post', '/users', { username: 'newbie' }],
        ['get', '/groups'],
        ['get', `/groups/${g.customers}`],
        ['put', `/groups/${g.customers}`, { name: 'renamed' }],
        ['get', `/groups/${g.customers}/children`],
        ['get', `/groups/${g.customers}/management/permissions`],
        ['get', '/clients'],
        ['get', '/roles'],
        ['get', '/users-management-permissions'],
        ['get', `/users/${u.employee}/credentials`],
      ];
      for (const [method, path, body] of refused)
        expect([method, path, await status(agent, method, path, body)]).toEqual([method, path, 403]);
    });

    test('with query-users, GET /users lists the direct members of the groups whose members he may view', async () => {
      const listed = expectStatus(await desk.get(`${base}/users`), 200, 'list').body;
      expect(listed.map((x: Rep) => [x.username, x.access])).toEqual([['cust', { manage: true }]]);
      expect((await desk.get(`${base}/users?search=c`)).body.map((x: Rep) => x.username)).toEqual(['cust']);
      expect((await desk.get(`${base}/users?briefRepresentation=true&username=employee`)).body).toEqual([]);
      expect(expectStatus(await desk.get(`${base}/users/count`), 200, 'count').body).toBe(1);
      expect((await desk.get(`${base}/users/count?search=id:${u.vipcust}`)).body).toBe(1);
      expect((await desk.get(`${base}/users/count?search=id:${u.employee}`)).body).toBe(0);
      // An unknown id is a 404 for a caller who may query users.
      expect(await status(desk, 'get', `/users/${NO_SUCH}`)).toBe(404);
    });

    test('GraphQL answers through the same decisions', async () => {
      const gql = gqlClient(ts, { realm: R, username: 'agent', password: 'pw' });
      const q = 'query($r: String!, $id: ID!) { user(realm: $r, id: $id) { username access } }';
      const ok = await gql(q, { r: R, id: u.cust });
      expect(ok.errors).toBeUndefined();
      expect(ok.data?.user).toEqual({
        username: 'cust',
        access: { view: true, manage: true, mapRoles: true, manageGroupMembership: true, impersonate: false },
      });
      const refused = await gql(q, { r: R, id: u.employee });
      expect(refused.errors?.[0]?.extensions.http?.status ?? refused.errors?.[0]?.extensions.code).toEqual(403);
      const deskGql = gqlClient(ts, { realm: R, username: 'desk', password: 'pw' });
      const list = await deskGql('query($r: String!) { realm(name: $r) { users { username } usersCount } }', { r: R });
      expect(list.errors).toBeUndefined();
      expect(list.data?.realm).toEqual({ users: [{ username: 'cust' }], usersCount: 1 });
    });

    test('a page of many members costs the SQL of a page of one (one evaluation for the page)', async () => {
      const one = await ts.countSql(async () => expectStatus(await desk.get(`${base}/users`), 200, 'one').body);
      for (let i = 0; i < 25; i++) {
        const id = await createUser(ts, R, `bulk${String(i).padStart(2, '0')}`);
        expectStatus(await api.put(`${base}/users/${id}/groups/${g.customers}`), 204, 'join');
      }
      const many = await ts.countSql(async () => expectStatus(await desk.get(`${base}/users`), 200, 'many').body);
      expect(one.result).toHaveLength(1);
      expect(many.result).toHaveLength(26);
      expect(many.result.every((x: Rep) => (x.access as Rep).manage === true)).toBe(true);
      expect(many.count).toBe(one.count);
    });

    test("GraphQL: a page's effective roles and groups cost the SQL of one user's (the per-user view checks share a read)", async () => {
      const deskGql = gqlClient(ts, { realm: R, username: 'desk', password: 'pw' });
      const q =
        'query($r: String!, $max: Int) { realm(name: $r) { users(max: $max) { username groups { name } effectiveRoles { name } } } }';
      await deskGql(q, { r: R, max: 1 }); // the caller's token and caches
      const one = await ts.countSql(() => deskGql(q, { r: R, max: 1 }));
      const many = await ts.countSql(() => deskGql(q, { r: R, max: 30 }));
      expect(one.result.errors).toBeUndefined();
      expect(many.result.errors).toBeUndefined();
      const users = (many.result.data as { realm: { users: unknown[] } }).realm.users;
      expect(users.length).toBeGreaterThan(20);
      expect(many.count).toBe(one.count);
    });
  });

  test('turning the group permissions off takes the grant away', async () => {
    const path = `${base}/groups/${g.customers}/management/permissions`;
    expectStatus(await api.put(path, { enabled: false }), 200, 'off');
    expect(await fgapGroup(await callerCtx(u.agent), realm, g.customers, 'manage-members')).toBe(false);
  });
});

describe('Users view through a role policy, batched', () => {
  test('a page of 100 users costs the same SQL as one', async () => {
    const R2 = 'fgapbatch';
    expectStatus(await api.post('/admin/realms', { realm: R2, enabled: true }), 201, 'realm');
    const realm2 = (await ts.db.models.Realm.findOne({ where: { name: R2 } })) as RealmModel;
    const rs2 = `/admin/realms/${R2}/clients/${await clientUuid(api, R2, 'realm-management')}/authz/resource-server`;
    expectStatus(await api.post(`/admin/realms/${R2}/roles`, { name: 'support' }), 201, 'role');
    const support = (await api.get(`/admin/realms/${R2}/roles/support`)).body;
    const ref = expectStatus(await api.put(`/admin/realms/${R2}/users-management-permissions`, { enabled: true }), 200, 'users on').body;
    const policy = expectStatus(await api.post(`${rs2}/policy/role`, { name: 'support role', roles: [{ id: support.id }] }), 201, 'p').body;
    const view = expectStatus(await api.get(`${rs2}/permission/scope/${ref.scopePermissions.view}`), 200, 'view').body;
    const resources = (await api.get(`${rs2}/policy/${view.id}/resources`)).body.map((r: Rep) => r._id);
    const scopes = (await api.get(`${rs2}/policy/${view.id}/scopes`)).body.map((s: Rep) => s.id);
    expectStatus(await api.put(`${rs2}/permission/scope/${view.id}`, { ...view, resources, scopes, policies: [policy.id] }), 201, 'attach');
    const helper = await createUser(ts, R2, 'helper', { roles: [] });
    expectStatus(await api.post(`/admin/realms/${R2}/users/${helper}/role-mappings/realm`, [support]), 204, 'grant support');
    const plain = await createUser(ts, R2, 'plain');
    const cli = await clientUuid(api, R2, 'admin-cli');
    const ctxFor = (userId: string) => createContext(ts.db, { realmId: realm2.id, realmName: R2, userId, clientId: cli }, 'http://x');

    const ids = Array.from({ length: 100 }, (_, i) => (i % 2 ? helper : plain));
    const one = await ts.countSql(() => fgapUsersByGroup(ctxFor(helper), realm2, [plain], 'view'));
    const page = await ts.countSql(() => fgapUsersByGroup(ctxFor(helper), realm2, ids, 'view'));
    expect(one.result).toEqual([true]);
    expect(page.result.every(Boolean)).toBe(true);
    expect(page.count).toBe(one.count);
    // view, not manage
    expect(await fgapUsers(ctxFor(helper), realm2, 'manage')).toBe(false);
    expect(await fgapUsers(ctxFor(plain), realm2, 'view')).toBe(false);
  });
});
