import { adminEvents, createdId, createUser, realmAdmin, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, GROUPS_DN, ldapComponent, PEOPLE_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';

/**
 * The user-storage endpoints against a real slapd: full and changed-users sync with Keycloak's
 * result counts, remove-imported-users, unlink-users, the provider's name, errors and permissions,
 * a directory that is down, and the group and role mappers' data sync in both directions.
 */
let ts: TestServer;
let api: AdminApi;
let slapd: TestSlapd;
let n = 0;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const usersOf = async (R: string) =>
  ((await api.get(`/admin/realms/${R}/users?max=100`).expect(200)).body as Array<{ username: string; federationLink?: string }>).filter(
    (u) => u.username !== 'realm-admin',
  );

/** A fresh realm with an LDAP provider on the shared directory. */
async function world(config: Record<string, string> = {}) {
  const R = `ldapsync${++n}`;
  const realmId = (await realmServerRealm(R)).id;
  const id = createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, config)), 'ldap provider');
  return { R, realmId, id };
}
async function realmServerRealm(R: string) {
  await api.post('/admin/realms', { realm: R, enabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true }).expect(201);
  return (await api.get(`/admin/realms/${R}`).expect(200)).body;
}
const sync = (R: string, id: string, action?: string) =>
  api.post(`/admin/realms/${R}/user-storage/${id}/sync${action ? `?action=${action}` : ''}`);

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

