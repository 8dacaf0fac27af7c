import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/** Compatibility: the real `@keycloak/keycloak-admin-client` drives the clients API unchanged. */

let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatc';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client clients', () => {
  let id: string;
  // Every test below works on this client: created here, not by the first test, so each test runs on its own.
  beforeAll(async () => {
    ({ id } = await kc.clients.create({
      clientId: 'compat-app',
      protocol: 'openid-connect',
      publicClient: false,
      serviceAccountsEnabled: true,
    }));
  });

  test('create, findOne, find, update', async () => {
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const c = await kc.clients.findOne({ id });
    expect(c).toMatchObject({
      id,
      clientId: 'compat-app',
      publicClient: false,
      serviceAccountsEnabled: true,
      nodeReRegistrationTimeout: -1,
    });
    expect((await kc.clients.find({ clientId: 'compat-app' })).map((x) => x.id)).toEqual([id]);
    expect((await kc.clients.find({ clientId: 'COMPAT', search: true })).map((x) => x.clientId)).toEqual(['compat-app']);
    await kc.clients.update({ id }, { clientId: 'compat-app', description: 'updated' });
    expect((await kc.clients.findOne({ id }))?.description).toBe('updated');
    await expect(kc.clients.create({ clientId: 'compat-app' })).rejects.toThrow('Client compat-app already exists');
  });

  test('secrets and registration access token', async () => {
    const secret = await kc.clients.getClientSecret({ id });
    expect(Object.keys(secret).sort()).toEqual(['type', 'value']);
    const fresh = await kc.clients.generateNewClientSecret({ id });
    expect(fresh.value).not.toBe(secret.value);
    expect((await kc.clients.getClientSecret({ id })).value).toBe(fresh.value);
    await kc.clients.invalidateSecret({ id });
    const reg = await kc.clients.generateRegistrationAccessToken({ id });
    expect(typeof reg.registrationAccessToken).toBe('string');
  });

  test('service account user and client scopes', async () => {
    const sa = await kc.clients.getServiceAccountUser({ id });
    expect(sa.username).toBe('service-account-compat-app');
    const defaults = await kc.clients.listDefaultClientScopes({ id });
    expect(defaults.map((s) => s.name)).toContain('service_account');
    const optional = await kc.clients.listOptionalClientScopes({ id });
    const phone = optional.find((s) => s.name === 'phone');
    await kc.clients.delOptionalClientScope({ id, clientScopeId: phone?.id as string });
    await kc.clients.addDefaultClientScope({ id, clientScopeId: phone?.id as string });
    expect((await kc.clients.listDefaultClientScopes({ id })).map((s) => s.name)).toContain('phone');
    await kc.clients.delDefaultClientScope({ id, clientScopeId: phone?.id as string });
    await kc.clients.addOptionalClientScope({ id, clientScopeId: phone?.id as string });
    expect((await kc.clients.listOptionalClientScopes({ id })).map((s) => s.name)).toContain('phone');
  });

  test('installation and nodes', async () => {
    const json = await kc.clients.getInstallationProviders({ id, providerId: 'keycloak-oidc-keycloak-json' });
    expect(json).toMatchObject({ realm: R, resource: 'compat-app', 'confidential-port': 0 });
    const xml = await kc.clients.getInstallationProviders({ id, providerId: 'keycloak-oidc-jboss-subsystem' });
    expect(typeof xml === 'string' && xml.length > 0).toBe(true);
    await kc.clients.addClusterNode({ id, node: '127.0.0.1' });
    expect(Object.keys((await kc.clients.findOne({ id }))?.registeredNodes ?? {})).toEqual(['127.0.0.1']);
    expect(await kc.clients.testNodesAvailable({ id })).toEqual({});
    await kc.clients.deleteClusterNode({ id, node: '127.0.0.1' });
    expect((await kc.clients.findOne({ id }))?.registeredNodes).toBeUndefined();
  });

  test('delete; findOne of a deleted client resolves to null', async () => {
    await kc.clients.del({ id });
    expect(await kc.clients.findOne({ id })).toBeNull();
  });
});
