import request from 'supertest';
import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** `GET /admin/serverinfo` (config reference §11 and its minimal compatible checklist). */
let ts: TestServer;
let api: AdminApi;
// biome-ignore lint/suspicious/noExplicitAny: the test walks arbitrary response JSON
let info: Record<string, any>;

beforeAll(async () => {
  ({ ts, api } = await realmServer('inforealm'));
  const res = await api.get('/admin/serverinfo');
  expect(res.status).toBe(200);
  info = res.body;
});
afterAll(() => ts.close());

describe('serverinfo content', () => {
  test('systemInfo, memoryInfo, cpuInfo', () => {
    expect(info.systemInfo.version).toMatch(/^26\.\d+\.\d+$/);
    expect(info.systemInfo.serverTime).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} UTC \d{4}$/);
    expect(info.systemInfo.uptime).toMatch(/^\d+ days, \d+ hours, \d+ minutes, \d+ seconds$/);
    expect(typeof info.systemInfo.uptimeMillis).toBe('number');
    const mem = info.memoryInfo;
    expect(mem.total).toBe(mem.used + mem.free);
    expect(mem.totalFormated).toBe(`${Math.floor(mem.total / 1048576)} MB`);
    expect(mem.freePercentage).toBeGreaterThanOrEqual(0);
    expect(mem.freePercentage).toBeLessThanOrEqual(100);
    expect(info.cpuInfo.processorCount).toBeGreaterThan(0);
  });

  test('profileInfo and features (enabled and isEnabled)', () => {
    expect(info.profileInfo.name).toBe('community');
    expect(info.profileInfo.disabledFeatures).toEqual(expect.arrayContaining(['ADMIN_FINE_GRAINED_AUTHZ', 'SCRIPTS', 'DOCKER']));
    expect(info.profileInfo.previewFeatures).toContain('TOKEN_EXCHANGE');
    expect(info.profileInfo.experimentalFeatures).toContain('DYNAMIC_SCOPES');
    const v2 = info.features.find((f: { name: string }) => f.name === 'ADMIN_FINE_GRAINED_AUTHZ_V2');
    expect(v2).toMatchObject({ type: 'DEFAULT', enabled: true, isEnabled: true, dependencies: ['AUTHORIZATION'] });
    expect(info.features.find((f: { name: string }) => f.name === 'DOCKER')).toMatchObject({ enabled: false, type: 'DISABLED_BY_DEFAULT' });
  });

  test('themes, crypto, enums, password policies', () => {
    for (const type of ['login', 'account', 'admin', 'email'])
      expect(info.themes[type].map((t: { name: string }) => t.name)).toContain('base');
    expect(info.themes.login.map((t: { name: string }) => t.name)).toEqual(['base', 'keycloak', 'keycloak.v2']);
    expect(info.cryptoInfo.clientSignatureSymmetricAlgorithms).toEqual(['HS256', 'HS384', 'HS512']);
    expect(info.enums.operationType).toEqual(['ACTION', 'CREATE', 'DELETE', 'UPDATE']);
    expect(info.enums.resourceType).toContain('COMPONENT');
    expect(info.enums.eventType).toEqual(expect.arrayContaining(['LOGIN', 'LOGIN_ERROR']));
    expect([...info.enums.eventType].sort()).toEqual(info.enums.eventType);
    const length = info.passwordPolicies.find((p: { id: string }) => p.id === 'length');
    expect(length).toEqual({ id: 'length', displayName: 'Minimum Length', configType: 'int', defaultValue: '8', multipleSupported: false });
    expect(info.passwordPolicies.find((p: { id: string }) => p.id === 'regexPattern').multipleSupported).toBe(true);
    expect(info.passwordPolicies.find((p: { id: string }) => p.id === 'notUsername')).not.toHaveProperty('configType');
  });

  test('protocol mappers, installations, identity providers, authenticators', () => {
    expect(Object.keys(info.protocolMapperTypes)).toEqual(expect.arrayContaining(['openid-connect', 'saml']));
    expect(info.protocolMapperTypes['openid-connect'].map((t: { id: string }) => t.id)).toContain('oidc-usermodel-attribute-mapper');
    const builtin = info.builtinProtocolMappers['openid-connect'].find((m: { name: string }) => m.name === 'email');
    expect(builtin).toMatchObject({ protocol: 'openid-connect', protocolMapper: 'oidc-usermodel-attribute-mapper' });
    expect(builtin).not.toHaveProperty('id');
    expect(info.builtinProtocolMappers.saml.map((m: { name: string }) => m.name)).toContain('role list');
    expect(info.clientInstallations['openid-connect'][0]).toMatchObject({
      id: 'keycloak-oidc-keycloak-json',
      filename: 'keycloak.json',
      mediaType: 'application/json',
      downloadOnly: false,
    });
    expect(info.identityProviders).toEqual(
      expect.arrayContaining([{ groupName: 'User-defined', name: 'OpenID Connect v1.0', id: 'oidc' }]),
    );
    expect(info.socialProviders.every((p: { groupName: string }) => p.groupName === 'Social')).toBe(true);
    expect(info.socialProviders.map((p: { id: string }) => p.id)).toContain('github');
    expect(Object.keys(info.providers.authenticator.providers)).toContain('auth-username-password-form');
    expect(Object.keys(info.providers['required-action'].providers)).toContain('UPDATE_PASSWORD');
    expect(Object.keys(info.providers.eventsListener.providers).sort()).toEqual(['email', 'jboss-logging']);
    expect(info.providers['login-protocol']).toEqual({
      internal: false,
      providers: { 'openid-connect': { order: 100 }, saml: { order: 0 } },
    });
  });

  test('componentTypes: key providers and user storage with their properties', () => {
    const keys = info.componentTypes['org.keycloak.keys.KeyProvider'];
    expect(keys.map((t: { id: string }) => t.id)).toEqual(
      expect.arrayContaining(['rsa-generated', 'rsa-enc-generated', 'hmac-generated', 'aes-generated', 'rsa', 'ecdsa-generated']),
    );
    const hmac = keys.find((t: { id: string }) => t.id === 'hmac-generated');
    expect(hmac.properties.map((p: { name: string }) => p.name)).toEqual(['priority', 'enabled', 'active', 'secretSize', 'algorithm']);
    expect(hmac.properties[3]).toMatchObject({ type: 'List', defaultValue: '128', options: ['16', '24', '32', '64', '128', '256', '512'] });
    const rsa = keys.find((t: { id: string }) => t.id === 'rsa');
    expect(rsa.properties.find((p: { name: string }) => p.name === 'privateKey')).toMatchObject({ secret: true, type: 'File' });
    const storage = info.componentTypes['org.keycloak.storage.UserStorageProvider'].map((t: { id: string }) => t.id);
    expect(storage).toContain('ldap');
    // KERBEROS is off (not built), as in a Keycloak whose platform has no Kerberos: no provider, the feature disabled.
    expect(storage).not.toContain('kerberos');
    expect(info.profileInfo.disabledFeatures).toContain('KERBEROS');
    expect(
      info.componentTypes['org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy'].map((t: { id: string }) => t.id),
    ).toContain('trusted-hosts');
    expect(Object.keys(info.providers.keys.providers)).toContain('rsa-generated');
  });
});

describe('who may read it', () => {
  test('any admin of any realm: 200; a user without admin roles: 403; no token: 401', async () => {
    const realmLevelAdmin = await realmAdmin(ts, 'inforealm', 'info-viewer', ['view-users']);
    expect((await realmLevelAdmin.get('/admin/serverinfo')).status).toBe(200);
    const plain = await realmAdmin(ts, 'inforealm', 'info-plain', []);
    const denied = await plain.get('/admin/serverinfo');
    expect([denied.status, denied.body]).toEqual([403, { error: 'HTTP 403 Forbidden' }]);
    expect((await request(ts.app).get('/admin/serverinfo')).status).toBe(401);
  });
});
