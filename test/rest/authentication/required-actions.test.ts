import { createRealm, realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
// Every test gets a realm of its own (beforeEach), so each starts from Keycloak's defaults whatever ran before.
let R = 'reqactions0';
let base = `/admin/realms/${R}/authentication`;
let realms = 0;
type Row = Record<string, unknown>;
const list = async (): Promise<Row[]> => (await api.get(`${base}/required-actions`)).body;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
beforeEach(async () => {
  R = `reqactions${++realms}`;
  base = `/admin/realms/${R}/authentication`;
  await createRealm(api, R);
});
afterAll(() => ts.close());

describe('required actions', () => {
  test('a new realm has the default required actions, sorted by priority', async () => {
    const res = await api.get(`${base}/required-actions`);
    expect(res.status).toBe(200);
    expect(res.body.map((a: Row) => [a.alias, a.name, a.enabled, a.priority])).toEqual([
      ['CONFIGURE_TOTP', 'Configure OTP', true, 10],
      ['TERMS_AND_CONDITIONS', 'Terms and Conditions', false, 20],
      ['UPDATE_PASSWORD', 'Update Password', true, 30],
      ['UPDATE_PROFILE', 'Update Profile', true, 40],
      ['VERIFY_EMAIL', 'Verify Email', true, 50],
      ['delete_account', 'Delete Account', false, 60],
      ['UPDATE_EMAIL', 'Update Email', false, 70],
      ['webauthn-register', 'Webauthn Register', true, 80],
      ['webauthn-register-passwordless', 'Webauthn Register Passwordless', true, 90],
      ['VERIFY_PROFILE', 'Verify Profile', true, 100],
      ['delete_credential', 'Delete Credential', true, 110],
      ['idp_link', 'Linking Identity Provider', true, 120],
      ['CONFIGURE_RECOVERY_AUTHN_CODES', 'Recovery Authentication Codes', true, 130],
      ['update_user_locale', 'Update User Locale', true, 1000],
    ]);
    expect(res.body[0]).toEqual({
      alias: 'CONFIGURE_TOTP',
      name: 'Configure OTP',
      providerId: 'CONFIGURE_TOTP',
      enabled: true,
      defaultAction: false,
      priority: 10,
      config: {},
    });
    expect((await api.get(`${base}/unregistered-required-actions`)).body).toEqual([]);
  });

  test('GET / PUT one; unknown → 404 with Keycloak messages', async () => {
    const got = await api.get(`${base}/required-actions/VERIFY_EMAIL`);
    expect(got.body).toMatchObject({ alias: 'VERIFY_EMAIL', enabled: true });
    const put = await api.put(`${base}/required-actions/VERIFY_EMAIL`, {
      ...got.body,
      enabled: false,
      defaultAction: true,
      config: { max_auth_age: '10' },
    });
    expect(put.status).toBe(204);
    expect((await api.get(`${base}/required-actions/VERIFY_EMAIL`)).body).toMatchObject({
      enabled: false,
      defaultAction: true,
      priority: 50,
      providerId: 'VERIFY_EMAIL',
      config: { max_auth_age: '10' },
    });
    expect((await api.get(`${base}/required-actions/nope`)).body).toEqual({ error: 'Failed to find required action' });
    expect((await api.put(`${base}/required-actions/nope`, { alias: 'nope', name: 'n' })).body).toEqual({
      error: 'Failed to find required action',
    });
    const del = await api.delete(`${base}/required-actions/nope`);
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ error: 'Failed to find required action.' });
    expect((await api.post(`${base}/required-actions/nope/raise-priority`)).body).toEqual({ error: 'Failed to find required action.' });
    const bad = await api.put(`${base}/required-actions/VERIFY_EMAIL`, { alias: 'VERIFY_EMAIL', bogus: 1 });
    expect(bad.status).toBe(400);
  });

  test('raise/lower swap priorities with the neighbours; no-op at the ends', async () => {
    expect((await api.post(`${base}/required-actions/UPDATE_PASSWORD/raise-priority`)).status).toBe(204);
    let aliases = (await list()).map((a) => a.alias);
    expect(aliases.slice(0, 3)).toEqual(['CONFIGURE_TOTP', 'UPDATE_PASSWORD', 'TERMS_AND_CONDITIONS']);
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD`)).body.priority).toBe(20);
    expect((await api.post(`${base}/required-actions/UPDATE_PASSWORD/lower-priority`)).status).toBe(204);
    aliases = (await list()).map((a) => a.alias);
    expect(aliases.slice(0, 3)).toEqual(['CONFIGURE_TOTP', 'TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD']);
    expect((await api.post(`${base}/required-actions/CONFIGURE_TOTP/raise-priority`)).status).toBe(204);
    expect((await api.post(`${base}/required-actions/update_user_locale/lower-priority`)).status).toBe(204);
    expect((await list()).map((a) => a.alias)).toEqual(aliases);
  });

  test('delete → unregistered; register again → alias = providerId, last priority + 1', async () => {
    expect((await api.delete(`${base}/required-actions/UPDATE_PROFILE`)).status).toBe(204);
    expect((await api.get(`${base}/unregistered-required-actions`)).body).toEqual([
      { name: 'Update Profile', providerId: 'UPDATE_PROFILE' },
    ]);
    const reg = await api.post(`${base}/register-required-action`, { providerId: 'UPDATE_PROFILE', name: 'Update Profile' });
    expect(reg.status).toBe(204);
    expect((await api.get(`${base}/required-actions/UPDATE_PROFILE`)).body).toEqual({
      alias: 'UPDATE_PROFILE',
      name: 'Update Profile',
      providerId: 'UPDATE_PROFILE',
      enabled: true,
      defaultAction: false,
      priority: 1001,
      config: {},
    });
    expect((await api.get(`${base}/unregistered-required-actions`)).body).toEqual([]);
    const unknown = await api.post(`${base}/register-required-action`, { providerId: 'nope', name: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'Required Action Provider with given providerId not found' });
    expect((await api.post(`${base}/register-required-action`, {})).body).toEqual({
      error: 'Required Action Provider with given providerId not found',
    });
    const again = await api.post(`${base}/register-required-action`, { providerId: 'UPDATE_PROFILE', name: 'x' });
    expect(again.status).toBe(409);
  });

  // Keycloak 26's js/libs/keycloak-admin-client/test/authenticationManagement.spec.ts: UPDATE_PASSWORD's config
  // reads max_auth_age 300 (a number) before any write, 301 after storing "301", 300 again after the reset.
  test('required action config: defaults before any write, description, read, update, delete', async () => {
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config`)).body).toEqual({ config: { max_auth_age: 300 } });
    expect((await api.get(`${base}/required-actions/CONFIGURE_RECOVERY_AUTHN_CODES/config`)).body).toEqual({
      config: { warning_threshold: 4, max_auth_age: 300 },
    });
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config-description`)).body.properties[0]).toMatchObject({
      name: 'max_auth_age',
      defaultValue: 300,
    });
    expect((await api.get(`${base}/required-actions/delete_account/config-description`)).body).toEqual({
      error: 'Could not find configurable RequiredAction provider',
    });
    expect((await api.get(`${base}/required-actions/delete_account/config`)).body).toEqual({ error: 'RequiredAction is not configurable' });
    expect((await api.put(`${base}/required-actions/UPDATE_PASSWORD/config`, { config: { max_auth_age: '301', other: 'x' } })).status).toBe(
      204,
    );
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config`)).body).toEqual({ config: { max_auth_age: 301 } });
    expect((await api.delete(`${base}/required-actions/UPDATE_PASSWORD/config`)).status).toBe(204);
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config`)).body).toEqual({ config: { max_auth_age: 300 } });
  });

  test('permissions: query-users lists, view-realm reads, only manage-realm writes', async () => {
    const querier = await realmAdmin(ts, R, 'ra-querier', ['query-users']);
    expect((await querier.get(`${base}/required-actions`)).status).toBe(200);
    expect((await querier.get(`${base}/required-actions/VERIFY_EMAIL`)).status).toBe(403);
    const viewer = await realmAdmin(ts, R, 'ra-viewer', ['view-realm']);
    expect((await viewer.get(`${base}/required-actions/VERIFY_EMAIL`)).status).toBe(200);
    expect((await viewer.get(`${base}/unregistered-required-actions`)).status).toBe(200);
    expect((await viewer.delete(`${base}/required-actions/VERIFY_EMAIL`)).status).toBe(403);
    expect((await viewer.post(`${base}/required-actions/VERIFY_EMAIL/raise-priority`)).status).toBe(403);
    expect((await viewer.post(`${base}/register-required-action`, { providerId: 'UPDATE_PROFILE' })).status).toBe(403);
    const manager = await realmAdmin(ts, R, 'ra-manager', ['manage-realm']);
    expect((await manager.post(`${base}/required-actions/VERIFY_EMAIL/raise-priority`)).status).toBe(204);
  });

  test('writes record REQUIRED_ACTION admin events', async () => {
    expect((await api.put(`/admin/realms/${R}`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true })).status).toBe(204);
    expect((await api.delete(`${base}/required-actions/idp_link`)).status).toBe(204);
    expect((await api.post(`${base}/register-required-action`, { providerId: 'idp_link', name: 'Linking Identity Provider' })).status).toBe(
      204,
    );
    const events = ((await api.get(`/admin/realms/${R}/admin-events`)).body as Row[]).map((e) => [
      e.operationType,
      e.resourceType,
      e.resourcePath,
    ]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['DELETE', 'REQUIRED_ACTION', 'authentication/required-actions/idp_link'],
        ['CREATE', 'REQUIRED_ACTION', 'authentication/register-required-action'],
      ]),
    );
  });
});
