import request from 'supertest';
import { clientUuid, createClient, createdId, createGroup, createUser, realmServer } from '../helpers/fixtures';
import { attachPolicies } from '../helpers/fgap';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, GROUPS_DN, ldapComponent, PEOPLE_DN, personEntry, startSlapd, type TestSlapd } from '../helpers/slapd';
import { Attribute, Change } from 'ldapts';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';
import { exchange, formAction, Jar, loginWorld, pageError, REDIRECT, redirectParams, signIn } from '../login/browser-client';

/**
 * An LDAP provider with `importEnabled=false` (ADR 46) against a real slapd: its users are served
 * live with Keycloak's StorageIds `f:{componentId}:{username}` (LDAPStorageProvider#importUserFromLDAP
 * without import, StorageId; getUserById looks the external id up as the username), appear in the
 * user search and GET /users/{id} (with `origin`, not `federationLink`: ModelToRepresentation) and log in with their LDAP password, with user sessions and
 * tokens whose `sub` is the StorageId; nothing is written to user_entity; a delete or a change in
 * the directory shows at once; WRITABLE updates go to LDAP; writes such a user cannot hold are 400
 * (Keycloak's ReadOnlyUserModelDelegate, RoleMapperResource's "Could not add user role mappings!").
 * /users/count counts local users only, as Keycloak's UserStorageManager#getUsersCount, which asks
 * only UserCountMethodsProvider providers (LDAPStorageProvider is not one).
 */
let ts: TestServer;
let api: AdminApi;
let slapd: TestSlapd;
let n = 0;

async function world(config: Record<string, string> = {}) {
  const R = `ldaptransient${++n}`;
  await api.post('/admin/realms', { realm: R, enabled: true }).expect(201);
  const realmId = (await api.get(`/admin/realms/${R}`).expect(200)).body.id;
  const id = createdId(
    await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, { importEnabled: 'false', ...config })),
    'ldap provider',
  );
  return { R, id, realmId, sid: (username: string) => `f:${id}:${username}` };
}
const grant = (R: string, username: string, password: string, extra: Record<string, string> = {}) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password, ...extra });
/** A mapper of the provider `parentId` (config values as single-valued lists). */
async function addMapper(R: string, parentId: string, name: string, providerId: string, config: Record<string, string>) {
  return createdId(
    await api.post(`/admin/realms/${R}/components`, {
      name,
      providerId,
      providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
      parentId,
      config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
    }),
    name,
  );
}
/** A request to the app with a bearer token. */
const withToken = (token: string) => ({
  get: (path: string) => request(ts.app).get(path).set('authorization', `Bearer ${token}`),
  post: (path: string, body?: object) => request(ts.app).post(path).set('authorization', `Bearer ${token}`).send(body),
});
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
const storedUsers = (realmId: string) => ts.db.models.User.count({ where: { realmId } });
const enc = encodeURIComponent;

