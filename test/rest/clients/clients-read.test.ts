import { randomUUID } from 'node:crypto';
import { ADMIN, type AdminApi, type TestServer } from '../../helpers/server';
import { realmAdmin, realmServer } from '../../helpers/fixtures';

let ts: TestServer;
let api: AdminApi;
const R = 'clientsrealm';
const base = `/admin/realms/${R}`;
let realmId: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
});
afterAll(() => ts.close());

/** A realm user holding the named `realm-management` roles, logged in through admin-cli. */
const adminWith = (username: string, roles: string[]) => realmAdmin(ts, R, username, roles);

const BUILT_IN = ['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console'];

describe('GET /clients', () => {
  test('lists the built-in clients ordered by clientId, with full representations', async () => {
    const res = await api.get(`${base}/clients`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { clientId: string }) => c.clientId)).toEqual(BUILT_IN);
    const rm = res.body.find((c: { clientId: string }) => c.clientId === 'realm-management');
    expect(rm).toMatchObject({
      id: expect.any(String),
      clientId: 'realm-management',
      name: '${client_realm-management}',
      surrogateAuthRequired: false,
      enabled: true,
      alwaysDisplayInConsole: false,
      clientAuthenticatorType: 'client-secret',
      redirectUris: [],
      webOrigins: [],
      notBefore: 0,
      bearerOnly: true,
      consentRequired: false,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: false,
      publicClient: false,
      frontchannelLogout: false,
      protocol: 'openid-connect',
      attributes: { realm_client: 'true' },
      authenticationFlowBindingOverrides: {},
      fullScopeAllowed: false,
      nodeReRegistrationTimeout: 0,
      defaultClientScopes: ['acr', 'basic', 'email', 'profile', 'roles', 'web-origins'],
      optionalClientScopes: ['address', 'microprofile-jwt', 'offline_access', 'organization', 'phone'],
      access: { view: true, configure: true, manage: true },
    });
    expect(rm).not.toHaveProperty('secret');
    const keys = Object.keys(rm);
    expect(keys.indexOf('id')).toBe(0);
    expect(keys.indexOf('clientId')).toBe(1);
    expect(keys.indexOf('protocol')).toBeLessThan(keys.indexOf('attributes'));
    const cli = res.body.find((c: { clientId: string }) => c.clientId === 'admin-cli');
    expect(cli).toMatchObject({ publicClient: true, directAccessGrantsEnabled: true, attributes: { realm_client: 'false' } });
  });

  test('clientId is exact unless search=true (case-insensitive substring); first/max page', async () => {
    const exact = await api.get(`${base}/clients?clientId=account`);
    expect(exact.body.map((c: { clientId: string }) => c.clientId)).toEqual(['account']);
    expect((await api.get(`${base}/clients?clientId=ACCOUNT`)).body).toEqual([]);
    const search = await api.get(`${base}/clients?clientId=ACCOUNT&search=true`);
    expect(search.body.map((c: { clientId: string }) => c.clientId)).toEqual(['account', 'account-console']);
    expect((await api.get(`${base}/clients?first=1&max=2`)).body.map((c: { clientId: string }) => c.clientId)).toEqual(
      BUILT_IN.slice(1, 3),
    );
    expect(
      (await api.get(`${base}/clients?clientId=a&search=true&first=1&max=1`)).body.map((c: { clientId: string }) => c.clientId),
    ).toEqual(['account-console']);
    expect((await api.get(`${base}/clients?max=0`)).body).toEqual([]);
    expect((await api.get(`${base}/clients?q=realm_client:true`)).body.map((c: { clientId: string }) => c.clientId)).toEqual([
      'broker',
      'realm-management',
    ]);
    expect((await api.get(`${base}/clients?first=x`)).status).toBe(404);
  });

  test('listing takes the same number of SQL statements for one client or all of them', async () => {
    await api.get(`${base}/clients?clientId=broker`);
    const one = await ts.countSql(() => api.get(`${base}/clients?clientId=broker`));
    const all = await ts.countSql(() => api.get(`${base}/clients`));
    expect(all.result.body).toHaveLength(BUILT_IN.length);
    expect(all.count).toBe(one.count);
  });
});

