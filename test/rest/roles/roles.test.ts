import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { AdminApi, TestServer } from '../../helpers/server';
import { clientUuid as clientUuidOf, createGroup, createRole, createUser, realmAdmin, realmServer } from '../../helpers/fixtures';

let ts: TestServer;
let api: AdminApi;
const R = 'rolesrealm';
const base = `/admin/realms/${R}`;
let realmId: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
  // the realm role most tests read, list, compose or collide with
  await createRole(api, R, 'role one', { description: 'First role', attributes: { color: ['blue'] } });
});
afterAll(() => ts.close());

/** A user of the realm holding the named `realm-management` roles, logged in through admin-cli. */
const adminWith = (username: string, roles: string[]) => realmAdmin(ts, R, username, roles);

/** An enabled user without email, names, password or roles. */
const plainUser = (username: string) => createUser(ts, R, username, { password: null, email: null, firstName: null, lastName: null });

const group = (name: string, parentId?: string) => createGroup(api, R, name, parentId);

const clientUuid = (clientId: string, realm = R) => clientUuidOf(api, realm, clientId);

/** Every role of the realm: its realm roles and the roles of each of its clients. */
async function roleCount(): Promise<number> {
  let n = (await api.get(`${base}/roles`)).body.length;
  for (const c of (await api.get(`${base}/clients`)).body as Array<{ id: string }>)
    n += (await api.get(`${base}/clients/${c.id}/roles`)).body.length;
  return n;
}

