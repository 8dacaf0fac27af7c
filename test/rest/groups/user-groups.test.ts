import { randomUUID } from 'node:crypto';
import type { AdminApi, TestServer } from '../../helpers/server';
import { createGroup, createUser, realmServer } from '../../helpers/fixtures';

let ts: TestServer;
let api: AdminApi;

const R = '/admin/realms/ug';

const mkGroup = (name: string, parentId?: string, extra: Record<string, unknown> = {}, realm = 'ug') =>
  createGroup(api, realm, name, parentId, extra);

/** A user in `realm` with a password and the given realm-management roles. */
const mkUser = (realm: string, username: string, roles: string[] = []) => createUser(ts, realm, username, { roles });

const memberships = async (userId: string) => (await api.get(`${R}/users/${userId}/groups/count`)).body.count as number;

let user: string;
const g: Record<string, string> = {};

beforeAll(async () => {
  ({ ts, api } = await realmServer('ug'));
  user = await mkUser('ug', 'dora');
  g.zeta = await mkGroup('zeta', undefined, { description: 'last', attributes: { k: ['v'] } });
  g.alpha = await mkGroup('alpha');
  g.inner = await mkGroup('Middle', g.alpha);
  g.unrelated = await mkGroup('unrelated');
  // dora is a direct member of zeta, alpha and alpha/Middle in every test
  for (const id of [g.zeta, g.inner, g.alpha]) expect((await api.put(`${R}/users/${user}/groups/${id}`)).status).toBe(204);
});
afterAll(() => ts.close());

