import { realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Identity provider listing pages with core/paging (absent max = 100, negative max = all, negative
 * first = 0), and the `instances/{alias}` parent is resolved once with Keycloak's order: the body
 * is read first, then access (403), then the provider (404).
 */
let ts: TestServer;
let api: AdminApi;
const R = 'idppaging';
const base = `/admin/realms/${R}/identity-provider`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
  for (const a of ['p-a', 'p-b', 'p-c']) expect((await api.post(`${base}/instances`, { alias: a, providerId: 'oidc' })).status).toBe(201);
});
afterAll(() => ts.close());

const aliases = async (query: string) =>
  ((await api.get(`${base}/instances?${query}`)).body as Array<{ alias: string }>).map((p) => p.alias);

test('first/max: negative first is 0, negative max is everything, max limits, first skips', async () => {
  expect(await aliases('first=-5&max=2')).toEqual(['p-a', 'p-b']);
  expect(await aliases('max=-1')).toEqual(['p-a', 'p-b', 'p-c']);
  expect(await aliases('first=1')).toEqual(['p-b', 'p-c']);
  expect(await aliases('first=2&max=5')).toEqual(['p-c']);
});

test('parent order: unreadable body 400 before 404; 403 without manage before 404; then 404', async () => {
  expect((await api.put(`${base}/instances/nope`, { unknownField: 1 })).status).toBe(400);
  const viewer = await realmAdmin(ts, R, 'idp-viewer', ['view-identity-providers']);
  expect((await viewer.put(`${base}/instances/nope`, { alias: 'nope', providerId: 'oidc' })).status).toBe(403);
  expect((await viewer.delete(`${base}/instances/nope/mappers/x`)).status).toBe(403);
  expect((await viewer.get(`${base}/instances/nope/mappers`)).status).toBe(404);
  expect((await api.delete(`${base}/instances/nope`)).status).toBe(404);
  expect((await viewer.get(`${base}/instances/p-a/mappers`)).status).toBe(200);
});
