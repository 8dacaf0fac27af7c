import request from 'supertest';
import { createClient, createRealm } from '../../helpers/fixtures';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * The password grant's "Account is not fully set up" (Keycloak's direct grant after
 * evaluateRequiredActionTriggers): a stored required action, or VERIFY_PROFILE as the realm's user
 * profile decides it (enabled in the realm, the profile failing the check for the requested scopes).
 */
let ts: TestServer;
let api: AdminApi;
const R = 'pg-profile';
const A = `/admin/realms/${R}`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await createRealm(api, R);
  await createClient(api, R, { clientId: 'cli', publicClient: true, directAccessGrantsEnabled: true });
});
afterAll(() => ts.close());

const grant = (username: string, scope?: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'cli', username, password: 'pw', ...(scope ? { scope } : {}) });
const NOT_SET_UP = { error: 'invalid_grant', error_description: 'Account is not fully set up' };

async function user(username: string, extra: Record<string, unknown> = {}): Promise<void> {
  await api
    .post(`${A}/users`, { username, enabled: true, credentials: [{ type: 'password', value: 'pw', temporary: false }], ...extra })
    .expect(201);
}
async function setVerifyProfile(enabled: boolean): Promise<void> {
  const action = (await api.get(`${A}/authentication/required-actions/VERIFY_PROFILE`).expect(200)).body;
  await api.put(`${A}/authentication/required-actions/VERIFY_PROFILE`, { ...action, enabled }).expect(204);
}

test('a profile missing what the realm requires is not set up while VERIFY_PROFILE is enabled', async () => {
  await user('nameless', { email: 'nameless@example.org' });
  expect((await grant('nameless')).body).toEqual(NOT_SET_UP);
  await setVerifyProfile(false);
  try {
    expect((await grant('nameless')).status).toBe(200);
  } finally {
    await setVerifyProfile(true);
  }
  await user('complete', { email: 'complete@example.org', firstName: 'C', lastName: 'P' });
  expect((await grant('complete')).status).toBe(200);
});

test('the user profile decides, not a fixed list: names not required, a scoped attribute only with its scope', async () => {
  const config = (await api.get(`${A}/users/profile`).expect(200)).body;
  const original = structuredClone(config);
  for (const a of config.attributes) if (a.name === 'firstName' || a.name === 'lastName') delete a.required;
  config.attributes.push({
    name: 'phoneNumber',
    displayName: 'Phone',
    required: { roles: ['user'], scopes: ['phone'] },
    selector: { scopes: ['phone'] },
    permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
  });
  await api.put(`${A}/users/profile`, config).expect(200);
  try {
    await user('nonames', { email: 'nonames@example.org' });
    expect((await grant('nonames')).status).toBe(200);
    expect((await grant('nonames', 'phone')).body).toEqual(NOT_SET_UP);
  } finally {
    await api.put(`${A}/users/profile`, original).expect(200);
  }
});

test('a stored required action is not set up', async () => {
  await user('pending', { email: 'pending@example.org', firstName: 'P', lastName: 'Q', requiredActions: ['CONFIGURE_TOTP'] });
  expect((await grant('pending')).body).toEqual(NOT_SET_UP);
});
