import request from 'supertest';
import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'authexec';
const base = `/admin/realms/${R}/authentication`;
const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
type Row = Record<string, unknown>;
const rows = async (flow: string): Promise<Row[]> => (await api.get(`${base}/flows/${encodeURIComponent(flow)}/executions`)).body;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  expect((await api.post(`${base}/flows/browser/copy`, { newName: 'exec-test' })).status).toBe(201);
});
afterAll(() => ts.close());

describe('adding executions and sub-flows', () => {
  test('execution: DISABLED unless one choice, priority = last + 1, Location /executions/{id}', async () => {
    const res = await api.post(`${base}/flows/exec-test/executions/execution`, { provider: 'auth-otp-form' });
    expect(res.status).toBe(201);
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/executions/${id}`);
    const last = (await rows('exec-test')).filter((r) => r.level === 0).pop() as Row;
    expect(last).toMatchObject({ id, providerId: 'auth-otp-form', requirement: 'DISABLED', priority: 31, index: 5 });
    const single = await api.post(`${base}/flows/exec-test/executions/execution`, { provider: 'auth-username-form' });
    expect((await api.get(`${base}/executions/${idOf(single.headers.location)}`)).body).toMatchObject({
      requirement: 'REQUIRED',
      priority: 32,
    });
    expect((await api.delete(`${base}/executions/${idOf(single.headers.location)}`)).status).toBe(204);
  });

  test('sub-flow: DISABLED, listed with its alias; form-flow keeps the provider', async () => {
    const res = await api.post(`${base}/flows/exec-test/executions/flow`, {
      alias: 'subFlow',
      type: 'basic-flow',
      provider: 'registration-page-form',
      description: 'd',
    });
    expect(res.status).toBe(201);
    const flowId = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/flows/${flowId}`);
    const row = (await rows('exec-test')).find((r) => r.displayName === 'subFlow') as Row;
    expect(row).toMatchObject({ flowId, requirement: 'DISABLED', authenticationFlow: true, description: 'd', level: 0 });
    expect(row.providerId).toBeUndefined();
    expect((await api.get(`${base}/flows/${flowId}`)).body).toMatchObject({ alias: 'subFlow', topLevel: false, builtIn: false });
    const form = await api.post(`${base}/flows/exec-test/executions/flow`, {
      alias: 'subForm',
      type: 'form-flow',
      provider: 'registration-page-form',
    });
    const formRow = (await rows('exec-test')).find((r) => r.displayName === 'subForm') as Row;
    expect(formRow).toMatchObject({ providerId: 'registration-page-form', requirementChoices: ['REQUIRED', 'DISABLED'], description: '' });
    // form-flow children come from the form actions
    expect((await api.post(`${base}/flows/subForm/executions/execution`, { provider: 'registration-password-action' })).status).toBe(201);
    const bad = await api.post(`${base}/flows/subForm/executions/execution`, { provider: 'auth-cookie' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'No authentication provider found for id: auth-cookie' });
    expect((await api.delete(`${base}/executions/${formRow.id}`)).status).toBe(204);
    expect((await api.get(`${base}/flows/${idOf(form.headers.location)}`)).status).toBe(404);
  });

  test('errors: unknown parent, built-in parent, unknown provider, duplicate sub-flow alias', async () => {
    const noParent = await api.post(`${base}/flows/nope/executions/execution`, { provider: 'auth-cookie' });
    expect(noParent.status).toBe(400);
    expect(noParent.body).toEqual({ error: "Parent flow doesn't exist" });
    const noParentFlow = await api.post(`${base}/flows/nope/executions/flow`, { alias: 'x', type: 'basic-flow' });
    expect(noParentFlow.status).toBe(400);
    expect(noParentFlow.body).toEqual({ errorMessage: "Parent flow doesn't exist" });
    const builtIn = await api.post(`${base}/flows/browser/executions/execution`, { provider: 'auth-cookie' });
    expect(builtIn.body).toEqual({ error: 'It is illegal to add execution to a built in flow' });
    const builtInSub = await api.post(`${base}/flows/browser/executions/flow`, { alias: 'x', type: 'basic-flow' });
    expect(builtInSub.body).toEqual({ error: 'It is illegal to add sub-flow to a built in flow' });
    const unknown = await api.post(`${base}/flows/exec-test/executions/execution`, { provider: 'nope' });
    expect(unknown.body).toEqual({ error: 'No authentication provider found for id: nope' });
    const dup = await api.post(`${base}/flows/exec-test/executions/flow`, { alias: 'forms', type: 'basic-flow' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'New flow alias name already exists' });
    const unknownFlow = await api.get(`${base}/flows/nope/executions`);
    expect(unknownFlow.status).toBe(404);
    expect(unknownFlow.body).toEqual({ error: 'Flow not found' });
  });

  test('POST /executions (raw): parent checks and 201', async () => {
    const flowId = ((await api.get(`${base}/flows`)).body as Row[]).find((f) => f.alias === 'exec-test')?.id as string;
    expect((await api.post(`${base}/executions`, { authenticator: 'auth-cookie', requirement: 'DISABLED' })).body).toEqual({
      error: 'parent flow not set on new execution',
    });
    expect(
      (await api.post(`${base}/executions`, { parentFlow: 'nope', authenticator: 'auth-cookie', requirement: 'DISABLED' })).body,
    ).toEqual({
      error: 'execution parent flow does not exist',
    });
    const res = await api.post(`${base}/executions`, {
      parentFlow: flowId,
      authenticator: 'auth-password-form',
      requirement: 'ALTERNATIVE',
    });
    expect(res.status).toBe(201);
    const id = idOf(res.headers.location);
    expect((await api.get(`${base}/executions/${id}`)).body).toEqual({
      id,
      authenticator: 'auth-password-form',
      authenticatorFlow: false,
      parentFlow: flowId,
      priority: expect.any(Number),
      requirement: 'ALTERNATIVE',
    });
    expect((await api.delete(`${base}/executions/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/executions/${id}`)).body).toEqual({ error: 'Illegal execution' });
  });
});

