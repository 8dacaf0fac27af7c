import type { AdminApi, TestServer } from '../helpers/server';
import { realmAdmin } from '../helpers/fixtures';
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
    const stored = ok(
      await gql('mutation($c: JSONObject!) { updateUserProfile(realm: "extras", config: $c) }', { c: config }),
    ).updateUserProfile;
    expect(stored.unmanagedAttributePolicy).toBe('ENABLED');
    expect((await api.get(`${base}/users/profile`)).body.unmanagedAttributePolicy).toBe('ENABLED');
  });

  test('cluster nodes and registration access token of a client', async () => {
    const id = await newClient('with-nodes');
    const vars = { id };
    ok(await gql('mutation($id: ID!) { registerClientNode(realm: "extras", id: $id, node: "node-a") }', vars));
    expect(Object.keys((await api.get(`${base}/clients/${id}`)).body.registeredNodes)).toEqual(['node-a']);
    ok(await gql('mutation($id: ID!) { unregisterClientNode(realm: "extras", id: $id, node: "node-a") }', vars));
    expect((await api.get(`${base}/clients/${id}`)).body.registeredNodes).toBeUndefined();
    const rep = ok(
      await gql('mutation($id: ID!) { regenerateRegistrationAccessToken(realm: "extras", id: $id) }', vars),
    ).regenerateRegistrationAccessToken;
    expect(rep).toMatchObject({ id, clientId: 'with-nodes', registrationAccessToken: expect.any(String) });
    const noRotated = await gql('mutation($id: ID!) { invalidateRotatedClientSecret(realm: "extras", id: $id) }', vars);
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
    ok(await gql('mutation($u: ID!) { disableCredentialTypes(realm: "extras", userId: $u, types: ["otp"]) }', { u: userId }));
    expect((await api.get(`${base}/users/${userId}/credentials`)).body.map((c: { type: string }) => c.type)).toEqual(['password']);
  });

  test('the same permission rules as REST', async () => {
    const id = await newClient('guarded');
    await realmAdmin(ts, R, 'viewer', ['view-clients', 'view-users']);
    const asViewer = gqlClient(ts, { realm: R, username: 'viewer', password: 'pw' });
    const denied = await asViewer('mutation($id: ID!) { registerClientNode(realm: "extras", id: $id, node: "n") }', { id });
    expect(denied.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    const profile = await asViewer('mutation($c: JSONObject!) { updateUserProfile(realm: "extras", config: $c) }', { c: {} });
    expect(profile.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
