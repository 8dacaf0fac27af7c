import { clientUuid, realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * GET /clients pages with core/paging on every path (all, `search`, `q`): a negative first is 0, a
 * negative max is everything, max=0 is nothing; an exact clientId is not paged. Sub-resources
 * resolve the client once with Keycloak's order: a body is read first (400), then the client
 * (403 without query-clients, else 404), then the caller's rights on it.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'clientpaging';
const base = `/admin/realms/${R}/clients`;
const MINE = ['zz-a', 'zz-b', 'zz-c'];

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
  for (const clientId of MINE) {
    expect((await api.post(base, { clientId, attributes: { team: 'zz' } })).status).toBe(201);
  }
});
afterAll(() => ts.close());

const ids = async (query: string) => ((await api.get(`${base}?${query}`)).body as Array<{ clientId: string }>).map((c) => c.clientId);

test('search and q page the same way as the full list', async () => {
  for (const filter of ['clientId=zz-&search=true', 'q=team:zz']) {
    expect(await ids(`${filter}&first=-3&max=2`)).toEqual(['zz-a', 'zz-b']);
    expect(await ids(`${filter}&max=-1`)).toEqual(MINE);
    expect(await ids(`${filter}&first=1`)).toEqual(['zz-b', 'zz-c']);
    expect(await ids(`${filter}&first=2&max=5`)).toEqual(['zz-c']);
    expect(await ids(`${filter}&max=0`)).toEqual([]);
  }
  const all = await ids('max=-1');
  expect(all.slice(-3)).toEqual(MINE);
  expect(await ids('first=-1&max=0')).toEqual([]);
});

test('an exact clientId is not paged', async () => {
  expect(await ids('clientId=zz-b&first=5&max=0')).toEqual(['zz-b']);
});

test('sub-resources: body 400 before the client, 403 without query-clients before 404, rights after', async () => {
  const download = (id: string) => `${base}/${id}/certificates/jwt.credential/download`;
  expect((await api.post(download('nope'), { unknownField: 1 })).status).toBe(400);
  expect((await api.post(download('nope'), { format: 'JKS' })).status).toBe(404);
  const nobody = await realmAdmin(ts, R, 'no-rights', []);
  expect((await nobody.get(`${base}/nope/client-secret`)).status).toBe(403);
  const lister = await realmAdmin(ts, R, 'lister', ['query-clients']);
  expect((await lister.get(`${base}/nope/client-secret`)).status).toBe(404);
  const uuid = await clientUuid(api, R, 'zz-a');
  expect((await lister.get(`${base}/${uuid}/client-secret`)).status).toBe(403);
  expect((await lister.post(`${base}/${uuid}/protocol-mappers/models`, { bogus: true })).status).toBe(400);
  expect((await lister.post(`${base}/nope/protocol-mappers/models`, { name: 'm' })).status).toBe(404);
  expect((await api.get(`${base}/${uuid}/client-secret`)).body).toMatchObject({ type: 'secret' });
});
