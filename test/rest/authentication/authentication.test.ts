import { realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'authrealm';
const base = `/admin/realms/${R}/authentication`;
const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
type Row = Record<string, unknown>;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

describe('built-in flows of a new realm', () => {
  test('GET /flows lists the top-level built-in flows in Keycloak order, saml ecp hidden', async () => {
    const res = await api.get(`${base}/flows`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: Row) => f.alias)).toEqual([
      'browser',
      'direct grant',
      'registration',
      'reset credentials',
      'clients',
      'first broker login',
      'docker auth',
    ]);
    const browser = res.body[0];
    expect(browser).toMatchObject({
      alias: 'browser',
      description: 'Browser based authentication',
      providerId: 'basic-flow',
      topLevel: true,
      builtIn: true,
    });
    expect(browser.authenticationExecutions[0]).toEqual({
      authenticator: 'auth-cookie',
      authenticatorFlow: false,
      autheticatorFlow: false,
      priority: 10,
      requirement: 'ALTERNATIVE',
      userSetupAllowed: false,
    });
    expect(browser.authenticationExecutions[4]).toMatchObject({ flowAlias: 'forms', authenticatorFlow: true, priority: 30 });
    const clients = res.body.find((f: Row) => f.alias === 'clients');
    expect(clients.providerId).toBe('client-flow');
    const fbl = res.body.find((f: Row) => f.alias === 'first broker login');
    expect(fbl.authenticationExecutions[0]).toMatchObject({
      authenticator: 'idp-review-profile',
      authenticatorConfig: 'review profile config',
    });
  });

  test('GET /flows/browser/executions matches the worked example (levels, indexes, choices)', async () => {
    const res = await api.get(`${base}/flows/browser/executions`);
    expect(res.status).toBe(200);
    const rows = res.body.map((r: Row) => [r.displayName, r.providerId ?? null, r.level, r.index, r.priority, r.requirement]);
    expect(rows).toEqual([
      ['Cookie', 'auth-cookie', 0, 0, 10, 'ALTERNATIVE'],
      ['Kerberos', 'auth-spnego', 0, 1, 20, 'DISABLED'],
      ['Identity Provider Redirector', 'identity-provider-redirector', 0, 2, 25, 'ALTERNATIVE'],
      ['Organization', null, 0, 3, 26, 'ALTERNATIVE'],
      ['Browser - Conditional Organization', null, 1, 0, 10, 'CONDITIONAL'],
      ['Condition - user configured', 'conditional-user-configured', 2, 0, 10, 'REQUIRED'],
      ['Organization Identity-First Login', 'organization', 2, 1, 20, 'ALTERNATIVE'],
      ['forms', null, 0, 4, 30, 'ALTERNATIVE'],
      ['Username Password Form', 'auth-username-password-form', 1, 0, 10, 'REQUIRED'],
      ['Browser - Conditional 2FA', null, 1, 1, 20, 'CONDITIONAL'],
      ['Condition - user configured', 'conditional-user-configured', 2, 0, 10, 'REQUIRED'],
      ['OTP Form', 'auth-otp-form', 2, 1, 20, 'ALTERNATIVE'],
      ['WebAuthn Authenticator', 'webauthn-authenticator', 2, 2, 30, 'DISABLED'],
      ['Recovery Authentication Code Form', 'auth-recovery-authn-code-form', 2, 3, 40, 'DISABLED'],
    ]);
    const [cookie, , idp, org, , , , forms] = res.body;
    expect(cookie).toMatchObject({ configurable: false, requirementChoices: ['REQUIRED', 'ALTERNATIVE', 'DISABLED'] });
    expect(cookie.authenticationFlow).toBeUndefined();
    expect(cookie.description).toBeUndefined();
    expect(idp.configurable).toBe(true);
    expect(org).toMatchObject({
      authenticationFlow: true,
      configurable: false,
      requirementChoices: ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'],
    });
    expect(org.description).toBeUndefined();
    expect(typeof org.flowId).toBe('string');
    expect(forms.description).toBe('Username, password, otp and other auth forms.');
  });
});

