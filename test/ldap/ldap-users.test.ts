import request from 'supertest';
import { createdId, createUser, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import {
  describeWithSlapd,
  ldapComponent,
  PEOPLE_DN,
  personCanBind,
  personEntry,
  ROOT_PW,
  startSlapd,
  type TestSlapd,
} from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';
import { exportUsers } from '../../src/services/import-export/full-export';
import type { RealmModel } from '../../src/db/models/realm';
import type { UserRep } from '../../src/representations/user';

/**
 * Directory users through the admin API against a real slapd: the user search falling through to
 * LDAP (and importing what it finds), and the edit modes READ_ONLY, WRITABLE and UNSYNCED for an
 * admin update and a password reset; the bind credential is masked wherever it is shown.
 */
let ts: TestServer;
let api: AdminApi;
let slapd: TestSlapd;
let n = 0;

async function world(config: Record<string, string> = {}) {
  const R = `ldapusers${++n}`;
  await api.post('/admin/realms', { realm: R, enabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true }).expect(201);
  const realmId = (await api.get(`/admin/realms/${R}`).expect(200)).body.id;
  const id = createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, config)), 'ldap provider');
  return { R, id };
}
const grant = (R: string, username: string, password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });
const find = async (R: string, username: string) =>
  (await api.get(`/admin/realms/${R}/users?username=${username}&exact=true`).expect(200)).body[0];
