import { createLoginUser } from '../helpers/fixtures';
import request from 'supertest';
import { startTestServer, type AdminApi, type TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, ok, userErrors } from './gql';

/** Credentials, consents, identity links and impersonation through GraphQL agree with REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqldet';
const U = `/admin/realms/${R}/users`;
let userId: string;

const login = (password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'gqluser', password });

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  gql = gqlClient(ts);
  const res = await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    identityProviders: [{ alias: 'github', providerId: 'github' }],
    users: [
      {
        username: 'gqluser',
        email: 'gql@example.org',
        firstName: 'G',
        lastName: 'Q',
        enabled: true,
        credentials: [{ type: 'password', value: 'first-pw' }],
        clientConsents: [{ clientId: 'account', grantedClientScopes: ['profile'], createdDate: 1, lastUpdatedDate: 2 }],
      },
    ],
  });
  expect(res.status).toBe(201);
  userId = (await api.get(`${U}?username=gqluser&exact=true`)).body[0].id;
});
afterAll(() => ts.close());

const USER = `query($id: ID!) { user(realm: "${R}", id: $id) {
  credentials { id type userLabel createdDate credentialData priority }
  consents { clientId grantedClientScopes createdDate lastUpdatedDate additionalGrants { client key } }
  federatedIdentities { identityProvider userId userName } } }`;

describe('User details through GraphQL', () => {
  test('reads agree with REST', async () => {
    const data = ok(await gql(USER, { id: userId }));
    const drop = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
    expect(data.user.credentials.map(drop)).toEqual((await api.get(`${U}/${userId}/credentials`)).body);
    expect(data.user.consents).toEqual((await api.get(`${U}/${userId}/consents`)).body);
    expect(data.user.federatedIdentities).toEqual([]);
  });

  test('resetPassword, setCredentialLabel, moveCredential, deleteCredential', async () => {
    const bad = await gql(`mutation { resetPassword(realm: "${R}", id: "${userId}", input: { value: "" }) { ok ${USER_ERRORS} } }`);
    expect(userErrors(bad, 'resetPassword')).toMatchObject([{ field: ['input'], code: 'BAD_REQUEST' }]);
    ok(await gql(`mutation { resetPassword(realm: "${R}", id: "${userId}", input: { value: "second-pw", temporary: false }) { ok } }`));
    expect((await login('second-pw')).status).toBe(200);
    expect((await login('first-pw')).status).toBe(400);
    const [cred] = (await api.get(`${U}/${userId}/credentials`)).body;
    ok(await gql(`mutation { setCredentialLabel(realm: "${R}", id: "${userId}", credentialId: "${cred.id}", label: "main") { ok } }`));
    ok(await gql(`mutation { moveCredential(realm: "${R}", id: "${userId}", credentialId: "${cred.id}") { ok } }`));
    expect((await api.get(`${U}/${userId}/credentials`)).body[0]).toMatchObject({ id: cred.id, userLabel: 'main', priority: 10 });
    ok(await gql(`mutation { deleteCredential(realm: "${R}", id: "${userId}", credentialId: "${cred.id}") { ok } }`));
    const missing = await gql(`mutation { deleteCredential(realm: "${R}", id: "${userId}", credentialId: "${cred.id}") { ok } }`);
    expect(missing.errors?.[0].message).toBe('Credential not found');
    expect((await api.get(`${U}/${userId}/credentials`)).body).toEqual([]);
  });

  test('link/unlink federated identity, revoke consent', async () => {
    ok(
      await gql(
        `mutation { linkFederatedIdentity(realm: "${R}", id: "${userId}", alias: "github", input: { userId: "1", userName: "gh" }) { ok } }`,
      ),
    );
    const data = ok(await gql(USER, { id: userId }));
    expect(data.user.federatedIdentities).toEqual([{ identityProvider: 'github', userId: '1', userName: 'gh' }]);
    const dup = await gql(
      `mutation { linkFederatedIdentity(realm: "${R}", id: "${userId}", alias: "github", input: { userId: "2" }) { ok ${USER_ERRORS} } }`,
    );
    expect(userErrors(dup, 'linkFederatedIdentity')).toMatchObject([{ field: ['input'], code: 'CONFLICT' }]);
    ok(await gql(`mutation { unlinkFederatedIdentity(realm: "${R}", id: "${userId}", alias: "github") { ok } }`));
    expect((await api.get(`${U}/${userId}/federated-identity`)).body).toEqual([]);
    ok(await gql(`mutation { revokeConsent(realm: "${R}", id: "${userId}", clientId: "account") { ok } }`));
    expect((await api.get(`${U}/${userId}/consents`)).body).toEqual([]);
    const none = await gql(`mutation { revokeConsent(realm: "${R}", id: "${userId}", clientId: "account") { ok } }`);
    expect(none.errors?.[0].message).toBe('Consent nor offline token not found');
  });

  test('impersonate; forbidden without rights', async () => {
    const data = ok(await gql(`mutation { impersonate(realm: "${R}", id: "${userId}") { impersonation { redirect sameRealm } } }`));
    expect(data.impersonate.impersonation).toEqual({ redirect: `http://localhost:8080/realms/${R}/account`, sameRealm: false });
    await createLoginUser(ts, 'master', 'plainuser', 'plain-pw');
    const plain = gqlClient(ts, { username: 'plainuser', password: 'plain-pw' });
    const denied = await plain(`mutation { impersonate(realm: "${R}", id: "${userId}") { impersonation { redirect } } }`);
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
    const creds = await plain(USER, { id: userId });
    expect(creds.errors?.[0].extensions.http?.status).toBe(403);
  });
});