describe('GET /clients/{id}', () => {
  test('returns the representation; unknown id is 404 Could not find client', async () => {
    const [account] = (await api.get(`${base}/clients?clientId=account`)).body;
    const res = await api.get(`${base}/clients/${account.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(account);
    expect(res.body).toMatchObject({
      publicClient: true,
      baseUrl: `/realms/${R}/account/`,
      rootUrl: '${authBaseUrl}',
      redirectUris: [`/realms/${R}/account/*`],
    });
    const missing = await api.get(`${base}/clients/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Could not find client' });
    // a client of another realm is unknown here
    expect((await api.get(`/admin/realms/master/clients/${account.id}`)).status).toBe(404);
  });

  test('a confidential client shows its secret', async () => {
    const id = randomUUID();
    await ts.db.models.Client.create({
      id,
      realmId,
      clientId: 'confidential',
      name: null,
      enabled: true,
      protocol: 'openid-connect',
      publicClient: false,
      bearerOnly: false,
      serviceAccountsEnabled: true,
      directAccessGrantsEnabled: false,
      fullScopeAllowed: true,
      secret: 's3cr3t',
      realmClient: false,
      settings: {},
    });
    const res = await api.get(`${base}/clients/${id}`);
    expect(res.body).toMatchObject({
      clientId: 'confidential',
      secret: 's3cr3t',
      serviceAccountsEnabled: true,
      defaultClientScopes: [],
      optionalClientScopes: [],
      attributes: { realm_client: 'false' },
    });
    expect(res.body).not.toHaveProperty('name');
  });

  test('the <realm>-realm admin client in master is viewable but not configurable', async () => {
    const [client] = (await api.get(`/admin/realms/master/clients?clientId=${R}-realm`)).body;
    expect(client).toMatchObject({
      clientId: `${R}-realm`,
      name: `${R} Realm`,
      bearerOnly: true,
      attributes: { realm_client: 'true' },
      defaultClientScopes: [],
      optionalClientScopes: [],
    });
    expect(client.access).toEqual({ view: true, configure: false, manage: false });
  });
});

describe('client permissions', () => {
  test('query-clients sees only id and clientId; view-clients sees everything; others get 403', async () => {
    const querier = await adminWith('client-querier', ['query-clients']);
    const list = await querier.get(`${base}/clients?clientId=account`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: expect.any(String), clientId: 'account' }]);
    expect((await querier.get(`${base}/clients?viewableOnly=true`)).body).toEqual([]);
    expect((await querier.get(`${base}/clients/${list.body[0].id}`)).status).toBe(403);
    expect((await querier.get(`${base}/clients/${randomUUID()}`)).status).toBe(404);

    const viewer = await adminWith('client-viewer', ['view-clients']);
    const one = await viewer.get(`${base}/clients/${list.body[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body.access).toEqual({ view: true, configure: false, manage: false });

    // query-users (here by view-users' composition) may list, and sees only what he may view (keycloak#40192).
    const userViewer = await adminWith('user-viewer', ['view-users']);
    const none = await userViewer.get(`${base}/clients`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    expect((await userViewer.get(`${base}/clients/${randomUUID()}`)).status).toBe(404);
    expect((await userViewer.get(`${base}/clients/${list.body[0].id}`)).status).toBe(403);

    const stranger = await adminWith('stranger', ['view-events']);
    const denied = await stranger.get(`${base}/clients`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await stranger.get(`${base}/clients/${randomUUID()}`)).status).toBe(403);
  });
});

describe('@keycloak/keycloak-admin-client', () => {
  test('clients.find({clientId}) gives the UUID used for client role calls', async () => {
    const url = await ts.listen();
    const { default: KcAdminClient } = (await import('@keycloak/keycloak-admin-client')) as unknown as {
      default: new (cfg: {
        baseUrl: string;
        realmName: string;
      }) => {
        auth(o: Record<string, string>): Promise<void>;
        clients: {
          find(q: { clientId: string; realm?: string }): Promise<Array<{ id?: string; clientId?: string }>>;
          findOne(q: { id: string; realm?: string }): Promise<{ clientId?: string } | null>;
          listRoles(q: { id: string; realm?: string }): Promise<Array<{ name?: string }>>;
        };
      };
    };
    const kc = new KcAdminClient({ baseUrl: url, realmName: 'master' });
    await kc.auth({ username: ADMIN.username, password: ADMIN.password, grantType: 'password', clientId: 'admin-cli' });
    const [rm] = await kc.clients.find({ clientId: 'realm-management', realm: R });
    expect(rm.clientId).toBe('realm-management');
    expect((await kc.clients.findOne({ id: rm.id as string, realm: R }))?.clientId).toBe('realm-management');
    expect(await kc.clients.findOne({ id: randomUUID(), realm: R })).toBeNull();
    const roles = (await kc.clients.listRoles({ id: rm.id as string, realm: R })).map((r) => r.name);
    expect(roles).toEqual(expect.arrayContaining(['realm-admin', 'manage-users', 'view-clients', 'impersonation']));
  });
});