describe('flows CRUD', () => {
  test('POST /flows → 201 + Location; GET by id; description defaults to ""', async () => {
    const res = await api.post(`${base}/flows`, { alias: 'my-flow', providerId: 'basic-flow', topLevel: true, builtIn: false });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/flows/${id}`);
    const got = await api.get(`${base}/flows/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id,
      alias: 'my-flow',
      description: '',
      providerId: 'basic-flow',
      topLevel: true,
      builtIn: false,
      authenticationExecutions: [],
    });
    expect((await api.get(`${base}/flows`)).body.map((f: Row) => f.alias).slice(-1)).toEqual(['my-flow']);
  });

  test('POST /flows errors: empty alias 409, duplicate 409, reserved character 400, unknown field 400', async () => {
    const empty = await api.post(`${base}/flows`, { alias: '', providerId: 'basic-flow', topLevel: true });
    expect(empty.status).toBe(409);
    expect(empty.body).toEqual({ errorMessage: 'Failed to create flow with empty alias name' });
    expect((await api.post(`${base}/flows`, { providerId: 'basic-flow' })).body).toEqual({
      errorMessage: 'Failed to create flow with empty alias name',
    });
    const dup = await api.post(`${base}/flows`, { alias: 'browser', providerId: 'basic-flow', topLevel: true });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Flow browser already exists' });
    const bad = await api.post(`${base}/flows`, { alias: 'a/b', providerId: 'basic-flow', topLevel: true });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "Character '/' not allowed." });
    const unknown = await api.post(`${base}/flows`, { alias: 'zz', nope: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Unrecognized field "nope"/);
    expect((await api.get(`${base}/flows`)).body.map((f: Row) => f.alias)).not.toContain('zz');
  });

  test('GET/PUT/DELETE unknown flow ids → 404 with Keycloak messages', async () => {
    expect((await api.get(`${base}/flows/nope`)).body).toEqual({ error: 'Could not find flow with id' });
    const put = await api.put(`${base}/flows/nope`, { alias: 'x' });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: 'Could not find flow with id' });
    const del = await api.delete(`${base}/flows/nope`);
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ error: 'Flow not found' });
  });

  test('PUT /flows/{id} renames and returns the updated flow; conflicts → 409', async () => {
    const id = idOf((await api.post(`${base}/flows`, { alias: 'to-rename', providerId: 'basic-flow', topLevel: true })).headers.location);
    const res = await api.put(`${base}/flows/${id}`, {
      alias: 'renamed',
      description: 'new text',
      providerId: 'basic-flow',
      topLevel: true,
      builtIn: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, alias: 'renamed', description: 'new text', topLevel: true });
    expect((await api.get(`${base}/flows/${id}`)).body.alias).toBe('renamed');
    const taken = await api.put(`${base}/flows/${id}`, { alias: 'browser' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ errorMessage: 'Flow alias name already exists' });
    const empty = await api.put(`${base}/flows/${id}`, { alias: '' });
    expect(empty.body).toEqual({ errorMessage: 'Failed to update flow with empty alias name' });
  });

  test('renaming a bound built-in flow keeps the realm binding pointing at it', async () => {
    const flows = (await api.get(`${base}/flows`)).body as Row[];
    const docker = flows.find((f) => f.alias === 'docker auth') as Row;
    expect((await api.get(`/admin/realms/${R}`)).body.dockerAuthenticationFlow).toBe('docker auth');
    expect((await api.put(`${base}/flows/${docker.id}`, { ...docker, alias: 'docker auth 2' })).status).toBe(200);
    expect((await api.get(`/admin/realms/${R}`)).body.dockerAuthenticationFlow).toBe('docker auth 2');
    expect((await api.put(`${base}/flows/${docker.id}`, { ...docker, alias: 'docker auth' })).status).toBe(200);
    expect((await api.get(`/admin/realms/${R}`)).body.dockerAuthenticationFlow).toBe('docker auth');
  });

  test('DELETE: built-in → 400, bound flow → 400, otherwise deep delete 204', async () => {
    const flows = (await api.get(`${base}/flows`)).body as Row[];
    const browser = flows.find((f) => f.alias === 'browser') as Row;
    const builtIn = await api.delete(`${base}/flows/${browser.id}`);
    expect(builtIn.status).toBe(400);
    expect(builtIn.body).toEqual({ error: "Can't delete built in flow" });
    // a copy bound as the realm's browser flow cannot go
    expect((await api.post(`${base}/flows/browser/copy`, { newName: 'bound-copy' })).status).toBe(201);
    const copy = ((await api.get(`${base}/flows`)).body as Row[]).find((f) => f.alias === 'bound-copy') as Row;
    expect((await api.put(`/admin/realms/${R}`, { browserFlow: 'bound-copy' })).status).toBe(204);
    const inUse = await api.delete(`${base}/flows/${copy.id}`);
    expect(inUse.status).toBe(400);
    expect(inUse.body).toEqual({ error: 'Cannot remove authentication flow, it is currently in use' });
    expect((await api.get(`${base}/flows/bound-copy/executions`)).body.length).toBeGreaterThan(5);
    expect((await api.put(`/admin/realms/${R}`, { browserFlow: 'browser' })).status).toBe(204);
    // bound through a client's override
    const client = await api.post(`/admin/realms/${R}/clients`, {
      clientId: 'flow-user',
      authenticationFlowBindingOverrides: { browser: copy.id },
    });
    expect(client.status).toBe(201);
    expect((await api.delete(`${base}/flows/${copy.id}`)).status).toBe(400);
    expect((await api.delete(`/admin/realms/${R}/clients/${idOf(client.headers.location)}`)).status).toBe(204);
    const del = await api.delete(`${base}/flows/${copy.id}`);
    expect(del.status).toBe(204);
    expect((await api.get(`${base}/flows/${copy.id}`)).status).toBe(404);
    const realmId = (await api.get(`/admin/realms/${R}`)).body.id;
    // The sub-flow of the deleted flow: GET /flows lists top-level flows only, the table shows it went too.
    const left = await ts.db.models.AuthFlow.count({ where: { realmId, alias: 'bound-copy forms' } });
    expect(left).toBe(0);
  });
});

