import { fgapGroup, fgapOn, fgapUsers, fgapUsersByGroup, type GroupScope } from '../../../src/auth/fgap';
import { createContext, type RequestContext } from '../../../src/core/context';
import type { RealmModel } from '../../../src/db/models/realm';
import type { AdminApi, TestServer } from '../../helpers/server';
import { clientUuid, createGroup, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * The decisions of fine-grained admin permissions (src/auth/fgap.ts) for an admin holding none of the
 * realm-management roles, granted one thing through a policy on realm-management's resource server:
 * `manage-members` on group "customers" to the members of group "helpdesk". The matrix: every group
 * scope on every group, the realm-wide users scopes, users by their groups (batched), the same admin
 * from another realm, and a realm without fine-grained permissions.
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
async function attach(permissionId: string, policyIds: string[]): Promise<void> {
  const p = expectStatus(await api.get(`${rsPath}/permission/scope/${permissionId}`), 200, 'permission').body;
  const resources = (await api.get(`${rsPath}/policy/${permissionId}/resources`)).body.map((r: Rep) => r._id);
  const scopes = (await api.get(`${rsPath}/policy/${permissionId}/scopes`)).body.map((s: Rep) => s.id);
  expectStatus(
    await api.put(`${rsPath}/permission/scope/${permissionId}`, { ...p, resources, scopes, policies: policyIds }),
    201,
    'attach',
  );
}

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