async function modifyPerson(uid: string, type: string, values: string[]) {
  const c = await slapd.admin();
  try {
    await c.modify(`uid=${uid},${PEOPLE_DN}`, new Change({ operation: 'replace', modification: new Attribute({ type, values }) }));
  } finally {
    await c.unbind();
  }
}

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP users with import off', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldaptransient0'));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('search, username and email filters and GET /users/{id} serve directory users with StorageIds; nothing is stored', async () => {
    const { R, id, realmId, sid } = await world();
    const found = (await api.get(`/admin/realms/${R}/users?search=jbrown`).expect(200)).body;
    expect(found).toEqual([
      expect.objectContaining({
        id: sid('jbrown'),
        username: 'jbrown',
        email: 'jbrown@example.org',
        lastName: 'Brown',
        origin: id,
      }),
    ]);
    // Keycloak's InMemoryUserAdapter carries no federationLink; `origin` names the provider.
    expect(found[0].federationLink).toBeUndefined();
    expect(found[0].attributes.LDAP_ENTRY_DN).toEqual([`uid=jbrown,${PEOPLE_DN}`]);
    const byName = (await api.get(`/admin/realms/${R}/users?username=bwilson&exact=true`).expect(200)).body;
    expect(byName.map((u: { id: string }) => u.id)).toEqual([sid('bwilson')]);
    const byEmail = (await api.get(`/admin/realms/${R}/users?email=rsmith@example.org&exact=true`).expect(200)).body;
    expect(byEmail.map((u: { id: string }) => u.id)).toEqual([sid('rsmith')]);

    // GraphQL's User has the same `origin` (one representation for both fronts).
    const gql = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await ts.token()}`)
      .send({ query: `{ user(realm: "${R}", id: "${sid('rsmith')}") { id origin federationLink } }` })
      .expect(200);
    expect(gql.body.data.user).toEqual({ id: sid('rsmith'), origin: id, federationLink: null });
    const one = (await api.get(`/admin/realms/${R}/users/${enc(sid('rsmith'))}`).expect(200)).body;
    expect(one).toMatchObject({ id: sid('rsmith'), username: 'rsmith', enabled: true, origin: id, requiredActions: [] });
    expect(one.federationLink).toBeUndefined();
    expect(one.attributes.LDAP_ID[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api.get(`/admin/realms/${R}/users/${enc(sid('nobody'))}`).expect(404)).body).toEqual({ error: 'User not found' });
    expect((await api.get(`/admin/realms/${R}/users/${enc(`f:${realmId}:jbrown`)}`).expect(404)).body).toEqual({
      error: 'User not found',
    });
    // Bounded SQL: the provider list is shared between requests, the user is read from the directory.
    const measured = await ts.countSql(() => api.get(`/admin/realms/${R}/users/${enc(sid('rsmith'))}`).expect(200));
    const listed = await ts.countSql(() => api.get(`/admin/realms/${R}/users?search=r`).expect(200));
    // Warm: the bearer check only for the user; the search costs what the same search costs in a realm without LDAP.
    expect(measured.count).toBeLessThanOrEqual(2);
    await api.post('/admin/realms', { realm: `${R}ctl`, enabled: true }).expect(201);
    await api.get(`/admin/realms/${R}ctl/users?search=r`).expect(200);
    const control = await ts.countSql(() => api.get(`/admin/realms/${R}ctl/users?search=r`).expect(200));
    expect(listed.count).toBe(control.count);
    expect(await storedUsers(realmId)).toBe(0);
    // Keycloak counts only providers that count (UserCountMethodsProvider): LDAP's users are not in it.
    expect((await api.get(`/admin/realms/${R}/users/count`).expect(200)).body).toBe(0);
  });

  test('the directory search follows Keycloak: terms are prefixes unless quoted or wildcarded, all must match; filters are infix', async () => {
    const { R } = await world();
    const names = async (query: string) =>
      ((await api.get(`/admin/realms/${R}/users?${query}`).expect(200)).body as { username: string }[]).map((u) => u.username).sort();
    // LDAPStorageProvider#searchLDAP: a term is a prefix of the username, email, first or last name.
    expect(await names('search=brown')).toEqual(['jbrown']);
    expect(await names('search=rown')).toEqual([]);
    expect(await names(`search=${enc('*rown')}`)).toEqual(['jbrown']);
    expect(await names(`search=${enc('b*son')}`)).toEqual(['bwilson']);
    // Every term must match (AND), each on any of the four fields (OR).
    expect(await names(`search=${enc('james brown')}`)).toEqual(['jbrown']);
    expect(await names(`search=${enc('james smith')}`)).toEqual([]);
    expect(await names(`search=${enc('"jbrown"')}`)).toEqual(['jbrown']);
    expect(await names(`search=${enc('"jbro"')}`)).toEqual([]);
    expect(await names(`search=${enc('*')}`)).toEqual(['bwilson', 'jbrown', 'rsmith']);
    // LDAPStorageProvider#searchLDAPByAttributes: the username and email filters match `*value*`.
    expect(await names('username=wils')).toEqual(['bwilson']);
    expect(await names(`email=${enc('smith@')}`)).toEqual(['rsmith']);
    // Filter syntax in a term is a literal, never an injected assertion.
    expect(await names(`search=${enc('*)(uid=*')}`)).toEqual([]);
  });

  test('a listing shows local users first, then the directory users, paged across both', async () => {
    const { R, realmId, sid } = await world();
    await createUser(ts, R, 'aaa-local');
    const all = (await api.get(`/admin/realms/${R}/users`).expect(200)).body.map((u: { username: string }) => u.username);
    expect(all).toEqual(['aaa-local', 'bwilson', 'jbrown', 'rsmith']);
    const page = (await api.get(`/admin/realms/${R}/users?first=1&max=2`).expect(200)).body.map((u: { id: string }) => u.id);
    expect(page).toEqual([sid('bwilson'), sid('jbrown')]);
    const last = (await api.get(`/admin/realms/${R}/users?first=3&max=5&briefRepresentation=true`).expect(200)).body;
    expect(last.map((u: { id: string }) => u.id)).toEqual([sid('rsmith')]);
    expect((await api.get(`/admin/realms/${R}/users?firstName=James`).expect(200)).body).toEqual([]);
    expect(await storedUsers(realmId)).toBe(1);
  });

  test('the password grant logs a directory user in with a session and tokens whose sub is the StorageId', async () => {
    const { R, realmId, sid } = await world();
    expect((await grant(R, 'jbrown', 'wrong').expect(400)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
    // admin-cli's access tokens are lightweight (Keycloak 26): the ID token and userinfo carry the subject.
    const ok = (await grant(R, 'jbrown', 'jbrown-pw', { scope: 'openid' }).expect(200)).body;
    expect(claimsOf(ok.id_token)).toMatchObject({ sub: sid('jbrown'), preferred_username: 'jbrown', family_name: 'Brown' });
    // By e-mail too, and the refresh token's session holds the transient user.
    const byEmail = (await grant(R, 'jbrown@example.org', 'jbrown-pw', { scope: 'openid' }).expect(200)).body;
    expect(claimsOf(byEmail.id_token).sub).toBe(sid('jbrown'));
    const refreshed = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: ok.refresh_token })
      .expect(200);
    expect(claimsOf(refreshed.body.id_token).sub).toBe(sid('jbrown'));
    const info = await request(ts.app)
      .get(`/realms/${R}/protocol/openid-connect/userinfo`)
      .set('authorization', `Bearer ${ok.access_token}`)
      .expect(200);
    expect(info.body).toMatchObject({ sub: sid('jbrown'), preferred_username: 'jbrown', email: 'jbrown@example.org' });

    // offline_access comes with the default role: an offline token for the transient user.
    const offline = (await grant(R, 'jbrown', 'jbrown-pw', { scope: 'openid offline_access' }).expect(200)).body;
    expect(claimsOf(offline.refresh_token).typ).toBe('Offline');
    const sessions = (await api.get(`/admin/realms/${R}/users/${enc(sid('jbrown'))}/sessions`).expect(200)).body;
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ userId: sid('jbrown'), username: 'jbrown' });
    expect(await storedUsers(realmId)).toBe(0);
    // Logging the user out removes its sessions; the refresh token no longer works.
    await api.post(`/admin/realms/${R}/users/${enc(sid('jbrown'))}/logout`).expect(204);
    expect((await api.get(`/admin/realms/${R}/users/${enc(sid('jbrown'))}/sessions`).expect(200)).body).toEqual([]);
  });

  test('brute-force detection counts the failures of a transient user and locks it out', async () => {
    const { R, sid } = await world();
    await api.put(`/admin/realms/${R}`, { bruteForceProtected: true, failureFactor: 2, waitIncrementSeconds: 600 }).expect(204);
    for (let i = 0; i < 2; i++) await grant(R, 'bwilson', 'wrong').expect(400);
    const locked = (await grant(R, 'bwilson', 'bwilson-pw').expect(400)).body;
    expect(locked.error).toBe('invalid_grant');
    const status = (await api.get(`/admin/realms/${R}/attack-detection/brute-force/users/${enc(sid('bwilson'))}`).expect(200)).body;
    expect(status).toMatchObject({ numFailures: 2, disabled: true });
    await api.delete(`/admin/realms/${R}/attack-detection/brute-force/users/${enc(sid('bwilson'))}`).expect(204);
    await grant(R, 'bwilson', 'bwilson-pw').expect(200);
  });

  test('a user deleted in LDAP is gone at once; an attribute changed in LDAP shows at once', async () => {
    const { R, sid } = await world();
    await slapd.addUser('transient1', 'Tran', 'Sient', 'transient1@example.org', 'transient1-pw');
    const ok = (await grant(R, 'transient1', 'transient1-pw').expect(200)).body;
    await modifyPerson('transient1', 'sn', ['Changed']);
    expect((await api.get(`/admin/realms/${R}/users/${enc(sid('transient1'))}`).expect(200)).body.lastName).toBe('Changed');
    const c = await slapd.admin();
    await c.del(`uid=transient1,${PEOPLE_DN}`);
    await c.unbind();
    expect((await api.get(`/admin/realms/${R}/users/${enc(sid('transient1'))}`).expect(404)).body).toEqual({ error: 'User not found' });
    expect((await api.get(`/admin/realms/${R}/users?search=transient1`).expect(200)).body).toEqual([]);
    expect((await grant(R, 'transient1', 'transient1-pw').expect(400)).body.error).toBe('invalid_grant');
    // The session's user is gone: its refresh token is refused.
    const refreshed = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: ok.refresh_token });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  test('WRITABLE: PUT /users/{id} writes the change to LDAP; a change LDAP cannot hold is refused with 400', async () => {
    const { R, sid } = await world({ editMode: 'WRITABLE' });
    await slapd.addUser('writer1', 'Wri', 'Ter', 'writer1@example.org', 'writer1-pw');
    const url = `/admin/realms/${R}/users/${enc(sid('writer1'))}`;
    const rep = (await api.get(url).expect(200)).body;
    const writes = await ts.writesDuring(() => api.put(url, { ...rep, lastName: 'Written', email: 'w1@example.org' }).expect(204));
    expect(writes.writes.filter((w) => /user_entity|user_attribute/.test(w))).toEqual([]);
    expect(await personEntry(slapd, 'writer1')).toMatchObject({ sn: 'Written', mail: 'w1@example.org' });
    expect((await api.get(url).expect(200)).body).toMatchObject({ lastName: 'Written', email: 'w1@example.org' });
    expect((await api.put(url, { enabled: false }).expect(400)).body).toEqual({
      errorMessage: "The user is read-only. Not possible to write 'enabled' when updating user 'writer1'.",
    });
    expect((await api.put(url, { requiredActions: ['VERIFY_EMAIL'] }).expect(400)).body.errorMessage).toMatch(
      /Not possible to write 'required action VERIFY_EMAIL'/,
    );
    // The password goes to the directory.
    await api.put(`${url}/reset-password`, { type: 'password', value: 'writer1-new', temporary: false }).expect(204);
    await grant(R, 'writer1', 'writer1-new').expect(200);
    // A delete removes the entry.
    await api.delete(url).expect(204);
    expect(await personEntry(slapd, 'writer1')).toBeUndefined();
    await api.get(url).expect(404);
  });

  test('READ_ONLY refuses a change of a mapped field; role and group writes are refused with 400, reads answer', async () => {
    const { R, sid } = await world();
    const url = `/admin/realms/${R}/users/${enc(sid('bwilson'))}`;
    const put = (await api.put(url, { lastName: 'Other' }).expect(400)).body;
    expect(put.errorMessage ?? put.errors?.[0]?.errorMessage).toBe('error-user-attribute-read-only');
    await api.post(`/admin/realms/${R}/roles`, { name: 'fed-role' }).expect(201);
    const role = (await api.get(`/admin/realms/${R}/roles/fed-role`).expect(200)).body;
    expect((await api.post(`${url}/role-mappings/realm`, [role]).expect(400)).body).toEqual({
      error: 'invalid_request',
      error_description: 'Could not add user role mappings!',
    });
    // The realm's default role, which Keycloak's InMemoryUserAdapter#addDefaults grants in memory.
    const mappings = (await api.get(`${url}/role-mappings`).expect(200)).body;
    expect(mappings.realmMappings.map((r: { name: string }) => r.name)).toEqual([`default-roles-${R}`]);
    const composite = (await api.get(`${url}/role-mappings/realm/composite`).expect(200)).body.map((r: { name: string }) => r.name);
    expect(composite).toEqual(expect.arrayContaining([`default-roles-${R}`, 'offline_access', 'uma_authorization']));
    const group = createdId(await api.post(`/admin/realms/${R}/groups`, { name: 'fed-group' }), 'group');
    expect((await api.put(`${url}/groups/${group}`).expect(400)).body).toEqual({
      errorMessage: "The user is read-only. Not possible to write 'group mapping for group fed-group' when updating user 'bwilson'.",
    });
    expect((await api.get(`${url}/groups`).expect(200)).body).toEqual([]);
    expect((await api.put(`${url}/reset-password`, { type: 'password', value: 'x-pw-1', temporary: false }).expect(400)).body).toEqual({
      errorMessage: "Can't reset password as account is read only",
    });
  });

  test('group and role mappers give a transient user the Keycloak groups and roles of its LDAP groups, in the admin API and in tokens', async () => {
    const { R, id, sid } = await world();
    const mapper = async (name: string, providerId: string, config: Record<string, string>) =>
      createdId(
        await api.post(`/admin/realms/${R}/components`, {
          name,
          providerId,
          providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
          parentId: id,
          config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
        }),
        name,
      );
    const groups = await mapper('groups', 'group-ldap-mapper', { 'groups.dn': GROUPS_DN, 'groups.ldap.filter': '(cn=developers)' });
    const roles = await mapper('roles', 'role-ldap-mapper', { 'roles.dn': GROUPS_DN, 'roles.ldap.filter': '(cn=admins)' });
    // The mappers' sync makes the Keycloak group and role (a read never creates them).
    for (const m of [groups, roles])
      await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${m}/sync?direction=fedToKeycloak`).expect(200);
    const paths = (await api.get(`/admin/realms/${R}/users/${enc(sid('jbrown'))}/groups`).expect(200)).body.map(
      (g: { path: string }) => g.path,
    );
    expect(paths).toEqual(['/developers']);
    const realmRoles = (await api.get(`/admin/realms/${R}/users/${enc(sid('rsmith'))}/role-mappings/realm`).expect(200)).body;
    expect(realmRoles.map((r: { name: string }) => r.name).sort()).toEqual(['admins', `default-roles-${R}`]);
    await createClient(api, R, { clientId: 'svc', publicClient: true, directAccessGrantsEnabled: true });
    const token = async (username: string) =>
      claimsOf(
        (
          await request(ts.app)
            .post(`/realms/${R}/protocol/openid-connect/token`)
            .type('form')
            .send({ grant_type: 'password', client_id: 'svc', username, password: `${username}-pw` })
            .expect(200)
        ).body.access_token,
      );
    expect((await token('rsmith')).realm_access.roles).toEqual(expect.arrayContaining(['admins', 'offline_access']));
    expect((await token('jbrown')).realm_access.roles).not.toContain('admins');
    // A change in LDAP shows at once: rsmith leaves admins.
    const c = await slapd.admin();
    await c.modify(
      `cn=admins,${GROUPS_DN}`,
      new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values: [`uid=bwilson,${PEOPLE_DN}`] }) }),
    );
    await c.unbind();
    expect((await token('rsmith')).realm_access.roles).not.toContain('admins');
    expect((await token('bwilson')).realm_access.roles).toContain('admins');
  });

  test('a directory user with realm-management roles uses the admin API with its own token; userinfo and introspection accept it', async () => {
    // Keycloak resolves a bearer token's user through UserStorageManager: a transient user's roles are
    // its InMemoryUserAdapter's and its mappers' (here HardcodedLDAPRoleStorageMapper's client role).
    const { R, id, sid } = await world();
    const plain = (await grant(R, 'bwilson', 'bwilson-pw').expect(200)).body.access_token;
    // No admin role: 403, not 401 (the token and its user are valid).
    expect((await withToken(plain).get(`/admin/realms/${R}/users`)).status).toBe(403);
    await addMapper(R, id, 'view-users', 'hardcoded-ldap-role-mapper', { role: 'realm-management.view-users' });
    const token = (await grant(R, 'jbrown', 'jbrown-pw', { scope: 'openid' }).expect(200)).body.access_token;
    const as = withToken(token);
    const listed = (await as.get(`/admin/realms/${R}/users?search=bwilson`).expect(200)).body;
    expect(listed.map((u: { id: string }) => u.id)).toEqual([sid('bwilson')]);
    expect((await as.get(`/admin/realms/${R}/users/${enc(sid('jbrown'))}`).expect(200)).body.username).toBe('jbrown');
    // view-users, not manage-users or manage-realm.
    expect((await as.post(`/admin/realms/${R}/roles`, { name: 'nope' })).status).toBe(403);
    expect((await as.get(`/admin/realms/ldaptransient0/users`)).status).toBe(403);
    // Warm: the bearer statement, then the user's memberships (default groups, the hardcoded role's
    // client and role, composites) and the admin client's role names; the directory is asked once.
    const measured = await ts.countSql(() => as.get(`/admin/realms/${R}/users/${enc(sid('bwilson'))}`).expect(200));
    expect(measured.count).toBeLessThanOrEqual(6);
    await as.get('/admin/serverinfo').expect(200);

    // The role of its LDAP group (bwilson is in admins: the mapper test above changed the group), made a composite of manage-realm, lets it write.
    const roles = await addMapper(R, id, 'roles', 'role-ldap-mapper', { 'roles.dn': GROUPS_DN, 'roles.ldap.filter': '(cn=admins)' });
    await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${roles}/sync?direction=fedToKeycloak`).expect(200);
    const rm = (await api.get(`/admin/realms/${R}/clients?clientId=realm-management`).expect(200)).body[0];
    const manageRealm = (await api.get(`/admin/realms/${R}/clients/${rm.id}/roles/manage-realm`).expect(200)).body;
    await api.post(`/admin/realms/${R}/roles/admins/composites`, [manageRealm]).expect(204);
    const member = withToken((await grant(R, 'bwilson', 'bwilson-pw').expect(200)).body.access_token);
    await member.post(`/admin/realms/${R}/roles`, { name: 'made-by-member' }).expect(201);

    // userinfo and introspection read the same user.
    expect((await as.get(`/realms/${R}/protocol/openid-connect/userinfo`).expect(200)).body.sub).toBe(sid('jbrown'));
    await createClient(api, R, { clientId: 'rs', secret: 'rs-secret', publicClient: false });
    const introspect = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token/introspect`)
      .auth('rs', 'rs-secret')
      .type('form')
      .send({ token })
      .expect(200);
    expect(introspect.body).toMatchObject({ active: true, sub: sid('jbrown'), username: 'jbrown' });

    // Its entry deleted in LDAP: the token's user is gone (401), as a deleted local user's.
    await slapd.addUser('tadmin', 'T', 'Admin', 'tadmin@example.org', 'tadmin-pw');
    const gone = withToken((await grant(R, 'tadmin', 'tadmin-pw').expect(200)).body.access_token);
    await gone.get(`/admin/realms/${R}/users`).expect(200);
    const c = await slapd.admin();
    await c.del(`uid=tadmin,${PEOPLE_DN}`);
    await c.unbind();
    expect((await gone.get(`/admin/realms/${R}/users`)).status).toBe(401);
  });

  test("client-updater-source-roles and -groups count a transient writer's mapper and default roles and its mapper groups (ClientUpdaterSourceRolesCondition, ClientUpdaterSourceGroupsCondition)", async () => {
    const { R, id } = await world();
    const base = `/admin/realms/${R}`;
    await api.post(`${base}/roles`, { name: 'writers' }).expect(201);
    await api.post(`${base}/roles`, { name: 'by-default' }).expect(201);
    await addMapper(R, id, 'manage', 'hardcoded-ldap-role-mapper', { role: 'realm-management.manage-clients' });
    const token = (await grant(R, 'jbrown', 'jbrown-pw').expect(200)).body.access_token;
    const as = withToken(token);
    const enforce = async (roles: string[]) => {
      const executors = [{ executor: 'pkce-enforcer', configuration: {} }];
      await api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
      const conditions = [{ condition: 'client-updater-source-roles', configuration: { roles } }];
      await api
        .put(`${base}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] })
        .expect(204);
    };
    const refusedBy = (res: { status: number; body: unknown }) =>
      expect([res.status, res.body]).toEqual([
        400,
        { error: 'invalid_client_metadata', error_description: 'Invalid client metadata: code_challenge_method' },
      ]);
    // The writer does not hold `writers`: the policy does not apply.
    await enforce(['writers']);
    expect((await as.post(`${base}/clients`, { clientId: 'tr-free' })).status).toBe(201);
    // Through a hardcoded role mapper it does (it has no role mapping row).
    await addMapper(R, id, 'writers', 'hardcoded-ldap-role-mapper', { role: 'writers' });
    refusedBy(await as.post(`${base}/clients`, { clientId: 'tr-mapper' }));
    // Through the realm's default role (a composite of it).
    const dflt = (await api.get(`${base}/roles/default-roles-${R}`).expect(200)).body.id;
    const byDefault = (await api.get(`${base}/roles/by-default`).expect(200)).body;
    await api.post(`${base}/roles-by-id/${dflt}/composites`, [byDefault]).expect(204);
    await enforce(['by-default']);
    refusedBy(await as.post(`${base}/clients`, { clientId: 'tr-default' }));
    // The client role of its mapper, named `clientId.role`.
    await enforce(['realm-management.manage-clients']);
    refusedBy(await as.post(`${base}/clients`, { clientId: 'tr-client-role' }));
    // client-updater-source-groups: the group of a hardcoded group mapper counts as membership.
    await createGroup(api, R, 'writers-group');
    const groupPolicy = [{ condition: 'client-updater-source-groups', configuration: { groups: ['writers-group'] } }];
    await api
      .put(`${base}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions: groupPolicy, profiles: ['p'] }] })
      .expect(204);
    expect((await as.post(`${base}/clients`, { clientId: 'tg-free' })).status).toBe(201);
    await addMapper(R, id, 'writers-group', 'hardcoded-ldap-group-mapper', { group: '/writers-group' });
    refusedBy(await as.post(`${base}/clients`, { clientId: 'tg-mapper' }));
    await api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204);
  });

  test('fine-grained admin permissions evaluate a transient caller with the groups and roles of its entry', async () => {
    // Keycloak evaluates the policies with the caller's UserModel (the InMemoryUserAdapter under the mapper
    // proxies): a group policy sees the group a hardcoded-ldap-group-mapper gives, a role policy the role.
    const { R, id } = await world();
    const helpdesk = await createGroup(api, R, 'helpdesk');
    const customers = await createGroup(api, R, 'customers');
    const cust = await createUser(ts, R, 'cust');
    await api.put(`/admin/realms/${R}/users/${cust}/groups/${customers}`).expect(204);
    const rs = `/admin/realms/${R}/clients/${await clientUuid(api, R, 'realm-management')}/authz/resource-server`;
    const ref = (await api.put(`/admin/realms/${R}/groups/${customers}/management/permissions`, { enabled: true }).expect(200)).body;
    const policy = (
      await api.post(`${rs}/policy/group`, { name: 'helpdesk members', groups: [{ id: helpdesk, extendChildren: false }] }).expect(201)
    ).body.id;
    await attachPolicies(api, rs, ref.scopePermissions['manage-members'], [policy]);
    const jbrown = async () => withToken((await grant(R, 'jbrown', 'jbrown-pw').expect(200)).body.access_token);
    // Not in helpdesk: no admin role, no permission.
    expect((await (await jbrown()).get(`/admin/realms/${R}/users/${cust}`)).status).toBe(403);
    await addMapper(R, id, 'helpdesk', 'hardcoded-ldap-group-mapper', { group: '/helpdesk' });
    const agent = await jbrown();
    expect((await agent.get(`/admin/realms/${R}/users/${cust}`).expect(200)).body.username).toBe('cust');
    // The permission covers the members of "customers" only.
    const other = await createUser(ts, R, 'other');
    expect((await agent.get(`/admin/realms/${R}/users/${other}`)).status).toBe(403);
  });

  test('hardcoded role and group mappers, default roles and default groups: role mappings, groups and token claims', async () => {
    // AbstractInMemoryUserAdapter#addDefaults grants the default role and joins the default groups;
    // HardcodedLDAPRoleStorageMapper and HardcodedLDAPGroupStorageMapper add theirs in their proxies.
    const { R, id, sid } = await world();
    const groupWithRole = async (path: string, role: string, parent?: string) => {
      await api.post(`/admin/realms/${R}/roles`, { name: role }).expect(201);
      const rep = (await api.get(`/admin/realms/${R}/roles/${role}`).expect(200)).body;
      const gid = createdId(
        await api.post(parent ? `/admin/realms/${R}/groups/${parent}/children` : `/admin/realms/${R}/groups`, { name: path }),
        path,
      );
      await api.post(`/admin/realms/${R}/groups/${gid}/role-mappings/realm`, [rep]).expect(204);
      return gid;
    };
    const dflt = await groupWithRole('dflt', 'dflt-role');
    await api.put(`/admin/realms/${R}/default-groups/${dflt}`).expect(204);
    const top = createdId(await api.post(`/admin/realms/${R}/groups`, { name: 'hc' }), 'hc');
    await groupWithRole('sub', 'hc-group-role', top);
    await api.post(`/admin/realms/${R}/roles`, { name: 'hc-role' }).expect(201);
    const svc = await createClient(api, R, { clientId: 'svc', publicClient: true, directAccessGrantsEnabled: true });
    await api.post(`/admin/realms/${R}/clients/${svc}/roles`, { name: 'svc-role' }).expect(201);
    await addMapper(R, id, 'hc-role', 'hardcoded-ldap-role-mapper', { role: 'hc-role' });
    await addMapper(R, id, 'hc-client-role', 'hardcoded-ldap-role-mapper', { role: 'svc.svc-role' });
    await addMapper(R, id, 'hc-group', 'hardcoded-ldap-group-mapper', { group: '/hc/sub' });
    await addMapper(R, id, 'hc-missing', 'hardcoded-ldap-role-mapper', { role: 'no-such-role' });

    const url = `/admin/realms/${R}/users/${enc(sid('jbrown'))}`;
    const groups = (await api.get(`${url}/groups`).expect(200)).body.map((g: { path: string }) => g.path);
    expect(groups).toEqual(['/dflt', '/hc/sub']);
    expect((await api.get(`${url}/groups/count`).expect(200)).body).toEqual({ count: 2 });
    const mappings = (await api.get(`${url}/role-mappings`).expect(200)).body;
    expect(mappings.realmMappings.map((r: { name: string }) => r.name)).toEqual([`default-roles-${R}`, 'hc-role']);
    expect(mappings.clientMappings.svc.mappings.map((r: { name: string }) => r.name)).toEqual(['svc-role']);
    const composite = (await api.get(`${url}/role-mappings/realm/composite`).expect(200)).body.map((r: { name: string }) => r.name);
    expect(composite).toEqual(expect.arrayContaining(['hc-role', 'dflt-role', 'hc-group-role', 'offline_access']));
    // A hardcoded group cannot be left, a hardcoded role not removed (read-only, as every write of such a user).
    expect((await api.delete(`${url}/groups/${dflt}`)).status).toBe(400);

    await api
      .post(`/admin/realms/${R}/clients/${svc}/protocol-mappers/models`, {
        name: 'groups',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-group-membership-mapper',
        config: { 'claim.name': 'groups', 'full.path': 'true', 'access.token.claim': 'true' },
      })
      .expect(201);
    const claims = claimsOf(
      (
        await request(ts.app)
          .post(`/realms/${R}/protocol/openid-connect/token`)
          .type('form')
          .send({ grant_type: 'password', client_id: 'svc', username: 'jbrown', password: 'jbrown-pw' })
          .expect(200)
      ).body.access_token,
    );
    expect(claims.realm_access.roles).toEqual(expect.arrayContaining(['hc-role', 'dflt-role', 'hc-group-role', 'offline_access']));
    expect(claims.resource_access.svc.roles).toEqual(['svc-role']);
    expect([...claims.groups].sort()).toEqual(['/dflt', '/hc/sub']);
  });

  test('impersonation of a transient user: a session for its StorageId with the impersonator, the event; by a transient admin too', async () => {
    const { R, id, sid } = await world();
    await api.put(`/admin/realms/${R}`, { eventsEnabled: true }).expect(204);
    const res = await api.post(`/admin/realms/${R}/users/${enc(sid('rsmith'))}/impersonation`).expect(200);
    expect(res.body).toEqual({ redirect: `http://localhost:8080/realms/${R}/account`, sameRealm: false });
    const sessions = (await api.get(`/admin/realms/${R}/users/${enc(sid('rsmith'))}/sessions`).expect(200)).body;
    expect(sessions).toEqual([expect.objectContaining({ userId: sid('rsmith'), username: 'rsmith' })]);
    const rows = await ts.db.models.UserSession.findAll({ where: { userId: sid('rsmith') } });
    expect(rows[0].notes).toMatchObject({ IMPERSONATOR_USERNAME: 'admin' });
    const event = await ts.db.models.Event.findOne({ where: { userId: sid('rsmith'), type: 'IMPERSONATE' } });
    expect(event?.details).toEqual({ impersonator_realm: 'master', impersonator: 'admin' });

    // A directory admin of the realm with the impersonation role (hardcoded role mapper) impersonates another.
    await addMapper(R, id, 'imp', 'hardcoded-ldap-role-mapper', { role: 'realm-management.impersonation' });
    await addMapper(R, id, 'view', 'hardcoded-ldap-role-mapper', { role: 'realm-management.view-users' });
    const admin = withToken((await grant(R, 'jbrown', 'jbrown-pw').expect(200)).body.access_token);
    const mine = await admin.post(`/admin/realms/${R}/users/${enc(sid('bwilson'))}/impersonation`).expect(200);
    expect(mine.body.sameRealm).toBe(true);
    const theirs = await ts.db.models.UserSession.findAll({ where: { userId: sid('bwilson') } });
    expect(theirs[0].notes).toEqual({ IMPERSONATOR_ID: sid('jbrown'), IMPERSONATOR_USERNAME: 'jbrown' });
    // The impersonator's own session in the realm ends (Keycloak's same-realm impersonation): its token is refused.
    expect((await admin.get(`/admin/realms/${R}/users`)).status).toBe(401);
    // A disabled-looking or unknown StorageId is 404.
    expect((await api.post(`/admin/realms/${R}/users/${enc(sid('nobody'))}/impersonation`)).status).toBe(404);
  });
  test('the browser login accepts the LDAP password of a directory user; the code gives tokens for the StorageId, SSO finds it again', async () => {
    const w = await loginWorld('ldaptransientbrowser');
    try {
      const realmId = (await w.api.get('/admin/realms/ldaptransientbrowser').expect(200)).body.id;
      const id = createdId(
        await w.api.post('/admin/realms/ldaptransientbrowser/components', ldapComponent(slapd, realmId, { importEnabled: 'false' })),
        'ldap provider',
      );
      const wrong = await signIn(new Jar(), w.authUrl(), 'rsmith', 'bad');
      expect(wrong.status).toBe(401);
      expect(pageError(await wrong.text())).toBe('Invalid username or password.');
      const jar = new Jar();
      const res = await signIn(jar, w.authUrl(), 'rsmith', 'rsmith-pw');
      expect(res.status).toBe(302);
      const tokens = await exchange(w, redirectParams(res).get('code') as string);
      expect(tokens.status).toBe(200);
      expect(claimsOf(String(tokens.body.id_token)).sub).toBe(`f:${id}:rsmith`);
      // The SSO cookie's session names the transient user: a second authorization needs no form.
      const again = await jar.fetch(w.authUrl({ state: 'st-2' }));
      expect(again.status).toBe(302);
      expect(redirectParams(again).get('code')).toEqual(expect.any(String));
      // A consent is kept as Keycloak keeps it in its federated storage (UserStorageManager#addConsent):
      // given once, the next login goes straight through; the admin API lists and revokes it.
      await createClient(w.api, 'ldaptransientbrowser', {
        clientId: 'third',
        publicClient: true,
        consentRequired: true,
        redirectUris: [REDIRECT],
      });
      const sid = `f:${id}:rsmith`;
      const asked = await signIn(new Jar(), w.authUrl({ client_id: 'third' }), 'rsmith', 'rsmith-pw');
      expect(asked.status).toBe(200);
      const jarC = new Jar();
      const page = await signIn(jarC, w.authUrl({ client_id: 'third' }), 'rsmith', 'rsmith-pw');
      expect((await jarC.post(formAction(await page.text()), { accept: 'yes' })).status).toBe(302);
      const second = await signIn(new Jar(), w.authUrl({ client_id: 'third' }), 'rsmith', 'rsmith-pw');
      expect(second.status).toBe(302);
      expect(redirectParams(second).get('code')).toEqual(expect.any(String));
      const consents = (await w.api.get(`/admin/realms/ldaptransientbrowser/users/${enc(sid)}/consents`).expect(200)).body;
      expect(consents).toEqual([expect.objectContaining({ clientId: 'third', grantedClientScopes: expect.arrayContaining(['profile']) })]);
      // An identity-provider link is kept the same way (UserStorageManager#addFederatedIdentity).
      await w.api
        .post('/admin/realms/ldaptransientbrowser/identity-provider/instances', {
          alias: 'corp',
          providerId: 'oidc',
          enabled: true,
          config: {
            clientId: 'x',
            clientSecret: 'y',
            authorizationUrl: 'https://corp.example/auth',
            tokenUrl: 'https://corp.example/token',
          },
        })
        .expect(201);
      const link = `/admin/realms/ldaptransientbrowser/users/${enc(sid)}/federated-identity/corp`;
      await w.api.post(link, { userId: 'corp-42', userName: 'rob' }).expect(204);
      await w.api.post(link, { userId: 'corp-42', userName: 'rob' }).expect(409);
      expect((await w.api.get(`/admin/realms/ldaptransientbrowser/users/${enc(sid)}/federated-identity`).expect(200)).body).toEqual([
        { identityProvider: 'corp', userId: 'corp-42', userName: 'rob' },
      ]);
      // Revoked, the consent is asked for again.
      await w.api.delete(`/admin/realms/ldaptransientbrowser/users/${enc(sid)}/consents/third`).expect(204);
      expect((await signIn(new Jar(), w.authUrl({ client_id: 'third' }), 'rsmith', 'rsmith-pw')).status).toBe(200);
      await jarC.post(formAction(await (await signIn(jarC, w.authUrl({ client_id: 'third' }), 'rsmith', 'rsmith-pw')).text()), {
        accept: 'yes',
      });
      expect(await w.ts.db.models.UserConsent.count({ where: { userId: sid } })).toBe(1);
      // Removing the provider removes what its users left: sessions, consents, links (UserFederatedStorageProvider#preRemove).
      await w.api.delete(`/admin/realms/ldaptransientbrowser/components/${id}`).expect(204);
      expect(await w.ts.db.models.UserConsent.count({ where: { userId: sid } })).toBe(0);
      expect(await w.ts.db.models.FederatedIdentity.count({ where: { userId: sid } })).toBe(0);
      expect(await w.ts.db.models.UserSession.count({ where: { userId: sid } })).toBe(0);
      expect(await w.ts.db.models.User.count({ where: { realmId } })).toBe(1);
    } finally {
      await w.ts.close();
    }
  });
});
