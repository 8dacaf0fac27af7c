import { randomUUID } from 'node:crypto';
import type { AdminApi, TestServer } from '../../helpers/server';
import {
  clientUuid,
  createGroup,
  createLoginUser,
  createUser,
  grantClientRoles,
  realmAdmin,
  realmServer,
  userId,
} from '../../helpers/fixtures';

let ts: TestServer;
let api: AdminApi;
const R = 'maprealm';
const base = `/admin/realms/${R}`;
let realmId: string;
let account: string;
let rm: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
  account = await clientUuid(api, R, 'account');
  rm = await clientUuid(api, R, 'realm-management');
  for (const name of ['alpha', 'beta', 'gamma', 'parent-role', 'child-role', 'composite-top', 'composite-leaf']) {
    expect((await api.post(`${base}/roles`, { name })).status).toBe(201);
  }
  const leaf = await role('composite-leaf');
  expect((await api.post(`${base}/roles/composite-top/composites`, [{ id: leaf.id }])).status).toBe(204);
});
afterAll(() => ts.close());

interface RoleRep {
  id: string;
  name: string;
}

async function role(name: string, clientUuid?: string): Promise<RoleRep> {
  const res = await api.get(clientUuid ? `${base}/clients/${clientUuid}/roles/${name}` : `${base}/roles/${name}`);
  expect(res.status).toBe(200);
  return { id: res.body.id, name: res.body.name };
}

const user = (username: string, password?: string) => createUser(ts, R, username, { password });

/** A realm user holding the named `realm-management` roles, logged in through admin-cli. */
const adminWith = (username: string, roles: string[]) => realmAdmin(ts, R, username, roles);

const group = (name: string, parentId?: string) => createGroup(api, R, name, parentId);

const names = (body: Array<{ name: string }>) => body.map((r) => r.name);
/** How many roles, realm and client, are mapped to the user directly (`GET /users/{id}/role-mappings`). */
async function directCount(userId: string): Promise<number> {
  const body = (await api.get(`${base}/users/${userId}/role-mappings`)).body;
  const clients = Object.values(body.clientMappings ?? {}) as Array<{ mappings: unknown[] }>;
  return (body.realmMappings ?? []).length + clients.reduce((n, c) => n + c.mappings.length, 0);
}

