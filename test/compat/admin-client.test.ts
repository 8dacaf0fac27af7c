import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, type KcAdminClientClass, masterAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` npm package, unchanged, drives the server
 * over HTTP — auth, realms, users, groups, roles and role mappings.
 */

let ts: TestServer;
let baseUrl: string;
let Client: KcAdminClientClass;
let kc: KcAdminClient;

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc, baseUrl, Client } = await masterAdminClient(ts));
});
afterAll(() => ts.close());

const R = 'compat';

describe('@keycloak/keycloak-admin-client against idserver', () => {
  test('auth and realms', async () => {
    const created = await kc.realms.create({ realm: R, enabled: true, displayName: 'Compat' });
    expect(created).toEqual({ realmName: R });
    const realm = await kc.realms.findOne({ realm: R });
    expect(realm).toMatchObject({ realm: R, enabled: true, displayName: 'Compat', accessTokenLifespan: 300 });
    await kc.realms.update({ realm: R }, { displayName: 'Compat 2' });
    expect((await kc.realms.findOne({ realm: R }))?.displayName).toBe('Compat 2');
    const all = await kc.realms.find();
    expect(all.map((r) => r.realm)).toEqual(expect.arrayContaining(['master', R]));
    expect(await kc.realms.findOne({ realm: 'does-not-exist' })).toBeNull();
    await expect(kc.realms.create({ realm: R })).rejects.toThrow(`Realm ${R} already exists`);
  });

  test('users', async () => {
    kc.setConfig({ realmName: R });
    const { id } = await kc.users.create({
      username: 'Alice',
      email: 'alice@example.com',
      firstName: 'Alice',
      lastName: 'Liddell',
      enabled: true,
      credentials: [{ type: 'password', value: 'wonderland', temporary: false }],
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const alice = await kc.users.findOne({ id });
    expect(alice).toMatchObject({ id, username: 'alice', email: 'alice@example.com', enabled: true, emailVerified: false });
    expect(alice).not.toHaveProperty('credentials');
    await expect(kc.users.create({ username: 'alice', enabled: true })).rejects.toThrow('User exists with same username');
    await kc.users.create({ username: 'bob', enabled: true });
    expect((await kc.users.find({ search: 'ali' })).map((u) => u.username)).toEqual(['alice']);
    expect((await kc.users.find({ username: 'bob', exact: true })).map((u) => u.username)).toEqual(['bob']);
    expect(await kc.users.count()).toBe(2);
    await kc.users.update({ id }, { firstName: 'Alicia' });
    expect((await kc.users.findOne({ id }))?.firstName).toBe('Alicia');
    // the created user can log in with the admin client too
    const asAlice = new Client({ baseUrl, realmName: R });
    await asAlice.auth({ username: 'alice', password: 'wonderland', grantType: 'password', clientId: 'admin-cli' });
    expect(asAlice.accessToken).toEqual(expect.any(String));
    expect(await kc.users.findOne({ id: '00000000-0000-0000-0000-000000000000' })).toBeNull();
  });

  test('groups and membership', async () => {
    kc.setConfig({ realmName: R });
    const { id: parent } = await kc.groups.create({ name: 'staff' });
    const { id: child } = await kc.groups.createChildGroup({ id: parent }, { name: 'engineers' });
    const top = await kc.groups.find();
    expect(top).toEqual([expect.objectContaining({ id: parent, name: 'staff', path: '/staff', subGroupCount: 1 })]);
    expect((await kc.groups.listSubGroups({ parentId: parent })).map((g) => g.name)).toEqual(['engineers']);
    expect(await kc.groups.count()).toEqual({ count: 2 });
    const [alice] = await kc.users.find({ username: 'alice', exact: true });
    await kc.users.addToGroup({ id: alice.id as string, groupId: child });
    expect((await kc.users.listGroups({ id: alice.id as string })).map((g) => g.path)).toEqual(['/staff/engineers']);
    expect((await kc.groups.listMembers({ id: child })).map((u) => u.username)).toEqual(['alice']);
    await kc.users.delFromGroup({ id: alice.id as string, groupId: child });
    expect(await kc.users.listGroups({ id: alice.id as string })).toEqual([]);
    await expect(kc.groups.create({ name: 'staff' })).rejects.toThrow("Top level group named 'staff' already exists.");
    expect(await kc.groups.findOne({ id: '00000000-0000-0000-0000-000000000000' })).toBeNull();
  });

  test('roles, composites and role mappings', async () => {
    kc.setConfig({ realmName: R });
    expect(await kc.roles.create({ name: 'reader', description: 'reads' })).toEqual({ roleName: 'reader' });
    await kc.roles.create({ name: 'writer' });
    const reader = await kc.roles.findOneByName({ name: 'reader' });
    const writer = await kc.roles.findOneByName({ name: 'writer' });
    expect(reader).toMatchObject({ name: 'reader', description: 'reads', composite: false, clientRole: false });
    await kc.roles.createComposite({ roleId: writer?.id as string }, [reader as { id: string; name: string }]);
    expect((await kc.roles.getCompositeRoles({ id: writer?.id as string })).map((r) => r.name)).toEqual(['reader']);

    const [alice] = await kc.users.find({ username: 'alice', exact: true });
    const id = alice.id as string;
    await kc.users.addRealmRoleMappings({ id, roles: [{ id: writer?.id as string, name: 'writer' }] });
    expect((await kc.users.listRealmRoleMappings({ id })).map((r) => r.name).sort()).toEqual(['default-roles-compat', 'writer']);
    const effective = (await kc.users.listCompositeRealmRoleMappings({ id })).map((r) => r.name);
    expect(effective).toEqual(expect.arrayContaining(['writer', 'reader', 'offline_access', 'uma_authorization']));

    const [rm] = await kc.clients.find({ clientId: 'realm-management' });
    const viewUsers = await kc.clients.findRole({ id: rm.id as string, roleName: 'view-users' });
    await kc.users.addClientRoleMappings({
      id,
      clientUniqueId: rm.id as string,
      roles: [{ id: viewUsers?.id as string, name: 'view-users' }],
    });
    expect((await kc.users.listClientRoleMappings({ id, clientUniqueId: rm.id as string })).map((r) => r.name)).toEqual(['view-users']);
    const effClient = (await kc.users.listCompositeClientRoleMappings({ id, clientUniqueId: rm.id as string })).map((r) => r.name);
    expect(effClient).toEqual(expect.arrayContaining(['view-users', 'query-users', 'query-groups']));

    const { id: gid } = await kc.groups.create({ name: 'readers' });
    await kc.groups.addRealmRoleMappings({ id: gid, roles: [{ id: reader?.id as string, name: 'reader' }] });
    expect((await kc.groups.listRealmRoleMappings({ id: gid })).map((r) => r.name)).toEqual(['reader']);
    expect((await kc.roles.findUsersWithRole({ name: 'writer' })).map((u) => u.username)).toEqual(['alice']);
    await kc.users.delRealmRoleMappings({ id, roles: [{ id: writer?.id as string, name: 'writer' }] });
    expect((await kc.users.listRealmRoleMappings({ id })).map((r) => r.name)).toEqual(['default-roles-compat']);
  });

  test('a realm admin manages their own realm and nothing else', async () => {
    kc.setConfig({ realmName: R });
    const asAlice = new Client({ baseUrl, realmName: R });
    await asAlice.auth({ username: 'alice', password: 'wonderland', grantType: 'password', clientId: 'admin-cli' });
    // alice holds view-users (granted above): she can read users but not create them
    expect((await asAlice.users.find()).map((u) => u.username)).toEqual(expect.arrayContaining(['alice', 'bob']));
    await expect(asAlice.users.create({ username: 'mallory', enabled: true })).rejects.toThrow('HTTP 403 Forbidden');
    await expect(asAlice.realms.findOne({ realm: 'master' })).rejects.toThrow('HTTP 403 Forbidden');
  });

  test('deleting', async () => {
    kc.setConfig({ realmName: R });
    const [bob] = await kc.users.find({ username: 'bob', exact: true });
    await kc.users.del({ id: bob.id as string });
    expect(await kc.users.findOne({ id: bob.id as string })).toBeNull();
    await kc.roles.delByName({ name: 'reader' });
    expect(await kc.roles.findOneByName({ name: 'reader' })).toBeNull();
    kc.setConfig({ realmName: 'master' });
    await kc.realms.del({ realm: R });
    expect(await kc.realms.findOne({ realm: R })).toBeNull();
  });
});
