import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/** Authentication data across realm lifecycle: master, creation (bulk), import and deletion. */
let ts: TestServer;
let api: AdminApi;
type Row = Record<string, unknown>;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

describe('authentication across the realm lifecycle', () => {
  test('master has the built-in flows without the Organization sub-flows; bindings in the realm rep', async () => {
    const rows = (await api.get('/admin/realms/master/authentication/flows/browser/executions')).body as Row[];
    expect(rows.map((r) => r.displayName)).not.toContain('Organization');
    expect(rows).toHaveLength(10);
    const fbl = (await api.get('/admin/realms/master/authentication/flows/first broker login/executions')).body as Row[];
    expect(fbl.map((r) => r.displayName)).not.toContain('First Broker Login - Conditional Organization');
    const realm = (await api.get('/admin/realms/master')).body;
    expect(realm).toMatchObject({
      browserFlow: 'browser',
      registrationFlow: 'registration',
      directGrantFlow: 'direct grant',
      resetCredentialsFlow: 'reset credentials',
      clientAuthenticationFlow: 'clients',
      dockerAuthenticationFlow: 'docker auth',
      firstBrokerLoginFlow: 'first broker login',
    });
  });

  test('creating a realm inserts flows in bulk (a bounded number of statements)', async () => {
    const { result, statements } = await ts.countSql(() => api.post('/admin/realms', { realm: 'bulkrealm', enabled: true }));
    expect(result.status).toBe(201);
    const authInserts = statements.filter((s) =>
      /INSERT INTO [`"]?(authentication_flow|authentication_execution|authenticator_config)/.test(s),
    );
    expect(authInserts).toHaveLength(3);
    const flows = (await api.get('/admin/realms/bulkrealm/authentication/flows')).body as Row[];
    expect(flows).toHaveLength(7);
  });

  test('deleting a realm removes its flows, executions and configs', async () => {
    expect((await api.post('/admin/realms', { realm: 'gone', enabled: true })).status).toBe(201);
    const realmId = (await api.get('/admin/realms/gone')).body.id as string;
    // The API cannot show anything of a deleted realm (nor list sub-flows): the tables show nothing is left behind.
    const m = ts.db.models;
    expect(await m.AuthFlow.count({ where: { realmId } })).toBeGreaterThan(10);
    expect((await api.delete('/admin/realms/gone')).status).toBe(204);
    expect(await m.AuthFlow.count({ where: { realmId } })).toBe(0);
    expect(await m.AuthExecution.count({ where: { realmId } })).toBe(0);
    expect(await m.AuthenticatorConfig.count({ where: { realmId } })).toBe(0);
    expect(await m.RequiredAction.count({ where: { realmId } })).toBe(0);
    expect(await m.AuthFlow.count({ where: { realmId: (await api.get('/admin/realms/bulkrealm')).body.id } })).toBeGreaterThan(10);
  });

  test('import: given flows, configs and required actions replace the defaults; missing built-ins are added', async () => {
    const rep = {
      realm: 'imported',
      enabled: true,
      browserFlow: 'my browser',
      authenticatorConfig: [{ alias: 'my-cfg', config: { defaultProvider: 'corp' } }],
      authenticationFlows: [
        {
          alias: 'my browser',
          description: 'custom',
          providerId: 'basic-flow',
          topLevel: true,
          builtIn: false,
          authenticationExecutions: [
            { authenticator: 'auth-cookie', authenticatorFlow: false, requirement: 'ALTERNATIVE', priority: 10, userSetupAllowed: false },
            {
              authenticator: 'identity-provider-redirector',
              authenticatorConfig: 'my-cfg',
              authenticatorFlow: false,
              requirement: 'ALTERNATIVE',
              priority: 20,
            },
            { authenticatorFlow: true, flowAlias: 'my forms', requirement: 'ALTERNATIVE', priority: 30, autheticatorFlow: true },
          ],
        },
        {
          alias: 'my forms',
          providerId: 'basic-flow',
          topLevel: false,
          builtIn: false,
          authenticationExecutions: [
            { authenticator: 'auth-username-password-form', authenticatorFlow: false, requirement: 'REQUIRED', priority: 10 },
          ],
        },
        {
          alias: 'browser',
          description: 'replaced',
          providerId: 'basic-flow',
          topLevel: true,
          builtIn: true,
          authenticationExecutions: [],
        },
      ],
      requiredActions: [
        {
          alias: 'VERIFY_EMAIL',
          name: 'Verify Email',
          providerId: 'VERIFY_EMAIL',
          enabled: true,
          defaultAction: true,
          priority: 5,
          config: {},
        },
      ],
    };
    expect((await api.post('/admin/realms', rep)).status).toBe(201);
    const base = '/admin/realms/imported/authentication';
    const flows = (await api.get(`${base}/flows`)).body as Row[];
    expect(flows.map((f) => f.alias)).toEqual([
      'my browser',
      'browser',
      'direct grant',
      'registration',
      'reset credentials',
      'clients',
      'first broker login',
      'docker auth',
    ]);
    expect(flows[1]).toMatchObject({ description: 'replaced', authenticationExecutions: [] });
    const rows = (await api.get(`${base}/flows/my browser/executions`)).body as Row[];
    expect(rows.map((r) => [r.displayName, r.level, r.requirement])).toEqual([
      ['Cookie', 0, 'ALTERNATIVE'],
      ['Identity Provider Redirector', 0, 'ALTERNATIVE'],
      ['my forms', 0, 'ALTERNATIVE'],
      ['Username Password Form', 1, 'REQUIRED'],
    ]);
    expect(rows[1].alias).toBe('my-cfg');
    expect((await api.get(`${base}/config/${rows[1].authenticationConfig}`)).body.config).toEqual({ defaultProvider: 'corp' });
    expect((await api.get('/admin/realms/imported')).body.browserFlow).toBe('my browser');
    expect((await api.get(`${base}/required-actions`)).body).toEqual([
      {
        alias: 'VERIFY_EMAIL',
        name: 'Verify Email',
        providerId: 'VERIFY_EMAIL',
        enabled: true,
        defaultAction: true,
        priority: 5,
        config: {},
      },
    ]);
  });

  test('an import with an unknown sub-flow is a 400 and creates no realm', async () => {
    const rep = {
      realm: 'badimport',
      authenticationFlows: [
        {
          alias: 'x',
          providerId: 'basic-flow',
          topLevel: true,
          authenticationExecutions: [{ authenticatorFlow: true, flowAlias: 'missing', requirement: 'REQUIRED', priority: 1 }],
        },
      ],
    };
    const res = await api.post('/admin/realms', rep);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/missing/);
    expect((await api.get('/admin/realms/badimport')).status).toBe(404);
  });
});
