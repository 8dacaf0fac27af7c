import request from 'supertest';
import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, masterAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives credentials, password reset,
 * consents, federated identities, impersonation and the user profile.
 */

let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatcreds';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await masterAdminClient(ts));
  await kc.realms.create({
    realm: R,
    enabled: true,
    passwordPolicy: 'length(8) and notUsername(undefined)',
    identityProviders: [{ alias: 'github', providerId: 'github' }],
  });
  kc.setConfig({ realmName: R });
});
afterAll(() => ts.close());

const login = (username: string, password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });

describe('admin client: credentials and links', () => {
  let id: string;
  // Every test below works on this user: created here, not by the first test, so each test runs on its own.
  beforeAll(async () => {
    ({ id } = await kc.users.create({ username: 'carol', email: 'carol@example.org', firstName: 'C', lastName: 'D', enabled: true }));
  });

  test('resetPassword, getCredentials, labels, moves, delete', async () => {
    await expect(kc.users.resetPassword({ id, credential: { type: 'password', value: 'short', temporary: false } })).rejects.toThrow(
      /minimum length 8|invalidPasswordMinLengthMessage/,
    );
    await kc.users.resetPassword({ id, credential: { type: 'password', value: 'long-enough-pw', temporary: false } });
    expect((await login('carol', 'long-enough-pw')).status).toBe(200);
    const creds = await kc.users.getCredentials({ id });
    expect(creds).toHaveLength(1);
    expect(creds[0]).toMatchObject({ type: 'password' });
    expect(creds[0]).not.toHaveProperty('secretData');
    expect(await kc.users.getUserStorageCredentialTypes({ id })).toEqual([]);
    await kc.users.updateCredentialLabel({ id, credentialId: creds[0].id as string }, 'laptop');
    expect((await kc.users.getCredentials({ id }))[0].userLabel).toBe('laptop');
    await kc.users.moveCredentialPositionUp({ id, credentialId: creds[0].id as string });
    await kc.users.moveCredentialPositionDown({ id, credentialId: creds[0].id as string, newPreviousCredentialId: 'none' });
    await kc.users.deleteCredential({ id, credentialId: creds[0].id as string });
    expect(await kc.users.getCredentials({ id })).toEqual([]);
  });

  test('federated identities', async () => {
    await kc.users.addToFederatedIdentity({
      id,
      federatedIdentityId: 'github',
      federatedIdentity: { identityProvider: 'github', userId: 'gh-7', userName: 'carol-gh' },
    });
    expect(await kc.users.listFederatedIdentities({ id })).toEqual([{ identityProvider: 'github', userId: 'gh-7', userName: 'carol-gh' }]);
    expect((await kc.users.find({ idpAlias: 'github' } as never)).map((u) => u.username)).toEqual(['carol']);
    await kc.users.delFromFederatedIdentity({ id, federatedIdentityId: 'github' });
    expect(await kc.users.listFederatedIdentities({ id })).toEqual([]);
  });

  test('consents', async () => {
    expect(await kc.users.listConsents({ id })).toEqual([]);
    await expect(kc.users.revokeConsent({ id, clientId: 'account' })).rejects.toThrow('Consent nor offline token not found');
    const account = (await kc.clients.find({ clientId: 'account' }))[0];
    const now = Date.now();
    await ts.db.models.UserConsent.create({
      id: '11111111-1111-4111-8111-111111111111',
      userId: id,
      clientId: account.id,
      createdDate: now,
      lastUpdatedDate: now,
    });
    expect(await kc.users.listConsents({ id })).toEqual([
      { clientId: 'account', grantedClientScopes: [], createdDate: now, lastUpdatedDate: now, additionalGrants: [] },
    ]);
    await kc.users.revokeConsent({ id, clientId: 'account' });
    expect(await kc.users.listConsents({ id })).toEqual([]);
  });

  test('impersonation', async () => {
    const res = await kc.users.impersonation({ id }, { user: id, realm: R });
    expect(res).toEqual({ redirect: expect.stringMatching(new RegExp(`/realms/${R}/account$`)), sameRealm: false });
  });

  test('user profile', async () => {
    const profile = await kc.users.getProfile();
    expect(profile.attributes?.map((a) => a.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
    const updated = await kc.users.updateProfile({ ...profile, unmanagedAttributePolicy: 'ADMIN_EDIT' as never });
    expect(updated.unmanagedAttributePolicy).toBe('ADMIN_EDIT');
    const meta = await kc.users.getProfileMetadata();
    expect(meta.attributes?.[0]).toMatchObject({ name: 'username', required: true });
    await kc.users.update({ id }, { email: 'carol@example.org', attributes: { team: ['blue'] } });
    expect(await kc.users.getUnmanagedAttributes({ id })).toEqual({ team: ['blue'] });
  });
});
