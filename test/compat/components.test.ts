import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, masterAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives components (the upstream
 * "User federation using component api" sequence, with `parentId: "master"`), realm keys and
 * server info unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatcomponents';
const US = 'org.keycloak.storage.UserStorageProvider';
const KP = 'org.keycloak.keys.KeyProvider';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await masterAdminClient(ts));
  await kc.realms.create({ realm: R, enabled: true });
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: components', () => {
  test('user federation in master: create, find, findOne, listSubComponents, update, del', async () => {
    const { id } = await kc.components.create({
      name: 'compat-fed',
      parentId: 'master',
      providerId: 'ldap',
      providerType: US,
      config: { editMode: ['READ_ONLY'] },
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const feds = await kc.components.find({ parent: 'master', type: US });
    expect(feds.map((f) => f.id)).toContain(id);
    expect(await kc.components.findOne({ id })).toMatchObject({ id, name: 'compat-fed', providerId: 'ldap' });
    const subTypes = await kc.components.listSubComponents({ id, type: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper' });
    expect(subTypes.map((t) => t.id)).toContain('user-attribute-ldap-mapper');
    await kc.components.update({ id }, { parentId: 'master', providerId: 'ldap', providerType: US, name: 'cool-name' });
    expect(await kc.components.findOne({ id })).toMatchObject({ id, name: 'cool-name' });
    await kc.components.del({ id });
    expect(await kc.components.findOne({ id })).toBeNull();
  });

  test('key providers in a realm: the new key is listed by realms.getKeys; validation errors reach the client', async () => {
    kc.setConfig({ realmName: R });
    const { id } = await kc.components.create({
      name: 'compat-rsa',
      providerId: 'rsa-generated',
      providerType: KP,
      config: { priority: ['150'] },
    });
    const keys = await kc.realms.getKeys({ realm: R });
    const mine = keys.keys?.find((k) => k.providerId === id);
    expect(mine).toMatchObject({ algorithm: 'RS256', status: 'ACTIVE', providerPriority: 150 });
    expect(keys.active?.RS256).toBe(mine?.kid);
    const listed = await kc.components.find({ type: KP, name: 'compat-rsa' });
    expect(listed).toEqual([expect.objectContaining({ id, config: { priority: ['150'] } })]);
    await expect(
      kc.components.create({ name: 'bad', providerId: 'hmac-generated', providerType: KP, config: { priority: ['x'] } }),
    ).rejects.toThrow("'Priority' should be a number");
    await kc.components.del({ id });
    expect((await kc.realms.getKeys({ realm: R })).keys?.find((k) => k.providerId === id)).toBeUndefined();
    kc.setConfig({ realmName: 'master' });
  });

  test('serverInfo.find', async () => {
    const info = await kc.serverInfo.find();
    expect(info.systemInfo?.version).toMatch(/^26\./);
    expect(Object.keys(info.componentTypes ?? {})).toContain(KP);
    expect(info.passwordPolicies?.map((p) => p.id)).toContain('length');
  });
});