describe('updating and moving executions', () => {
  test('PUT /flows/{alias}/executions changes the requirement (also in built-in flows) → 204', async () => {
    const cookie = (await rows('browser'))[0];
    const res = await api.put(`${base}/flows/browser/executions`, { ...cookie, requirement: 'DISABLED' });
    expect(res.status).toBe(204);
    expect((await rows('browser'))[0].requirement).toBe('DISABLED');
    expect((await api.put(`${base}/flows/browser/executions`, { ...cookie, requirement: 'ALTERNATIVE' })).status).toBe(204);
    const bad = await api.put(`${base}/flows/browser/executions`, { ...cookie, requirement: 'SOMETIMES' });
    expect(bad.status).toBe(400);
    expect((await api.put(`${base}/flows/nope/executions`, cookie)).body).toEqual({ error: 'flow not found' });
    expect((await api.put(`${base}/flows/browser/executions`, { ...cookie, id: 'nope' })).body).toEqual({ error: 'Illegal execution' });
  });

  test('PUT with an unchanged requirement renames a sub-flow; alias taken → 409', async () => {
    const sub = (await rows('exec-test')).find((r) => r.displayName === 'subFlow') as Row;
    expect((await api.put(`${base}/flows/exec-test/executions`, { ...sub, displayName: 'subFlow2', description: 'dd' })).status).toBe(204);
    expect((await api.get(`${base}/flows/${sub.flowId}`)).body).toMatchObject({ alias: 'subFlow2', description: 'dd' });
    const taken = await api.put(`${base}/flows/exec-test/executions`, { ...sub, displayName: 'browser' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ errorMessage: 'Flow alias name already exists' });
  });

  test('raise/lower swap with the neighbour; built-in parent → 400', async () => {
    const before = (await rows('exec-test')).filter((r) => r.level === 0);
    const last = before[before.length - 1];
    expect((await api.post(`${base}/executions/${last.id}/raise-priority`)).status).toBe(204);
    const afterRaise = (await rows('exec-test')).filter((r) => r.level === 0);
    expect(afterRaise.find((r) => r.id === last.id)?.index).toBe((last.index as number) - 1);
    const first = before[0];
    expect((await api.post(`${base}/executions/${first.id}/lower-priority`)).status).toBe(204);
    expect((await rows('exec-test')).filter((r) => r.level === 0).find((r) => r.id === first.id)?.index).toBe(1);
    expect((await api.post(`${base}/executions/${first.id}/raise-priority`)).status).toBe(204);
    const cookie = (await rows('browser'))[0];
    const builtIn = await api.post(`${base}/executions/${cookie.id}/lower-priority`);
    expect(builtIn.status).toBe(400);
    expect(builtIn.body).toEqual({ error: 'It is illegal to modify execution in a built in flow' });
    expect((await api.post(`${base}/executions/nope/raise-priority`)).body).toEqual({ error: 'Illegal execution' });
    const removeBuiltIn = await api.delete(`${base}/executions/${cookie.id}`);
    expect(removeBuiltIn.status).toBe(400);
    expect(removeBuiltIn.body).toEqual({ error: 'It is illegal to remove execution from a built in flow' });
  });

  test('deleting a sub-flow execution removes the sub-flow tree and its configs', async () => {
    const forms = (await rows('exec-test')).find((r) => r.displayName === 'exec-test forms') as Row;
    const realmId = (await api.get(`/admin/realms/${R}`)).body.id;
    // Sub-flows: GET /flows lists top-level flows only, so the table counts the two removed with the execution.
    const before = await ts.db.models.AuthFlow.count({ where: { realmId } });
    expect((await api.delete(`${base}/executions/${forms.id}`)).status).toBe(204);
    expect(await ts.db.models.AuthFlow.count({ where: { realmId } })).toBe(before - 2);
    expect((await rows('exec-test')).some((r) => String(r.displayName).includes('2FA'))).toBe(false);
  });
});

