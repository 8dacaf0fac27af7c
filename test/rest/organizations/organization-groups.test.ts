import { adminEvents, createGroup, createUser, idOf, realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Groups of an organization (Keycloak 26.7's OrganizationGroupsResource / OrganizationGroupResource):
 * create, list, search, read, update, move, delete, members; kept apart from the realm's own groups.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'orggroups';
const base = `/admin/realms/${R}/organizations`;
let orgId: string;
let otherOrg: string;
const users: Record<string, string> = {};
type G = { id: string; name: string; path: string; parentId?: string; description?: string; attributes?: Record<string, string[]> };

const groups = (org: string) => `${base}/${org}/groups`;
const names = (list: G[]) => list.map((g) => g.name);
const postText = (path: string, text: string) => api.post(path, text).set('Content-Type', 'application/json');

async function orgGroup(org: string, name: string, parent?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const path = parent ? `${groups(org)}/${parent}/children` : groups(org);
  const res = await api.post(path, { name, ...extra });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  const res = await api.post('/admin/realms', { realm: R, enabled: true, organizationsEnabled: true, adminEventsEnabled: true });
  expect(res.status).toBe(201);
  orgId = idOf((await api.post(base, { name: 'acme', domains: [{ name: 'acme.example.org' }] })).headers.location);
  otherOrg = idOf((await api.post(base, { name: 'other', domains: [{ name: 'other.example.org' }] })).headers.location);
  for (const name of ['alice', 'bob', 'carol']) users[name] = await createUser(ts, R, name);
  for (const name of ['alice', 'bob']) expect((await postText(`${base}/${orgId}/members`, JSON.stringify(users[name]))).status).toBe(201);
});
afterAll(async () => {
  await ts.close();
});

describe('organization groups', () => {
  test('create top-level: 201 with Location and no body; name required; duplicate name 409; an existing id 409', async () => {
    const res = await api.post(groups(orgId), { name: 'engineering', description: 'Builds', attributes: { floor: ['3'] } });
    expect(res.status).toBe(201);
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${groups(orgId)}/${id}`);
    expect(res.text).toBe('');
    const row = await ts.db.models.Group.findByPk(id);
    expect(row?.organizationId).toBe(orgId);
    expect(row?.attributes).toEqual({ floor: ['3'] });

    const blank = await api.post(groups(orgId), { name: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ errorMessage: 'Group name is missing' });
    const dup = await api.post(groups(orgId), { name: 'engineering' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Group with the given name already exists.' });
    const byId = await api.post(groups(orgId), { id, name: 'copy' });
    expect(byId.status).toBe(409);
    expect(byId.body).toEqual({ errorMessage: 'Group with the given id already exists' });
    // The same name in another organization, and as a realm group, is no clash.
    await orgGroup(otherOrg, 'engineering');
    await createGroup(api, R, 'engineering');
    expect(await ts.db.models.Group.count({ where: { name: 'engineering' } })).toBe(3);
  });

  test('bad bodies are 400 with nothing written: not JSON, wrong types, too long', async () => {
    const before = await ts.db.models.Group.count();
    const notJson = await api.post(groups(orgId), '{oops').set('Content-Type', 'application/json');
    expect(notJson.status).toBe(400);
    expect((await api.post(groups(orgId), { name: 'bad-attrs', attributes: { a: 'x' } })).status).toBe(400);
    expect((await api.post(groups(orgId), { name: ['x'] })).status).toBe(400);
    const long = await api.post(groups(orgId), { name: 'n'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ errorMessage: 'Group name exceeds 255 characters' });
    expect(await ts.db.models.Group.count()).toBe(before);
  });

  test('list: top-level by name, brief, path through the organization; search, exact, q, paging', async () => {
    const eng = (await api.get(`${groups(orgId)}?search=engineering&exact=true`)).body[0] as G;
    await orgGroup(orgId, 'sales', undefined, { attributes: { region: ['emea'] } });
    await orgGroup(orgId, 'backend', eng.id);
    const top = (await api.get(groups(orgId))).body as G[];
    expect(names(top)).toEqual(['engineering', 'sales']);
    expect(top[0]).toMatchObject({ id: eng.id, name: 'engineering', path: `/${orgId}/engineering` });
    expect(top[0].attributes).toBeUndefined();
    expect(names((await api.get(`${groups(orgId)}?search=END`)).body)).toEqual(['backend']);
    expect((await api.get(`${groups(orgId)}?search=backend`)).body[0].path).toBe(`/${orgId}/engineering/backend`);
    expect(names((await api.get(`${groups(orgId)}?search=back&exact=true`)).body)).toEqual([]);
    expect(names((await api.get(`${groups(orgId)}?q=region:emea`)).body)).toEqual(['sales']);
    expect(names((await api.get(`${groups(orgId)}?first=1&max=1`)).body)).toEqual(['sales']);
    expect(names((await api.get(groups(otherOrg))).body)).toEqual(['engineering']);
  });

  test('realm groups never show organization groups: /groups, search, count, /groups/{id}', async () => {
    expect(names((await api.get(`/admin/realms/${R}/groups`)).body)).toEqual(['engineering']);
    expect(names((await api.get(`/admin/realms/${R}/groups?search=sales`)).body)).toEqual([]);
    expect((await api.get(`/admin/realms/${R}/groups/count`)).body).toEqual({ count: 1 });
    const sales = (await api.get(`${groups(orgId)}?search=sales`)).body[0] as G;
    const byId = await api.get(`/admin/realms/${R}/groups/${sales.id}`);
    expect(byId.status).toBe(404);
    expect((await api.delete(`/admin/realms/${R}/groups/${sales.id}`)).status).toBe(404);
    expect(await ts.db.models.Group.count({ where: { id: sales.id } })).toBe(1);
  });

  test("get, children, update: 404 unknown, 400 another organization's; sibling names unique", async () => {
    const [eng, sales] = (await api.get(groups(orgId))).body as G[];
    const got = await api.get(`${groups(orgId)}/${eng.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: eng.id, name: 'engineering', description: 'Builds', path: '' });
    const unknown = await api.get(`${groups(orgId)}/no-such-group`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ errorMessage: 'Group does not exist' });
    const foreign = await api.get(`${groups(otherOrg)}/${eng.id}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ errorMessage: 'Group does not belong to the organization' });
    const realmGroup = (await api.get(`/admin/realms/${R}/groups`)).body[0] as G;
    expect((await api.get(`${groups(orgId)}/${realmGroup.id}`)).status).toBe(400);

    const children = (await api.get(`${groups(orgId)}/${eng.id}/children`)).body as G[];
    expect(children).toEqual([expect.objectContaining({ name: 'backend', path: '', parentId: eng.id })]);
    const child = await api.post(`${groups(orgId)}/${eng.id}/children`, { name: 'frontend' });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ name: 'frontend', parentId: eng.id, path: `/${orgId}/engineering/frontend`, subGroups: [] });
    const dupChild = await api.post(`${groups(orgId)}/${eng.id}/children`, { name: 'frontend' });
    expect(dupChild.status).toBe(409);
    expect(dupChild.body).toEqual({ errorMessage: 'Sibling group with the given name already exists' });

    const rename = await api.put(`${groups(orgId)}/${sales.id}`, { name: 'engineering' });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({ errorMessage: 'Sibling group with the given name already exists.' });
    expect((await api.put(`${groups(orgId)}/${sales.id}`, { id: eng.id, name: 'x' })).status).toBe(400);
    expect((await api.put(`${groups(orgId)}/${sales.id}`, { name: 'revenue', attributes: { region: ['apac'] } })).status).toBe(204);
    expect(await ts.db.models.Group.findByPk(sales.id)).toMatchObject({ name: 'revenue', attributes: { region: ['apac'] } });
  });

  test('move a group under another of the organization (204); realm and foreign groups cannot move', async () => {
    const [eng, revenue] = (await api.get(groups(orgId))).body as G[];
    const children = `${groups(orgId)}/${eng.id}/children`;
    expect((await api.post(children, { id: revenue.id, name: 'revenue' })).status).toBe(204);
    expect(names((await api.get(children)).body)).toEqual(['backend', 'frontend', 'revenue']);
    expect(names((await api.get(groups(orgId))).body)).toEqual(['engineering']);
    const realmGroup = (await api.get(`/admin/realms/${R}/groups`)).body[0] as G;
    const realmMove = await api.post(children, { id: realmGroup.id, name: 'engineering' });
    expect(realmMove.status).toBe(400);
    expect(realmMove.body).toEqual({ errorMessage: 'Can only move organization groups' });
    const foreign = (await api.get(groups(otherOrg))).body[0] as G;
    const foreignMove = await api.post(children, { id: foreign.id, name: 'engineering' });
    expect(foreignMove.status).toBe(400);
    expect(foreignMove.body).toEqual({ errorMessage: 'Group does not belong to this organization' });
    const cycle = await api.post(`${groups(orgId)}/${revenue.id}/children`, { id: eng.id, name: 'engineering' });
    expect(cycle.status).toBe(400);
    expect((await api.post(children, { id: 'nope', name: 'x' })).status).toBe(404);
  });

  test('members: organization members join (204), others 400, twice 409, unknown 404; listed with membershipType', async () => {
    const eng = (await api.get(groups(orgId))).body[0] as G;
    const members = `${groups(orgId)}/${eng.id}/members`;
    expect((await api.put(`${members}/${users.alice}`)).status).toBe(204);
    const twice = await api.put(`${members}/${users.alice}`);
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ errorMessage: 'User is already a member of the group' });
    const outsider = await api.put(`${members}/${users.carol}`);
    expect(outsider.status).toBe(400);
    expect(outsider.body).toEqual({ errorMessage: 'User is not member of the organization' });
    const ghost = await api.put(`${members}/no-such-user`);
    expect(ghost.status).toBe(404);
    expect(ghost.body).toEqual({ errorMessage: 'User does not exist' });
    const list = (await api.get(members)).body;
    expect(list).toEqual([expect.objectContaining({ id: users.alice, username: 'alice', membershipType: 'UNMANAGED' })]);
    const brief = (await api.get(`${members}?briefRepresentation=true`)).body;
    expect(brief).toEqual([expect.objectContaining({ id: users.alice, membershipType: 'UNMANAGED' })]);
    expect(list[0].disableableCredentialTypes).toBeDefined();
    expect(brief[0].disableableCredentialTypes).toBeUndefined();

    // The member's organization groups; the realm's user groups leave them out, the count has them.
    const mine = (await api.get(`${base}/${orgId}/members/${users.alice}/groups`)).body as G[];
    expect(mine).toEqual([expect.objectContaining({ id: eng.id, path: `/${orgId}/engineering` })]);
    expect((await api.get(`${base}/${orgId}/members/${users.carol}/groups`)).status).toBe(404);
    expect((await api.get(`/admin/realms/${R}/users/${users.alice}/groups`)).body).toEqual([]);
    expect((await api.get(`/admin/realms/${R}/users/${users.alice}/groups/count`)).body).toEqual({ count: 1 });

    expect((await api.delete(`${members}/${users.alice}`)).status).toBe(204);
    expect((await api.delete(`${members}/${users.alice}`)).status).toBe(204);
    expect((await api.get(members)).body).toEqual([]);
    // Leaving the organization is leaving its groups.
    expect((await api.put(`${members}/${users.bob}`)).status).toBe(204);
    expect((await api.delete(`${base}/${orgId}/members/${users.bob}`)).status).toBe(204);
    expect(await ts.db.models.UserGroupMembership.count({ where: { userId: users.bob } })).toBe(0);
  });

  test('admin events: ORGANIZATION_GROUP and ORGANIZATION_GROUP_MEMBERSHIP with the request paths', async () => {
    const events = await adminEvents(api, R);
    const kinds = events
      .filter((e) => String(e.resourceType).startsWith('ORGANIZATION_GROUP'))
      .map((e) => `${e.operationType} ${e.resourceType}`);
    expect(kinds).toContain('CREATE ORGANIZATION_GROUP');
    expect(kinds).toContain('UPDATE ORGANIZATION_GROUP');
    expect(kinds).toContain('CREATE ORGANIZATION_GROUP_MEMBERSHIP');
    expect(kinds).toContain('DELETE ORGANIZATION_GROUP_MEMBERSHIP');
    const join = events.find((e) => e.resourceType === 'ORGANIZATION_GROUP_MEMBERSHIP' && e.operationType === 'CREATE');
    expect(join?.resourcePath).toMatch(new RegExp(`^organizations/${orgId}/groups/[^/]+/members/${users.alice}$`));
  });

  test('group-by-path is not implemented (as 26.7); manage-realm is needed; nothing is written', async () => {
    const byPath = await api.get(`${groups(orgId)}/group-by-path/engineering`);
    expect(byPath.status).toBe(501);
    expect(byPath.body).toEqual({ errorMessage: 'Not implemented yet' });
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-realm', 'view-users', 'manage-users']);
    expect((await viewer.get(groups(orgId))).status).toBe(403);
    expect((await viewer.post(groups(orgId), { name: 'by-viewer' })).status).toBe(403);
    expect(await ts.db.models.Group.count({ where: { name: 'by-viewer' } })).toBe(0);
  });

  test('delete: the group with its subtree; deleting the organization deletes its groups', async () => {
    const eng = (await api.get(groups(orgId))).body[0] as G;
    expect((await api.delete(`${groups(orgId)}/${eng.id}`)).status).toBe(204);
    expect(await ts.db.models.Group.count({ where: { organizationId: orgId } })).toBe(0);
    await orgGroup(otherOrg, 'child-holder');
    expect((await api.delete(`${base}/${otherOrg}`)).status).toBe(204);
    expect(await ts.db.models.Group.count({ where: { organizationId: otherOrg } })).toBe(0);
    expect(names((await api.get(`/admin/realms/${R}/groups`)).body)).toEqual(['engineering']);
  });
});