describe('realm roles', () => {
  test('create: 201 with Location ending in the encoded name, no body; GET returns the full representation', async () => {
    const res = await api.post(`${base}/roles`, { name: 'role new', description: 'First role', attributes: { color: ['blue'] } });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/roles/role%20new`);
    expect(res.text).toBe('');
    const got = await api.get(`${base}/roles/role%20new`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: expect.any(String),
      name: 'role new',
      description: 'First role',
      composite: false,
      clientRole: false,
      containerId: realmId,
      attributes: { color: ['blue'] },
    });
    expect(Object.keys(got.body)).toEqual(['id', 'name', 'description', 'composite', 'clientRole', 'containerId', 'attributes']);
  });

  test('list: brief by default, includes the default role; briefRepresentation=false adds attributes', async () => {
    const res = await api.get(`${base}/roles`);
    expect(res.status).toBe(200);
    const names = res.body.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(['default-roles-rolesrealm', 'offline_access', 'uma_authorization', 'role one']));
    const one = res.body.find((r: { name: string }) => r.name === 'role one');
    expect(one).not.toHaveProperty('attributes');
    const def = res.body.find((r: { name: string }) => r.name === 'default-roles-rolesrealm');
    expect(def.composite).toBe(true);
    const full = await api.get(`${base}/roles?briefRepresentation=false`);
    expect(full.body.find((r: { name: string }) => r.name === 'role one').attributes).toEqual({ color: ['blue'] });
  });

  test('create errors: no name 400, duplicate 409, unknown field 400 — nothing written', async () => {
    const before = await roleCount();
    const noName = await api.post(`${base}/roles`, { description: 'x' });
    expect(noName.status).toBe(400);
    expect(noName.body).toEqual({ error: 'role has no name' });
    const dup = await api.post(`${base}/roles`, { name: 'role one' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Role with name role one already exists' });
    const unknown = await api.post(`${base}/roles`, { name: 'x1', bogus: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Invalid json representation for RoleRepresentation\. Unrecognized field "bogus"/);
    const malformed = await api.post(`${base}/roles`).set('Content-Type', 'application/json').send('{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'invalid_request', error_description: 'Cannot parse the JSON' });
    expect(await roleCount()).toBe(before);
  });

  test('create with composites by name; unknown composite names are 404 and leave nothing behind', async () => {
    const res = await api.post(`${base}/roles`, {
      name: 'bundle',
      composite: true,
      composites: { realm: ['role one', 'offline_access'], client: { account: ['view-profile'] } },
    });
    expect(res.status).toBe(201);
    const got = (await api.get(`${base}/roles/bundle`)).body;
    expect(got.composite).toBe(true);
    const kids = (await api.get(`${base}/roles/bundle/composites`)).body.map((r: { name: string }) => r.name).sort();
    expect(kids).toEqual(['offline_access', 'role one', 'view-profile']);
    const before = await roleCount();
    const badRealm = await api.post(`${base}/roles`, { name: 'bundle2', composites: { realm: ['nope'] } });
    expect(badRealm.status).toBe(404);
    expect(badRealm.body).toEqual({ errorMessage: 'Realm Role with name nope does not exist' });
    const badClient = await api.post(`${base}/roles`, { name: 'bundle2', composites: { client: { account: ['nope'] } } });
    expect(badClient.status).toBe(404);
    expect(badClient.body).toEqual({ errorMessage: 'Client Role with name nope does not exist' });
    const badShape = await api.post(`${base}/roles`, { name: 'bundle2', composites: { realm: 'role one' } });
    expect(badShape.status).toBe(400);
    expect(badShape.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    expect((await api.post(`${base}/roles`, { name: 'bundle2', composites: { client: { nope: ['x'] } } })).status).toBe(404);
    expect(await roleCount()).toBe(before);
    expect((await api.get(`${base}/roles/bundle2`)).status).toBe(404);
  });

  test('search on name or description is case-insensitive; first/max page only with search or both given', async () => {
    for (const n of ['pg-a', 'pg-b', 'pg-c'])
      expect((await api.post(`${base}/roles`, { name: n, description: n === 'pg-c' ? 'Special THING' : undefined })).status).toBe(201);
    const s = await api.get(`${base}/roles?search=PG-`);
    expect(s.body.map((r: { name: string }) => r.name)).toEqual(['pg-a', 'pg-b', 'pg-c']);
    expect((await api.get(`${base}/roles?search=thing`)).body.map((r: { name: string }) => r.name)).toEqual(['pg-c']);
    expect((await api.get(`${base}/roles?search=pg-&first=1&max=1`)).body.map((r: { name: string }) => r.name)).toEqual(['pg-b']);
    const all = (await api.get(`${base}/roles`)).body.length;
    expect((await api.get(`${base}/roles?max=2`)).body).toHaveLength(all);
    expect((await api.get(`${base}/roles?first=0&max=2`)).body).toHaveLength(2);
    expect((await api.get(`${base}/roles?first=abc`)).status).toBe(404);
  });

  test('unknown role is 404 Could not find role', async () => {
    for (const res of [
      await api.get(`${base}/roles/nope`),
      await api.put(`${base}/roles/nope`, { name: 'nope' }),
      await api.delete(`${base}/roles/nope`),
      await api.get(`${base}/roles/nope/composites`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find role' });
    }
  });

  test('update: rename, description always set, attributes replaced when given; rename collision 409', async () => {
    expect((await api.post(`${base}/roles`, { name: 'upd', description: 'd', attributes: { a: ['1'] } })).status).toBe(201);
    expect((await api.put(`${base}/roles/upd`, { name: 'upd' })).status).toBe(204);
    let got = (await api.get(`${base}/roles/upd`)).body;
    expect(got).not.toHaveProperty('description');
    expect(got.attributes).toEqual({ a: ['1'] });
    expect((await api.put(`${base}/roles/upd`, { name: 'upd2', description: 'new', attributes: { b: ['2', '3'] } })).status).toBe(204);
    expect((await api.get(`${base}/roles/upd`)).status).toBe(404);
    got = (await api.get(`${base}/roles/upd2`)).body;
    expect(got).toMatchObject({ name: 'upd2', description: 'new', attributes: { b: ['2', '3'] } });
    const clash = await api.put(`${base}/roles/upd2`, { name: 'role one', description: 'changed' });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ errorMessage: 'Role with name role one already exists' });
    expect((await api.get(`${base}/roles/upd2`)).body.description).toBe('new');
  });

  test('delete: the default role is protected; deleting removes composites, user/group and scope mappings', async () => {
    const def = await api.delete(`${base}/roles/default-roles-rolesrealm`);
    expect(def.status).toBe(400);
    expect(def.body).toEqual({ errorMessage: 'default-roles-rolesrealm is default role of the realm and cannot be removed.' });
    expect((await api.post(`${base}/roles`, { name: 'doomed' })).status).toBe(201);
    const doomed = (await api.get(`${base}/roles/doomed`)).body;
    const bundle = { realm: ['role one', 'offline_access'], client: { account: ['view-profile'] } };
    expect((await api.post(`${base}/roles`, { name: 'doomed-bundle', composite: true, composites: bundle })).status).toBe(201);
    const bundleId = (await api.get(`${base}/roles/doomed-bundle`)).body.id;
    expect((await api.post(`${base}/roles/doomed-bundle/composites`, [{ id: doomed.id }])).status).toBe(204);
    const userId = await plainUser('doomed-holder');
    const groupId = await group('doomed-group');
    expect((await api.post(`${base}/users/${userId}/role-mappings/realm`, [doomed])).status).toBe(204);
    expect((await api.post(`${base}/groups/${groupId}/role-mappings/realm`, [doomed])).status).toBe(204);
    expect((await api.post(`${base}/clients/${await clientUuid('account')}/scope-mappings/realm`, [doomed])).status).toBe(204);
    const res = await api.delete(`${base}/roles/doomed`);
    expect(res.status).toBe(204);
    expect((await api.get(`${base}/roles/doomed`)).status).toBe(404);
    // The API cannot name a deleted role: the tables show no link to it is left behind.
    const m = ts.db.models;
    expect(await m.CompositeRole.count({ where: { [Op.or]: [{ childId: doomed.id }, { compositeId: doomed.id }] } })).toBe(0);
    expect(await m.UserRoleMapping.count({ where: { roleId: doomed.id } })).toBe(0);
    expect(await m.GroupRoleMapping.count({ where: { roleId: doomed.id } })).toBe(0);
    expect(await m.ScopeMapping.count({ where: { roleId: doomed.id } })).toBe(0);
    expect((await api.get(`${base}/roles-by-id/${bundleId}/composites`)).body).toHaveLength(3);
  });

  test('20 concurrent creates of the same name: one 201, the rest 409, one row', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post(`${base}/roles`, { name: 'racer' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body).toEqual({ errorMessage: 'Role with name racer already exists' });
    const racers = (await api.get(`${base}/roles?search=racer`)).body.filter((r: { name: string }) => r.name === 'racer');
    expect(racers).toHaveLength(1);
  });

  test('management/permissions: off until enabled (fine-grained admin permissions, ADR 26); an unknown role is a 404', async () => {
    const get = await api.get(`${base}/roles/role%20one/management/permissions`);
    expect([get.status, get.body]).toEqual([200, { enabled: false }]);
    const put = await api.put(`${base}/roles/nope/management/permissions`, { enabled: true });
    expect([put.status, put.body]).toEqual([404, { error: 'Could not find role' }]);
  });

  test('listing many roles takes a bounded number of SQL statements', async () => {
    for (let i = 0; i < 15; i++) expect((await api.post(`${base}/roles`, { name: `bulk-${i}` })).status).toBe(201);
    await api.get(`${base}/roles?search=bulk-0`); // warm the token cache
    const one = await ts.countSql(() => api.get(`${base}/roles?search=bulk-0`));
    const many = await ts.countSql(() => api.get(`${base}/roles?search=bulk`));
    expect(one.result.body).toHaveLength(1);
    expect(many.result.body).toHaveLength(15);
    expect(many.count).toBe(one.count);
  });
});

describe('users and groups of a role', () => {
  test('direct holders only, users ordered by username without access, groups brief with path', async () => {
    expect((await api.post(`${base}/roles`, { name: 'held' })).status).toBe(201);
    const held = (await api.get(`${base}/roles/held`)).body;
    const zed = await plainUser('zed');
    const amy = await plainUser('amy');
    const viaGroup = await plainUser('via-group');
    // An unmanaged attribute, stored without enabling unmanaged attributes for the realm (the API would drop it).
    await ts.db.models.UserAttribute.create({ id: randomUUID(), userId: amy, name: 'dept', value: 'eng' });
    const parent = await group('parent');
    const child = await group('child', parent);
    for (const u of [zed, amy]) expect((await api.post(`${base}/users/${u}/role-mappings/realm`, [held])).status).toBe(204);
    expect((await api.post(`${base}/groups/${child}/role-mappings/realm`, [held])).status).toBe(204);
    expect((await api.put(`${base}/users/${viaGroup}/groups/${child}`)).status).toBe(204);

    const users = await api.get(`${base}/roles/held/users`);
    expect(users.status).toBe(200);
    expect(users.body.map((u: { username: string }) => u.username)).toEqual(['amy', 'zed']);
    expect(users.body[0]).toMatchObject({ id: amy, username: 'amy', enabled: true, attributes: { dept: ['eng'] } });
    expect(users.body[0]).not.toHaveProperty('access');
    expect((await api.get(`${base}/roles/held/users?first=1&max=1`)).body.map((u: { username: string }) => u.username)).toEqual(['zed']);

    const groups = await api.get(`${base}/roles/held/groups`);
    expect(groups.status).toBe(200);
    expect(groups.body).toEqual([{ id: child, name: 'child', path: '/parent/child', parentId: parent, subGroups: [] }]);
    const full = await api.get(`${base}/roles/held/groups?briefRepresentation=false`);
    expect(full.body[0]).toMatchObject({ path: '/parent/child', attributes: {}, realmRoles: ['held'], clientRoles: {} });
    expect((await api.get(`${base}/roles/nope/users`)).status).toBe(404);
  });
});

describe('client roles', () => {
  let account: string;
  beforeAll(async () => {
    account = await clientUuid('account');
  });

  test('unknown client is 404 Could not find client', async () => {
    const res = await api.get(`${base}/clients/${randomUUID()}/roles`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Could not find client' });
    expect((await api.post(`${base}/clients/${randomUUID()}/roles`, { name: 'x' })).status).toBe(404);
  });

  test('create, list, get, update, delete under the client', async () => {
    const res = await api.post(`${base}/clients/${account}/roles`, { name: 'client-role', description: 'cr' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/clients/${account}/roles/client-role`);
    const got = await api.get(`${base}/clients/${account}/roles/client-role`);
    expect(got.body).toEqual({
      id: expect.any(String),
      name: 'client-role',
      description: 'cr',
      composite: false,
      clientRole: true,
      containerId: account,
      attributes: {},
    });
    const list = (await api.get(`${base}/clients/${account}/roles`)).body.map((r: { name: string }) => r.name);
    expect(list).toEqual(expect.arrayContaining(['client-role', 'view-profile', 'manage-account']));
    expect(list).not.toContain('offline_access');
    // the same name may exist as a realm role and in another client
    expect((await api.post(`${base}/roles`, { name: 'client-role' })).status).toBe(201);
    expect((await api.post(`${base}/clients/${account}/roles`, { name: 'client-role' })).status).toBe(409);
    expect((await api.get(`${base}/clients/${account}/roles/manage-account`)).body.composite).toBe(true);
    expect((await api.put(`${base}/clients/${account}/roles/client-role`, { name: 'client-role-2' })).status).toBe(204);
    expect((await api.delete(`${base}/clients/${account}/roles/client-role-2`)).status).toBe(204);
    expect((await api.get(`${base}/clients/${account}/roles/client-role-2`)).status).toBe(404);
  });

  test('roles of a master *-realm admin client cannot be created, even by the master admin', async () => {
    const adminClient = await clientUuid(`${R}-realm`, 'master');
    const res = await api.post(`/admin/realms/master/clients/${adminClient}/roles`, { name: 'sneaky' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await api.get(`/admin/realms/master/clients/${adminClient}/roles`)).status).toBe(200);
  });

  test('client role management/permissions: client resolved first', async () => {
    expect((await api.get(`${base}/clients/${randomUUID()}/roles/x/management/permissions`)).status).toBe(404);
    expect((await api.get(`${base}/clients/${account}/roles/x/management/permissions`)).status).toBe(404);
  });
});