describe('execution configs', () => {
  test('create, read, update, delete a config; Location ends with the config id', async () => {
    const idp = (await rows('exec-test')).find((r) => r.providerId === 'identity-provider-redirector') as Row;
    const res = await api.post(`${base}/executions/${idp.id}/config`, { alias: 'test', config: { defaultProvider: 'x', empty: '' } });
    expect(res.status).toBe(201);
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/executions/${idp.id}/config/${id}`);
    expect((await api.get(`${base}/config/${id}`)).body).toEqual({ id, alias: 'test', config: { defaultProvider: 'x' } });
    const row = (await rows('exec-test')).find((r) => r.id === idp.id) as Row;
    expect(row).toMatchObject({ alias: 'test', authenticationConfig: id });
    expect((await api.put(`${base}/config/${id}`, { id, alias: 'test', config: { defaultProvider: 'sdf' } })).status).toBe(204);
    expect((await api.get(`${base}/config/${id}`)).body.config).toEqual({ defaultProvider: 'sdf' });
    const dup = await api.post(`${base}/executions/${idp.id}/config`, { alias: 'review profile config', config: {} });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Authentication execution configuration review profile config already exists' });
    const empty = await api.post(`${base}/executions/${idp.id}/config`, { config: {} });
    expect(empty.status).toBe(409);
    expect(empty.body).toEqual({ errorMessage: 'Failed to create authentication execution configuration with empty alias name' });
    expect((await api.post(`${base}/executions/${idp.id}/config`, { alias: 'a#b' })).body).toEqual({ error: "Character '#' not allowed." });
    expect((await api.post(`${base}/executions/nope/config`, { alias: 'ok' })).body).toEqual({ error: 'Illegal execution' });
    expect((await api.delete(`${base}/config/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/config/${id}`)).body).toEqual({ error: 'Could not find authenticator config' });
    expect((await rows('exec-test')).find((r) => r.id === idp.id)?.authenticationConfig).toBeUndefined();
  });

  test('config on a built-in flow execution works; replacing a config deletes the old one', async () => {
    const idp = (await rows('browser')).find((r) => r.providerId === 'identity-provider-redirector') as Row;
    const a = idOf(
      (await api.post(`${base}/executions/${idp.id}/config`, { alias: 'cfg-a', config: { defaultProvider: 'a' } })).headers.location,
    );
    const b = idOf(
      (await api.post(`${base}/executions/${idp.id}/config`, { alias: 'cfg-b', config: { defaultProvider: 'b' } })).headers.location,
    );
    expect((await api.get(`${base}/config/${a}`)).status).toBe(404);
    expect((await rows('browser')).find((r) => r.id === idp.id)?.authenticationConfig).toBe(b);
    expect((await api.delete(`${base}/config/${b}`)).status).toBe(204);
  });
});

describe('providers and descriptions', () => {
  test('provider lists', async () => {
    const auth = (await api.get(`${base}/authenticator-providers`)).body as Row[];
    expect(auth).toHaveLength(41);
    expect(auth[0]).toEqual({ id: 'auth-cookie', displayName: 'Cookie', description: expect.any(String) });
    const clients = (await api.get(`${base}/client-authenticator-providers`)).body as Row[];
    expect(clients.map((c) => [c.id, c.supportsSecret])).toEqual([
      ['client-secret', true],
      ['client-jwt', false],
      ['client-secret-jwt', true],
      ['client-x509', false],
    ]);
    expect((await api.get(`${base}/form-providers`)).body).toEqual([
      { id: 'registration-page-form', displayName: 'Registration Page', description: expect.any(String) },
    ]);
    expect(((await api.get(`${base}/form-action-providers`)).body as Row[]).map((p) => p.id)).toEqual([
      'registration-password-action',
      'registration-user-creation',
      'registration-recaptcha-action',
      'registration-recaptcha-enterprise',
      'registration-terms-and-conditions',
    ]);
    expect((await api.get(`${base}/per-client-config-description`)).body).toEqual({
      'client-secret': [],
      'client-jwt': [],
      'client-secret-jwt': [],
      'client-x509': [],
    });
  });

  test('config-description by id and Base32 id; unknown → 404', async () => {
    const res = await api.get(`${base}/config-description/identity-provider-redirector`);
    expect(res.body).toMatchObject({
      providerId: 'identity-provider-redirector',
      name: 'Identity Provider Redirector',
      helpText: expect.any(String),
    });
    expect(res.body.properties[0]).toMatchObject({
      name: 'defaultProvider',
      type: 'String',
      secret: false,
      required: false,
      readOnly: false,
    });
    const notProvider = 'NZXXA6I'; // Base32 of "nopy", no such provider
    expect((await api.get(`${base}/config-description/${notProvider}`)).status).toBe(404);
    expect((await api.get(`${base}/config-description/nope`)).body).toEqual({ error: 'Could not find authenticator provider' });
    const cookie = 'MF2XI2BNMNXW623JMU'; // base32("auth-cookie")
    expect((await api.get(`${base}/config-description/${cookie}`)).body).toMatchObject({
      providerId: 'auth-cookie',
      name: 'Cookie',
      properties: [],
    });
  });
});

describe('permissions, admin events and SQL', () => {
  test('view-realm reads but cannot write; query-clients lists flows only; no role → 403; no token → 401', async () => {
    const viewer = await realmAdmin(ts, R, 'auth-viewer', ['view-realm']);
    expect((await viewer.get(`${base}/flows`)).status).toBe(200);
    expect((await viewer.get(`${base}/flows/browser/executions`)).status).toBe(200);
    expect((await viewer.post(`${base}/flows`, { alias: 'v', topLevel: true })).status).toBe(403);
    expect((await viewer.post(`${base}/flows/exec-test/executions/execution`, { provider: 'auth-cookie' })).status).toBe(403);
    const cookie = (await rows('browser'))[0];
    expect((await viewer.get(`${base}/executions/${cookie.id}`)).status).toBe(403);
    const querier = await realmAdmin(ts, R, 'auth-querier', ['query-clients']);
    expect((await querier.get(`${base}/flows`)).status).toBe(200);
    expect((await querier.get(`${base}/client-authenticator-providers`)).status).toBe(200);
    expect((await querier.get(`${base}/flows/browser/executions`)).status).toBe(403);
    expect((await querier.get(`${base}/authenticator-providers`)).status).toBe(403);
    const nobody = await realmAdmin(ts, R, 'auth-nobody', []);
    expect((await nobody.get(`${base}/flows`)).status).toBe(403);
    const anon = await request(ts.app).get(`${base}/flows`);
    expect(anon.status).toBe(401);
    expect((await api.get(`/admin/realms/nope/authentication/flows`)).body).toEqual({ error: 'Realm not found.' });
  });

  test('writes record admin events with Keycloak resource types and paths', async () => {
    expect((await api.put(`/admin/realms/${R}`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true })).status).toBe(204);
    const flowId = idOf((await api.post(`${base}/flows`, { alias: 'evented', providerId: 'basic-flow', topLevel: true })).headers.location);
    const exeId = idOf((await api.post(`${base}/flows/evented/executions/execution`, { provider: 'auth-cookie' })).headers.location);
    await api.post(`${base}/flows/evented/executions/flow`, { alias: 'evented-sub', type: 'basic-flow' });
    await api.post(`${base}/executions/${exeId}/config`, { alias: 'evented-cfg', config: {} });
    await api.delete(`${base}/flows/${flowId}`);
    const events = (await api.get(`/admin/realms/${R}/admin-events`)).body as Row[];
    const seen = events.map((e) => [e.operationType, e.resourceType, e.resourcePath]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['CREATE', 'AUTH_FLOW', `authentication/flows/${flowId}`],
        ['CREATE', 'AUTH_EXECUTION', 'authentication/flows/evented/executions/execution'],
        ['CREATE', 'AUTH_EXECUTION_FLOW', 'authentication/flows/evented/executions/flow'],
        ['CREATE', 'AUTH_EXECUTION', `authentication/executions/${exeId}/config`],
        ['DELETE', 'AUTH_FLOW', `authentication/flows/${flowId}`],
      ]),
    );
  });

  test('a failed write leaves nothing behind (deep delete of a bound flow rolls back)', async () => {
    expect((await api.post(`${base}/flows/browser/copy`, { newName: 'rollback' })).status).toBe(201);
    const before = (await rows('rollback')).length;
    expect((await api.put(`/admin/realms/${R}`, { browserFlow: 'rollback' })).status).toBe(204);
    const id = ((await api.get(`${base}/flows`)).body as Row[]).find((f) => f.alias === 'rollback')?.id;
    expect((await api.delete(`${base}/flows/${id}`)).status).toBe(400);
    expect((await rows('rollback')).length).toBe(before);
    expect((await api.put(`/admin/realms/${R}`, { browserFlow: 'browser' })).status).toBe(204);
  });

  test('listing a deeply nested flow takes a bounded number of statements', async () => {
    const { count, result } = await ts.countSql(() => api.get(`${base}/flows/first broker login/executions`));
    expect(result.body.length).toBeGreaterThan(12);
    expect(count).toBeLessThanOrEqual(10);
    const flows = await ts.countSql(() => api.get(`${base}/flows`));
    expect(flows.count).toBeLessThanOrEqual(10);
  });
});
