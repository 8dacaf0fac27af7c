import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { describeWithSlapd, GROUPS_DN, ldapComponent, ROOT_DN, ROOT_PW, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives LDAP user federation against a
 * real slapd — testLDAPConnection, ldapServerCapabilities, the provider component with its default
 * mappers, userStorageProvider.name / sync / mappersSync / unlinkUsers / removeImportedUsers.
 */
const R = 'compat-ldap';
let ts: TestServer;
let kc: KcAdminClient;
let slapd: TestSlapd;

jest.setTimeout(120_000);

describeWithSlapd('admin client: user storage', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ts = await startTestServer();
    ({ kc } = await realmAdminClient(ts, R));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('test the connection, create the provider, sync users and a group mapper, unlink and remove them', async () => {
    await kc.realms.testLDAPConnection(
      { realm: R },
      { action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: ROOT_PW, authType: 'simple' },
    );
    await expect(
      kc.realms.testLDAPConnection(
        { realm: R },
        { action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: 'no' },
      ),
    ).rejects.toThrow(/AuthenticationFailure/);
    const caps = await kc.realms.ldapServerCapabilities(
      { realm: R },
      { action: 'queryServerCapabilities', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: ROOT_PW },
    );
    expect(caps).toEqual(expect.arrayContaining([{ oid: '1.3.6.1.4.1.1466.20037', type: 'EXTENSION' }]));

    const realm = await kc.realms.findOne({ realm: R });
    const { id } = await kc.components.create(ldapComponent(slapd, realm?.id as string));
    const mappers = await kc.components.find({ parent: id });
    expect(mappers.map((m) => m.name).sort()).toEqual(['creation date', 'email', 'first name', 'last name', 'modify date', 'username']);
    expect(await kc.userStorageProvider.name({ id })).toEqual({ id, name: 'ldap' });

    const result = await kc.userStorageProvider.sync({ id, action: 'triggerFullSync' });
    expect(result).toEqual({ ignored: false, added: 3, updated: 0, removed: 0, failed: 0, status: '3 imported users, 0 updated users' });
    expect((await kc.users.find({ username: 'jbrown', exact: true }))[0]).toMatchObject({ federationLink: id });

    const group = await kc.components.create({
      name: 'groups',
      providerId: 'group-ldap-mapper',
      providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
      parentId: id,
      config: { 'groups.dn': [GROUPS_DN], 'membership.ldap.attribute': ['member'], mode: ['READ_ONLY'] },
    });
    const mapped = await kc.userStorageProvider.mappersSync({ parentId: id, id: group.id, direction: 'fedToKeycloak' });
    expect(mapped).toMatchObject({ added: 2, failed: 0 });
    expect((await kc.groups.find()).map((g) => g.name).sort()).toEqual(['admins', 'developers']);

    await kc.userStorageProvider.unlinkUsers({ id });
    expect((await kc.users.find({ username: 'jbrown', exact: true }))[0].federationLink).toBeUndefined();
    await kc.userStorageProvider.sync({ id, action: 'triggerFullSync' }); // unlinked users now hold the usernames
    await kc.users.create({ username: 'keeper', enabled: true });
    const again = await kc.components.create({ ...ldapComponent(slapd, realm?.id as string), name: 'ldap2' });
    await kc.userStorageProvider.removeImportedUsers({ id: again.id });
    expect((await kc.users.find({ max: 100 })).map((u) => u.username)).toContain('keeper');
  });
});