describeWithSlapd('user-storage sync', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer('ldapsync0'));
    // Seeded entries carry this second's createTimestamp: a changed-users sync started later must not see them.
    await pause(1100);
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('a full sync imports every directory user, the next counts them as updated; the changed-users sync only new ones', async () => {
    const { R, id } = await world();
    const first = (await sync(R, id, 'triggerFullSync').expect(200)).body;
    expect(first).toEqual({ ignored: false, added: 3, updated: 0, removed: 0, failed: 0, status: '3 imported users, 0 updated users' });
    expect((await usersOf(R)).map((u) => u.username).sort()).toEqual(['bwilson', 'jbrown', 'rsmith']);
    expect((await sync(R, id, 'triggerFullSync').expect(200)).body).toMatchObject({
      added: 0,
      updated: 3,
      status: '0 imported users, 3 updated users',
    });
    await pause(1100);
    await slapd.addUser(`new${n}`, 'New', 'Comer', `new${n}@example.org`, 'pw');
    // Timestamps have one-second precision and the sync takes those at or after its last start.
    await pause(1100);
    const changed = (await sync(R, id, 'triggerChangedUsersSync').expect(200)).body;
    expect(changed).toMatchObject({ ignored: false, added: 1, updated: 0, failed: 0 });
    // The sync's time is kept as the provider's lastSync: the next changed-users sync finds nothing.
    await pause(1100);
    expect((await sync(R, id, 'triggerChangedUsersSync').expect(200)).body).toMatchObject({ added: 0, updated: 0 });
    const events = await adminEvents(api, R);
    expect(events.some((e) => e.resourcePath === `user-storage/${id}/sync` && e.operationType === 'ACTION')).toBe(true);
  });

  test('a local user holding a directory username fails the sync of that entry', async () => {
    const { R, id } = await world();
    await createUser(ts, R, 'jbrown');
    const r = (await sync(R, id, 'triggerFullSync').expect(200)).body;
    expect(r).toMatchObject({ added: expect.any(Number), failed: 1 });
    expect(r.status).toMatch(/, 1 users failed sync! See server log for more details$/);
  });

  test('remove-imported-users deletes the copies, unlink-users keeps them as local users', async () => {
    const { R, id } = await world();
    await sync(R, id, 'triggerFullSync').expect(200);
    await api.post(`/admin/realms/${R}/user-storage/${id}/unlink-users`).expect(204);
    expect((await usersOf(R)).every((u) => u.federationLink === undefined)).toBe(true);
    await api.post(`/admin/realms/${R}/user-storage/${id}/remove-imported-users`).expect(204);
    expect((await usersOf(R)).length).toBeGreaterThanOrEqual(3);
    const { R: R2, id: id2 } = await world();
    await sync(R2, id2, 'triggerFullSync').expect(200);
    await api.post(`/admin/realms/${R2}/user-storage/${id2}/remove-imported-users`).expect(204);
    expect(await usersOf(R2)).toEqual([]);
  });

  test('name, errors and permissions', async () => {
    const { R, id, realmId } = await world();
    expect((await api.get(`/admin/realms/${R}/user-storage/${id}/name`).expect(200)).body).toEqual({ id, name: 'ldap' });
    expect((await sync(R, id).expect(400)).body).toEqual({ error: 'Missing action' });
    expect((await sync(R, id, 'frob').expect(400)).body).toEqual({ error: 'Unknown action: frob' });
    expect((await sync(R, 'nope', 'triggerFullSync').expect(404)).body).toEqual({ error: 'Could not find component' });
    const key = (await api.get(`/admin/realms/${R}/components?parent=${realmId}&type=org.keycloak.keys.KeyProvider`).expect(200)).body[0];
    expect((await sync(R, key.id, 'triggerFullSync').expect(404)).body).toEqual({ error: 'found, but not a UserStorageProvider' });
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-users']);
    await viewer.get(`/admin/realms/${R}/user-storage/${id}/name`).expect(200);
    await viewer.post(`/admin/realms/${R}/user-storage/${id}/sync?action=triggerFullSync`).expect(403);
    await viewer.post(`/admin/realms/${R}/user-storage/${id}/remove-imported-users`).expect(403);
    const mapper = (await api.get(`/admin/realms/${R}/components?parent=${id}`).expect(200)).body[0];
    const m = (dir: string) => api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${mapper.id}/sync?direction=${dir}`);
    expect((await m('sideways').expect(400)).body).toEqual({ error: 'Unknown direction: sideways' });
    expect(
      (await api.post(`/admin/realms/${R}/user-storage/nope/mappers/${mapper.id}/sync?direction=fedToKeycloak`).expect(404)).body,
    ).toEqual({
      error: 'Parent model not found',
    });
    expect((await m('fedToKeycloak').expect(200)).body).toEqual({
      ignored: false,
      added: 0,
      updated: 0,
      removed: 0,
      failed: 0,
      status: '0 imported users, 0 updated users',
    });
  });

  test('with the directory down a sync answers 400 at once, and a disabled provider is ignored', async () => {
    const { R, id } = await world();
    await slapd.stop();
    try {
      const t0 = Date.now();
      expect((await sync(R, id, 'triggerFullSync').expect(400)).body).toEqual({ errorMessage: 'ConnectionFailed' });
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      await slapd.start();
    }
    const off = await world({ enabled: 'false' });
    expect((await sync(off.R, off.id, 'triggerFullSync').expect(200)).body).toMatchObject({ ignored: true });
  });

  test('a sync another node holds the lease of is ignored; a lease that has ended is taken over', async () => {
    const { R, id } = await world();
    const lease = (until: number) =>
      ts.db.sequelize.query('INSERT INTO user_storage_sync_lease (component_id, holder, expires_at) VALUES (:id, :holder, :until)', {
        replacements: { id, holder: 'other-node', until },
      });
    await lease(Date.now() + 60_000);
    expect((await sync(R, id, 'triggerFullSync').expect(200)).body).toEqual({
      ignored: true,
      added: 0,
      updated: 0,
      removed: 0,
      failed: 0,
      status: "Synchronization ignored as it's already in progress",
    });
    expect(await usersOf(R)).toEqual([]);
    await ts.db.sequelize.query('UPDATE user_storage_sync_lease SET expires_at = :past WHERE component_id = :id', {
      replacements: { id, past: Date.now() - 1 },
    });
    const taken = (await sync(R, id, 'triggerFullSync').expect(200)).body;
    expect(taken).toMatchObject({ ignored: false, failed: 0 });
    expect(taken.added).toBeGreaterThanOrEqual(3);
    // Released at the end of the sync: the next one runs at once.
    expect((await sync(R, id, 'triggerFullSync').expect(200)).body).toMatchObject({ ignored: false, updated: taken.added });
  });

  test('group mapper: LDAP groups and memberships into Keycloak, Keycloak groups into LDAP', async () => {
    const { R, id, realmId } = await world();
    await sync(R, id, 'triggerFullSync').expect(200);
    const mapperId = createdId(
      await api.post(`/admin/realms/${R}/components`, {
        name: 'groups',
        providerId: 'group-ldap-mapper',
        providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
        parentId: id,
        config: { 'groups.dn': [GROUPS_DN], 'membership.ldap.attribute': ['member'], mode: ['READ_ONLY'] },
      }),
      'group mapper',
    );
    const down = (await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${mapperId}/sync?direction=fedToKeycloak`).expect(200))
      .body;
    expect(down).toMatchObject({ added: 2, updated: 0, failed: 0 });
    const groups = (await api.get(`/admin/realms/${R}/groups`).expect(200)).body as Array<{ id: string; name: string }>;
    const dev = groups.find((g) => g.name === 'developers') as { id: string };
    const members = (await api.get(`/admin/realms/${R}/groups/${dev.id}/members`).expect(200)).body.map(
      (u: { username: string }) => u.username,
    );
    expect(members.sort()).toEqual(['bwilson', 'jbrown']);
    // keycloakToFed: a new Keycloak group with an imported member becomes an LDAP group.
    const ops = createdId(await api.post(`/admin/realms/${R}/groups`, { name: `ops${n}` }), 'group');
    const [rsmith] = (await api.get(`/admin/realms/${R}/users?username=rsmith&exact=true`).expect(200)).body;
    await api.put(`/admin/realms/${R}/users/${rsmith.id}/groups/${ops}`).expect(204);
    const up = (await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${mapperId}/sync?direction=keycloakToFed`).expect(200)).body;
    expect(up).toMatchObject({ added: 1, updated: 2 });
    const admin = await slapd.admin();
    const { searchEntries } = await admin.search(GROUPS_DN, { filter: `(cn=ops${n})`, attributes: ['member'] });
    await admin.unbind();
    expect(searchEntries[0].member).toBe(`uid=rsmith,${PEOPLE_DN}`);
    expect(realmId).toBeTruthy();
  });

  test('role mapper: LDAP groups become realm roles granted to their members', async () => {
    const { R, id } = await world();
    await sync(R, id, 'triggerFullSync').expect(200);
    const mapperId = createdId(
      await api.post(`/admin/realms/${R}/components`, {
        name: 'roles',
        providerId: 'role-ldap-mapper',
        providerType: 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
        parentId: id,
        config: { 'roles.dn': [GROUPS_DN], 'use.realm.roles.mapping': ['true'] },
      }),
      'role mapper',
    );
    const r = (await api.post(`/admin/realms/${R}/user-storage/${id}/mappers/${mapperId}/sync?direction=fedToKeycloak`).expect(200)).body;
    expect(r).toMatchObject({ added: expect.any(Number), failed: 0 });
    const [rsmith] = (await api.get(`/admin/realms/${R}/users?username=rsmith&exact=true`).expect(200)).body;
    const roles = (await api.get(`/admin/realms/${R}/users/${rsmith.id}/role-mappings/realm`).expect(200)).body.map(
      (x: { name: string }) => x.name,
    );
    expect(roles).toContain('admins');
    expect(roles).not.toContain('developers');
  });
});