describe('composites', () => {
  let parentId: string;
  let childId: string;
  let clientRoleId: string;
  let account: string;
  beforeAll(async () => {
    account = await clientUuid('account');
    expect((await api.post(`${base}/roles`, { name: 'comp-parent' })).status).toBe(201);
    expect((await api.post(`${base}/roles`, { name: 'comp-child', description: 'child' })).status).toBe(201);
    parentId = (await api.get(`${base}/roles/comp-parent`)).body.id;
    childId = (await api.get(`${base}/roles/comp-child`)).body.id;
    clientRoleId = (await api.get(`${base}/clients/${account}/roles/view-profile`)).body.id;
  });

  test('POST by id (idempotent), GET all/realm/clients, composite flag follows', async () => {
    expect((await api.post(`${base}/roles/comp-parent/composites`, [{ id: childId }, { id: clientRoleId }])).status).toBe(204);
    expect((await api.post(`${base}/roles/comp-parent/composites`, [{ id: childId }])).status).toBe(204);
    expect((await api.get(`${base}/roles/comp-parent`)).body.composite).toBe(true);
    const all = (await api.get(`${base}/roles/comp-parent/composites`)).body;
    expect(all).toEqual([
      { id: childId, name: 'comp-child', description: 'child', composite: false, clientRole: false, containerId: realmId },
      {
        id: clientRoleId,
        name: 'view-profile',
        description: '${role_view-profile}',
        composite: false,
        clientRole: true,
        containerId: account,
      },
    ]);
    expect((await api.get(`${base}/roles/comp-parent/composites/realm`)).body.map((r: { id: string }) => r.id)).toEqual([childId]);
    expect((await api.get(`${base}/roles/comp-parent/composites/clients/${account}`)).body.map((r: { id: string }) => r.id)).toEqual([
      clientRoleId,
    ]);
    const unknownClient = await api.get(`${base}/roles/comp-parent/composites/clients/${randomUUID()}`);
    expect(unknownClient.status).toBe(404);
    expect(unknownClient.body).toEqual({ error: 'Could not find client' });
  });

  test('unknown or missing composite id is 404 and adds nothing', async () => {
    const composites = async () => (await api.get(`${base}/roles-by-id/${parentId}/composites`)).body.length;
    const before = await composites();
    const extra = (await api.get(`${base}/roles/offline_access`)).body.id;
    for (const body of [[{ id: extra }, { id: randomUUID() }], [{ name: 'comp-child' }]]) {
      const res = await api.post(`${base}/roles/comp-parent/composites`, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find composite role' });
    }
    expect(await composites()).toBe(before);
    const notArray = await api.post(`${base}/roles/comp-parent/composites`, { id: childId });
    expect(notArray.status).toBe(400);
    expect(notArray.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
  });

  test('DELETE by id; role becomes non-composite when the last child goes', async () => {
    expect((await api.post(`${base}/roles/comp-parent/composites`, [{ id: childId }, { id: clientRoleId }])).status).toBe(204);
    const bad = await api.delete(`${base}/roles/comp-parent/composites`, [{ id: randomUUID() }]);
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ error: 'Could not find composite role' });
    expect((await api.delete(`${base}/roles/comp-parent/composites`, [{ id: childId }, { id: clientRoleId }])).status).toBe(204);
    expect((await api.get(`${base}/roles/comp-parent`)).body.composite).toBe(false);
    expect((await api.get(`${base}/roles/comp-parent/composites`)).body).toEqual([]);
    expect((await api.post(`${base}/roles/comp-parent/composites`, [])).status).toBe(204);
  });
});

