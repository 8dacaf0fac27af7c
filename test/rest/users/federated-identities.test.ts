import { randomUUID } from 'node:crypto';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'fedid';
const U = `/admin/realms/${R}/users`;
const idOf = (location: string) => location.split('/').pop() as string;

async function createUser(username: string): Promise<string> {
  const res = await api.post(U, { username, enabled: true });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  const res = await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
    identityProviders: [
      { alias: 'github', providerId: 'github', enabled: true },
      { alias: 'google', providerId: 'google', enabled: true },
    ],
    users: [{ username: 'imported', enabled: true, federatedIdentities: [{ identityProvider: 'google', userId: 'g-1', userName: 'imp' }] }],
  });
  expect(res.status).toBe(201);
});
afterAll(() => ts.close());

describe('federated identities', () => {
  test('link: 204, listed, shown in the user; duplicate 409; unknown alias stored but hidden', async () => {
    const id = await createUser('linker');
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.get(`${U}/${id}`)).body.federatedIdentities).toEqual([]);
    const res = await api.post(`${U}/${id}/federated-identity/github`, { identityProvider: 'ignored', userId: 'gh-42', userName: 'octo' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const expected = [{ identityProvider: 'github', userId: 'gh-42', userName: 'octo' }];
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual(expected);
    expect((await api.get(`${U}/${id}`)).body.federatedIdentities).toEqual(expected);
    const dup = await api.post(`${U}/${id}/federated-identity/github`, { userId: 'other', userName: 'other' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'User is already linked with provider' });
    expect((await api.post(`${U}/${id}/federated-identity/nonexistent`, { userId: 'x', userName: 'x' })).status).toBe(204);
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual(expected);
    const realm = await ts.db.models.Realm.findOne({ where: { name: R } });
    const ev = await ts.db.models.AdminEvent.findOne({
      where: { realmId: realm?.id, resourcePath: `users/${id}/federated-identity/github` },
    });
    expect(ev).toMatchObject({ operationType: 'CREATE', resourceType: 'USER' });
    expect(JSON.parse(String(ev?.representation))).toMatchObject({ userId: 'gh-42', userName: 'octo' });
  });

  test('the same external account cannot be linked to two users', async () => {
    const a = await createUser('ext-a');
    const b = await createUser('ext-b');
    expect((await api.post(`${U}/${a}/federated-identity/google`, { userId: 'same', userName: 's' })).status).toBe(204);
    const res = await api.post(`${U}/${b}/federated-identity/google`, { userId: 'same', userName: 's' });
    expect(res.status).toBe(409);
    expect((await api.get(`${U}/${b}/federated-identity`)).body).toEqual([]);
  });

  test('search by idpAlias and idpUserId', async () => {
    const names = async (q: string) => (await api.get(`${U}?${q}`)).body.map((u: { username: string }) => u.username);
    expect(await names('idpAlias=github')).toEqual(['linker']);
    expect(await names('idpAlias=google')).toEqual(['ext-a', 'imported']);
    expect(await names('idpAlias=google&idpUserId=g-1')).toEqual(['imported']);
    expect(await names('idpUserId=gh-42')).toEqual(['linker']);
    expect(await names('idpAlias=google&idpUserId=nope')).toEqual([]);
  });

  test('unlink: 204, then 404 Link not found; admin event DELETE', async () => {
    const id = (await api.get(`${U}?username=linker&exact=true`)).body[0].id;
    expect((await api.delete(`${U}/${id}/federated-identity/github`)).status).toBe(204);
    const again = await api.delete(`${U}/${id}/federated-identity/github`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Link not found' });
    const realm = await ts.db.models.Realm.findOne({ where: { name: R } });
    const evs = await ts.db.models.AdminEvent.findAll({ where: { realmId: realm?.id, operationType: 'DELETE' } });
    expect(evs.map((e) => e.resourcePath)).toContain(`users/${id}/federated-identity/github`);
  });

  test('bad input and unknown user', async () => {
    const id = await createUser('badlink');
    expect((await api.post(`${U}/${id}/federated-identity/github`, { userId: 'x', bogus: 1 })).status).toBe(400);
    expect((await api.post(`${U}/${id}/federated-identity/github`)).status).toBe(400);
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.get(`${U}/${randomUUID()}/federated-identity`)).body).toEqual({ error: 'User not found' });
  });

  test('realm without identity providers: no federatedIdentities field', async () => {
    expect((await api.post('/admin/realms', { realm: 'noidp', enabled: true })).status).toBe(201);
    const res = await api.post('/admin/realms/noidp/users', { username: 'user1', enabled: true });
    const id = idOf(res.headers.location);
    expect((await api.post(`/admin/realms/noidp/users/${id}/federated-identity/github`, { userId: '1', userName: 'u' })).status).toBe(204);
    expect((await api.get(`/admin/realms/noidp/users/${id}`)).body).not.toHaveProperty('federatedIdentities');
    expect((await api.get(`/admin/realms/noidp/users/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.delete(`/admin/realms/noidp/users/${id}`)).status).toBe(204);
    expect(await ts.db.models.FederatedIdentity.count({ where: { userId: id } })).toBe(0);
  });
});
