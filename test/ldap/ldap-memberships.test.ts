import { Attribute, Change } from 'ldapts';
import request from 'supertest';
import { createdId, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, GROUPS_DN, ldapComponent, PEOPLE_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * The group and role mappers against a real slapd (GroupLDAPStorageMapper, RoleLDAPStorageMapper,
 * GroupTreeResolver, MembershipType and UserRolesRetrieveStrategy of Keycloak): LDAP nesting as
 * subgroups under a groups path, membership by UID (posixGroup memberUid), the users' memberOf (the
 * memberof overlay), keycloakToFed with subgroups, LDAP_ONLY joins and leaves written to LDAP,
 * READ_ONLY refusing to remove an LDAP membership, and a role mapper on a client's roles.
 */
let ts: TestServer;
let api: AdminApi;
let slapd: TestSlapd;
let n = 0;

const MAPPER_TYPE = 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper';
const dnOf = (uid: string) => `uid=${uid},${PEOPLE_DN}`;
const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);

/** A fresh realm with a provider whose users are all imported. */
async function world(opts: { sync?: boolean } = {}) {
  const R = `ldapmem${++n}`;
  await api.post('/admin/realms', { realm: R, enabled: true }).expect(201);
  const realmId = (await api.get(`/admin/realms/${R}`).expect(200)).body.id;
  const id = createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId)), 'ldap provider');
  if (opts.sync !== false) await api.post(`/admin/realms/${R}/user-storage/${id}/sync?action=triggerFullSync`).expect(200);
  const user = async (u: string) => (await api.get(`/admin/realms/${R}/users?username=${u}&exact=true`).expect(200)).body[0].id as string;
  const mapper = async (name: string, providerId: string, config: Record<string, string>) =>
    createdId(
      await api.post(`/admin/realms/${R}/components`, {
        name,
        providerId,
        providerType: MAPPER_TYPE,
        parentId: id,
        config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
      }),
      name,
    );
  const sync = async (mapperId: string, direction: 'fedToKeycloak' | 'keycloakToFed') =>
    (await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${mapperId}/sync?direction=${direction}`).expect(200)).body;
  const groupByPath = async (path: string) => (await api.get(`/admin/realms/${R}/group-by-path${path}`).expect(200)).body;
  const members = async (groupId: string) =>
    ((await api.get(`/admin/realms/${R}/groups/${groupId}/members`).expect(200)).body as Array<{ username: string }>)
      .map((u) => u.username)
      .sort();
  return { R, id, user, mapper, sync, groupByPath, members };
}

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP group and role mappers', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldapmem0'));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('a user imported at login or by a search gets the groups and roles LDAP gives it', async () => {
    const w = await world({ sync: false });
    await w.mapper('groups', 'group-ldap-mapper', { 'groups.dn': GROUPS_DN, 'groups.ldap.filter': '(cn=developers)' });
    await w.mapper('roles', 'role-ldap-mapper', { 'roles.dn': GROUPS_DN, 'roles.ldap.filter': '(cn=admins)' });
    const grant = await request(ts.app)
      .post(`/realms/${w.R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'jbrown', password: 'jbrown-pw' });
    expect(grant.status).toBe(200);
    const jbrown = await w.user('jbrown');
    const groups = (await api.get(`/admin/realms/${w.R}/users/${jbrown}/groups`).expect(200)).body.map((g: { path: string }) => g.path);
    expect(groups).toEqual(['/developers']);
    // rsmith comes in through the user search: the role mapper's LDAP group becomes its realm role.
    const rsmith = await w.user('rsmith');
    const roles = (await api.get(`/admin/realms/${w.R}/users/${rsmith}/role-mappings/realm`).expect(200)).body.map(
      (r: { name: string }) => r.name,
    );
    expect(roles).toContain('admins');
    expect((await api.get(`/admin/realms/${w.R}/users/${rsmith}/groups`).expect(200)).body).toEqual([]);
  });

  test('LDAP nesting becomes subgroups under the groups path; keycloakToFed writes subgroups as members', async () => {
    const w = await world();
    const child = await slapd.addGroup(`child${n}`, [dnOf('bwilson')]);
    await slapd.addGroup(`parent${n}`, [dnOf('jbrown'), child]);
    await api.post(`/admin/realms/${w.R}/groups`, { name: 'ldap' }).expect(201);
    const mapperId = await w.mapper('groups', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(|(cn=parent${n})(cn=child${n}))`,
      'groups.path': '/ldap',
      'preserve.group.inheritance': 'true',
    });
    expect(await w.sync(mapperId, 'fedToKeycloak')).toEqual({
      ignored: false,
      added: 2,
      updated: 0,
      removed: 0,
      failed: 0,
      status: '2 imported users, 0 updated users',
    });
    const parent = await w.groupByPath(`/ldap/parent${n}`);
    const sub = await w.groupByPath(`/ldap/parent${n}/child${n}`);
    expect(await w.members(parent.id)).toEqual(['jbrown']);
    expect(await w.members(sub.id)).toEqual(['bwilson']);
    expect(await w.sync(mapperId, 'fedToKeycloak')).toMatchObject({ added: 0, updated: 2 });
    // A Keycloak subgroup with a member: an LDAP group of its own, a member of its parent's.
    const extra = createdId(await api.post(`/admin/realms/${w.R}/groups/${parent.id}/children`, { name: `extra${n}` }), 'subgroup');
    await api.put(`/admin/realms/${w.R}/users/${await w.user('rsmith')}/groups/${extra}`).expect(204);
    expect(await w.sync(mapperId, 'keycloakToFed')).toMatchObject({ added: 1, updated: 2 });
    expect(list((await slapd.entry(`cn=extra${n},${GROUPS_DN}`, ['member']))?.member)).toEqual([dnOf('rsmith')]);
    const p = list((await slapd.entry(`cn=parent${n},${GROUPS_DN}`, ['member']))?.member);
    expect(p.sort()).toEqual([`cn=child${n},${GROUPS_DN}`, `cn=extra${n},${GROUPS_DN}`, dnOf('jbrown')].sort());
  });

  test('a group with two LDAP parents cannot be resolved: 400 with Keycloak message', async () => {
    const w = await world();
    const shared = await slapd.addGroup(`shared${n}`, [dnOf('jbrown')]);
    await slapd.addGroup(`pa${n}`, [shared]);
    await slapd.addGroup(`pb${n}`, [shared]);
    const mapperId = await w.mapper('groups', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(|(cn=shared${n})(cn=pa${n})(cn=pb${n}))`,
    });
    const r = await api.post(`/admin/realms/${w.R}/user-storage/${w.id}/mappers/${mapperId}/sync?direction=fedToKeycloak`).expect(400);
    expect(r.body.errorMessage).toMatch(/^Couldn't resolve groups from LDAP\. .*multiple parents$/);
  });

  test('membership by UID: a posixGroup memberUid names users by username', async () => {
    const w = await world();
    await slapd.addGroup(`posix${n}`, { objectClass: 'posixGroup', gidNumber: String(5000 + n), memberUid: ['rsmith', 'nobody'] });
    const mapperId = await w.mapper('posix', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'group.object.classes': 'posixGroup',
      'groups.ldap.filter': `(cn=posix${n})`,
      'membership.ldap.attribute': 'memberUid',
      'membership.attribute.type': 'UID',
      'preserve.group.inheritance': 'false',
    });
    expect(await w.sync(mapperId, 'fedToKeycloak')).toMatchObject({ added: 1 });
    expect(await w.members((await w.groupByPath(`/posix${n}`)).id)).toEqual(['rsmith']);
  });

  test("GET_GROUPS_FROM_USER_MEMBEROF_ATTRIBUTE reads the users' memberOf", async () => {
    const w = await world();
    await slapd.addGroup(`mo${n}`, [dnOf('jbrown'), dnOf('rsmith')]);
    expect(list((await slapd.entry(dnOf('jbrown'), ['memberOf']))?.memberOf)).toContain(`cn=mo${n},${GROUPS_DN}`);
    const mapperId = await w.mapper('memberof', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(cn=mo${n})`,
      // Not the groups' attribute: the memberships can only come from memberOf.
      'membership.ldap.attribute': 'uniqueMember',
      'user.roles.retrieve.strategy': 'GET_GROUPS_FROM_USER_MEMBEROF_ATTRIBUTE',
    });
    await w.sync(mapperId, 'fedToKeycloak');
    expect(await w.members((await w.groupByPath(`/mo${n}`)).id)).toEqual(['jbrown', 'rsmith']);
  });

  test('LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY: members of member groups belong to the outer group, on sync and on import', async () => {
    // Keycloak asks Active Directory's in-chain matching rule; the result is the same here on OpenLDAP.
    const w = await world({ sync: false });
    const inner = await slapd.addGroup(`rin${n}`, [dnOf('bwilson')]);
    const middle = await slapd.addGroup(`rmid${n}`, [dnOf('rsmith'), inner]);
    await slapd.addGroup(`rout${n}`, [middle]);
    const config = {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(|(cn=rin${n})(cn=rmid${n})(cn=rout${n}))`,
      'preserve.group.inheritance': 'false',
      'user.roles.retrieve.strategy': 'LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY',
    };
    const mapperId = await w.mapper('recursive', 'group-ldap-mapper', config);
    // bwilson comes in through a login: its groups are found up the chain.
    const grant = await request(ts.app)
      .post(`/realms/${w.R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'bwilson', password: 'bwilson-pw' });
    expect(grant.status).toBe(200);
    const groupsOf = async (u: string) =>
      ((await api.get(`/admin/realms/${w.R}/users/${await w.user(u)}/groups`).expect(200)).body as Array<{ path: string }>)
        .map((g) => g.path)
        .sort();
    expect(await groupsOf('bwilson')).toEqual([`/rin${n}`, `/rmid${n}`, `/rout${n}`]);
    await api.post(`/admin/realms/${w.R}/user-storage/${w.id}/sync?action=triggerFullSync`).expect(200);
    await w.sync(mapperId, 'fedToKeycloak');
    expect(await w.members((await w.groupByPath(`/rout${n}`)).id)).toEqual(['bwilson', 'rsmith']);
    expect(await w.members((await w.groupByPath(`/rmid${n}`)).id)).toEqual(['bwilson', 'rsmith']);
    expect(await w.members((await w.groupByPath(`/rin${n}`)).id)).toEqual(['bwilson']);
    expect(await groupsOf('rsmith')).toEqual([`/rmid${n}`, `/rout${n}`]);
  });

  test("READ_ONLY: a membership changed in LDAP shows at the user's next login; a local join stays", async () => {
    const w = await world({ sync: false });
    const a = await slapd.addGroup(`ra${n}`, [dnOf('jbrown'), dnOf('bwilson')]);
    const b = await slapd.addGroup(`rb${n}`, [dnOf('rsmith')]);
    await w.mapper('groups', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(|(cn=ra${n})(cn=rb${n}))`,
      'preserve.group.inheritance': 'false',
      mode: 'READ_ONLY',
    });
    await w.mapper('roles', 'role-ldap-mapper', {
      'roles.dn': GROUPS_DN,
      'roles.ldap.filter': `(|(cn=ra${n})(cn=rb${n}))`,
      mode: 'READ_ONLY',
    });
    const login = () =>
      request(ts.app)
        .post(`/realms/${w.R}/protocol/openid-connect/token`)
        .type('form')
        .send({ grant_type: 'password', client_id: 'ro-app', username: 'jbrown', password: 'jbrown-pw' })
        .expect(200);
    // Not admin-cli, whose tokens are lightweight (no realm_access).
    await api.post(`/admin/realms/${w.R}/clients`, { clientId: 'ro-app', publicClient: true, directAccessGrantsEnabled: true }).expect(201);
    await login();
    const jbrown = await w.user('jbrown');
    const groups = async () =>
      ((await api.get(`/admin/realms/${w.R}/users/${jbrown}/groups`).expect(200)).body as Array<{ path: string }>)
        .map((g) => g.path)
        .sort();
    const roles = async () =>
      ((await api.get(`/admin/realms/${w.R}/users/${jbrown}/role-mappings/realm`).expect(200)).body as Array<{ name: string }>)
        .map((r) => r.name)
        .filter((r) => r.startsWith('r'))
        .sort();
    expect(await groups()).toEqual([`/ra${n}`]);
    expect(await roles()).toEqual([`ra${n}`]);
    // A group of Keycloak's own, joined locally (READ_ONLY joins stay local).
    const local = createdId(await api.post(`/admin/realms/${w.R}/groups`, { name: `local${n}` }), 'local group');
    await api.put(`/admin/realms/${w.R}/users/${jbrown}/groups/${local}`).expect(204);
    // In LDAP, jbrown leaves ra and joins rb.
    const c = await slapd.admin();
    try {
      await c.modify(b, new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [dnOf('jbrown')] }) }));
      await c.modify(a, new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [dnOf('jbrown')] }) }));
    } finally {
      await c.unbind();
    }
    // Until the next login (or sync) idserver still shows the old membership; the login brings LDAP's.
    expect(await groups()).toEqual([`/local${n}`, `/ra${n}`]);
    const token = (await login()).body.access_token as string;
    expect(await groups()).toEqual([`/local${n}`, `/rb${n}`]);
    expect(await roles()).toEqual([`rb${n}`]);
    // The token of that login already carries the new role.
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.realm_access.roles).toContain(`rb${n}`);
    expect(claims.realm_access.roles).not.toContain(`ra${n}`);
  });

  test('LDAP_ONLY: joining and leaving through the admin API writes the member in LDAP', async () => {
    const w = await world();
    const dn = await slapd.addGroup(`lo${n}`, [dnOf('rsmith')]);
    const mapperId = await w.mapper('ldap-only', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(cn=lo${n})`,
      mode: 'LDAP_ONLY',
    });
    await w.sync(mapperId, 'fedToKeycloak');
    const group = await w.groupByPath(`/lo${n}`);
    const jbrown = await w.user('jbrown');
    await api.put(`/admin/realms/${w.R}/users/${jbrown}/groups/${group.id}`).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member).sort()).toEqual([dnOf('jbrown'), dnOf('rsmith')]);
    expect(await w.members(group.id)).toEqual(['jbrown', 'rsmith']);
    await api.delete(`/admin/realms/${w.R}/users/${jbrown}/groups/${group.id}`).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member)).toEqual([dnOf('rsmith')]);
    // The last member gives way to Keycloak's placeholder (groupOfNames needs one).
    await api.delete(`/admin/realms/${w.R}/users/${await w.user('rsmith')}/groups/${group.id}`).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member)).toEqual(['cn=empty-membership-placeholder']);
    // A group that LDAP does not have yet is created there by the first join.
    const fresh = createdId(await api.post(`/admin/realms/${w.R}/groups`, { name: `lonew${n}` }), 'group');
    await api.put(`/admin/realms/${w.R}/users/${jbrown}/groups/${fresh}`).expect(204);
    expect(list((await slapd.entry(`cn=lonew${n},${GROUPS_DN}`, ['member']))?.member)).toEqual([dnOf('jbrown')]);
  });

  test('READ_ONLY: leaving a group that LDAP has the membership of is refused; joining stays local', async () => {
    const w = await world();
    const dn = await slapd.addGroup(`ro${n}`, [dnOf('rsmith')]);
    const mapperId = await w.mapper('read-only', 'group-ldap-mapper', {
      'groups.dn': GROUPS_DN,
      'groups.ldap.filter': `(cn=ro${n})`,
      mode: 'READ_ONLY',
    });
    await w.sync(mapperId, 'fedToKeycloak');
    const group = await w.groupByPath(`/ro${n}`);
    const r = await api.delete(`/admin/realms/${w.R}/users/${await w.user('rsmith')}/groups/${group.id}`).expect(400);
    const msg = 'Not possible to delete LDAP group mappings as mapper mode is READ_ONLY';
    expect(r.body).toEqual({ error: msg, error_description: msg });
    expect(await w.members(group.id)).toEqual(['rsmith']);
    const jbrown = await w.user('jbrown');
    await api.put(`/admin/realms/${w.R}/users/${jbrown}/groups/${group.id}`).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member)).toEqual([dnOf('rsmith')]);
    await api.delete(`/admin/realms/${w.R}/users/${jbrown}/groups/${group.id}`).expect(204);
  });

  test("role mapper on a client's roles: LDAP groups become client roles; LDAP_ONLY grants and removals go to LDAP", async () => {
    const w = await world();
    const dn = await slapd.addGroup(`cr${n}`, [dnOf('bwilson')]);
    const app = createdId(await api.post(`/admin/realms/${w.R}/clients`, { clientId: 'ldap-app' }), 'client');
    const mapperId = await w.mapper('client-roles', 'role-ldap-mapper', {
      'roles.dn': GROUPS_DN,
      'roles.ldap.filter': `(cn=cr${n})`,
      'use.realm.roles.mapping': 'false',
      'client.id': 'ldap-app',
      mode: 'LDAP_ONLY',
    });
    expect(await w.sync(mapperId, 'fedToKeycloak')).toMatchObject({ added: 1, failed: 0 });
    const names = async (u: string) =>
      ((await api.get(`/admin/realms/${w.R}/users/${u}/role-mappings/clients/${app}`).expect(200)).body as Array<{ name: string }>).map(
        (x) => x.name,
      );
    expect(await names(await w.user('bwilson'))).toEqual([`cr${n}`]);
    const role = (await api.get(`/admin/realms/${w.R}/clients/${app}/roles/cr${n}`).expect(200)).body;
    const jbrown = await w.user('jbrown');
    await api.post(`/admin/realms/${w.R}/users/${jbrown}/role-mappings/clients/${app}`, [role]).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member).sort()).toEqual([dnOf('bwilson'), dnOf('jbrown')]);
    await api.delete(`/admin/realms/${w.R}/users/${jbrown}/role-mappings/clients/${app}`, [role]).expect(204);
    expect(list((await slapd.entry(dn, ['member']))?.member)).toEqual([dnOf('bwilson')]);
    expect(await names(jbrown)).toEqual([]);
  });
});
