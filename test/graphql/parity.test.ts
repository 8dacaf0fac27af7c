import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, createLoginUser, gqlClient, ok, restSpelling, startWithRealm, userErrors } from './gql';

/**
 * Users, groups, roles and role mappings written and read through GraphQL agree with what the REST
 * front returns for the same objects (both fronts call the same service functions).
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;

const USER_FIELDS =
  'id username firstName lastName email emailVerified attributes enabled createdTimestamp totp disableableCredentialTypes requiredActions notBefore access';
const GROUP_FIELDS = 'id name description path parentId attributes access subGroupCount';
const ROLE_FIELDS = 'id name description composite clientRole containerId attributes';

const drop = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm('par'));
});
afterAll(() => ts.close());

describe('graphql ⇄ REST parity', () => {
  let userId: string;
  let groupId: string;
  let childId: string;

  test('createUser returns what GET /users/{id} returns', async () => {
    const res = ok(
      await gql(`mutation($u: UserCreateInput!) { createUser(realm: "par", input: $u) { user { ${USER_FIELDS} } } }`, {
        u: {
          username: 'Alice',
          email: 'alice@example.com',
          firstName: 'Alice',
          lastName: 'A',
          enabled: true,
          attributes: { color: ['blue', 'green'] },
        },
      }),
    );
    userId = res.createUser.user.id;
    const rest = (await api.get(`/admin/realms/par/users/${userId}`)).body;
    expect(drop(res.createUser.user)).toEqual(rest);
    const read = ok(await gql(`{ realm(name: "par") { user(id: "${userId}") { ${USER_FIELDS} } } }`));
    expect(drop(read.realm.user)).toEqual(rest);
    const top = ok(await gql(`{ user(realm: "par", id: "${userId}") { username } }`));
    expect(top.user.username).toBe('alice');
  });

  test('users listing matches GET /users', async () => {
    await api.post('/admin/realms/par/users', { username: 'bob', enabled: true });
    const res = ok(await gql(`{ realm(name: "par") { users(max: 10) { ${USER_FIELDS} } usersCount } }`));
    const rest = (await api.get('/admin/realms/par/users?max=10')).body;
    expect(res.realm.users.map(drop)).toEqual(rest);
    expect(res.realm.usersCount).toBe((await api.get('/admin/realms/par/users/count')).body);
  });

  test('updateUser and deleteUser', async () => {
    const res = ok(
      await gql(`mutation { updateUser(realm: "par", id: "${userId}", input: { firstName: "Alicia" }) { user { firstName email } } }`),
    );
    expect(res.updateUser.user).toEqual({ firstName: 'Alicia', email: 'alice@example.com' });
    expect((await api.get(`/admin/realms/par/users/${userId}`)).body.firstName).toBe('Alicia');
    const bob = (await api.get('/admin/realms/par/users?username=bob&exact=true')).body[0];
    expect(ok(await gql(`mutation { deleteUser(realm: "par", id: "${bob.id}") { ok } }`)).deleteUser.ok).toBe(true);
    expect((await api.get(`/admin/realms/par/users/${bob.id}`)).status).toBe(404);
  });

  test('a duplicate username is CONFLICT with Keycloak message', async () => {
    const res = await gql(`mutation { createUser(realm: "par", input: { username: "alice" }) { user { id } ${USER_ERRORS} } }`);
    expect(res.data?.createUser.user).toBeNull();
    expect(userErrors(res, 'createUser')).toEqual([
      { field: ['input', 'username'], code: 'CONFLICT', message: 'User exists with same username' },
    ]);
  });

  test('groups: create, child, read, move, update match REST', async () => {
    const top = ok(
      await gql(
        `mutation { createGroup(realm: "par", input: { name: "staff", attributes: { site: ["x"] } }) { group { ${GROUP_FIELDS} } } }`,
      ),
    );
    groupId = top.createGroup.group.id;
    const child = ok(
      await gql(
        `mutation { createChildGroup(realm: "par", parentId: "${groupId}", input: { name: "devs" }) { group { ${GROUP_FIELDS} parent { id } } } }`,
      ),
    );
    childId = child.createChildGroup.group.id;
    expect(child.createChildGroup.group).toMatchObject({ path: '/staff/devs', parentId: groupId, parent: { id: groupId } });

    const read = ok(
      await gql(`{ realm(name: "par") { group(id: "${groupId}") { ${GROUP_FIELDS} realmRoles { name } subGroups { id path } } } }`),
    );
    const rest = (await api.get(`/admin/realms/par/groups/${groupId}`)).body;
    const { realmRoles, subGroups, ...fields } = read.realm.group;
    expect({ ...drop(fields), realmRoles: realmRoles.map((r: { name: string }) => r.name), clientRoles: {}, subGroups: [] }).toEqual(rest);
    expect(subGroups).toEqual([{ id: childId, path: '/staff/devs' }]);
    const children = (await api.get(`/admin/realms/par/groups/${groupId}/children`)).body;
    const gqlChildren = ok(await gql(`{ realm(name: "par") { group(id: "${groupId}") { subGroups { ${GROUP_FIELDS} } } } }`));
    expect(gqlChildren.realm.group.subGroups.map(drop)).toEqual(
      children.map(({ subGroups: _s, realmRoles: _r, clientRoles: _c, ...g }: Record<string, unknown>) => g),
    );

    const list = ok(await gql('{ realm(name: "par") { groups { id name path subGroupCount } groupsCount } }'));
    expect(list.realm.groups).toEqual([{ id: groupId, name: 'staff', path: '/staff', subGroupCount: 1 }]);
    expect(list.realm.groupsCount).toBe((await api.get('/admin/realms/par/groups/count')).body.count);

    const moved = ok(await gql(`mutation { moveGroup(realm: "par", id: "${childId}") { group { path parent { id } } } }`));
    expect(moved.moveGroup.group).toEqual({ path: '/devs', parent: null });
    expect((await api.get(`/admin/realms/par/groups/${childId}`)).body.path).toBe('/devs');
    const back = ok(await gql(`mutation { moveGroup(realm: "par", id: "${childId}", parentId: "${groupId}") { group { path } } }`));
    expect(back.moveGroup.group.path).toBe('/staff/devs');

    const upd = ok(
      await gql(
        `mutation { updateGroup(realm: "par", id: "${groupId}", input: { name: "people", description: "all" }) { group { name description path } } }`,
      ),
    );
    expect(upd.updateGroup.group).toEqual({ name: 'people', description: 'all', path: '/people' });
    expect((await api.get(`/admin/realms/par/group-by-path/people/devs`)).body.id).toBe(childId);
    expect(ok(await gql('{ realm(name: "par") { groupByPath(path: "/people/devs") { id } } }')).realm.groupByPath.id).toBe(childId);
  });

  test('membership: joinGroup, members, user groups match REST', async () => {
    expect(ok(await gql(`mutation { joinGroup(realm: "par", userId: "${userId}", groupId: "${childId}") { ok } }`)).joinGroup.ok).toBe(
      true,
    );
    const res = ok(
      await gql(
        `{ realm(name: "par") { user(id: "${userId}") { groups { ${GROUP_FIELDS} } } group(id: "${childId}") { members { ${USER_FIELDS} } } } }`,
      ),
    );
    const restGroups = (await api.get(`/admin/realms/par/users/${userId}/groups`)).body;
    expect(res.realm.user.groups.map(({ subGroupCount: _c, ...g }: Record<string, unknown>) => drop(g))).toEqual(
      restGroups.map(({ subGroups: _s, ...g }: Record<string, unknown>) => g),
    );
    const restMembers = (await api.get(`/admin/realms/par/groups/${childId}/members`)).body;
    expect(res.realm.group.members.map(drop)).toEqual(restMembers);
    expect(ok(await gql(`mutation { leaveGroup(realm: "par", userId: "${userId}", groupId: "${childId}") { ok } }`)).leaveGroup.ok).toBe(
      true,
    );
    expect((await api.get(`/admin/realms/par/groups/${childId}/members`)).body).toEqual([]);
    await gql(`mutation { joinGroup(realm: "par", userId: "${userId}", groupId: "${childId}") { ok } }`);
  });

  test('default groups', async () => {
    expect(ok(await gql(`mutation { setDefaultGroup(realm: "par", groupId: "${groupId}") { ok } }`)).setDefaultGroup.ok).toBe(true);
    const res = ok(await gql('{ realm(name: "par") { defaultGroups { id path } } }'));
    expect(res.realm.defaultGroups).toEqual([{ id: groupId, path: '/people' }]);
    expect((await api.get('/admin/realms/par/default-groups')).body.map((g: { id: string }) => g.id)).toEqual([groupId]);
    expect(ok(await gql(`mutation { removeDefaultGroup(realm: "par", groupId: "${groupId}") { ok } }`)).removeDefaultGroup.ok).toBe(true);
    expect((await api.get('/admin/realms/par/default-groups')).body).toEqual([]);
  });

  let readerId: string;
  let writerId: string;

  test('roles: create, composites, update, read match REST', async () => {
    const reader = ok(
      await gql(`mutation { createRole(realm: "par", input: { name: "reader", description: "reads" }) { role { ${ROLE_FIELDS} } } }`),
    );
    readerId = reader.createRole.role.id;
    const writer = ok(
      await gql(
        `mutation { createRole(realm: "par", input: { name: "writer", attributes: { level: ["2"] } }) { role { ${ROLE_FIELDS} } } }`,
      ),
    );
    writerId = writer.createRole.role.id;
    const comp = ok(
      await gql(
        `mutation { addComposites(realm: "par", id: "${writerId}", roles: [{ id: "${readerId}" }]) { role { composite composites { name } } } }`,
      ),
    );
    expect(comp.addComposites.role).toEqual({ composite: true, composites: [{ name: 'reader' }] });
    expect((await api.get(`/admin/realms/par/roles/writer/composites`)).body.map((r: { name: string }) => r.name)).toEqual(['reader']);

    const read = ok(await gql(`{ realm(name: "par") { role(name: "writer") { ${ROLE_FIELDS} } } }`));
    expect(drop(read.realm.role)).toEqual((await api.get('/admin/realms/par/roles/writer')).body);
    const list = ok(await gql(`{ realm(name: "par") { roles { ${ROLE_FIELDS} } } }`));
    expect(list.realm.roles.map(drop)).toEqual((await api.get('/admin/realms/par/roles')).body);

    const upd = ok(
      await gql(
        `mutation { updateRole(realm: "par", id: "${readerId}", input: { name: "viewer", description: "views" }) { role { name description } } }`,
      ),
    );
    expect(upd.updateRole.role).toEqual({ name: 'viewer', description: 'views' });
    expect((await api.get(`/admin/realms/par/roles-by-id/${readerId}`)).body.name).toBe('viewer');

    const dup = await gql(`mutation { createRole(realm: "par", input: { name: "writer" }) { role { id } ${USER_ERRORS} } }`);
    expect(userErrors(dup, 'createRole')).toEqual([
      { field: ['input', 'name'], code: 'CONFLICT', message: 'Role with name writer already exists' },
    ]);
  });

  test('client roles and the clients read API', async () => {
    const clients = ok(
      await gql(
        '{ realm(name: "par") { clients(clientId: "account") { id clientId name enabled protocol publicClient representation } } }',
      ),
    );
    const account = clients.realm.clients[0];
    const rest = (await api.get(`/admin/realms/par/clients/${account.id}`)).body;
    expect(account.representation).toEqual(rest);
    expect(restSpelling(account)).toMatchObject({
      clientId: rest.clientId,
      name: rest.name,
      enabled: rest.enabled,
      protocol: rest.protocol,
      publicClient: rest.publicClient,
    });
    const created = ok(
      await gql(
        `mutation { createRole(realm: "par", clientUuid: "${account.id}", input: { name: "extra" }) { role { name clientRole containerId client { clientId } } } }`,
      ),
    );
    expect(created.createRole.role).toEqual({ name: 'extra', clientRole: true, containerId: account.id, client: { clientId: 'account' } });
    const roles = ok(await gql(`{ client(realm: "par", id: "${account.id}") { roles { ${ROLE_FIELDS} } } }`));
    expect(roles.client.roles.map(drop)).toEqual((await api.get(`/admin/realms/par/clients/${account.id}/roles`)).body);
  });

  test('role mappings of users and groups, effective roles', async () => {
    const account = (await api.get('/admin/realms/par/clients?clientId=account')).body[0];
    const extra = (await api.get(`/admin/realms/par/clients/${account.id}/roles/extra`)).body;
    const added = ok(
      await gql(
        `mutation { addRealmRoleMappings(realm: "par", owner: USER, ownerId: "${userId}", roles: [{ id: "${writerId}", name: "writer" }]) { roles { name } } }`,
      ),
    );
    expect(added.addRealmRoleMappings.roles.map((r: { name: string }) => r.name)).toContain('writer');
    ok(
      await gql(
        `mutation { addRealmRoleMappings(realm: "par", owner: GROUP, ownerId: "${groupId}", roles: [{ id: "${readerId}", name: "viewer" }]) { roles { name } } }`,
      ),
    );
    const cm = ok(
      await gql(
        `mutation { addClientRoleMappings(realm: "par", owner: GROUP, ownerId: "${childId}", clientUuid: "${account.id}", roles: [{ id: "${extra.id}", name: "extra" }]) { roles { name } } }`,
      ),
    );
    expect(cm.addClientRoleMappings.roles).toEqual([{ name: 'extra' }]);

    const res = ok(
      await gql(`{ realm(name: "par") {
        user(id: "${userId}") { realmRoles { ${ROLE_FIELDS} } roleMappings { realmMappings { ${ROLE_FIELDS} } clientMappings { id client mappings { ${ROLE_FIELDS} } } } effectiveRoles { name clientRole } }
        group(id: "${childId}") { clientRoles(clientUuid: "${account.id}") { name } effectiveRoles { name } }
      } }`),
    );
    const restMappings = (await api.get(`/admin/realms/par/users/${userId}/role-mappings`)).body;
    const gm = res.realm.user.roleMappings;
    expect({ realmMappings: gm.realmMappings.map(drop) }).toEqual({ realmMappings: restMappings.realmMappings });
    expect(res.realm.user.realmRoles.map(drop)).toEqual((await api.get(`/admin/realms/par/users/${userId}/role-mappings/realm`)).body);
    const eff = res.realm.user.effectiveRoles.map((r: { name: string }) => r.name);
    const restEffRealm = (await api.get(`/admin/realms/par/users/${userId}/role-mappings/realm/composite`)).body.map(
      (r: { name: string }) => r.name,
    );
    const restEffClient = (await api.get(`/admin/realms/par/users/${userId}/role-mappings/clients/${account.id}/composite`)).body.map(
      (r: { name: string }) => r.name,
    );
    expect(eff.sort()).toEqual(expect.arrayContaining([...restEffRealm, ...restEffClient]));
    expect(eff).toEqual(expect.arrayContaining(['writer', 'viewer', 'extra', 'default-roles-par']));
    expect(res.realm.group.clientRoles).toEqual([{ name: 'extra' }]);
    expect(res.realm.group.effectiveRoles.map((r: { name: string }) => r.name).sort()).toEqual(['extra', 'viewer']);

    const removed = ok(
      await gql(
        `mutation { removeRealmRoleMappings(realm: "par", owner: USER, ownerId: "${userId}", roles: [{ id: "${writerId}", name: "writer" }]) { roles { name } } }`,
      ),
    );
    expect(removed.removeRealmRoleMappings.roles.map((r: { name: string }) => r.name)).not.toContain('writer');
    const rc = ok(
      await gql(
        `mutation { removeClientRoleMappings(realm: "par", owner: GROUP, ownerId: "${childId}", clientUuid: "${account.id}", roles: [{ id: "${extra.id}", name: "extra" }]) { roles { name } } }`,
      ),
    );
    expect(rc.removeClientRoleMappings.roles).toEqual([]);
    const roleUsers = ok(await gql(`{ role(realm: "par", id: "${readerId}") { groups { id } users { id } } }`));
    expect(roleUsers.role).toEqual({ groups: [{ id: groupId }], users: [] });
  });

  test('removeComposites, deleteRole, deleteGroup', async () => {
    const res = ok(
      await gql(
        `mutation { removeComposites(realm: "par", id: "${writerId}", roles: [{ id: "${readerId}" }]) { role { composite composites { name } } } }`,
      ),
    );
    expect(res.removeComposites.role).toEqual({ composite: false, composites: [] });
    expect(ok(await gql(`mutation { deleteRole(realm: "par", id: "${writerId}") { ok } }`)).deleteRole.ok).toBe(true);
    expect((await api.get('/admin/realms/par/roles/writer')).status).toBe(404);
    expect(ok(await gql(`mutation { deleteGroup(realm: "par", id: "${groupId}") { ok } }`)).deleteGroup.ok).toBe(true);
    expect((await api.get(`/admin/realms/par/groups/${childId}`)).status).toBe(404);
    const gone = await gql(`{ realm(name: "par") { group(id: "${groupId}") { id } } }`);
    expect(gone.errors?.[0]).toMatchObject({
      message: 'Could not find group by id',
      extensions: { code: 'NOT_FOUND', http: { status: 404 } },
    });
  });

  test('403 for a caller of the realm without admin roles; reads and writes alike', async () => {
    await createLoginUser(ts, 'par', 'nobody', 'pw');
    // Non-master realms require a fully set-up account to log in.
    await api.put(`/admin/realms/par/users/${(await api.get('/admin/realms/par/users?username=nobody&exact=true')).body[0].id}`, {
      email: 'n@example.com',
      firstName: 'N',
      lastName: 'B',
    });
    const nobody = gqlClient(ts, { realm: 'par', username: 'nobody', password: 'pw' });
    for (const q of [
      '{ realm(name: "par") { users { id } } }',
      'mutation { createGroup(realm: "par", input: { name: "x" }) { group { id } } }',
      '{ realm(name: "master") { name } }',
    ]) {
      const res = await nobody(q);
      expect(res.errors?.[0]).toMatchObject({
        message: 'HTTP 403 Forbidden',
        extensions: { code: 'FORBIDDEN', http: { status: 403 }, keycloak: { error: 'HTTP 403 Forbidden' } },
      });
    }
  });
});
