import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives client scopes, realm default
 * scopes, protocol mappers, scope mappings and evaluate-scopes unchanged.
 */

let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatscopes';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: client scopes', () => {
  test('create, find, findOne, findOneByName, update, del', async () => {
    const { id } = await kc.clientScopes.create({ name: 'compat-scope', protocol: 'openid-connect', description: 'c' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await kc.clientScopes.find()).map((s) => s.name)).toContain('compat-scope');
    expect(await kc.clientScopes.findOne({ id })).toMatchObject({ id, name: 'compat-scope', description: 'c', protocol: 'openid-connect' });
    expect((await kc.clientScopes.findOneByName({ name: 'compat-scope' }))?.id).toBe(id);
    await kc.clientScopes.update({ id }, { name: 'compat-scope', description: 'changed' });
    expect((await kc.clientScopes.findOne({ id }))?.description).toBe('changed');
    await expect(kc.clientScopes.create({ name: 'compat-scope', protocol: 'openid-connect' })).rejects.toThrow(
      'Client Scope compat-scope already exists',
    );
    await kc.clientScopes.del({ id });
    expect(await kc.clientScopes.findOne({ id })).toBeNull();
  });

  test('realm default and optional client scopes', async () => {
    const { id } = await kc.clientScopes.create({ name: 'compat-default', protocol: 'openid-connect' });
    await kc.clientScopes.addDefaultClientScope({ id });
    expect((await kc.clientScopes.listDefaultClientScopes()).map((s) => s.name)).toContain('compat-default');
    await kc.clientScopes.delDefaultClientScope({ id });
    await kc.clientScopes.addDefaultOptionalClientScope({ id });
    expect((await kc.clientScopes.listDefaultOptionalClientScopes()).map((s) => s.name)).toContain('compat-default');
    await kc.clientScopes.delDefaultOptionalClientScope({ id });
    expect((await kc.clientScopes.listDefaultOptionalClientScopes()).map((s) => s.name)).not.toContain('compat-default');
  });

  test('protocol mappers of a client scope and of a client', async () => {
    const { id } = await kc.clientScopes.create({ name: 'compat-mappers', protocol: 'openid-connect' });
    await kc.clientScopes.addProtocolMapper(
      { id },
      {
        name: 'dept',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-usermodel-attribute-mapper',
        config: { 'user.attribute': 'dept', 'claim.name': 'dept' },
      },
    );
    await kc.clientScopes.addMultipleProtocolMappers({ id }, [
      { name: 'full', protocol: 'openid-connect', protocolMapper: 'oidc-full-name-mapper', config: {} },
    ]);
    const mappers = await kc.clientScopes.listProtocolMappers({ id });
    expect(mappers.map((m) => m.name).sort()).toEqual(['dept', 'full']);
    const dept = mappers.find((m) => m.name === 'dept');
    expect(await kc.clientScopes.findProtocolMapper({ id, mapperId: dept?.id as string })).toMatchObject({ name: 'dept' });
    expect(await kc.clientScopes.findProtocolMappersByProtocol({ id, protocol: 'openid-connect' })).toHaveLength(2);
    await kc.clientScopes.updateProtocolMapper({ id, mapperId: dept?.id as string }, { ...dept, config: { 'claim.name': 'department' } });
    expect((await kc.clientScopes.findProtocolMapper({ id, mapperId: dept?.id as string }))?.config).toEqual({
      'claim.name': 'department',
    });
    await kc.clientScopes.delProtocolMapper({ id, mapperId: dept?.id as string });
    expect(await kc.clientScopes.listProtocolMappers({ id })).toHaveLength(1);

    const [account] = await kc.clients.find({ clientId: 'account' });
    await kc.clients.addProtocolMapper(
      { id: account.id as string },
      {
        name: 'hc',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-hardcoded-claim-mapper',
        config: { 'claim.name': 'h', 'claim.value': 'v' },
      },
    );
    expect((await kc.clients.listProtocolMappers({ id: account.id as string })).map((m) => m.name)).toContain('hc');
  });

  test('scope mappings', async () => {
    const { id } = await kc.clientScopes.create({ name: 'compat-mappings', protocol: 'openid-connect' });
    expect(await kc.clientScopes.listScopeMappings({ id })).toEqual({});
    await kc.roles.create({ name: 'compat-role' });
    const role = await kc.roles.findOneByName({ name: 'compat-role' });
    await kc.clientScopes.addRealmScopeMappings({ id }, [{ id: role?.id as string, name: 'compat-role' }]);
    expect((await kc.clientScopes.listRealmScopeMappings({ id })).map((r) => r.name)).toEqual(['compat-role']);
    expect((await kc.clientScopes.listCompositeRealmScopeMappings({ id })).map((r) => r.name)).toEqual(['compat-role']);
    expect((await kc.clientScopes.listAvailableRealmScopeMappings({ id })).map((r) => r.name)).not.toContain('compat-role');
    expect((await kc.clientScopes.listScopeMappings({ id })).realmMappings?.map((r) => r.name)).toEqual(['compat-role']);
    const [account] = await kc.clients.find({ clientId: 'account' });
    const client = account.id as string;
    const available = await kc.clientScopes.listAvailableClientScopeMappings({ id, client });
    await kc.clientScopes.addClientScopeMappings({ id, client }, available);
    expect((await kc.clientScopes.listClientScopeMappings({ id, client })).map((r) => r.name).sort()).toEqual(
      available.map((r) => r.name).sort(),
    );
    await kc.clientScopes.delClientScopeMappings({ id, client }, available);
    expect(await kc.clientScopes.listClientScopeMappings({ id, client })).toEqual([]);
    await kc.clientScopes.delRealmScopeMappings({ id }, [{ id: role?.id as string, name: 'compat-role' }]);
    expect(await kc.clientScopes.listRealmScopeMappings({ id })).toEqual([]);
  });

  test('evaluate scopes of a client', async () => {
    const [adminCli] = await kc.clients.find({ clientId: 'admin-cli' });
    const id = adminCli.id as string;
    const userId = (
      await kc.users.create({
        username: `eval-${randomUUID().slice(0, 6)}`,
        firstName: 'Ada',
        lastName: 'King',
        email: 'ada@example.org',
        enabled: true,
      })
    ).id;
    const mappers = await kc.clients.evaluateListProtocolMapper({ id, scope: 'openid' });
    expect(mappers.length).toBeGreaterThan(10);
    const granted = await kc.clients.evaluatePermission({ id, roleContainer: R, type: 'granted', scope: 'openid' });
    expect(granted.map((r) => r.name).sort()).toEqual(['compat-role', `default-roles-${R}`, 'offline_access', 'uma_authorization']);
    const token = (await kc.clients.evaluateGenerateAccessToken({ id, userId, scope: 'openid', audience: '' })) as Record<string, unknown>;
    expect(token).toMatchObject({
      sub: userId,
      azp: 'admin-cli',
      given_name: 'Ada',
      family_name: 'King',
      name: 'Ada King',
      email: 'ada@example.org',
    });
    const idToken = (await kc.clients.evaluateGenerateIdToken({ id, userId, scope: 'openid' })) as Record<string, unknown>;
    expect(idToken).toMatchObject({ typ: 'ID', aud: 'admin-cli', sub: userId });
    const userinfo = (await kc.clients.evaluateGenerateUserInfo({ id, userId, scope: 'openid' })) as Record<string, unknown>;
    expect(userinfo).toMatchObject({ sub: userId, email: 'ada@example.org' });
  });
});
