import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Resources and scopes of a resource server (`.../authz/resource-server/resource|scope`): Keycloak's
 * representations, create answering 201 with the body, 409 for a taken name, 404 for an unknown id,
 * the listing filters, and what a delete takes with it.
 */
let ts: TestServer;
let api: AdminApi;
let id: string;
const R = 'authzres';
let rs: string;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  id = await createClient(api, R, { clientId: 'photos', publicClient: false, authorizationServicesEnabled: true });
  rs = `/admin/realms/${R}/clients/${id}/authz/resource-server`;
});
afterAll(() => ts.close());

type Rep = Record<string, unknown>;
const names = (list: Rep[]) => list.map((x) => x.name);

describe('scopes', () => {
  test('create (201 with the scope), get, update, search, 409 on a taken name, 404 unknown', async () => {
    const created = expectStatus(await api.post(`${rs}/scope`, { name: 'sc-read', iconUri: 'http://i/r.png' }), 201, 'create').body;
    expect(created).toEqual({ id: expect.any(String), name: 'sc-read', iconUri: 'http://i/r.png' });
    expect((await api.get(`${rs}/scope/${created.id}`)).body).toEqual(created);
    const dup = await api.post(`${rs}/scope`, { name: 'sc-read' });
    expect(dup.status).toBe(409);
    expectStatus(await api.put(`${rs}/scope/${created.id}`, { name: 'sc-read2', displayName: 'Read' }), 204, 'update');
    expect((await api.get(`${rs}/scope/${created.id}`)).body).toEqual({ id: created.id, name: 'sc-read2', displayName: 'Read' });
    expect((await api.get(`${rs}/scope/search?name=sc-read2`)).body).toMatchObject({ id: created.id });
    const none = await api.get(`${rs}/scope/search?name=nothing`);
    expect([none.status, none.text]).toEqual([200, '']);
    expect((await api.get(`${rs}/scope/search`)).status).toBe(400);
    expect((await api.get(`${rs}/scope/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
    expect((await api.put(`${rs}/scope/00000000-0000-0000-0000-000000000000`, { name: 'x' })).status).toBe(404);
    expect((await api.delete(`${rs}/scope/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
    expect((await api.post(`${rs}/scope`, { displayName: 'no name' })).status).toBe(400);
    expect((await api.post(`${rs}/scope`, [1])).status).toBe(400);
  });

  test('list: by name (substring, any case), paged, ordered by name', async () => {
    for (const n of ['list-b', 'list-a', 'LIST-c']) expectStatus(await api.post(`${rs}/scope`, { name: n }), 201, n);
    expect(names((await api.get(`${rs}/scope?name=list`)).body)).toEqual(['LIST-c', 'list-a', 'list-b']);
    expect(names((await api.get(`${rs}/scope?name=list&first=1&max=1`)).body)).toEqual(['list-a']);
  });

  test('delete: refused while a resource uses it; a permission whose only scope it was goes too', async () => {
    const s1 = (await api.post(`${rs}/scope`, { name: 'del-1' })).body.id;
    const s2 = (await api.post(`${rs}/scope`, { name: 'del-2' })).body.id;
    const res = (await api.post(`${rs}/resource`, { name: 'del-res', scopes: [{ id: s1 }] })).body._id;
    const only = (await api.post(`${rs}/permission/scope`, { name: 'only-s2', scopes: [s2] })).body.id;
    const both = (await api.post(`${rs}/permission/scope`, { name: 'both', scopes: [s1, s2] })).body.id;
    expect((await api.get(`${rs}/scope/${s2}/permissions`)).body).toEqual([
      { id: both, name: 'both', type: 'scope' },
      { id: only, name: 'only-s2', type: 'scope' },
    ]);
    expect((await api.get(`${rs}/scope/${s1}/resources`)).body).toEqual([{ name: 'del-res', _id: res }]);
    const refused = await api.delete(`${rs}/scope/${s1}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ errorMessage: 'Scopes can not be removed while associated with resources.' });
    expectStatus(await api.delete(`${rs}/scope/${s2}`), 204, 'delete s2');
    expect((await api.get(`${rs}/permission/${only}`)).status).toBe(404);
    expect((await api.get(`${rs}/policy/${both}/scopes`)).body).toEqual([{ id: s1, name: 'del-1' }]);
  });
});

describe('resources', () => {
  test('create: 201 with the representation; scopes by name are created; owner a user; 409 per owner', async () => {
    const created = expectStatus(
      await api.post(`${rs}/resource`, {
        name: 'album',
        displayName: 'Album',
        type: 'urn:photos:album',
        uris: ['/album/*', ''],
        icon_uri: 'http://i/a.png',
        scopes: [{ name: 'view' }, { name: 'edit' }],
        attributes: { color: ['red', 'blue'] },
        ownerManagedAccess: true,
      }),
      201,
      'create',
    ).body;
    expect(created).toEqual({
      name: 'album',
      type: 'urn:photos:album',
      owner: { id, name: 'photos' },
      ownerManagedAccess: true,
      displayName: 'Album',
      attributes: { color: ['red', 'blue'] },
      _id: expect.any(String),
      uris: ['/album/*'],
      scopes: [
        { id: expect.any(String), name: 'edit' },
        { id: expect.any(String), name: 'view' },
      ],
      icon_uri: 'http://i/a.png',
    });
    expect((await api.get(`${rs}/resource/${created._id}`)).body).toEqual(created);
    expect((await api.get(`${rs}/resource/${created._id}/attributes`)).body).toEqual({ color: ['red', 'blue'] });
    expect(names((await api.get(`${rs}/resource/${created._id}/scopes`)).body)).toEqual(['edit', 'view']);
    const dup = await api.post(`${rs}/resource`, { name: 'album' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'invalid_request', error_description: 'Resource with name [album] already exists.' });
    await createUser(ts, R, 'alice', { password: 'pw' });
    const mine = expectStatus(await api.post(`${rs}/resource`, { name: 'album', owner: { id: 'alice' } }), 201, 'alice album').body;
    expect(mine.owner).toEqual({ id: expect.any(String), name: 'alice' });
    const badOwner = await api.post(`${rs}/resource`, { name: 'x', owner: { id: 'nobody-here' } });
    expect(badOwner.status).toBe(400);
    expect((await api.post(`${rs}/resource`, { name: 'x', owner: { name: 'alice' } })).status).toBe(400);
    expect(names((await api.get(`${rs}/resource?owner=alice`)).body)).toEqual(['album']);
    expect((await api.get(`${rs}/resource?owner=photos&name=album`)).body.map((r: Rep) => r._id)).toEqual([created._id]);
  });

  test('update replaces fields, keeps scopes and attributes when absent; 404 unknown; delete', async () => {
    const r = (await api.post(`${rs}/resource`, { name: 'upd', type: 't', uris: ['/u'], scopes: ['s-upd'], attributes: { k: ['v'] } }))
      .body;
    expectStatus(await api.put(`${rs}/resource/${r._id}`, { name: 'upd2', uris: ['/v'] }), 204, 'update');
    const after = (await api.get(`${rs}/resource/${r._id}`)).body;
    expect(after).toMatchObject({ name: 'upd2', uris: ['/v'], attributes: { k: ['v'] } });
    expect(after.type).toBeUndefined();
    expect(names(after.scopes)).toEqual(['s-upd']);
    expect((await api.put(`${rs}/resource/00000000-0000-0000-0000-000000000000`, { name: 'z' })).status).toBe(404);
    expect((await api.get(`${rs}/resource/00000000-0000-0000-0000-000000000000/scopes`)).status).toBe(404);
    expectStatus(await api.delete(`${rs}/resource/${r._id}`), 204, 'delete');
    expect((await api.get(`${rs}/resource/${r._id}`)).status).toBe(404);
    expect((await api.delete(`${rs}/resource/${r._id}`)).status).toBe(404);
  });

  test('list filters: name, exactName, type, uri, scope, deep, matchingUri, paging; search by name', async () => {
    for (const [n, uri, type] of [
      ['flt-one', '/flt/one', 'urn:flt'],
      ['flt-two', '/flt/two/*', 'urn:flt'],
      ['flt', '/flt', 'urn:other'],
    ]) {
      expectStatus(await api.post(`${rs}/resource`, { name: n, uris: [uri], type, scopes: [{ name: `sc-${n}` }] }), 201, n);
    }
    expect(names((await api.get(`${rs}/resource?name=FLT`)).body)).toEqual(['flt', 'flt-one', 'flt-two']);
    expect(names((await api.get(`${rs}/resource?name=flt&exactName=true`)).body)).toEqual(['flt']);
    expect(names((await api.get(`${rs}/resource?type=urn:flt`)).body)).toEqual(['flt-one', 'flt-two']);
    expect(names((await api.get(`${rs}/resource?uri=/flt/one`)).body)).toEqual(['flt-one']);
    expect(names((await api.get(`${rs}/resource?scope=sc-flt-two`)).body)).toEqual(['flt-two']);
    expect((await api.get(`${rs}/resource?scope=no-such-scope`)).body).toEqual([]);
    expect(names((await api.get(`${rs}/resource?name=flt&first=1&max=1`)).body)).toEqual(['flt-one']);
    const shallow = (await api.get(`${rs}/resource?name=flt&exactName=true&deep=false`)).body[0];
    expect(shallow.scopes).toBeUndefined();
    expect(shallow.attributes).toBeUndefined();
    expect(names((await api.get(`${rs}/resource?uri=/flt/two/photo&matchingUri=true`)).body)).toEqual(['flt-two']);
    expect((await api.get(`${rs}/resource?uri=/flt/two/photo`)).body).toEqual([]);
    expect((await api.get(`${rs}/resource/search?name=flt-one`)).body).toMatchObject({ name: 'flt-one', uris: ['/flt/one'] });
    const none = await api.get(`${rs}/resource/search?name=zzz`);
    expect(none.status).toBe(204);
    expect((await api.get(`${rs}/resource/search`)).status).toBe(400);
  });

  test('permissions of a resource: by resource, by type, and scope permissions on its scopes', async () => {
    const r = (await api.post(`${rs}/resource`, { name: 'perm-res', type: 'urn:perm', scopes: ['perm-view'] })).body;
    const other = (await api.post(`${rs}/resource`, { name: 'perm-other', scopes: ['perm-view'] })).body;
    const byRes = (await api.post(`${rs}/permission/resource`, { name: 'p-res', resources: [r._id] })).body.id;
    const byType = (await api.post(`${rs}/permission/resource`, { name: 'p-type', resourceType: 'urn:perm' })).body.id;
    const byScope = (await api.post(`${rs}/permission/scope`, { name: 'p-scope', scopes: ['perm-view'] })).body.id;
    const otherScope = (await api.post(`${rs}/permission/scope`, { name: 'p-other', resources: [other._id], scopes: ['perm-view'] })).body
      .id;
    const list = (await api.get(`${rs}/resource/${r._id}/permissions`)).body;
    expect(list).toEqual([
      { id: byRes, name: 'p-res', type: 'resource' },
      { id: byScope, name: 'p-scope', type: 'scope' },
      { id: byType, name: 'p-type', type: 'resource' },
    ]);
    expect((await api.get(`${rs}/resource/${other._id}/permissions`)).body.map((p: Rep) => p.id)).toEqual([otherScope, byScope]);
    // Deleting the resource deletes the permission naming only it.
    expectStatus(await api.delete(`${rs}/resource/${r._id}`), 204, 'delete');
    expect((await api.get(`${rs}/permission/${byRes}`)).status).toBe(404);
    expect((await api.get(`${rs}/permission/${byType}`)).status).toBe(200);
  });
});

describe('scale and races', () => {
  test('listing resources or policies costs the same statements for 5 and 40 of them', async () => {
    const cid = await createClient(api, R, { clientId: 'many', publicClient: false, authorizationServicesEnabled: true });
    const base = `/admin/realms/${R}/clients/${cid}/authz/resource-server`;
    const grow = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const r = (await api.post(`${base}/resource`, { name: `m-${i}`, scopes: [`ms-${i}`], owner: i % 2 ? { id: 'alice' } : undefined }))
          .body;
        await api.post(`${base}/permission/resource`, { name: `mp-${i}`, resources: [r._id] });
      }
    };
    const cost = async () => {
      const a = await ts.countSql(() => api.get(`${base}/resource?max=1000`));
      const b = await ts.countSql(() => api.get(`${base}/policy?max=1000&fields=*`));
      return [a.count, b.count];
    };
    await grow(0, 5);
    const small = await cost();
    await grow(5, 40);
    expect(await cost()).toEqual(small);
  });

  test('two creates of one name at once: one 201, one 409, never a 500', async () => {
    for (const [path, body] of [
      ['scope', { name: 'race-scope' }],
      ['resource', { name: 'race-res' }],
      ['policy/user', { name: 'race-pol', users: [] }],
    ] as const) {
      const statuses = (await Promise.all([api.post(`${rs}/${path}`, body), api.post(`${rs}/${path}`, body)])).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
    }
  });
});
