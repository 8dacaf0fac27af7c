import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives client policies and profiles,
 * localization, partial import/export, users-management-permissions and whoami unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatextras';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: realm extras', () => {
  test('clientPolicies: profiles and policies', async () => {
    expect(await kc.clientPolicies.listProfiles({ includeGlobalProfiles: false })).toEqual({ profiles: [] });
    const withGlobal = await kc.clientPolicies.listProfiles({ includeGlobalProfiles: true });
    expect(withGlobal.globalProfiles?.map((p) => p.name)).toContain('fapi-1-baseline');
    expect(await kc.clientPolicies.createProfiles({ profiles: [{ name: 'compat-profile', executors: [] }] })).toBe('');
    expect((await kc.clientPolicies.listProfiles({})).profiles).toEqual([{ name: 'compat-profile', executors: [] }]);
    expect(await kc.clientPolicies.updatePolicy({ policies: [{ name: 'new_test_policy' }] })).toBe('');
    expect((await kc.clientPolicies.listPolicies({})).policies).toEqual([
      { name: 'new_test_policy', enabled: false, conditions: [], profiles: [] },
    ]);
    await expect(kc.clientPolicies.updatePolicy({ policies: [{ name: 'p', profiles: ['ghost'] }] })).rejects.toThrow(
      'Policy p contains invalid profile ghost',
    );
  });

  test('localization: add, list, read, delete', async () => {
    await kc.realms.addLocalization({ realm: R, selectedLocale: 'en', key: 'greeting' }, 'Hello there');
    await kc.realms.addLocalization({ realm: R, selectedLocale: 'de', key: 'greeting' }, 'Hallo');
    expect(await kc.realms.getRealmSpecificLocales({ realm: R })).toEqual(['de', 'en']);
    expect(await kc.realms.getRealmLocalizationTexts({ realm: R, selectedLocale: 'en' })).toEqual({ greeting: 'Hello there' });
    await kc.realms.deleteRealmLocalizationTexts({ realm: R, selectedLocale: 'de', key: 'greeting' });
    expect(await kc.realms.getRealmSpecificLocales({ realm: R })).toEqual(['en']);
  });

  test('partialImport and export', async () => {
    const result = await kc.realms.partialImport({
      realm: R,
      rep: { ifResourceExists: 'FAIL', users: [{ username: 'compat-imported', enabled: true }], groups: [{ name: 'compat-group' }] },
    });
    expect(result).toMatchObject({ added: 2, skipped: 0, overwritten: 0 });
    expect((await kc.users.find({ username: 'compat-imported', exact: true })).map((u) => u.username)).toEqual(['compat-imported']);
    await expect(
      kc.realms.partialImport({ realm: R, rep: { ifResourceExists: 'FAIL', users: [{ username: 'compat-imported' }] } }),
    ).rejects.toThrow('User with user name compat-imported already exists.');
    const exported = await kc.realms.export({ realm: R, exportClients: true, exportGroupsAndRoles: true });
    expect(exported.realm).toBe(R);
    expect(exported.groups?.map((g) => g.name)).toContain('compat-group');
    expect(exported.clients?.map((c) => c.clientId)).toContain('account');
    expect(exported.users ?? []).toEqual([]);
  });

  // whoami: Keycloak 26's AdminConsole#whoAmI answers only admin-console tokens (ForbiddenException otherwise).
  test('users-management-permissions is off until enabled, and whoami refuses admin-cli tokens', async () => {
    expect(await kc.realms.getUsersManagementPermissions({ realm: R })).toEqual({ enabled: false });
    kc.setConfig({ realmName: 'master' });
    await expect(kc.whoAmI.find({ currentRealm: R })).rejects.toThrow(
      'Token issued for an application that is not the admin console: admin-cli',
    );
    kc.setConfig({ realmName: R });
  });
});
