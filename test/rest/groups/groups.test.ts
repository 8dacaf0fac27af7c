import { randomUUID } from 'node:crypto';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';
import { clientUuid, createGroup, createRealm, createUser, realmIdOf } from '../../helpers/fixtures';

let ts: TestServer;
let api: AdminApi;

const ALL_ACCESS = { view: true, viewMembers: true, manageMembers: true, manage: true, manageMembership: true };
const idOf = (location: string) => location.split('/').pop() as string;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

const mkRealm = (realm: string) => createRealm(api, realm);
const mkGroup = (realm: string, name: string, parentId?: string, extra: Record<string, unknown> = {}) =>
  createGroup(api, realm, name, parentId, extra);

/** A user in `realm` with a password and the given realm-management roles. */
const mkUser = (realm: string, username: string, roles: string[] = [], password = 'pw') =>
  createUser(ts, realm, username, { roles, password });

/** All group rows of a realm, children included: what "nothing written" after a refused write means. */
const groupRows = async (realm: string) => ts.db.models.Group.count({ where: { realmId: await realmIdOf(api, realm) } });

describe('top-level groups: create, list, get', () => {
  // `gl` holds exactly alpha (with one child), beta and gamma for the reads; tests that add groups write to `glw`
  const R = '/admin/realms/gl';
  const W = '/admin/realms/glw';
  let alpha: string;
  let child: string;
  beforeAll(async () => {
    await mkRealm('gl');
    await mkRealm('glw');
    alpha = await mkGroup('gl', 'alpha');
    child = await mkGroup('gl', 'a-child', alpha);
    await mkGroup('gl', 'beta', undefined, { attributes: { k: ['v'] }, description: 'second' });
    await mkGroup('gl', 'gamma');
  });

  test('POST /groups → 201, Location .../groups/{id}, no body', async () => {
    const res = await api.post(`${W}/groups`, { name: 'beta', attributes: { k: ['v'] }, description: 'second' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(new RegExp(`^http://localhost:8080${W}/groups/[0-9a-f-]{36}$`));
    expect(res.text).toBe('');
  });

  test('GET /groups: top-level groups sorted by name, brief, subGroupCount, empty subGroups, access', async () => {
    const res = await api.get(`${R}/groups`);
    expect(res.status).toBe(200);
    expect(res.body.map((g: { name: string }) => g.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(res.body[0]).toEqual({ id: alpha, name: 'alpha', path: '/alpha', subGroupCount: 1, subGroups: [], access: ALL_ACCESS });
    expect(Object.keys(res.body[0])).toEqual(['id', 'name', 'path', 'subGroupCount', 'subGroups', 'access']);
    expect(res.body[1]).toMatchObject({ name: 'beta', description: 'second', path: '/beta', subGroupCount: 0 });
    expect(res.body[1].attributes).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(child);
  });

  test('briefRepresentation=false adds attributes, realmRoles, clientRoles; subGroupsCount=false drops the count', async () => {
    const full = await api.get(`${R}/groups?briefRepresentation=false`);
    expect(full.body[1]).toMatchObject({ name: 'beta', attributes: { k: ['v'] }, realmRoles: [], clientRoles: {} });
    const noCount = await api.get(`${R}/groups?subGroupsCount=false`);
    expect(noCount.body[0].subGroupCount).toBeUndefined();
  });

  test('first/max page the top-level groups; max=0 is empty; bad numbers are 404', async () => {
    const page = await api.get(`${R}/groups?first=1&max=1`);
    expect(page.body.map((g: { name: string }) => g.name)).toEqual(['beta']);
    expect((await api.get(`${R}/groups?first=2`)).body.map((g: { name: string }) => g.name)).toEqual(['gamma']);
    expect((await api.get(`${R}/groups?max=0`)).body).toEqual([]);
    expect((await api.get(`${R}/groups?max=-1`)).body).toHaveLength(3);
    const bad = await api.get(`${R}/groups?first=abc`);
    expect(bad.status).toBe(404);
  });

  test('GET /groups/{id}: full representation with subGroupCount and access, in Keycloak field order', async () => {
    const res = await api.get(`${R}/groups/${alpha}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: alpha,
      name: 'alpha',
      path: '/alpha',
      subGroupCount: 1,
      subGroups: [],
      attributes: {},
      realmRoles: [],
      clientRoles: {},
      access: ALL_ACCESS,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'path',
      'subGroupCount',
      'subGroups',
      'attributes',
      'realmRoles',
      'clientRoles',
      'access',
    ]);
  });

  test('unknown group id → 404 Could not find group by id on every sub-resource', async () => {
    const unknown = randomUUID();
    for (const res of [
      await api.get(`${R}/groups/${unknown}`),
      await api.put(`${R}/groups/${unknown}`, { name: 'x' }),
      await api.delete(`${R}/groups/${unknown}`),
      await api.get(`${R}/groups/${unknown}/children`),
      await api.post(`${R}/groups/${unknown}/children`, { name: 'x' }),
      await api.get(`${R}/groups/${unknown}/members`),
      await api.get(`${R}/groups/${unknown}/management/permissions`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find group by id' });
    }
    // a group of another realm is unknown here
    const other = (await api.get('/admin/realms/master/groups')).body;
    expect(other).toEqual([]);
  });

  test('duplicate top-level name → 409 and nothing written', async () => {
    const before = await groupRows('gl');
    const res = await api.post(`${R}/groups`, { name: 'alpha' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: "Top level group named 'alpha' already exists." });
    expect(await groupRows('gl')).toBe(before);
  });

  test('bad bodies are 400 and leave the data unchanged', async () => {
    const before = await groupRows('gl');
    expect((await api.post(`${R}/groups`, {})).body).toEqual({ errorMessage: 'Group name is missing' });
    expect((await api.post(`${R}/groups`, { name: '   ' })).body).toEqual({ errorMessage: 'Group name is missing' });
    const unknownField = await api.post(`${R}/groups`, { name: 'x', nosuch: 1 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error).toMatch(
      /^Invalid json representation for GroupRepresentation\. Unrecognized field "nosuch" at line 1 column \d+\.$/,
    );
    const malformed = await api.post(`${R}/groups`).set('Content-Type', 'application/json').send('{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'invalid_request', error_description: 'Cannot parse the JSON' });
    const badAttrs = await api.post(`${R}/groups`, { name: 'x', attributes: { k: 'not-a-list' } });
    expect(badAttrs.status).toBe(400);
    expect(badAttrs.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    const tooLong = await api.post(`${R}/groups`, { name: 'n'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(await groupRows('gl')).toBe(before);
  });

  test('GET/PUT management/permissions: off until enabled, then the group scopes (ADR 26)', async () => {
    const get = await api.get(`${R}/groups/${alpha}/management/permissions`);
    expect([get.status, get.body]).toEqual([200, { enabled: false }]);
    const put = await api.put(`${R}/groups/${alpha}/management/permissions`, { enabled: true });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.scopePermissions).sort()).toEqual(
      ['manage', 'manage-members', 'manage-membership', 'view', 'view-members'].sort(),
    );
    expect((await api.put(`${R}/groups/${alpha}/management/permissions`, { enabled: false })).body).toEqual({ enabled: false });
  });

  test('20 concurrent creates of one name: one 201, nineteen 409, one row', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post(`${W}/groups`, { name: 'race' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body).toEqual({ errorMessage: "Top level group named 'race' already exists." });
    expect(await ts.db.models.Group.count({ where: { name: 'race' } })).toBe(1);
  });
});

describe('children', () => {
  const R = '/admin/realms/gc';
  let parent: string;
  beforeAll(async () => {
    await mkRealm('gc');
    parent = await mkGroup('gc', 'parent');
  });

  test('POST children → 201, Location under /groups (not /children), body = the child full representation', async () => {
    const res = await api.post(`${R}/groups/${parent}/children`, { name: 'kid', attributes: { a: ['1', '2'] } });
    expect(res.status).toBe(201);
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${R}/groups/${id}`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id,
      name: 'kid',
      path: '/parent/kid',
      parentId: parent,
      subGroups: [],
      attributes: { a: ['1', '2'] },
      realmRoles: [],
      clientRoles: {},
      access: ALL_ACCESS,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'path',
      'parentId',
      'subGroups',
      'attributes',
      'realmRoles',
      'clientRoles',
      'access',
    ]);
    expect((await api.get(`${R}/groups/${id}`)).body).toMatchObject({ path: '/parent/kid', parentId: parent, subGroupCount: 0 });
  });

  test('duplicate sibling → 409; the same name under another parent or at top level is fine', async () => {
    const siblings = await mkGroup('gc', 'siblings');
    await mkGroup('gc', 'kid', siblings);
    const before = await groupRows('gc');
    const dup = await api.post(`${R}/groups/${siblings}/children`, { name: 'kid' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: "Sibling group named 'kid' already exists." });
    expect(await groupRows('gc')).toBe(before);
    expect((await api.post(`${R}/groups`, { name: 'kid' })).status).toBe(201);
    const other = await mkGroup('gc', 'other');
    expect((await api.post(`${R}/groups/${other}/children`, { name: 'kid' })).status).toBe(201);
    expect((await api.post(`${R}/groups/${parent}/children`, { name: '' })).body).toEqual({ errorMessage: 'Group name is missing' });
  });

  test('GET children: full by default, sorted, default max 10, first, search, exact', async () => {
    const big = await mkGroup('gc', 'big');
    const names = Array.from({ length: 12 }, (_, i) => `c${String(i).padStart(2, '0')}`).reverse();
    for (const n of names) await mkGroup('gc', n, big);
    await mkGroup('gc', 'grandkid', (await api.get(`${R}/groups/${big}/children?search=c05`)).body[0].id);
    const res = await api.get(`${R}/groups/${big}/children`);
    expect(res.status).toBe(200);
    expect(res.body.map((g: { name: string }) => g.name)).toEqual(['c00', 'c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08', 'c09']);
    expect(res.body[5]).toMatchObject({
      name: 'c05',
      path: '/big/c05',
      parentId: big,
      subGroupCount: 1,
      subGroups: [],
      attributes: {},
      realmRoles: [],
      clientRoles: {},
      access: ALL_ACCESS,
    });
    expect((await api.get(`${R}/groups/${big}/children?first=10`)).body.map((g: { name: string }) => g.name)).toEqual(['c10', 'c11']);
    expect((await api.get(`${R}/groups/${big}/children?max=20`)).body).toHaveLength(12);
    const brief = (await api.get(`${R}/groups/${big}/children?briefRepresentation=true&max=1`)).body[0];
    expect(brief.attributes).toBeUndefined();
    expect((await api.get(`${R}/groups/${big}/children?search=C1`)).body.map((g: { name: string }) => g.name)).toEqual(['c10', 'c11']);
    expect((await api.get(`${R}/groups/${big}/children?search=c1&exact=true`)).body).toEqual([]);
    expect((await api.get(`${R}/groups/${big}/children?search=c11&exact=true`)).body.map((g: { name: string }) => g.name)).toEqual(['c11']);
  });
});

describe('moving groups', () => {
  // every test moves groups: each starts from its own realm holding the chain /a/b/c
  let realms = 0;
  let realm: string;
  let R: string;
  let a: string;
  let b: string;
  let c: string;
  beforeEach(async () => {
    realm = `gm${++realms}`;
    R = `/admin/realms/${realm}`;
    await mkRealm(realm);
    a = await mkGroup(realm, 'a');
    b = await mkGroup(realm, 'b', a);
    c = await mkGroup(realm, 'c', b);
  });

  test('POST /groups with an id moves the group to the top level → 204, other fields untouched', async () => {
    const res = await api.post(`${R}/groups`, { id: c, name: 'c', description: 'ignored' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const got = (await api.get(`${R}/groups/${c}`)).body;
    expect(got.path).toBe('/c');
    expect(got.parentId).toBeUndefined();
    expect(got.description).toBeUndefined();
    expect((await api.get(`${R}/groups/${b}`)).body.subGroupCount).toBe(0);
    // already at the top: no-op
    expect((await api.post(`${R}/groups`, { id: c, name: 'c' })).status).toBe(204);
  });

  test('POST children with an id moves the group under the parent → 204', async () => {
    expect((await api.post(`${R}/groups`, { id: c, name: 'c' })).status).toBe(204); // c starts at the top
    const res = await api.post(`${R}/groups/${b}/children`, { id: c, name: 'c' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`${R}/groups/${c}`)).body).toMatchObject({ path: '/a/b/c', parentId: b });
    expect((await api.post(`${R}/groups/${b}/children`, { id: c, name: 'c' })).status).toBe(204);
  });

  test('moving under itself or a descendant is 400 and changes nothing', async () => {
    const self = await api.post(`${R}/groups/${a}/children`, { id: a, name: 'a' });
    expect(self.status).toBe(400);
    expect(self.body.errorMessage).toEqual(expect.any(String));
    const cycle = await api.post(`${R}/groups/${c}/children`, { id: a, name: 'a' });
    expect(cycle.status).toBe(400);
    expect((await api.get(`${R}/groups/${a}`)).body.path).toBe('/a');
    expect((await api.get(`${R}/groups/${c}`)).body.path).toBe('/a/b/c');
  });

  test('unknown id → 404 Could not find child by id; name collisions → 409', async () => {
    const unknown = await api.post(`${R}/groups`, { id: randomUUID(), name: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Could not find child by id' });
    expect((await api.post(`${R}/groups/${a}/children`, { id: randomUUID(), name: 'x' })).body).toEqual({
      error: 'Could not find child by id',
    });
    const topB = await mkGroup(realm, 'b');
    const toTop = await api.post(`${R}/groups`, { id: b, name: 'b' });
    expect(toTop.status).toBe(409);
    expect(toTop.body).toEqual({ errorMessage: "Top level group named 'b' already exists." });
    const under = await api.post(`${R}/groups/${a}/children`, { id: topB, name: 'b' });
    expect(under.status).toBe(409);
    expect(under.body).toEqual({ errorMessage: "Sibling group named 'b' already exists." });
    expect((await api.get(`${R}/groups/${b}`)).body.path).toBe('/a/b');
    expect((await api.get(`${R}/groups/${topB}`)).body.path).toBe('/b');
  });
});

describe('update and delete', () => {
  const R = '/admin/realms/gu';
  let g: string;
  beforeAll(async () => {
    await mkRealm('gu');
    g = await mkGroup('gu', 'orig', undefined, { description: 'd', attributes: { x: ['1'], y: ['2'] } });
  });

  test('PUT renames, replaces attributes and always sets the description → 204', async () => {
    const res = await api.put(`${R}/groups/${g}`, { name: 'renamed', attributes: { y: ['3'], z: ['4', '5'] } });
    expect(res.status).toBe(204);
    const got = (await api.get(`${R}/groups/${g}`)).body;
    expect(got).toMatchObject({ name: 'renamed', path: '/renamed', attributes: { y: ['3'], z: ['4', '5'] } });
    expect(got.description).toBeUndefined();
    // attributes omitted: kept
    expect((await api.put(`${R}/groups/${g}`, { id: g, name: 'renamed', description: 'new' })).status).toBe(204);
    expect((await api.get(`${R}/groups/${g}`)).body).toMatchObject({ description: 'new', attributes: { y: ['3'], z: ['4', '5'] } });
    // the subtree's paths follow a rename
    const kid = await mkGroup('gu', 'kid', g);
    expect((await api.put(`${R}/groups/${g}`, { name: 'again' })).status).toBe(204);
    expect((await api.get(`${R}/groups/${kid}`)).body.path).toBe('/again/kid');
  });

  test('PUT errors: missing name, different id, sibling name; data unchanged', async () => {
    await mkGroup('gu', 'taken');
    const snapshot = (await api.get(`${R}/groups/${g}`)).body;
    expect((await api.put(`${R}/groups/${g}`, { description: 'x' })).body).toEqual({ errorMessage: 'Group name is missing' });
    const wrongId = await api.put(`${R}/groups/${g}`, { id: randomUUID(), name: 'again' });
    expect(wrongId.status).toBe(400);
    expect(wrongId.body).toEqual({ errorMessage: 'Invalid group id' });
    const sib = await api.put(`${R}/groups/${g}`, { name: 'taken', description: 'changed' });
    expect(sib.status).toBe(409);
    expect(sib.body).toEqual({ errorMessage: "Sibling group named 'taken' already exists." });
    expect((await api.put(`${R}/groups/${g}`, { name: 'again', nosuch: true })).status).toBe(400);
    expect((await api.get(`${R}/groups/${g}`)).body).toEqual(snapshot);
  });

  test('DELETE removes the subtree, memberships, role mappings and default-group entries in one go', async () => {
    const m = ts.db.models;
    const top = await mkGroup('gu', 'doomed');
    const mid = await mkGroup('gu', 'mid', top);
    const leaf = await mkGroup('gu', 'leaf', mid);
    const keep = await mkGroup('gu', 'keep');
    const user = await mkUser('gu', 'member');
    for (const gid of [top, leaf, keep]) expect((await api.put(`${R}/users/${user}/groups/${gid}`)).status).toBe(204);
    const role = (await api.get(`${R}/roles/offline_access`)).body;
    for (const gid of [mid, keep]) expect((await api.post(`${R}/groups/${gid}/role-mappings/realm`, [role])).status).toBe(204);
    expect((await api.put(`${R}/default-groups/${leaf}`)).status).toBe(204);
    expect((await api.put(`${R}/default-groups/${keep}`)).status).toBe(204);

    const res = await api.delete(`${R}/groups/${top}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    for (const id of [top, mid, leaf]) expect((await api.get(`${R}/groups/${id}`)).status).toBe(404);
    expect(await m.Group.count({ where: { id: [top, mid, leaf] } })).toBe(0);
    expect(await m.UserGroupMembership.findAll({ where: { userId: user }, attributes: ['userId', 'groupId'], raw: true })).toEqual([
      { userId: user, groupId: keep },
    ]);
    expect(await m.GroupRoleMapping.count({ where: { groupId: [top, mid, leaf] } })).toBe(0);
    expect(await m.GroupRoleMapping.count({ where: { groupId: keep } })).toBe(1);
    expect((await api.get(`${R}/default-groups`)).body.map((x: { id: string }) => x.id)).toEqual([keep]);
    expect((await api.delete(`${R}/groups/${top}`)).status).toBe(404);
  });
});

describe('search and counts', () => {
  const R = '/admin/realms/gs';
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    await mkRealm('gs');
    ids.a = await mkGroup('gs', 'a');
    ids.ab = await mkGroup('gs', 'ab', ids.a);
    ids.abc = await mkGroup('gs', 'c', ids.ab);
    ids.aq = await mkGroup('gs', 'q', ids.a);
    ids.x = await mkGroup('gs', 'x', undefined, { attributes: { color: ['red', 'blue'], size: ['L'] } });
    ids.xbb = await mkGroup('gs', 'Bb', ids.x, { attributes: { color: ['red'] } });
    ids.z = await mkGroup('gs', 'z');
  });

  test('search: case-insensitive substring anywhere, matches wrapped in their ancestors, siblings not included', async () => {
    const res = await api.get(`${R}/groups?search=B`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: ids.a,
        name: 'a',
        path: '/a',
        subGroupCount: 2,
        access: ALL_ACCESS,
        subGroups: [{ id: ids.ab, name: 'ab', path: '/a/ab', parentId: ids.a, subGroupCount: 1, subGroups: [], access: ALL_ACCESS }],
      },
      {
        id: ids.x,
        name: 'x',
        path: '/x',
        subGroupCount: 1,
        access: ALL_ACCESS,
        subGroups: [{ id: ids.xbb, name: 'Bb', path: '/x/Bb', parentId: ids.x, subGroupCount: 0, subGroups: [], access: ALL_ACCESS }],
      },
    ]);
  });

  test('a match inside another match is merged under it; deep matches carry the whole chain', async () => {
    const res = await api.get(`${R}/groups?search=a`);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].name).toBe('a');
    expect(res.body[0].subGroups.map((g: { name: string }) => g.name)).toEqual(['ab']);
    const deep = (await api.get(`${R}/groups?search=c`)).body;
    expect(deep).toHaveLength(1);
    expect(deep[0].subGroups[0].subGroups[0]).toMatchObject({ id: ids.abc, path: '/a/ab/c' });
  });

  test('exact, populateHierarchy=false, paging of matches, full representation', async () => {
    expect((await api.get(`${R}/groups?search=bb&exact=true`)).body).toEqual([]);
    const exact = (await api.get(`${R}/groups?search=Bb&exact=true&populateHierarchy=false`)).body;
    expect(exact).toEqual([
      { id: ids.xbb, name: 'Bb', path: '/x/Bb', parentId: ids.x, subGroupCount: 0, subGroups: [], access: ALL_ACCESS },
    ]);
    // matches of "b" by name: Bb, ab — paging applies to them, before the hierarchy is built
    const first = (await api.get(`${R}/groups?search=b&max=1&populateHierarchy=false`)).body;
    expect(first.map((g: { name: string }) => g.name)).toEqual(['Bb']);
    const second = (await api.get(`${R}/groups?search=b&first=1&max=1`)).body;
    expect(second.map((g: { name: string }) => g.name)).toEqual(['a']);
    expect(second[0].subGroups.map((g: { name: string }) => g.name)).toEqual(['ab']);
    const full = (await api.get(`${R}/groups?search=Bb&briefRepresentation=false`)).body;
    expect(full[0]).toMatchObject({ name: 'x', attributes: { color: ['red', 'blue'], size: ['L'] }, realmRoles: [], clientRoles: {} });
    expect(full[0].subGroups[0]).toMatchObject({ name: 'Bb', attributes: { color: ['red'] } });
  });

  test('q=key:value matches attributes exactly at any level', async () => {
    const red = (await api.get(`${R}/groups?q=${encodeURIComponent('color:red')}`)).body;
    expect(red.map((g: { name: string }) => g.name)).toEqual(['x']);
    expect(red[0].subGroups.map((g: { name: string }) => g.name)).toEqual(['Bb']);
    const both = (await api.get(`${R}/groups?q=${encodeURIComponent('color:red size:L')}&populateHierarchy=false`)).body;
    expect(both.map((g: { name: string }) => g.name)).toEqual(['x']);
    expect((await api.get(`${R}/groups?q=color:Red`)).body).toEqual([]);
    expect((await api.get(`${R}/groups?q=colo:red`)).body).toEqual([]);
  });

  test('GET /groups/count: all, top, search', async () => {
    expect((await api.get(`${R}/groups/count`)).body).toEqual({ count: 7 });
    expect((await api.get(`${R}/groups/count?top=true`)).body).toEqual({ count: 3 });
    expect((await api.get(`${R}/groups/count?search=B`)).body).toEqual({ count: 2 });
    expect((await api.get(`${R}/groups/count?search=b&top=true`)).body).toEqual({ count: 2 });
  });

  test('group-by-path: with or without leading slash, nested, encoded; unknown → 404', async () => {
    const res = await api.get(`/admin/realms/gs/group-by-path/a/ab/c`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ids.abc,
      name: 'c',
      path: '/a/ab/c',
      parentId: ids.ab,
      subGroupCount: 0,
      subGroups: [],
      attributes: {},
      realmRoles: [],
      clientRoles: {},
      access: ALL_ACCESS,
    });
    expect((await api.get(`/admin/realms/gs/group-by-path//x/Bb`)).body.id).toBe(ids.xbb);
    expect((await api.get(`/admin/realms/gs/group-by-path/${encodeURIComponent('/x/Bb')}`)).body.id).toBe(ids.xbb);
    expect((await api.get(`/admin/realms/gs/group-by-path/x`)).body.subGroupCount).toBe(1);
    for (const p of ['a/nope', 'nope', 'A/ab', '']) {
      const miss = await api.get(`/admin/realms/gs/group-by-path/${p}`);
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ error: 'Group path does not exist' });
    }
  });

  test('role mappings appear by name in full representations, client roles keyed by clientId', async () => {
    const realmRole = (await api.get(`${R}/roles/offline_access`)).body;
    const account = await clientUuid(api, 'gs', 'account');
    const clientRole = (await api.get(`${R}/clients/${account}/roles/view-profile`)).body;
    expect((await api.post(`${R}/groups/${ids.z}/role-mappings/realm`, [realmRole])).status).toBe(204);
    expect((await api.post(`${R}/groups/${ids.z}/role-mappings/clients/${account}`, [clientRole])).status).toBe(204);
    const got = (await api.get(`${R}/groups/${ids.z}`)).body;
    expect(got.realmRoles).toEqual(['offline_access']);
    expect(got.clientRoles).toEqual({ account: ['view-profile'] });
    const listed = (await api.get(`${R}/groups?briefRepresentation=false`)).body.find((g: { id: string }) => g.id === ids.z);
    expect(listed).toMatchObject({ realmRoles: ['offline_access'], clientRoles: { account: ['view-profile'] } });
  });

  test('listing SQL does not grow with the number of groups', async () => {
    await mkRealm('gsql');
    const count = async () =>
      (await ts.countSql(() => api.get('/admin/realms/gsql/groups?briefRepresentation=false&search=g').expect(200))).count;
    for (let i = 0; i < 3; i++) await mkGroup('gsql', `g${i}`, await mkGroup('gsql', `p${i}`));
    const small = await count();
    for (let i = 3; i < 12; i++) await mkGroup('gsql', `g${i}`, await mkGroup('gsql', `p${i}`));
    const large = await count();
    expect(large).toBe(small);
  });
});

describe('members, default groups', () => {
  const R = '/admin/realms/gd';
  let g: string;
  const users: Record<string, string> = {};
  beforeAll(async () => {
    await mkRealm('gd');
    g = await mkGroup('gd', 'team');
    for (const u of ['carol', 'alice', 'bob']) {
      users[u] = await mkUser('gd', u);
      expect((await api.put(`${R}/users/${users[u]}/groups/${g}`)).status).toBe(204);
    }
    // is_temporary_admin is always readable; dept is unmanaged and hidden by the default user profile
    await ts.db.models.UserAttribute.bulkCreate([
      { id: randomUUID(), userId: users.alice, name: 'is_temporary_admin', value: 'true' },
      { id: randomUUID(), userId: users.alice, name: 'dept', value: 'eng' },
    ]);
    const sub = await mkGroup('gd', 'sub', g);
    expect((await api.put(`${R}/users/${await mkUser('gd', 'aaron')}/groups/${sub}`)).status).toBe(204);
  });

  test('GET members: direct members by username, full by default, no access', async () => {
    const res = await api.get(`${R}/groups/${g}/members`);
    expect(res.status).toBe(200);
    expect(res.body.map((u: { username: string }) => u.username)).toEqual(['alice', 'bob', 'carol']);
    expect(res.body[0]).toEqual({
      id: users.alice,
      username: 'alice',
      firstName: 'F',
      lastName: 'L',
      email: 'alice@example.org',
      emailVerified: false,
      attributes: { is_temporary_admin: ['true'] },
      enabled: true,
      createdTimestamp: expect.any(Number),
      totp: false,
      disableableCredentialTypes: [],
      requiredActions: [],
      notBefore: 0,
    });
  });

  test('briefRepresentation=true, first, max', async () => {
    const brief = (await api.get(`${R}/groups/${g}/members?briefRepresentation=true`)).body;
    expect(brief[0]).toEqual({
      id: users.alice,
      username: 'alice',
      firstName: 'F',
      lastName: 'L',
      email: 'alice@example.org',
      emailVerified: false,
      attributes: { is_temporary_admin: ['true'] },
      enabled: true,
      createdTimestamp: expect.any(Number),
    });
    expect(brief[1]).toEqual({
      id: users.bob,
      username: 'bob',
      firstName: 'F',
      lastName: 'L',
      email: 'bob@example.org',
      emailVerified: false,
      enabled: true,
      createdTimestamp: expect.any(Number),
    });
    const page = (await api.get(`${R}/groups/${g}/members?first=1&max=1`)).body;
    expect(page.map((u: { username: string }) => u.username)).toEqual(['bob']);
    expect((await api.get(`${R}/groups/${g}/members?max=0`)).body).toEqual([]);
  });

  test('default groups: GET brief reps, PUT/DELETE 204 and idempotent, unknown → 404 Group not found', async () => {
    expect((await api.get(`${R}/default-groups`)).body).toEqual([]);
    const sub = (await api.get(`${R}/groups/${g}/children`)).body[0].id;
    expect((await api.put(`${R}/default-groups/${sub}`)).status).toBe(204);
    expect((await api.put(`${R}/default-groups/${g}`)).status).toBe(204);
    expect((await api.put(`${R}/default-groups/${g}`)).status).toBe(204);
    const list = await api.get(`${R}/default-groups`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { id: g, name: 'team', path: '/team', subGroups: [] },
      { id: sub, name: 'sub', path: '/team/sub', parentId: g, subGroups: [] },
    ]);
    expect((await api.get(`${R}`)).body.defaultGroups.sort()).toEqual(['/team', '/team/sub']);
    const unknown = await api.put(`${R}/default-groups/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Group not found' });
    expect((await api.delete(`${R}/default-groups/${randomUUID()}`)).body).toEqual({ error: 'Group not found' });
    expect((await api.delete(`${R}/default-groups/${sub}`)).status).toBe(204);
    expect((await api.delete(`${R}/default-groups/${sub}`)).status).toBe(204);
    expect((await api.get(`${R}/default-groups`)).body.map((x: { id: string }) => x.id)).toEqual([g]);
  });
});

describe('permissions of realm-local admins', () => {
  const R = '/admin/realms/gp';
  let g: string;
  let querier: AdminApi;
  let viewer: AdminApi;
  let realmViewer: AdminApi;
  beforeAll(async () => {
    await mkRealm('gp');
    g = await mkGroup('gp', 'g');
    await mkGroup('gp', 'kid', g);
    await mkUser('gp', 'querier', ['query-groups']);
    await mkUser('gp', 'viewer', ['view-users']);
    await mkUser('gp', 'realmviewer', ['view-realm']);
    querier = await ts.api({ realm: 'gp', username: 'querier', password: 'pw' });
    viewer = await ts.api({ realm: 'gp', username: 'viewer', password: 'pw' });
    realmViewer = await ts.api({ realm: 'gp', username: 'realmviewer', password: 'pw' });
  });

  test('query-groups: may list (but sees no group it cannot view) and count; not view or write', async () => {
    const list = await querier.get(`${R}/groups`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect((await querier.get(`${R}/groups/count`)).body).toEqual({ count: 2 });
    const forbidden = await querier.get(`${R}/groups/${g}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await querier.get(`${R}/groups/${g}/children`)).status).toBe(403);
    expect((await querier.get(`${R}/groups/${g}/members`)).status).toBe(403);
    expect((await querier.get(`${R}/group-by-path/g`)).status).toBe(403);
    expect((await querier.post(`${R}/groups`, { name: 'nope' })).status).toBe(403);
    // the group lookup comes before the permission check
    expect((await querier.get(`${R}/groups/${randomUUID()}`)).status).toBe(404);
    expect((await querier.get(`${R}/group-by-path/missing`)).status).toBe(404);
  });

  test('view-users: reads with a read-only access map; writes are 403 and change nothing', async () => {
    const list = await viewer.get(`${R}/groups`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: g,
        name: 'g',
        path: '/g',
        subGroupCount: 1,
        subGroups: [],
        access: { view: true, viewMembers: true, manageMembers: false, manage: false, manageMembership: false },
      },
    ]);
    expect((await viewer.get(`${R}/groups/${g}/children`)).status).toBe(200);
    expect((await viewer.get(`${R}/groups/${g}/members`)).status).toBe(200);
    const before = await groupRows('gp');
    expect((await viewer.post(`${R}/groups`, { name: 'nope' })).status).toBe(403);
    expect((await viewer.post(`${R}/groups/${g}/children`, { name: 'nope' })).status).toBe(403);
    expect((await viewer.put(`${R}/groups/${g}`, { name: 'renamed' })).status).toBe(403);
    expect((await viewer.delete(`${R}/groups/${g}`)).status).toBe(403);
    expect(await groupRows('gp')).toBe(before);
    expect((await viewer.get(`${R}/groups/${g}`)).body.name).toBe('g');
    // default groups need realm rights
    expect((await viewer.get(`${R}/default-groups`)).status).toBe(403);
    expect((await viewer.put(`${R}/default-groups/${g}`)).status).toBe(403);
  });

  test('view-realm: default groups readable, not writable; groups not listable', async () => {
    expect((await realmViewer.get(`${R}/default-groups`)).status).toBe(200);
    expect((await realmViewer.put(`${R}/default-groups/${g}`)).status).toBe(403);
    expect((await realmViewer.get(`${R}/groups`)).status).toBe(403);
    expect((await realmViewer.get(`${R}/groups/count`)).status).toBe(403);
  });

  test('an admin of another realm gets 403', async () => {
    await mkRealm('gp2');
    await mkUser('gp2', 'outsider', ['manage-users']);
    const outsider = await ts.api({ realm: 'gp2', username: 'outsider', password: 'pw' });
    expect((await outsider.get(`${R}/groups`)).status).toBe(403);
    expect((await outsider.get('/admin/realms/gp2/groups')).status).toBe(200);
  });
});