const ldapEntry = (uid: string) => personEntry(slapd, uid);
const canBind = (uid: string, password: string) => personCanBind(slapd, uid, password);

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('LDAP users through the admin API', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldapusers0'));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('a user search falls through to LDAP and lists the directory users it imports', async () => {
    const { R, id } = await world();
    await createUser(ts, R, 'bwilocal');
    const found = (await api.get(`/admin/realms/${R}/users?search=bwil`).expect(200)).body;
    expect(found.map((u: { username: string }) => u.username).sort()).toEqual(['bwilocal', 'bwilson']);
    expect(found.find((u: { username: string }) => u.username === 'bwilson').federationLink).toBe(id);
    expect((await find(R, 'rsmith')).federationLink).toBe(id);
    expect((await api.get(`/admin/realms/${R}/users?search=nobody-like-this`).expect(200)).body).toEqual([]);
    expect((await api.get(`/admin/realms/${R}/users/count`).expect(200)).body).toBe(3);
  });

  test('the bind credential is masked in the component and in the admin event', async () => {
    const { R, id } = await world();
    const c = (await api.get(`/admin/realms/${R}/components/${id}`).expect(200)).body;
    expect(c.config.bindCredential).toEqual(['**********']);
    const events = (await api.get(`/admin/realms/${R}/admin-events?resourceTypes=COMPONENT`).expect(200)).body;
    expect(JSON.stringify(events)).not.toContain(ROOT_PW);
    expect(JSON.stringify(events)).toContain('**********');
  });

  test('hardcoded attribute, role and group mappers apply to a user as it is imported', async () => {
    const { R, id } = await world();
    await api.post(`/admin/realms/${R}/roles`, { name: 'ldap-user' }).expect(201);
    await api.post(`/admin/realms/${R}/groups`, { name: 'from-ldap' }).expect(201);
    const mapper = (name: string, providerId: string, config: Record<string, string>) =>
      api
        .post(`/admin/realms/${R}/components`, {
          name,
          providerId,
          providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
          parentId: id,
          config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
        })
        .expect(201);
    await mapper('dept', 'hardcoded-attribute-mapper', { 'user.model.attribute': 'emailVerified', 'attribute.value': 'true' });
    await mapper('role', 'hardcoded-ldap-role-mapper', { role: 'ldap-user' });
    await mapper('group', 'hardcoded-ldap-group-mapper', { group: '/from-ldap' });
    const u = await find(R, 'bwilson');
    expect(u.emailVerified).toBe(true);
    const roles = (await api.get(`/admin/realms/${R}/users/${u.id}/role-mappings/realm`).expect(200)).body.map(
      (r: { name: string }) => r.name,
    );
    expect(roles).toContain('ldap-user');
    const groups = (await api.get(`/admin/realms/${R}/users/${u.id}/groups`).expect(200)).body.map((g: { path: string }) => g.path);
    expect(groups).toEqual(['/from-ldap']);
  });

  test('hardcoded role and group mappers act on users imported before them, cannot be taken away, and take back only their own grants', async () => {
    // Keycloak's HardcodedLDAPRoleStorageMapper / HardcodedLDAPGroupStorageMapper add the role or group to
    // every user of the provider on read, and refuse deleteRoleMapping / leaveGroup of it (ModelException, 400).
    const { R, id } = await world();
    await api.post(`/admin/realms/${R}/roles`, { name: 'staff' }).expect(201);
    await api.post(`/admin/realms/${R}/roles`, { name: 'other' }).expect(201);
    const groupId = createdId(await api.post(`/admin/realms/${R}/groups`, { name: 'ldap-people' }), 'group');
    const jb = await find(R, 'jbrown');
    const bw = await find(R, 'bwilson');
    const staff = (await api.get(`/admin/realms/${R}/roles/staff`).expect(200)).body;
    // An admin's own grant of the role to bwilson, before any mapper exists.
    await api.post(`/admin/realms/${R}/users/${bw.id}/role-mappings/realm`, [staff]).expect(204);
    const mapperRep = (name: string, providerId: string, config: Record<string, string>) => ({
      name,
      providerId,
      providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
      parentId: id,
      config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
    });
    const roleMapper = createdId(
      await api.post(`/admin/realms/${R}/components`, mapperRep('staff', 'hardcoded-ldap-role-mapper', { role: 'staff' })),
      'role mapper',
    );
    const groupMapper = createdId(
      await api.post(`/admin/realms/${R}/components`, mapperRep('people', 'hardcoded-ldap-group-mapper', { group: '/ldap-people' })),
      'group mapper',
    );
    const realmRoles = async (userId: string) =>
      ((await api.get(`/admin/realms/${R}/users/${userId}/role-mappings/realm`).expect(200)).body as Array<{ name: string }>)
        .map((r) => r.name)
        .filter((n) => n === 'staff' || n === 'other');
    const groupPaths = async (userId: string) =>
      ((await api.get(`/admin/realms/${R}/users/${userId}/groups`).expect(200)).body as Array<{ path: string }>).map((g) => g.path);
    // Users imported before the mappers have the role and group now, and their effective roles say so.
    expect(await realmRoles(jb.id)).toEqual(['staff']);
    expect(await groupPaths(jb.id)).toEqual(['/ldap-people']);
    const effective = async (userId: string) =>
      ((await api.get(`/admin/realms/${R}/users/${userId}/role-mappings/realm/composite`).expect(200)).body as Array<{ name: string }>).map(
        (r) => r.name,
      );
    expect(await effective(jb.id)).toContain('staff');
    // An export carries the users' own mappings, not what the mapper gives (Keycloak exports stored mappings).
    const realmRow = (await ts.db.models.Realm.findOne({ where: { name: R } })) as RealmModel;
    const exported: UserRep[] = [];
    for await (const page of exportUsers(ts.db, realmRow)) exported.push(...page);
    expect(exported.find((x) => x.username === 'jbrown')?.realmRoles ?? []).not.toContain('staff');
    expect(exported.find((x) => x.username === 'bwilson')?.realmRoles).toContain('staff');
    // They cannot be taken away while the mapper gives them.
    const refusedRole = await api.delete(`/admin/realms/${R}/users/${jb.id}/role-mappings/realm`, [staff]).expect(400);
    expect(refusedRole.body).toEqual({
      error: "Not possible to delete role. It's hardcoded by LDAP mapper",
      error_description: "Not possible to delete role. It's hardcoded by LDAP mapper",
    });
    const refusedGroup = await api.delete(`/admin/realms/${R}/users/${jb.id}/groups/${groupId}`).expect(400);
    expect(refusedGroup.body.error).toBe("Not possible to delete group. It's hardcoded by LDAP mapper");
    expect(await realmRoles(jb.id)).toEqual(['staff']);
    // An admin adding the group the mapper gives makes it the admin's own membership.
    await api.put(`/admin/realms/${R}/users/${bw.id}/groups/${groupId}`).expect(204);
    // Re-pointing the role mapper: the mapper's grants move, bwilson keeps the admin's grant of `staff`.
    const rm = (await api.get(`/admin/realms/${R}/components/${roleMapper}`).expect(200)).body;
    await api.put(`/admin/realms/${R}/components/${roleMapper}`, { ...rm, config: { ...rm.config, role: ['other'] } }).expect(204);
    expect(await realmRoles(jb.id)).toEqual(['other']);
    expect((await realmRoles(bw.id)).sort()).toEqual(['other', 'staff']);
    // Deleting the mappers takes back what they gave, and only that.
    await api.delete(`/admin/realms/${R}/components/${roleMapper}`).expect(204);
    await api.delete(`/admin/realms/${R}/components/${groupMapper}`).expect(204);
    expect(await realmRoles(jb.id)).toEqual([]);
    expect(await groupPaths(jb.id)).toEqual([]);
    expect(await realmRoles(bw.id)).toEqual(['staff']);
    expect(await groupPaths(bw.id)).toEqual(['/ldap-people']);
    expect(await effective(jb.id)).not.toContain('other');
  });

  test('READ_ONLY: a change of a mapped field and a password reset are refused, nothing changes', async () => {
    const { R } = await world({ editMode: 'READ_ONLY' });
    const u = await find(R, 'jbrown');
    const bad = await api.put(`/admin/realms/${R}/users/${u.id}`, { ...u, lastName: 'Other' }).expect(400);
    expect(bad.body).toEqual({ field: 'lastName', errorMessage: 'error-user-attribute-read-only', params: ['lastName'] });
    const reset = await api.put(`/admin/realms/${R}/users/${u.id}/reset-password`, {
      type: 'password',
      value: 'x-new-1',
      temporary: false,
    });
    expect(reset.status).toBe(400);
    expect(reset.body).toEqual({ errorMessage: "Can't reset password as account is read only" });
    expect((await find(R, 'jbrown')).lastName).toBe('Brown');
    await api.put(`/admin/realms/${R}/users/${u.id}`, { ...u, enabled: true }).expect(204);
  });

  test('WRITABLE: an update and a password reset go to the directory', async () => {
    await slapd.addUser('writer', 'Wri', 'Ter', 'writer@example.org', 'writer-pw');
    const { R } = await world({ editMode: 'WRITABLE' });
    const u = await find(R, 'writer');
    await api.put(`/admin/realms/${R}/users/${u.id}`, { ...u, lastName: 'Written', email: 'w2@example.org' }).expect(204);
    expect(await ldapEntry('writer')).toMatchObject({ sn: 'Written', mail: 'w2@example.org' });
    expect((await find(R, 'writer')).lastName).toBe('Written');
    await api
      .put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'writer-new', temporary: false })
      .expect(204);
    expect(await canBind('writer', 'writer-new')).toBe(true);
    expect((await api.get(`/admin/realms/${R}/users/${u.id}/credentials`).expect(200)).body).toEqual([]);
    const types = await api.get(`/admin/realms/${R}/users/${u.id}/configured-user-storage-credential-types`).expect(200);
    expect(types.body).toEqual(['password']);
    expect((await grant(R, 'writer', 'writer-new')).status).toBe(200);
    expect((await grant(R, 'writer', 'writer-pw')).status).toBe(400);
  });

  test("an attribute a user-attribute mapper maps: WRITABLE writes the admin's change to the entry, READ_ONLY refuses it", async () => {
    // Keycloak's UserAttributeLDAPStorageMapper proxy: setAttribute of a mapped attribute goes to LDAP
    // (WRITABLE) or is read-only (READ_ONLY).
    await slapd.addUser('phoned', 'Pho', 'Ned', 'phoned@example.org', 'phoned-pw');
    for (const editMode of ['WRITABLE', 'READ_ONLY'] as const) {
      const { R, id } = await world({ editMode });
      const profile = (await api.get(`/admin/realms/${R}/users/profile`).expect(200)).body;
      await api.put(`/admin/realms/${R}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }).expect(200);
      await api
        .post(`/admin/realms/${R}/components`, {
          name: 'phone',
          providerId: 'user-attribute-ldap-mapper',
          providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
          parentId: id,
          config: {
            'user.model.attribute': ['phone'],
            'ldap.attribute': ['telephoneNumber'],
            'read.only': [String(editMode === 'READ_ONLY')],
          },
        })
        .expect(201);
      const u = await find(R, 'phoned');
      const full = (await api.get(`/admin/realms/${R}/users/${u.id}`).expect(200)).body;
      const res = await api.put(`/admin/realms/${R}/users/${u.id}`, {
        ...full,
        attributes: { ...full.attributes, phone: [`+1 555 0100 ${editMode}`] },
      });
      const entry = await slapd.entry(`uid=phoned,${PEOPLE_DN}`, ['telephoneNumber']);
      const stored = (await api.get(`/admin/realms/${R}/users/${u.id}`).expect(200)).body.attributes?.phone;
      if (editMode === 'WRITABLE') {
        expect(res.status).toBe(204);
        expect(entry?.telephoneNumber).toBe('+1 555 0100 WRITABLE');
        expect(stored).toEqual(['+1 555 0100 WRITABLE']);
      } else {
        expect([res.status, res.body]).toEqual([
          400,
          { field: 'phone', errorMessage: 'error-user-attribute-read-only', params: ['phone'] },
        ]);
        // The entry and the local copy keep what the WRITABLE round wrote.
        expect(entry?.telephoneNumber).toBe('+1 555 0100 WRITABLE');
        expect(stored).toEqual(['+1 555 0100 WRITABLE']);
      }
    }
  });

  test('UNSYNCED: an update and a password reset stay in the local copy', async () => {
    await slapd.addUser('unsynced', 'Un', 'Synced', 'unsynced@example.org', 'unsynced-pw');
    const { R } = await world({ editMode: 'UNSYNCED' });
    const u = await find(R, 'unsynced');
    await api.put(`/admin/realms/${R}/users/${u.id}`, { ...u, lastName: 'LocalOnly' }).expect(204);
    expect((await find(R, 'unsynced')).lastName).toBe('LocalOnly');
    expect((await ldapEntry('unsynced'))?.sn).toBe('Synced');
    await api.put(`/admin/realms/${R}/users/${u.id}/reset-password`, { type: 'password', value: 'local-pw', temporary: false }).expect(204);
    expect(await canBind('unsynced', 'unsynced-pw')).toBe(true);
    expect((await grant(R, 'unsynced', 'local-pw')).status).toBe(200);
    expect((await grant(R, 'unsynced', 'unsynced-pw')).status).toBe(400);
  });
});

// LDAPStorageProvider#addUser and #removeUser of Keycloak: syncRegistrations with WRITABLE.
describeWithSlapd('LDAP registrations and deletes', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldapreg0'));
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('syncRegistrations + WRITABLE: a user created through the admin API is created in LDAP with its password', async () => {
    const { R, id } = await world({ editMode: 'WRITABLE', syncRegistrations: 'true' });
    const created = await api
      .post(`/admin/realms/${R}/users`, {
        username: 'newbie',
        email: 'newbie@example.org',
        firstName: 'New',
        lastName: 'Bie',
        enabled: true,
        credentials: [{ type: 'password', value: 'newbie-pw', temporary: false }],
      })
      .expect(201);
    const userId = created.headers.location.split('/').pop() as string;
    expect(await ldapEntry('newbie')).toMatchObject({ sn: 'Bie', cn: 'New', mail: 'newbie@example.org' });
    const u = (await api.get(`/admin/realms/${R}/users/${userId}`).expect(200)).body;
    expect(u).toMatchObject({ username: 'newbie', federationLink: id });
    expect(u.attributes.LDAP_ENTRY_DN).toEqual([`uid=newbie,${PEOPLE_DN}`]);
    expect(u.attributes.LDAP_ID[0]).toMatch(/^[0-9a-f-]{36}$/);
    // The password lives in the directory only.
    expect((await api.get(`/admin/realms/${R}/users/${userId}/credentials`).expect(200)).body).toEqual([]);
    expect(await canBind('newbie', 'newbie-pw')).toBe(true);
    expect((await grant(R, 'newbie', 'newbie-pw')).status).toBe(200);
    // A user without first or last name: the mandatory attributes get Keycloak's placeholder.
    await api.post(`/admin/realms/${R}/users`, { username: 'bare', enabled: true }).expect(201);
    expect(await ldapEntry('bare')).toMatchObject({ sn: ' ', cn: ' ' });
  });

  test('a username or email already in the directory is 409, and nothing is created', async () => {
    const { R } = await world({ editMode: 'WRITABLE', syncRegistrations: 'true' });
    const dup = await api.post(`/admin/realms/${R}/users`, { username: 'rsmith', enabled: true }).expect(409);
    expect(dup.body).toEqual({ errorMessage: 'User exists with same username' });
    const mail = await api.post(`/admin/realms/${R}/users`, { username: 'other', email: 'rsmith@example.org' }).expect(409);
    expect(mail.body).toEqual({ errorMessage: 'User exists with same email' });
    expect(await ldapEntry('other')).toBeUndefined();
  });

  test('without syncRegistrations, or READ_ONLY, a new user stays local', async () => {
    const configs: Array<Record<string, string>> = [{ editMode: 'WRITABLE' }, { editMode: 'READ_ONLY', syncRegistrations: 'true' }];
    for (const config of configs) {
      const { R } = await world(config);
      const uid = `local${n}`;
      await api.post(`/admin/realms/${R}/users`, { username: uid, enabled: true }).expect(201);
      expect((await find(R, uid)).federationLink).toBeUndefined();
      expect(await ldapEntry(uid)).toBeUndefined();
    }
  });

  test('a delete removes the entry in WRITABLE mode and only the local copy in READ_ONLY mode', async () => {
    await slapd.addUser('doomed', 'Doo', 'Med', 'doomed@example.org', 'doomed-pw');
    const ro = await world({ editMode: 'READ_ONLY' });
    const copy = await find(ro.R, 'doomed');
    await api.delete(`/admin/realms/${ro.R}/users/${copy.id}`).expect(204);
    expect(await ldapEntry('doomed')).toBeDefined();
    const rw = await world({ editMode: 'WRITABLE' });
    const u = await find(rw.R, 'doomed');
    await api.delete(`/admin/realms/${rw.R}/users/${u.id}`).expect(204);
    expect(await ldapEntry('doomed')).toBeUndefined();
    expect(await find(rw.R, 'doomed')).toBeUndefined();
  });

  test('with the directory down a registration is 400 and nothing is written', async () => {
    const { R } = await world({ editMode: 'WRITABLE', syncRegistrations: 'true' });
    await slapd.stop();
    try {
      const r = await api.post(`/admin/realms/${R}/users`, { username: 'offline', enabled: true }).expect(400);
      expect(r.body).toEqual({ errorMessage: 'Could not create user' });
    } finally {
      await slapd.start();
    }
    expect(await find(R, 'offline')).toBeUndefined();
  });
});
