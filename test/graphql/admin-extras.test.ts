import request from 'supertest';
import type { AdminApi, TestServer } from '../helpers/server';
import { clientUuid, realmAdmin } from '../helpers/fixtures';
import { gqlClient, ok, startWithRealm } from './gql';

let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'extras';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

async function newClient(clientId: string): Promise<string> {
  const res = await api.post(`${base}/clients`, { clientId, publicClient: false });
  expect(res.status).toBe(201);
  return res.headers.location.split('/').pop() as string;
}

describe('GraphQL: the remaining admin writes', () => {
  test('user profile: read and replace, the same data as REST', async () => {
    const read = ok(await gql(`{ realm(name: "${R}") { userProfile } }`)).realm.userProfile;
    expect(read).toEqual((await api.get(`${base}/users/profile`)).body);
    const config = { ...read, unmanagedAttributePolicy: 'ENABLED' };
    const stored = ok(await gql('mutation($c: JSONObject!) { updateUserProfile(realm: "extras", config: $c) { result } }', { c: config }))
      .updateUserProfile.result;
    expect(stored.unmanagedAttributePolicy).toBe('ENABLED');
    expect((await api.get(`${base}/users/profile`)).body.unmanagedAttributePolicy).toBe('ENABLED');
  });

  test('cluster nodes and registration access token of a client', async () => {
    const id = await newClient('with-nodes');
    const vars = { id };
    ok(await gql('mutation($id: ID!) { registerClientNode(realm: "extras", id: $id, node: "node-a") { ok } }', vars));
    expect(Object.keys((await api.get(`${base}/clients/${id}`)).body.registeredNodes)).toEqual(['node-a']);
    ok(await gql('mutation($id: ID!) { unregisterClientNode(realm: "extras", id: $id, node: "node-a") { ok } }', vars));
    expect((await api.get(`${base}/clients/${id}`)).body.registeredNodes).toBeUndefined();
    const rep = ok(await gql('mutation($id: ID!) { regenerateRegistrationAccessToken(realm: "extras", id: $id) { result } }', vars))
      .regenerateRegistrationAccessToken.result;
    expect(rep).toMatchObject({ id, clientId: 'with-nodes', registrationAccessToken: expect.any(String) });
    const noRotated = await gql('mutation($id: ID!) { invalidateRotatedClientSecret(realm: "extras", id: $id) { ok } }', vars);
    expect(noRotated.errors).toBeUndefined();
  });

  test('disable credential types removes OTP credentials but keeps the password', async () => {
    const res = await api.post(`${base}/users`, {
      username: 'otp-user',
      enabled: true,
      credentials: [{ type: 'password', value: 'Secret-123' }],
    });
    const userId = res.headers.location.split('/').pop() as string;
    await ts.db.models.Credential.create({
      id: '0d5e0a4e-6a0e-4c1e-9d4b-000000000001',
      userId,
      type: 'otp',
      userLabel: 'phone',
      secretData: '{}',
      credentialData: '{}',
      priority: 20,
      createdDate: Date.now(),
    });
    ok(await gql('mutation($u: ID!) { disableCredentialTypes(realm: "extras", userId: $u, types: ["otp"]) { ok } }', { u: userId }));
    expect((await api.get(`${base}/users/${userId}/credentials`)).body.map((c: { type: string }) => c.type)).toEqual(['password']);
  });

  test('the same permission rules as REST', async () => {
    const id = await newClient('guarded');
    await realmAdmin(ts, R, 'viewer', ['view-clients', 'view-users']);
    const asViewer = gqlClient(ts, { realm: R, username: 'viewer', password: 'pw' });
    const denied = await asViewer('mutation($id: ID!) { registerClientNode(realm: "extras", id: $id, node: "n") { ok } }', { id });
    expect(denied.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    const profile = await asViewer('mutation($c: JSONObject!) { updateUserProfile(realm: "extras", config: $c) { result } }', { c: {} });
    expect(profile.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('GraphQL: credential registrators, whoami, user-profile metadata and unmanaged attributes', () => {
  test('Realm.credentialRegistrators equals REST', async () => {
    const data = ok(await gql(`{ realm(name: "${R}") { credentialRegistrators } }`));
    expect(data.realm.credentialRegistrators).toEqual((await api.get(`${base}/credential-registrators`)).body);
    expect(data.realm.credentialRegistrators).toContain('CONFIGURE_TOTP');
  });

  test("whoAmI answers the admin console's whoami; other clients are FORBIDDEN", async () => {
    const adminConsole = await clientUuid(api, 'master', 'security-admin-console');
    expect((await api.put(`/admin/realms/master/clients/${adminConsole}`, { directAccessGrantsEnabled: true })).status).toBe(204);
    const token = await ts.token({ clientId: 'security-admin-console' });
    const asConsole = gqlClient(ts, { clientId: 'security-admin-console' });
    const q =
      'query($c: String) { whoAmI(realm: "master", currentRealm: $c) { userId realm displayName locale createRealm realmAccess temporary } }';
    for (const current of [R, undefined]) {
      const who = ok(await asConsole(q, { c: current })).whoAmI;
      const rest = await request(ts.app)
        .get(`/admin/master/console/whoami${current ? `?currentRealm=${current}` : ''}`)
        .set('Authorization', `Bearer ${token}`);
      expect(rest.status).toBe(200);
      const { realm_access, ...others } = rest.body;
      expect(who).toEqual({ ...others, realmAccess: realm_access });
    }
    const denied = await gql(q, { c: R });
    expect(denied.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    expect(denied.errors?.[0].message).toBe('Token issued for an application that is not the admin console: admin-cli');
    const unknown = await asConsole(q, { c: 'nosuch' });
    expect([unknown.data?.whoAmI, unknown.errors?.[0].extensions.code]).toEqual([null, 'NOT_FOUND']);
  });

  test('Realm.userProfileMetadata equals GET /users/profile/metadata', async () => {
    const data = ok(
      await gql(`{ realm(name: "${R}") { userProfileMetadata {
        attributes { name displayName required readOnly annotations validators group multivalued }
        groups { name displayHeader displayDescription annotations } } } }`),
    );
    const rest = await api.get(`${base}/users/profile/metadata`);
    expect(rest.status).toBe(200);
    const dropNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
    const meta = data.realm.userProfileMetadata;
    expect({ attributes: meta.attributes.map(dropNulls), groups: meta.groups.map(dropNulls) }).toEqual(rest.body);
    expect(meta.attributes.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['username', 'email']));
  });

  test('User.unmanagedAttributes and configuredUserStorageCredentialTypes equal REST', async () => {
    const res = await api.post(`${base}/users`, { username: 'unmanaged-user', enabled: true, attributes: { shoe: ['42'], hat: ['big'] } });
    expect(res.status).toBe(201);
    const id = res.headers.location.split('/').pop() as string;
    const q = `query($id: ID!) { user(realm: "${R}", id: $id) { unmanagedAttributes configuredUserStorageCredentialTypes } }`;
    const user = ok(await gql(q, { id })).user;
    expect(user.unmanagedAttributes).toEqual((await api.get(`${base}/users/${id}/unmanagedAttributes`)).body);
    expect(user.unmanagedAttributes).toEqual({ shoe: ['42'], hat: ['big'] });
    expect(user.configuredUserStorageCredentialTypes).toEqual(
      (await api.get(`${base}/users/${id}/configured-user-storage-credential-types`)).body,
    );
  });

  test('the same permission rules as REST: FORBIDDEN without the role', async () => {
    await realmAdmin(ts, R, 'extras-users', ['view-users']);
    const asUsers = gqlClient(ts, { realm: R, username: 'extras-users', password: 'pw' });
    const registrators = await asUsers(`{ realm(name: "${R}") { credentialRegistrators } }`);
    expect(registrators.errors?.map((e) => [e.path, e.extensions.code])).toEqual([[['realm', 'credentialRegistrators'], 'FORBIDDEN']]);
    expect(ok(await asUsers(`{ realm(name: "${R}") { userProfileMetadata { groups { name } } } }`)).realm).toBeTruthy();
    await realmAdmin(ts, R, 'extras-clients', ['view-clients']);
    const asClients = gqlClient(ts, { realm: R, username: 'extras-clients', password: 'pw' });
    const id = (await api.get(`${base}/users?username=unmanaged-user&exact=true`)).body[0].id;
    const unmanaged = await asClients(`query($id: ID!) { user(realm: "${R}", id: $id) { unmanagedAttributes } }`, { id });
    expect(unmanaged.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const nobody = await realmAdmin(ts, R, 'extras-nobody', []);
    expect((await nobody.get(`${base}/users/profile/metadata`)).status).toBe(403);
    const asNobody = gqlClient(ts, { realm: R, username: 'extras-nobody', password: 'pw' });
    const metadata = await asNobody(`{ realm(name: "${R}") { userProfileMetadata { groups { name } } } }`);
    expect(metadata.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