describe('roles by id', () => {
  /** A fresh realm role (each test its own), by id. */
  const roleId = async (name: string, extra: Record<string, unknown> = {}) => (await createRole(api, R, name, extra)).id;

  test('GET, PUT, DELETE; unknown id is 404 Could not find role with id', async () => {
    const id = await roleId('by-id', { description: 'x' });
    expect((await api.get(`${base}/roles-by-id/${id}`)).body).toMatchObject({ id, name: 'by-id', description: 'x', attributes: {} });
    expect((await api.put(`${base}/roles-by-id/${id}`, { name: 'by-id-2', attributes: { k: ['v'] } })).status).toBe(204);
    expect((await api.get(`${base}/roles-by-id/${id}`)).body).toEqual({
      id,
      name: 'by-id-2',
      composite: false,
      clientRole: false,
      containerId: realmId,
      attributes: { k: ['v'] },
    });
    for (const res of [
      await api.get(`${base}/roles-by-id/${randomUUID()}`),
      await api.put(`${base}/roles-by-id/${randomUUID()}`, { name: 'z' }),
      await api.delete(`${base}/roles-by-id/${randomUUID()}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find role with id' });
    }
    const def = (await api.get(`${base}/roles/default-roles-rolesrealm`)).body.id;
    const res = await api.delete(`${base}/roles-by-id/${def}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'default-roles-rolesrealm is default role of the realm and cannot be removed.' });
  });

  test('a role of another realm is not found by id', async () => {
    const masterRole = (await api.get('/admin/realms/master/roles/admin')).body;
    expect((await api.get(`${base}/roles-by-id/${masterRole.id}`)).status).toBe(404);
  });

  test('composites with search, first and max; realm and client variants; default role editing', async () => {
    const id = await roleId('by-id-default');
    const def = (await api.get(`${base}/roles/default-roles-rolesrealm`)).body.id;
    const all = (await api.get(`${base}/roles-by-id/${def}/composites`)).body.map((r: { name: string }) => r.name);
    expect(all).toEqual(['manage-account', 'offline_access', 'uma_authorization', 'view-profile']);
    expect((await api.get(`${base}/roles-by-id/${def}/composites?search=ACC`)).body.map((r: { name: string }) => r.name)).toEqual([
      'manage-account',
      'offline_access',
    ]);
    expect((await api.get(`${base}/roles-by-id/${def}/composites?first=1&max=2`)).body.map((r: { name: string }) => r.name)).toEqual([
      'offline_access',
      'uma_authorization',
    ]);
    expect((await api.get(`${base}/roles-by-id/${def}/composites/realm`)).body.map((r: { name: string }) => r.name)).toEqual([
      'offline_access',
      'uma_authorization',
    ]);
    const account = await clientUuid('account');
    expect((await api.get(`${base}/roles-by-id/${def}/composites/clients/${account}`)).body.map((r: { name: string }) => r.name)).toEqual([
      'manage-account',
      'view-profile',
    ]);
    expect((await api.get(`${base}/roles-by-id/${def}/composites/clients/${randomUUID()}`)).body).toEqual({
      error: 'Could not find client',
    });
    expect((await api.post(`${base}/roles-by-id/${def}/composites`, [{ id }])).status).toBe(204);
    expect((await api.get(`${base}/roles-by-id/${def}/composites/realm`)).body.map((r: { name: string }) => r.name)).toContain(
      'by-id-default',
    );
    expect((await api.delete(`${base}/roles-by-id/${def}/composites`, [{ id }])).status).toBe(204);
    expect((await api.get(`${base}/roles-by-id/${def}/composites/realm`)).body.map((r: { name: string }) => r.name)).not.toContain(
      'by-id-default',
    );
  });

  test('management/permissions by id: an unknown id is a 404, a known one turns on', async () => {
    const id = await roleId('by-id-permissions');
    expect((await api.get(`${base}/roles-by-id/${randomUUID()}/management/permissions`)).status).toBe(404);
    const put = await api.put(`${base}/roles-by-id/${id}/management/permissions`, { enabled: true });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ enabled: true, scopePermissions: { 'map-role': expect.any(String) } });
  });

  test('DELETE by id', async () => {
    const id = await roleId('by-id-doomed');
    expect((await api.delete(`${base}/roles-by-id/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/roles-by-id/${id}`)).status).toBe(404);
  });
});