describe('user role mappings', () => {
  /**
   * A fresh user of the realm holding (through the API) the named realm roles and `account` client
   * roles directly, and nothing else: each test builds the mappings it starts from.
   */
  async function mappedUser(username: string, realmRoles: string[] = [], accountRoles: string[] = []): Promise<string> {
    const uid = await user(username);
    if (realmRoles.length) {
      const reps = await Promise.all(realmRoles.map((n) => role(n)));
      expect((await api.post(`${base}/users/${uid}/role-mappings/realm`, reps)).status).toBe(204);
    }
    if (accountRoles.length) {
      const reps = await Promise.all(accountRoles.map((n) => role(n, account)));
      expect((await api.post(`${base}/users/${uid}/role-mappings/clients/${account}`, reps)).status).toBe(204);
    }
    return uid;
  }

  test('a user without mappings has an empty MappingsRepresentation', async () => {
    const uid = await mappedUser('mapped-none');
    const res = await api.get(`${base}/users/${uid}/role-mappings`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  test('POST realm mappings (name + id), idempotent; GET realm and the full MappingsRepresentation', async () => {
    const uid = await mappedUser('mapped-post');
    const alpha = await role('alpha');
    const beta = await role('beta');
    expect((await api.post(`${base}/users/${uid}/role-mappings/realm`, [alpha, beta])).status).toBe(204);
    expect((await api.post(`${base}/users/${uid}/role-mappings/realm`, [alpha])).status).toBe(204);
    const direct = await api.get(`${base}/users/${uid}/role-mappings/realm`);
    expect(direct.body).toEqual([
      { id: alpha.id, name: 'alpha', composite: false, clientRole: false, containerId: realmId },
      { id: beta.id, name: 'beta', composite: false, clientRole: false, containerId: realmId },
    ]);
    const viewProfile = await role('view-profile', account);
    expect((await api.post(`${base}/users/${uid}/role-mappings/clients/${account}`, [viewProfile])).status).toBe(204);
    const all = await api.get(`${base}/users/${uid}/role-mappings`);
    expect(all.body).toEqual({
      realmMappings: direct.body,
      clientMappings: {
        account: {
          id: account,
          client: 'account',
          mappings: [
            {
              id: viewProfile.id,
              name: 'view-profile',
              description: '${role_view-profile}',
              composite: false,
              clientRole: true,
              containerId: account,
            },
          ],
        },
      },
    });
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/clients/${account}`)).body)).toEqual(['view-profile']);
  });

  test('bad bodies: unknown role, id/name mismatch, missing id, client role on the realm endpoint → 404; not an array → 400; nothing changes', async () => {
    const uid = await mappedUser('mapped-bad', ['alpha', 'beta'], ['view-profile']);
    const before = await directCount(uid);
    const gamma = await role('gamma');
    const alpha = await role('alpha');
    const viewProfile = await role('view-profile', account);
    for (const body of [
      [{ id: randomUUID(), name: 'nope' }],
      [gamma, { id: alpha.id, name: 'beta' }],
      [{ name: 'gamma' }],
      [viewProfile],
    ]) {
      const res = await api.post(`${base}/users/${uid}/role-mappings/realm`, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Role not found' });
    }
    const notArray = await api.post(`${base}/users/${uid}/role-mappings/realm`, gamma);
    expect(notArray.status).toBe(400);
    expect(notArray.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    const unknownField = await api.post(`${base}/users/${uid}/role-mappings/realm`, [{ ...gamma, nope: 1 }]);
    expect(unknownField.status).toBe(400);
    expect(await directCount(uid)).toBe(before);
  });

  test('unknown user → 404 User not found; unknown client → 404 Client not found', async () => {
    const uid = await mappedUser('mapped-unknowns');
    const res = await api.get(`${base}/users/${randomUUID()}/role-mappings`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'User not found' });
    expect((await api.post(`${base}/users/${randomUUID()}/role-mappings/realm`, [])).body).toEqual({ error: 'User not found' });
    const client = await api.get(`${base}/users/${uid}/role-mappings/clients/${randomUUID()}`);
    expect(client.status).toBe(404);
    expect(client.body).toEqual({ error: 'Client not found' });
    // a user of another realm is unknown here
    const masterAdmin = await userId(api, 'master', 'admin');
    expect((await api.get(`${base}/users/${masterAdmin}/role-mappings`)).status).toBe(404);
  });

  test('available excludes direct mappings only; composite is effective', async () => {
    const uid = await mappedUser('mapped-available', ['alpha', 'beta'], ['view-profile']);
    const top = await role('composite-top');
    expect((await api.post(`${base}/users/${uid}/role-mappings/realm`, [top])).status).toBe(204);
    const available = names((await api.get(`${base}/users/${uid}/role-mappings/realm/available`)).body);
    expect(available).not.toContain('alpha');
    expect(available).not.toContain('composite-top');
    expect(available).toContain('composite-leaf'); // held through a composite, still available
    expect(available).toContain('gamma');
    const effective = await api.get(`${base}/users/${uid}/role-mappings/realm/composite`);
    expect(names(effective.body)).toEqual(expect.arrayContaining(['alpha', 'beta', 'composite-top', 'composite-leaf']));
    expect(effective.body[0]).not.toHaveProperty('attributes');
    const full = await api.get(`${base}/users/${uid}/role-mappings/realm/composite?briefRepresentation=false`);
    expect(full.body[0]).toHaveProperty('attributes');
    // client variants
    const clientEffective = names((await api.get(`${base}/users/${uid}/role-mappings/clients/${account}/composite`)).body);
    expect(clientEffective).toEqual(['view-profile']);
    const clientAvailable = names((await api.get(`${base}/users/${uid}/role-mappings/clients/${account}/available`)).body);
    expect(clientAvailable).toContain('manage-account');
    expect(clientAvailable).not.toContain('view-profile');
  });

  test('DELETE with a body removes listed mappings; without a body removes all realm mappings', async () => {
    const uid = await mappedUser('mapped-delete', ['alpha', 'beta', 'composite-top'], ['view-profile']);
    const alpha = await role('alpha');
    const gamma = await role('gamma');
    expect((await api.delete(`${base}/users/${uid}/role-mappings/realm`, [alpha, gamma])).status).toBe(204);
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/realm`)).body)).toEqual(['beta', 'composite-top']);
    const bad = await api.delete(`${base}/users/${uid}/role-mappings/realm`, [{ id: alpha.id, name: 'beta' }]);
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ error: 'Role not found' });
    expect((await api.delete(`${base}/users/${uid}/role-mappings/realm`)).status).toBe(204);
    expect((await api.get(`${base}/users/${uid}/role-mappings/realm`)).body).toEqual([]);
    // client mappings are untouched by the realm DELETE
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/clients/${account}`)).body)).toEqual(['view-profile']);
    expect((await api.delete(`${base}/users/${uid}/role-mappings/clients/${account}`)).status).toBe(204);
    expect((await api.get(`${base}/users/${uid}/role-mappings`)).body).toEqual({});
  });
});

describe('effective roles through groups and parent groups', () => {
  test('a member inherits the roles of its group and of the group ancestors, with composites', async () => {
    const parent = await group('eff-parent');
    const child = await group('eff-child', parent);
    const uid = await user('member');
    expect((await api.put(`${base}/users/${uid}/groups/${child}`)).status).toBe(204);
    expect((await api.post(`${base}/groups/${parent}/role-mappings/realm`, [await role('parent-role')])).status).toBe(204);
    expect(
      (await api.post(`${base}/groups/${child}/role-mappings/realm`, [await role('child-role'), await role('composite-top')])).status,
    ).toBe(204);

    expect(names((await api.get(`${base}/groups/${child}/role-mappings/realm`)).body)).toEqual(['child-role', 'composite-top']);
    expect(names((await api.get(`${base}/groups/${child}/role-mappings/realm/composite`)).body)).toEqual([
      'child-role',
      'composite-leaf',
      'composite-top',
      'parent-role',
    ]);
    expect(names((await api.get(`${base}/groups/${parent}/role-mappings/realm/composite`)).body)).toEqual(['parent-role']);

    expect((await api.get(`${base}/users/${uid}/role-mappings/realm`)).body).toEqual([]);
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/realm/composite`)).body)).toEqual([
      'child-role',
      'composite-leaf',
      'composite-top',
      'parent-role',
    ]);
    // inherited roles remain available for direct mapping
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/realm/available`)).body)).toEqual(
      expect.arrayContaining(['child-role', 'parent-role']),
    );
    expect(names((await api.get(`${base}/groups/${child}/role-mappings/realm/available`)).body)).not.toContain('child-role');

    expect((await api.get(`${base}/groups/${child}/role-mappings`)).body).toEqual({ realmMappings: expect.any(Array) });
    expect((await api.delete(`${base}/groups/${parent}/role-mappings/realm`)).status).toBe(204);
    expect(names((await api.get(`${base}/users/${uid}/role-mappings/realm/composite`)).body)).not.toContain('parent-role');
  });

  test('unknown group → 404 Could not find group by id', async () => {
    for (const res of [
      await api.get(`${base}/groups/${randomUUID()}/role-mappings`),
      await api.post(`${base}/groups/${randomUUID()}/role-mappings/realm`, []),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find group by id' });
    }
  });

  test('GET role-mappings takes a bounded number of SQL statements', async () => {
    const few = await user('few-roles');
    const many = await user('many-roles');
    const roles = await Promise.all(['alpha', 'beta', 'gamma', 'parent-role', 'child-role'].map((name) => role(name)));
    const clientRoles = (await api.get(`${base}/clients/${account}/roles`)).body as RoleRep[];
    expect((await api.post(`${base}/users/${few}/role-mappings/realm`, [roles[0]])).status).toBe(204);
    expect((await api.post(`${base}/users/${many}/role-mappings/realm`, roles)).status).toBe(204);
    expect((await api.post(`${base}/users/${many}/role-mappings/clients/${account}`, clientRoles)).status).toBe(204);
    await api.get(`${base}/users/${few}/role-mappings`);
    const a = await ts.countSql(() => api.get(`${base}/users/${few}/role-mappings`));
    const b = await ts.countSql(() => api.get(`${base}/users/${many}/role-mappings`));
    expect(b.result.body.realmMappings).toHaveLength(5);
    expect(b.result.body.clientMappings.account.mappings).toHaveLength(clientRoles.length);
    expect(b.count).toBeLessThanOrEqual(a.count + 1);
  });
});

describe('permissions and the privilege-escalation guard', () => {
  test('manage-users cannot grant realm-admin or manage-realm, but can grant plain roles and what it holds', async () => {
    const admin = await adminWith('user-manager', ['manage-users']);
    const target = await user('target');
    const realmAdminRole = await role('realm-admin', rm);
    const manageRealm = await role('manage-realm', rm);
    for (const r of [realmAdminRole, manageRealm]) {
      const res = await admin.post(`${base}/users/${target}/role-mappings/clients/${rm}`, [r]);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    }
    expect(await directCount(target)).toBe(0);
    expect((await admin.post(`${base}/users/${target}/role-mappings/realm`, [await role('alpha')])).status).toBe(204);
    expect(
      (
        await admin.post(`${base}/users/${target}/role-mappings/clients/${rm}`, [
          await role('manage-users', rm),
          await role('view-users', rm),
        ])
      ).status,
    ).toBe(204);
    expect(await directCount(target)).toBe(3);
    // available hides what the caller may not map
    const available = names((await admin.get(`${base}/users/${target}/role-mappings/clients/${rm}/available`)).body);
    expect(available).toContain('query-users');
    expect(available).not.toContain('realm-admin');
    expect(available).not.toContain('manage-realm');
    // and the same guard applies to groups
    const g = await group('guarded');
    expect((await admin.post(`${base}/groups/${g}/role-mappings/clients/${rm}`, [realmAdminRole])).status).toBe(403);
    expect((await admin.post(`${base}/groups/${g}/role-mappings/realm`, [await role('beta')])).status).toBe(204);
    // removing admin roles the caller cannot map is refused too
    expect((await api.post(`${base}/users/${target}/role-mappings/clients/${rm}`, [manageRealm])).status).toBe(204);
    expect((await admin.delete(`${base}/users/${target}/role-mappings/clients/${rm}`, [manageRealm])).status).toBe(403);
    expect((await admin.delete(`${base}/users/${target}/role-mappings/clients/${rm}`)).status).toBe(403);
    expect(await directCount(target)).toBe(4);
  });

  test('a realm-admin holder and the master admin may grant realm-admin', async () => {
    const admin = await adminWith('full-admin', ['realm-admin']);
    const t1 = await user('target1');
    const realmAdminRole = await role('realm-admin', rm);
    expect((await admin.post(`${base}/users/${t1}/role-mappings/clients/${rm}`, [realmAdminRole])).status).toBe(204);
    const t2 = await user('target2');
    expect((await api.post(`${base}/users/${t2}/role-mappings/clients/${rm}`, [realmAdminRole])).status).toBe(204);
    expect(names((await api.get(`${base}/users/${t2}/role-mappings/clients/${rm}/composite`)).body)).toContain('manage-realm');
  });

  test('master admin roles cannot be mapped by a master user holding only the realm admin client roles', async () => {
    const adminClient = await clientUuid(api, 'master', 'master-realm');
    const uid = await createLoginUser(ts, 'master', 'limited', 'secret');
    await grantClientRoles(api, 'master', uid, 'master-realm', ['manage-users']);
    const limited = await ts.api({ username: 'limited', password: 'secret' });
    const victim = await createUser(ts, 'master', 'victim', { password: null, email: null, firstName: null, lastName: null });
    const adminRole = (await api.get('/admin/realms/master/roles/admin')).body;
    const res = await limited.post(`/admin/realms/master/users/${victim}/role-mappings/realm`, [{ id: adminRole.id, name: 'admin' }]);
    expect(res.status).toBe(403);
    const manageRealm = (await api.get(`/admin/realms/master/clients/${adminClient}/roles/manage-realm`)).body;
    expect(
      (
        await limited.post(`/admin/realms/master/users/${victim}/role-mappings/clients/${adminClient}`, [
          { id: manageRealm?.id, name: 'manage-realm' },
        ])
      ).status,
    ).toBe(403);
    const offline = (await api.get('/admin/realms/master/roles/offline_access')).body;
    expect(
      (await limited.post(`/admin/realms/master/users/${victim}/role-mappings/realm`, [{ id: offline.id, name: offline.name }])).status,
    ).toBe(204);
  });

  test('view-users may read mappings but not change them; without query-users an unknown user is 403', async () => {
    const viewer = await adminWith('mapping-viewer', ['view-users']);
    const target = await user('viewed');
    expect((await viewer.get(`${base}/users/${target}/role-mappings`)).status).toBe(200);
    expect((await viewer.get(`${base}/users/${target}/role-mappings/realm/composite`)).status).toBe(200);
    expect((await viewer.post(`${base}/users/${target}/role-mappings/realm`, [await role('alpha')])).status).toBe(403);
    expect((await viewer.get(`${base}/users/${randomUUID()}/role-mappings`)).status).toBe(404);
    const g = await group('viewed-group');
    expect((await viewer.get(`${base}/groups/${g}/role-mappings`)).status).toBe(200);
    expect((await viewer.delete(`${base}/groups/${g}/role-mappings/realm`)).status).toBe(403);

    const outsider = await adminWith('outsider', ['view-realm']);
    const unknown = await outsider.get(`${base}/users/${randomUUID()}/role-mappings`);
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await outsider.get(`${base}/users/${target}/role-mappings`)).status).toBe(403);
    expect((await outsider.get(`${base}/groups/${randomUUID()}/role-mappings`)).status).toBe(404);
  });
});
