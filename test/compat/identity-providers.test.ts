import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives identity providers, their
 * mappers, mapper types, factories, import-config and management permissions unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
let baseUrl: string;
const R = 'compatidp';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc, baseUrl } = await realmAdminClient(ts, R));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: identity providers', () => {
  test('create returns the alias as id; find, findOne, update, del; findOne after del is null', async () => {
    const { id } = await kc.identityProviders.create({ alias: 'compat-oidc', providerId: 'oidc', config: { clientSecret: 'x' } });
    expect(id).toBe('compat-oidc');
    expect((await kc.identityProviders.find()).map((p) => p.alias)).toContain('compat-oidc');
    const one = await kc.identityProviders.findOne({ alias: 'compat-oidc' });
    expect(one).toMatchObject({ alias: 'compat-oidc', providerId: 'oidc', enabled: true, config: { clientSecret: '**********' } });
    await kc.identityProviders.update({ alias: 'compat-oidc' }, { alias: 'compat-oidc', providerId: 'oidc', displayName: 'Changed' });
    expect((await kc.identityProviders.findOne({ alias: 'compat-oidc' }))?.displayName).toBe('Changed');
    expect((await kc.identityProviders.find({ search: 'compat', max: 1 })).map((p) => p.alias)).toEqual(['compat-oidc']);
    await expect(kc.identityProviders.create({ alias: 'compat-oidc', providerId: 'oidc' })).rejects.toThrow(
      'Identity Provider compat-oidc already exists',
    );
    await kc.identityProviders.del({ alias: 'compat-oidc' });
    expect(await kc.identityProviders.findOne({ alias: 'compat-oidc' })).toBeNull();
  });

  test('mappers: createMapper, findMappers, findOneMapper, updateMapper, delMapper; mapper types', async () => {
    await kc.identityProviders.create({ alias: 'compat-kc', providerId: 'keycloak-oidc' });
    const { id } = await kc.identityProviders.createMapper({
      alias: 'compat-kc',
      identityProviderMapper: {
        name: 'compat-mapper',
        identityProviderAlias: 'compat-kc',
        identityProviderMapper: 'keycloak-oidc-role-to-role-idp-mapper',
        config: { 'external.role': 'a', role: 'b' },
      },
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await kc.identityProviders.findMappers({ alias: 'compat-kc' })).map((m) => m.name)).toEqual(['compat-mapper']);
    const mapper = await kc.identityProviders.findOneMapper({ alias: 'compat-kc', id });
    expect(mapper).toMatchObject({ id, identityProviderAlias: 'compat-kc', config: { 'external.role': 'a', role: 'b' } });
    await kc.identityProviders.updateMapper({ alias: 'compat-kc', id }, { ...mapper, config: { 'external.role': 'c', role: 'b' } });
    expect((await kc.identityProviders.findOneMapper({ alias: 'compat-kc', id }))?.config['external.role']).toBe('c');
    const types = await kc.identityProviders.findMapperTypes({ alias: 'compat-kc' });
    expect(types['keycloak-oidc-role-to-role-idp-mapper']).toMatchObject({ name: 'External Role to Role', category: 'Role Importer' });
    await kc.identityProviders.delMapper({ alias: 'compat-kc', id });
    expect(await kc.identityProviders.findOneMapper({ alias: 'compat-kc', id })).toBeNull();
  });

  test('findFactory, importFromUrl, reloadKeys; management permissions answer 501', async () => {
    expect(await kc.identityProviders.findFactory({ providerId: 'saml' })).toMatchObject({ id: 'saml', name: 'SAML v2.0' });
    const config = await kc.identityProviders.importFromUrl({
      providerId: 'oidc',
      fromUrl: `${baseUrl}/realms/master/.well-known/openid-configuration`,
    });
    expect(config.tokenUrl).toBe('http://localhost:8080/realms/master/protocol/openid-connect/token');
    await kc.identityProviders.create({ alias: 'compat-gh', providerId: 'github' });
    expect(await kc.identityProviders.reloadKeys({ alias: 'compat-gh' })).toBe(false);
    expect(await kc.identityProviders.listPermissions({ alias: 'compat-gh' })).toEqual({ enabled: false });
    expect(await kc.identityProviders.updatePermission({ alias: 'compat-gh' }, { enabled: true })).toMatchObject({ enabled: true });
  });

  test('a user links to a provider and shows it; deleting the provider drops the link', async () => {
    await kc.identityProviders.create({ alias: 'compat-link', providerId: 'google' });
    const { id } = await kc.users.create({ username: 'compat-linked', enabled: true });
    await kc.users.addToFederatedIdentity({
      id,
      federatedIdentityId: 'compat-link',
      federatedIdentity: { identityProvider: 'compat-link', userId: 'g-1', userName: 'gg' },
    });
    expect(await kc.users.listFederatedIdentities({ id })).toEqual([{ identityProvider: 'compat-link', userId: 'g-1', userName: 'gg' }]);
    await kc.identityProviders.del({ alias: 'compat-link' });
    expect(await kc.users.listFederatedIdentities({ id })).toEqual([]);
  });
});
