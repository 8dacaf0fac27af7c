import { realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * The flow of `/flows/{alias}/executions...` is resolved once by the fronts with Keycloak's order:
 * the body is read first (400), then manage access (403), then the endpoint's own not-found error.
 * Copy and `POST /executions/{id}/config` resolve their parent inside the service, after the
 * checks that come before its 404 (newName; the alias's reserved characters).
 */
let ts: TestServer;
let api: AdminApi;
let viewer: AdminApi;
const R = 'flowparents';
const base = `/admin/realms/${R}/authentication`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
  viewer = await realmAdmin(ts, R, 'flow-viewer', ['view-realm']);
});
afterAll(() => ts.close());

test('/flows/{alias}/executions writes: body 400, then 403 without manage-realm, then the endpoint error', async () => {
  expect((await viewer.put(`${base}/flows/nope/executions`, { unknownField: 1 })).status).toBe(400);
  expect((await viewer.put(`${base}/flows/nope/executions`, { id: 'x', requirement: 'REQUIRED' })).status).toBe(403);
  expect((await viewer.post(`${base}/flows/nope/executions/execution`, { provider: 'auth-cookie' })).status).toBe(403);
  expect((await viewer.post(`${base}/flows/nope/executions/flow`, { alias: 'x', type: 'basic-flow' })).status).toBe(403);
  const put = await api.put(`${base}/flows/nope/executions`, { id: 'x', requirement: 'REQUIRED' });
  expect([put.status, put.body]).toEqual([404, { error: 'flow not found' }]);
  const exe = await api.post(`${base}/flows/nope/executions/execution`, { provider: 'auth-cookie' });
  expect([exe.status, exe.body]).toEqual([400, { error: "Parent flow doesn't exist" }]);
  const sub = await api.post(`${base}/flows/nope/executions/flow`, { alias: 'x', type: 'basic-flow' });
  expect([sub.status, sub.body]).toEqual([400, { errorMessage: "Parent flow doesn't exist" }]);
});

test('copy checks newName before the source flow; execution config checks the alias before the execution', async () => {
  expect((await viewer.post(`${base}/flows/nope/copy`, { newName: 'c' })).status).toBe(403);
  expect((await api.post(`${base}/flows/nope/copy`, {})).body).toEqual({ errorMessage: 'Failed to create flow with empty alias name' });
  expect((await api.post(`${base}/flows/nope/copy`, { newName: 'browser' })).status).toBe(409);
  expect((await api.post(`${base}/flows/nope/copy`, { newName: 'c' })).body).toEqual({ error: 'Flow not found' });
  expect((await viewer.post(`${base}/executions/nope/config`, { alias: 'a/b', config: {} })).status).toBe(403);
  expect((await api.post(`${base}/executions/nope/config`, { alias: 'a/b', config: {} })).body).toEqual({
    error: "Character '/' not allowed.",
  });
  expect((await api.post(`${base}/executions/nope/config`, { alias: 'ab', config: {} })).body).toEqual({ error: 'Illegal execution' });
});
