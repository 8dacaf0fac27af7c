import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'smrealm';
const base = `/admin/realms/${R}`;
const owners: Record<string, string> = {};
let account: string;
const roles: Record<string, { id: string; name: string }> = {};

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  for (const name of ['sm-top', 'sm-leaf', 'sm-other']) {
    expect((await api.post(`${base}/roles`, { name })).status).toBe(201);
    const r = (await api.get(`${base}/roles/${name}`)).body;
    roles[name] = { id: r.id, name: r.name };
  }
  expect((await api.post(`${base}/roles/sm-top/composites`, [roles['sm-leaf']])).status).toBe(204);
  owners['client-scopes'] = (await api.post(`${base}/client-scopes`, { name: 'sm-scope', protocol: 'openid-connect' })).headers.location
    .split('/')
    .pop() as string;
  // broker: a built-in client with fullScopeAllowed=false and no scope mappings.
  owners.clients = (await api.get(`${base}/clients?clientId=broker`)).body[0].id;
  account = (await api.get(`${base}/clients?clientId=account`)).body[0].id;
});
afterAll(() => ts.close());

const names = (list: Array<{ name: string }>) => list.map((r) => r.name).sort();

describe.each(['clients', 'client-scopes'])('scope mappings of %s', (type) => {
  const path = () => `${base}/${type}/${owners[type]}/scope-mappings`;

  test('realm: add by id, list, composite expansion, available, remove', async () => {
    // Start from an owner with no realm mappings, whatever other tests of the file left behind.
    expect((await api.delete(`${path()}/realm`)).status).toBe(204);
    const add = await api.post(`${path()}/realm`, [{ id: roles['sm-top'].id }]);
    expect(add.status).toBe(204);
    expect(names((await api.get(`${path()}/realm`)).body)).toEqual(['sm-top']);
    const composite = names((await api.get(`${path()}/realm/composite`)).body);
    expect(composite).toEqual(['sm-leaf', 'sm-top']);
    const available = names((await api.get(`${path()}/realm/available`)).body);
    expect(available).toContain('sm-leaf');
    expect(available).not.toContain('sm-top');
    const all = await api.get(path());
    expect(all.body.realmMappings.map((r: { name: string }) => r.name)).toEqual(['sm-top']);
    expect(Object.keys(all.body.realmMappings[0]).sort()).toEqual(['clientRole', 'composite', 'containerId', 'id', 'name']);
    const missing = await api.post(`${path()}/realm`, [{ id: 'nope' }]);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Role not found' });
    expect((await api.delete(`${path()}/realm`, [{ id: roles['sm-top'].id }])).status).toBe(204);
    expect((await api.get(`${path()}/realm`)).body).toEqual([]);
    await api.post(`${path()}/realm`, [{ id: roles['sm-other'].id }, { id: roles['sm-leaf'].id }]);
    expect((await api.delete(`${path()}/realm`)).status).toBe(204);
    expect((await api.get(`${path()}/realm`)).body).toEqual([]);
  });

  test('client roles: add by name, list, available, composite, remove; unknown client 404', async () => {
    const available = (await api.get(`${path()}/clients/${account}/available`)).body;
    const view = available.find((r: { name: string }) => r.name === 'view-profile');
    expect((await api.post(`${path()}/clients/${account}`, [{ name: 'view-profile' }, { name: 'manage-account' }])).status).toBe(204);
    expect(names((await api.get(`${path()}/clients/${account}`)).body)).toEqual(['manage-account', 'view-profile']);
    expect(names((await api.get(`${path()}/clients/${account}/composite`)).body)).toEqual([
      'manage-account',
      'manage-account-links',
      'view-profile',
    ]);
    const all = (await api.get(path())).body;
    expect(all.clientMappings.account).toMatchObject({ id: account, client: 'account' });
    expect(names(all.clientMappings.account.mappings)).toEqual(['manage-account', 'view-profile']);
    expect((await api.post(`${path()}/clients/${account}`, [{ name: 'no-such-role' }])).body).toEqual({ error: 'Role not found' });
    expect((await api.get(`${path()}/clients/nope`)).body).toEqual({ error: 'Could not find client' });
    expect((await api.delete(`${path()}/clients/${account}`, [view])).status).toBe(204);
    expect(names((await api.get(`${path()}/clients/${account}`)).body)).toEqual(['manage-account']);
    expect((await api.delete(`${path()}/clients/${account}`)).status).toBe(204);
    expect((await api.get(`${path()}/clients/${account}`)).body).toEqual([]);
  });

  test('permissions and the escalation guard', async () => {
    const viewer = await realmAdmin(ts, R, `sm-viewer-${type}`, ['view-clients']);
    expect((await viewer.get(`${path()}/realm`)).status).toBe(200);
    expect((await viewer.post(`${path()}/realm`, [{ id: roles['sm-other'].id }])).status).toBe(403);
    const manager = await realmAdmin(ts, R, `sm-manager-${type}`, ['manage-clients']);
    expect((await manager.post(`${path()}/realm`, [{ id: roles['sm-other'].id }])).status).toBe(204);
    const rm = (await api.get(`${base}/clients?clientId=realm-management`)).body[0].id;
    const guarded = await manager.post(`${path()}/clients/${rm}`, [{ name: 'manage-users' }]);
    expect(guarded.status).toBe(403);
    expect((await api.get(`${path()}/clients/${rm}`)).body).toEqual([]);
  });
});

test('a full-scope client has every realm role in scope; a fresh client has no mappings', async () => {
  const admin = (await api.get(`${base}/clients?clientId=admin-cli`)).body[0].id;
  const composite = names((await api.get(`${base}/clients/${admin}/scope-mappings/realm/composite`)).body);
  expect(composite).toEqual(expect.arrayContaining(['offline_access', 'sm-leaf', 'sm-other', 'sm-top', 'uma_authorization']));
  expect((await api.get(`${base}/clients/${admin}/scope-mappings`)).body).toEqual({});
  const offline = (await api.get(`${base}/client-scopes`)).body.find((s: { name: string }) => s.name === 'offline_access');
  expect(names((await api.get(`${base}/client-scopes/${offline.id}/scope-mappings/realm`)).body)).toEqual(['offline_access']);
});
