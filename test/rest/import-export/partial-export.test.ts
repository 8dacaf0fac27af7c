import { realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/** POST /{realm}/partial-export (core reference §3.14) and a round trip through partialImport. */
let ts: TestServer;
let api: AdminApi;
const R = 'pexport';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect(
    (
      await api.post('/admin/realms', {
        realm: R,
        enabled: true,
        smtpServer: { host: 'smtp.example', auth: 'true', user: 'u', password: 'smtp-pw' },
      })
    ).status,
  ).toBe(201);
  expect((await api.post(`${base}/clients`, { clientId: 'exp-app', secret: 'top-secret', serviceAccountsEnabled: true })).status).toBe(201);
  expect((await api.post(`${base}/roles`, { name: 'exp-role' })).status).toBe(201);
  const app = (await api.get(`${base}/clients?clientId=exp-app`)).body[0];
  expect((await api.post(`${base}/clients/${app.id}/roles`, { name: 'exp-client-role' })).status).toBe(201);
  expect(
    (
      await api.post(`${base}/roles`, {
        name: 'exp-composite',
        composites: { realm: ['exp-role'], client: { 'exp-app': ['exp-client-role'] } },
      })
    ).status,
  ).toBe(201);
  const g = await api.post(`${base}/groups`, { name: 'exp-group' });
  const gid = g.headers.location.split('/').pop();
  expect((await api.post(`${base}/groups/${gid}/children`, { name: 'exp-child' })).status).toBe(201);
  expect((await api.post(`${base}/users`, { username: 'regular-user', enabled: true })).status).toBe(201);
  expect((await api.post(`${base}/localization/en`, { greeting: 'Hi' })).status).toBe(204);
});
afterAll(() => ts.close());

describe('partial export', () => {
  test('without flags: realm settings, scopes, components with masked keys, no users, clients, roles or groups', async () => {
    const res = await api.post(`${base}/partial-export`);
    expect(res.status).toBe(200);
    const rep = res.body;
    expect(rep).toMatchObject({ realm: R, enabled: true, localizationTexts: { en: { greeting: 'Hi' } } });
    expect(rep.smtpServer.password).toBe('**********');
    expect(rep.clientScopes.map((s: { name: string }) => s.name)).toContain('profile');
    expect(rep.defaultDefaultClientScopes).toContain('profile');
    expect(rep.requiredActions.map((a: { alias: string }) => a.alias)).toContain('CONFIGURE_TOTP');
    const keys = Object.values(rep.components).flat() as Array<{ providerId: string; config: Record<string, string[]> }>;
    const rsa = keys.find((k) => k.providerId === 'rsa-generated');
    expect(rsa?.config.privateKey).toEqual(['**********']);
    expect(JSON.stringify(rep)).not.toContain('smtp-pw');
    for (const absent of ['users', 'clients', 'roles', 'groups']) expect(rep[absent]).toBeUndefined();
  });

  test('exportClients: clients with masked secrets and only service-account users', async () => {
    const rep = (await api.post(`${base}/partial-export?exportClients=true`)).body;
    const app = rep.clients.find((c: { clientId: string }) => c.clientId === 'exp-app');
    expect(app.secret).toBe('**********');
    expect(JSON.stringify(rep)).not.toContain('top-secret');
    expect(rep.users.map((u: { username: string }) => u.username)).toEqual(['service-account-exp-app']);
    expect(rep.users[0].serviceAccountClientId).toBe('exp-app');
    expect(rep.roles).toBeUndefined();
  });

  test('exportGroupsAndRoles: realm roles with composites and the group tree; client roles only with both flags', async () => {
    const rep = (await api.post(`${base}/partial-export?exportGroupsAndRoles=true`)).body;
    const composite = rep.roles.realm.find((r: { name: string }) => r.name === 'exp-composite');
    expect(composite.composites).toEqual({ realm: ['exp-role'], client: { 'exp-app': ['exp-client-role'] } });
    expect(rep.roles.client).toBeUndefined();
    expect(rep.clients).toBeUndefined();
    const group = rep.groups.find((g: { name: string }) => g.name === 'exp-group');
    expect(group.subGroups.map((g: { path: string }) => g.path)).toEqual(['/exp-group/exp-child']);
    const both = (await api.post(`${base}/partial-export?exportGroupsAndRoles=true&exportClients=true`)).body;
    expect(both.roles.client['exp-app'].map((r: { name: string }) => r.name)).toEqual(['exp-client-role']);
  });

  test('round trip: the export imports into another realm', async () => {
    const rep = (await api.post(`${base}/partial-export?exportGroupsAndRoles=true&exportClients=true`)).body;
    expect((await api.post('/admin/realms', { realm: 'pexport2', enabled: true })).status).toBe(201);
    const res = await api.post('/admin/realms/pexport2/partialImport', { ...rep, ifResourceExists: 'SKIP' });
    expect(res.status).toBe(200);
    const added = (res.body.results as Array<{ action: string; resourceName: string }>)
      .filter((r) => r.action === 'ADDED')
      .map((r) => r.resourceName);
    expect(added).toEqual(expect.arrayContaining(['exp-app', 'exp-role', 'exp-composite', 'exp-app-->exp-client-role', 'exp-group']));
    const app = (await api.get('/admin/realms/pexport2/clients?clientId=exp-app')).body[0];
    expect((await api.get(`/admin/realms/pexport2/clients/${app.id}/service-account-user`)).body.username).toBe('service-account-exp-app');
  });

  test('permissions: manage-realm, plus view-clients / view-users for the flags', async () => {
    const viewer = await realmAdmin(ts, R, 'pe-viewer', ['view-realm']);
    expect((await viewer.post(`${base}/partial-export`)).status).toBe(403);
    const realmOnly = await realmAdmin(ts, R, 'pe-realm', ['manage-realm']);
    expect((await realmOnly.post(`${base}/partial-export`)).status).toBe(200);
    const denied = await realmOnly.post(`${base}/partial-export?exportClients=true`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
  });

  test('bounded SQL: the full export does not grow per group or role', async () => {
    const { count } = await ts.countSql(() => api.post(`${base}/partial-export?exportGroupsAndRoles=true&exportClients=true`));
    expect(count).toBeLessThan(80);
  });
});
