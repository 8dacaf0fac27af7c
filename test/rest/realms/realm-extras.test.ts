import request from 'supertest';
import { clientUuid, realmAdmin, realmServer } from '../../helpers/fixtures';
import { ADMIN, type AdminApi, type TestServer } from '../../helpers/server';

/** credential-registrators, users-management-permissions and the console's whoami. */
let ts: TestServer;
let api: AdminApi;
const R = 'extrasrealm';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  // The admin console's client only has the browser flow; tests log in with the password grant.
  for (const realm of ['master', R]) {
    const adminConsole = await clientUuid(api, realm, 'security-admin-console');
    expect((await api.put(`/admin/realms/${realm}/clients/${adminConsole}`, { directAccessGrantsEnabled: true })).status).toBe(204);
  }
});
afterAll(() => ts.close());

describe('credential registrators', () => {
  test('enabled credential-registering required actions in required-action order', async () => {
    const res = await api.get(`${base}/credential-registrators`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['CONFIGURE_TOTP', 'webauthn-register', 'webauthn-register-passwordless', 'CONFIGURE_RECOVERY_AUTHN_CODES']);
    const action = `${base}/authentication/required-actions/webauthn-register`;
    expect((await api.put(action, { ...(await api.get(action)).body, enabled: false })).status).toBe(204);
    expect((await api.get(`${base}/credential-registrators`)).body).toEqual([
      'CONFIGURE_TOTP',
      'webauthn-register-passwordless',
      'CONFIGURE_RECOVERY_AUTHN_CODES',
    ]);
  });

  test('needs view-realm', async () => {
    const users = await realmAdmin(ts, R, 'cr-users', ['view-users']);
    expect((await users.get(`${base}/credential-registrators`)).status).toBe(403);
    const viewer = await realmAdmin(ts, R, 'cr-viewer', ['view-realm']);
    expect((await viewer.get(`${base}/credential-registrators`)).status).toBe(200);
  });
});

describe('users-management-permissions', () => {
  test('off until enabled, then the users scopes (ADR 26); an admin without roles is refused', async () => {
    const get = await api.get(`${base}/users-management-permissions`);
    expect([get.status, get.body]).toEqual([200, { enabled: false }]);
    const put = await api.put(`${base}/users-management-permissions`, { enabled: true });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.scopePermissions).sort()).toEqual(
      ['impersonate', 'manage', 'manage-group-membership', 'map-roles', 'user-impersonated', 'view'].sort(),
    );
    const nobody = await realmAdmin(ts, R, 'ump-nobody', []);
    expect((await nobody.get(`${base}/users-management-permissions`)).status).toBe(403);
    expect((await api.get('/admin/realms/nosuch/users-management-permissions')).status).toBe(404);
    expect((await request(ts.app).get(`${base}/users-management-permissions`)).status).toBe(401);
  });
});

/**
 * Follows Keycloak 26's AdminConsole#whoAmI (services/src/main/java/org/keycloak/services/resources/
 * admin/AdminConsole.java): the token's azp must be `security-admin-console` or a client with the
 * attribute `security.admin.console` = true, else ForbiddenException "Token issued for an application
 * that is not the admin console: <azp>" (so admin-cli tokens get 403, as core reference §2.9 says);
 * a master caller's entry is the viewed realm's `<realm>-realm` roles plus `admin` when they hold
 * master's admin role; an empty entry is ForbiddenException "No realm access".
 */
describe('whoami', () => {
  const consoleToken = (realm = 'master', username = ADMIN.username, password = ADMIN.password) =>
    ts.token({ realm, username, password, clientId: 'security-admin-console' });

  test('master admin through the admin console: roles of <currentRealm>-realm, createRealm, temporary', async () => {
    const token = await consoleToken();
    const res = await request(ts.app).get(`/admin/master/console/whoami?currentRealm=${R}`).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ realm: 'master', displayName: 'admin', locale: 'en', createRealm: true, temporary: true });
    expect(res.body.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(res.body.realm_access)).toEqual([R]);
    expect(res.body.realm_access[R]).toEqual(expect.arrayContaining(['admin', 'manage-realm', 'view-users', 'impersonation']));
    const self = await request(ts.app).get('/admin/master/console/whoami').set('Authorization', `Bearer ${token}`);
    expect(Object.keys(self.body.realm_access)).toEqual(['master']);
    expect(self.body.realm_access.master).toContain('admin');
  });

  test('a master user with only some roles of <realm>-realm: those roles, no admin, no createRealm', async () => {
    const created = await api.post('/admin/realms/master/users', {
      username: 'who-partial',
      enabled: true,
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    });
    const id = created.headers.location.split('/').pop();
    const client = await clientUuid(api, 'master', `${R}-realm`);
    const role = (await api.get(`/admin/realms/master/clients/${client}/roles/view-clients`)).body;
    expect((await api.post(`/admin/realms/master/users/${id}/role-mappings/clients/${client}`, [role])).status).toBe(204);
    const token = await consoleToken('master', 'who-partial', 'pw');
    const res = await request(ts.app).get(`/admin/master/console/whoami?currentRealm=${R}`).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body.createRealm).toBe(false);
    expect(res.body.realm_access[R].sort()).toEqual(['query-clients', 'view-clients']);
  });

  test('a realm admin: realm-management roles of the own realm, display name from first and last name', async () => {
    await realmAdmin(ts, R, 'who-admin', ['view-users', 'manage-clients']);
    const token = await consoleToken(R, 'who-admin', 'pw');
    const res = await request(ts.app).get(`/admin/${R}/console/whoami?currentRealm=${R}`).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ realm: R, displayName: 'F L', createRealm: false, temporary: false });
    expect(res.body.realm_access[R].sort()).toEqual(['manage-clients', 'query-groups', 'query-users', 'view-users']);
  });

  test('errors: admin-cli token 403, unknown currentRealm 404, token of another realm 401, no roles 403, no token 401', async () => {
    const cli = await request(ts.app)
      .get('/admin/master/console/whoami')
      .set('Authorization', `Bearer ${await ts.token()}`);
    expect(cli.status).toBe(403);
    expect(cli.body).toEqual({ error: 'Token issued for an application that is not the admin console: admin-cli' });
    const token = await consoleToken();
    const unknown = await request(ts.app).get('/admin/master/console/whoami?currentRealm=nosuch').set('Authorization', `Bearer ${token}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Realm not found' });
    expect((await request(ts.app).get(`/admin/${R}/console/whoami`).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    await realmAdmin(ts, R, 'who-nobody', []);
    const none = await request(ts.app)
      .get(`/admin/${R}/console/whoami`)
      .set('Authorization', `Bearer ${await consoleToken(R, 'who-nobody', 'pw')}`);
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ error: 'No realm access' });
    expect((await request(ts.app).get('/admin/master/console/whoami')).status).toBe(401);
  });
});