describe('joining and leaving', () => {
  test('PUT /users/{id}/groups/{groupId} → 204, idempotent', async () => {
    const joiner = await mkUser('ug', 'joiner');
    for (const id of [g.zeta, g.inner, g.alpha]) {
      const res = await api.put(`${R}/users/${joiner}/groups/${id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
    expect((await api.put(`${R}/users/${joiner}/groups/${g.zeta}`)).status).toBe(204);
    expect(await memberships(joiner)).toBe(3);
  });

  test('DELETE → 204, also when not a member', async () => {
    expect((await api.put(`${R}/users/${user}/groups/${g.unrelated}`)).status).toBe(204);
    expect((await api.delete(`${R}/users/${user}/groups/${g.unrelated}`)).status).toBe(204);
    expect((await api.delete(`${R}/users/${user}/groups/${g.unrelated}`)).status).toBe(204);
    expect(await memberships(user)).toBe(3);
  });

  test('unknown group → 404 Group not found; unknown user → 404 User not found; nothing written', async () => {
    for (const res of [
      await api.put(`${R}/users/${user}/groups/${randomUUID()}`),
      await api.delete(`${R}/users/${user}/groups/${randomUUID()}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Group not found' });
    }
    const master = await api.get('/admin/realms/master/groups');
    expect(master.status).toBe(200);
    for (const res of [
      await api.put(`${R}/users/${randomUUID()}/groups/${g.zeta}`),
      await api.delete(`${R}/users/${randomUUID()}/groups/${g.zeta}`),
      await api.get(`${R}/users/${randomUUID()}/groups`),
      await api.get(`${R}/users/${randomUUID()}/groups/count`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'User not found' });
    }
    expect(await memberships(user)).toBe(3);
  });

  test('a group of another realm is not found', async () => {
    expect((await api.post('/admin/realms', { realm: 'ug2', enabled: true })).status).toBe(201);
    const foreign = await mkGroup('foreign', undefined, {}, 'ug2');
    const res = await api.put(`${R}/users/${user}/groups/${foreign}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Group not found' });
    // and a user of another realm is not found either
    const foreignUser = await mkUser('ug2', 'stranger');
    expect((await api.get(`${R}/users/${foreignUser}/groups`)).body).toEqual({ error: 'User not found' });
  });
});

describe('listing', () => {
  test('GET /users/{id}/groups: direct groups by name, brief by default, no access or subGroupCount', async () => {
    const res = await api.get(`${R}/users/${user}/groups`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: g.inner, name: 'Middle', path: '/alpha/Middle', parentId: g.alpha, subGroups: [] },
      { id: g.alpha, name: 'alpha', path: '/alpha', subGroups: [] },
      { id: g.zeta, name: 'zeta', description: 'last', path: '/zeta', subGroups: [] },
    ]);
  });

  test('briefRepresentation=false adds attributes and role names', async () => {
    const role = (await api.get(`${R}/roles/offline_access`)).body;
    expect((await api.post(`${R}/groups/${g.zeta}/role-mappings/realm`, [role])).status).toBe(204);
    const res = await api.get(`${R}/users/${user}/groups?briefRepresentation=false`);
    expect(res.body[2]).toEqual({
      id: g.zeta,
      name: 'zeta',
      description: 'last',
      path: '/zeta',
      subGroups: [],
      attributes: { k: ['v'] },
      realmRoles: ['offline_access'],
      clientRoles: {},
    });
  });

  test('search (case-insensitive substring), first, max; count with and without search', async () => {
    const names = async (q: string) => (await api.get(`${R}/users/${user}/groups?${q}`)).body.map((x: { name: string }) => x.name);
    expect(await names('search=A')).toEqual(['alpha', 'zeta']);
    expect(await names('search=middle')).toEqual(['Middle']);
    expect(await names('first=1')).toEqual(['alpha', 'zeta']);
    expect(await names('first=1&max=1')).toEqual(['alpha']);
    expect(await names('max=0')).toEqual([]);
    const count = await api.get(`${R}/users/${user}/groups/count`);
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 3 });
    expect((await api.get(`${R}/users/${user}/groups/count?search=ALP`)).body).toEqual({ count: 1 });
  });

  test('a deleted group disappears from the user groups', async () => {
    const tmp = await mkGroup('tmp');
    expect((await api.put(`${R}/users/${user}/groups/${tmp}`)).status).toBe(204);
    expect((await api.get(`${R}/users/${user}/groups/count`)).body).toEqual({ count: 4 });
    expect((await api.delete(`${R}/groups/${tmp}`)).status).toBe(204);
    expect((await api.get(`${R}/users/${user}/groups/count`)).body).toEqual({ count: 3 });
  });
});

describe('permissions', () => {
  let querier: AdminApi;
  let viewer: AdminApi;
  let realmViewer: AdminApi;
  beforeAll(async () => {
    await mkUser('ug', 'querier', ['query-users']);
    await mkUser('ug', 'viewer', ['view-users']);
    await mkUser('ug', 'realmviewer', ['view-realm']);
    querier = await ts.api({ realm: 'ug', username: 'querier', password: 'pw' });
    viewer = await ts.api({ realm: 'ug', username: 'viewer', password: 'pw' });
    realmViewer = await ts.api({ realm: 'ug', username: 'realmviewer', password: 'pw' });
  });

  test('unknown user: 404 for a caller who may query users, 403 for one who may not', async () => {
    expect((await querier.get(`${R}/users/${randomUUID()}/groups`)).body).toEqual({ error: 'User not found' });
    const res = await realmViewer.get(`${R}/users/${randomUUID()}/groups`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await realmViewer.put(`${R}/users/${randomUUID()}/groups/${g.zeta}`)).status).toBe(403);
  });

  test('query-users cannot read a user groups; view-users can', async () => {
    expect((await querier.get(`${R}/users/${user}/groups`)).status).toBe(403);
    expect((await querier.get(`${R}/users/${user}/groups/count`)).status).toBe(403);
    expect((await viewer.get(`${R}/users/${user}/groups`)).body).toHaveLength(3);
    expect((await viewer.get(`${R}/users/${user}/groups/count`)).body).toEqual({ count: 3 });
  });

  test('view-users cannot join or leave (403 before the group lookup); nothing changes', async () => {
    expect((await viewer.put(`${R}/users/${user}/groups/${g.unrelated}`)).status).toBe(403);
    expect((await viewer.delete(`${R}/users/${user}/groups/${g.zeta}`)).status).toBe(403);
    expect((await viewer.put(`${R}/users/${user}/groups/${randomUUID()}`)).status).toBe(403);
    expect(await memberships(user)).toBe(3);
  });
});
