import { createdId, createRealm, realmAdmin, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, ldapComponent, ROOT_DN, startSlapd, type TestSlapd } from '../helpers/slapd';
import { closeLdapPools } from '../../src/services/user-storage/ldap-connection';
import { gqlClient, type Json, ok, USER_ERRORS, userErrors } from './gql';

/**
 * The GraphQL twins of the user-storage routes against a real slapd: a sync answers REST's counts,
 * testLdapConnection reports REST's error code, and a caller without the role is refused as in REST.
 */
const R = 'gqlldap';
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
let slapd: TestSlapd;

// A first test server on MariaDB migrates its template database, and each realm is many statements there.
jest.setTimeout(120_000);

const SYNC = `mutation($r: String!, $id: ID!, $a: String!) {
  syncUserStorage(realm: $r, id: $id, action: $a) { synchronizationResult { ignored added updated removed failed status } ${USER_ERRORS} }
}`;
const TEST = `mutation($r: String!, $i: TestLdapConnectionInput!) { testLdapConnection(realm: $r, input: $i) { ok ${USER_ERRORS} } }`;

/** A realm with an LDAP provider on the shared directory: its provider id. */
async function providerIn(realm: string): Promise<string> {
  const realmId = await createRealm(api, realm);
  return createdId(await api.post(`/admin/realms/${realm}/components`, ldapComponent(slapd, realmId)), 'ldap provider');
}
const localUsers = async (realm: string) =>
  ((await api.get(`/admin/realms/${realm}/users?max=100`).expect(200)).body as Json[]).map((u) => u.username).sort();

describeWithSlapd('user storage through GraphQL', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api } = await realmServer(R));
    gql = gqlClient(ts);
  });
  afterAll(async () => {
    await closeLdapPools();
    await ts.close();
    await slapd.close();
  });

  test('a full sync answers the counts REST answers for the same directory, first and second time', async () => {
    const viaRest = await providerIn('gqlldaprest');
    const viaGql = await providerIn('gqlldapgql');
    const rest = (await api.post(`/admin/realms/gqlldaprest/user-storage/${viaRest}/sync?action=triggerFullSync`).expect(200)).body;
    const first = ok(await gql(SYNC, { r: 'gqlldapgql', id: viaGql, a: 'triggerFullSync' })).syncUserStorage;
    expect(first).toEqual({ synchronizationResult: rest, userErrors: [] });
    expect(rest).toMatchObject({ added: 3, updated: 0 });
    expect(await localUsers('gqlldapgql')).toEqual(['bwilson', 'jbrown', 'rsmith']);
    const rest2 = (await api.post(`/admin/realms/gqlldaprest/user-storage/${viaRest}/sync?action=triggerFullSync`).expect(200)).body;
    const second = ok(await gql(SYNC, { r: 'gqlldapgql', id: viaGql, a: 'triggerFullSync' })).syncUserStorage;
    expect(second.synchronizationResult).toEqual(rest2);
    expect(rest2).toMatchObject({ added: 0, updated: 3 });

    // An unknown action is REST's 400 as a user error; the provider's name; removing the imported users.
    const bad = await gql(SYNC, { r: 'gqlldapgql', id: viaGql, a: 'frobnicate' });
    expect(userErrors(bad, 'syncUserStorage')).toEqual([{ field: null, code: 'BAD_REQUEST', message: 'Unknown action: frobnicate' }]);
    const name = ok(
      await gql('query($r: String!, $id: ID!) { userStorageProviderName(realm: $r, id: $id) { id name } }', {
        r: 'gqlldapgql',
        id: viaGql,
      }),
    );
    expect(name.userStorageProviderName).toEqual((await api.get(`/admin/realms/gqlldapgql/user-storage/${viaGql}/name`).expect(200)).body);
    const removed = await gql('mutation($r: String!, $id: ID!) { removeImportedUsers(realm: $r, id: $id) { ok } }', {
      r: 'gqlldapgql',
      id: viaGql,
    });
    expect(ok(removed).removeImportedUsers).toEqual({ ok: true });
    expect(await localUsers('gqlldapgql')).toEqual([]);
  });

  test("testLdapConnection: a right bind is ok, a wrong password is a user error with REST's code", async () => {
    const input = { action: 'testAuthentication', connectionUrl: slapd.url, bindDn: ROOT_DN, bindCredential: 'wrong' };
    const rest = (await api.post(`/admin/realms/${R}/testLDAPConnection`, input).expect(400)).body;
    const r = await gql(TEST, { r: R, i: input });
    const errors = userErrors(r, 'testLdapConnection');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toBe(rest.errorMessage);
    expect(rest.errorMessage).toBe('AuthenticationFailure');
    expect(ok(await gql(TEST, { r: R, i: { action: 'testConnection', connectionUrl: slapd.url } })).testLdapConnection).toEqual({
      ok: true,
      userErrors: [],
    });
  });

  test('a caller without manage-realm (or manage-users for a sync) is refused with 403, as in REST', async () => {
    const id = await providerIn('gqlldapperm');
    await realmAdmin(ts, 'gqlldapperm', 'ldapviewer', ['view-realm', 'view-users']);
    const viewer = gqlClient(ts, { realm: 'gqlldapperm', username: 'ldapviewer', password: 'pw' });
    const restViewer = await ts.api({ realm: 'gqlldapperm', username: 'ldapviewer', password: 'pw' });
    await restViewer
      .post('/admin/realms/gqlldapperm/testLDAPConnection', { action: 'testConnection', connectionUrl: slapd.url })
      .expect(403);
    const t = await viewer(TEST, { r: 'gqlldapperm', i: { action: 'testConnection', connectionUrl: slapd.url } });
    expect(t.errors?.[0].extensions.http?.status).toBe(403);
    const caps = await viewer(
      'mutation($r: String!, $i: TestLdapConnectionInput!) { ldapServerCapabilities(realm: $r, input: $i) { ldapServerCapabilities { oid } } }',
      { r: 'gqlldapperm', i: { action: 'queryServerCapabilities', connectionUrl: slapd.url } },
    );
    expect(caps.errors?.[0].extensions.http?.status).toBe(403);
    await restViewer.post(`/admin/realms/gqlldapperm/user-storage/${id}/sync?action=triggerFullSync`).expect(403);
    const s = await viewer(SYNC, { r: 'gqlldapperm', id, a: 'triggerFullSync' });
    expect(s.errors?.[0].extensions.http?.status).toBe(403);
    expect(await localUsers('gqlldapperm')).toEqual(['ldapviewer']);
  });
});