describe('copy', () => {
  test('deep copy: sub-flows and configs renamed with the new name, builtIn false; Location ends with the id', async () => {
    const res = await api.post(`${base}/flows/first broker login/copy`, { newName: 'fbl2' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(new RegExp(`${base.replace(/\//g, '\\/')}/flows/first%20broker%20login/copy/[0-9a-f-]{36}$`));
    const id = idOf(res.headers.location);
    const flow = (await api.get(`${base}/flows/${id}`)).body;
    expect(flow).toMatchObject({ alias: 'fbl2', builtIn: false, topLevel: true, providerId: 'basic-flow' });
    expect(flow.authenticationExecutions[0]).toMatchObject({
      authenticator: 'idp-review-profile',
      authenticatorConfig: 'fbl2 review profile config',
    });
    expect(flow.authenticationExecutions[1]).toMatchObject({ flowAlias: 'fbl2 User creation or linking' });
    const rows = (await api.get(`${base}/flows/fbl2/executions`)).body as Row[];
    const original = (await api.get(`${base}/flows/first broker login/executions`)).body as Row[];
    expect(rows.map((r) => [r.level, r.index, r.requirement])).toEqual(original.map((r) => [r.level, r.index, r.requirement]));
    const review = rows[0];
    expect(review.alias).toBe('fbl2 review profile config');
    expect(review.authenticationConfig).not.toBe(original[0].authenticationConfig);
    const config = await api.get(`${base}/config/${review.authenticationConfig}`);
    expect(config.body).toEqual({
      id: review.authenticationConfig,
      alias: 'fbl2 review profile config',
      config: { 'update.profile.on.first.login': 'missing' },
    });
    const sub = rows.find((r) => r.displayName === 'fbl2 Handle Existing Account') as Row;
    expect((await api.get(`${base}/flows/${sub.flowId}`)).body).toMatchObject({ builtIn: false, topLevel: false });
  });

  test('copy errors: new name exists → 409, unknown source → 404', async () => {
    const exists = await api.post(`${base}/flows/browser/copy`, { newName: 'browser' });
    expect(exists.status).toBe(409);
    expect(exists.body).toEqual({ errorMessage: 'New flow alias name already exists' });
    const missing = await api.post(`${base}/flows/nope/copy`, { newName: 'whatever' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Flow not found' });
  });
});