describe('permissions of realm-local admins', () => {
  test('view-realm may read realm roles but not write them; unknown name with no rights is 403 before 404', async () => {
    const viewer = await adminWith('realm-viewer', ['view-realm']);
    expect((await viewer.get(`${base}/roles`)).status).toBe(200);
    expect((await viewer.get(`${base}/roles/role%20one`)).status).toBe(200);
    expect((await viewer.get(`${base}/roles/role%20one/composites`)).status).toBe(200);
    const before = await roleCount();
    const res = await viewer.post(`${base}/roles`, { name: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await viewer.put(`${base}/roles/role%20one`, { name: 'role one' })).status).toBe(403);
    expect((await viewer.delete(`${base}/roles/role%20one`)).status).toBe(403);
    expect(await roleCount()).toBe(before);
    // client roles need client rights
    const account = await clientUuid('account');
    expect((await viewer.get(`${base}/clients/${account}/roles`)).status).toBe(403);
    // users of a role also need users query
    expect((await viewer.get(`${base}/roles/role%20one/users`)).status).toBe(403);

    const nobody = await adminWith('nobody', []);
    expect((await nobody.get(`${base}/roles/does-not-exist`)).status).toBe(403);
    expect((await nobody.get(`${base}/roles`)).status).toBe(403);
  });

  test('query-users may list realm roles but not view one', async () => {
    const querier = await adminWith('querier', ['query-users']);
    expect((await querier.get(`${base}/roles`)).status).toBe(200);
    expect((await querier.get(`${base}/roles/role%20one`)).status).toBe(403);
  });

  test('manage-realm may write realm roles; client roles follow view/manage-clients', async () => {
    const manager = await adminWith('realm-manager', ['manage-realm']);
    expect((await manager.post(`${base}/roles`, { name: 'by-manager' })).status).toBe(201);
    expect((await manager.delete(`${base}/roles/by-manager`)).status).toBe(204);
    const account = await clientUuid('account');
    const clientViewer = await adminWith('client-viewer', ['view-clients']);
    expect((await clientViewer.get(`${base}/clients/${account}/roles`)).status).toBe(200);
    expect((await clientViewer.get(`${base}/clients/${account}/roles/view-profile`)).status).toBe(200);
    expect((await clientViewer.post(`${base}/clients/${account}/roles`, { name: 'x' })).status).toBe(403);
    const clientQuerier = await adminWith('client-querier', ['query-clients']);
    expect((await clientQuerier.get(`${base}/clients/${account}/roles`)).status).toBe(200);
    expect((await clientQuerier.get(`${base}/clients/${account}/roles/view-profile`)).status).toBe(403);
    expect((await clientQuerier.get(`${base}/clients/${randomUUID()}/roles`)).status).toBe(404);
    const clientManager = await adminWith('client-manager', ['manage-clients']);
    expect((await clientManager.post(`${base}/clients/${account}/roles`, { name: 'by-client-manager' })).status).toBe(201);
    // roles by id follow the container of the role
    const clientRoleId = (await api.get(`${base}/clients/${account}/roles/by-client-manager`)).body.id;
    const realmRoleId = (await api.get(`${base}/roles/role%20one`)).body.id;
    expect((await clientManager.get(`${base}/roles-by-id/${clientRoleId}`)).status).toBe(200);
    expect((await clientManager.get(`${base}/roles-by-id/${realmRoleId}`)).status).toBe(403);
    expect((await manager.get(`${base}/roles-by-id/${realmRoleId}`)).status).toBe(200);
    expect((await manager.delete(`${base}/roles-by-id/${clientRoleId}`)).status).toBe(403);
    expect((await clientManager.delete(`${base}/roles-by-id/${clientRoleId}`)).status).toBe(204);
  });

  test('adding an admin role as a composite needs the equivalent power', async () => {
    const manager = await adminWith('composer', ['manage-realm']);
    const rm = await clientUuid('realm-management');
    const manageUsers = (await api.get(`${base}/clients/${rm}/roles/manage-users`)).body.id;
    const viewRealm = (await api.get(`${base}/clients/${rm}/roles/view-realm`)).body.id;
    expect((await manager.post(`${base}/roles`, { name: 'escalator' })).status).toBe(201);
    const res = await manager.post(`${base}/roles/escalator/composites`, [{ id: manageUsers }]);
    expect(res.status).toBe(403);
    expect((await api.get(`${base}/roles/escalator/composites`)).body).toEqual([]);
    expect(
      (await manager.post(`${base}/roles`, { name: 'escalator2', composites: { client: { 'realm-management': ['manage-users'] } } }))
        .status,
    ).toBe(403);
    expect((await api.get(`${base}/roles/escalator2`)).status).toBe(404);
    expect((await manager.post(`${base}/roles/escalator/composites`, [{ id: viewRealm }])).status).toBe(204);
    expect((await api.post(`${base}/roles/escalator/composites`, [{ id: manageUsers }])).status).toBe(204);
  });
});
