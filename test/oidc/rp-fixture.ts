import request from 'supertest';
import { clientUuid, createClient, createRealm, createUser } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * The relying-party suites' realm (userinfo, introspection, revocation): a user `alice`, a
 * confidential client `web` (secret `web-secret`, web origin https://app.example), a second
 * confidential client `other`, a public client `spa`, the events of these endpoints recorded.
 */
export const EVENT_TYPES = [
  'LOGIN',
  'REFRESH_TOKEN',
  'USER_INFO_REQUEST',
  'USER_INFO_REQUEST_ERROR',
  'INTROSPECT_TOKEN',
  'INTROSPECT_TOKEN_ERROR',
  'REVOKE_GRANT',
  'REVOKE_GRANT_ERROR',
];

export const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

export interface RpFixture {
  admin: AdminApi;
  realm: string;
  alice: string;
  /** Internal ids of the clients. */
  ids: Record<'web' | 'other' | 'spa', string>;
  /** Password grant for alice through `web` (or another client of the realm). */
  login(
    extra?: Record<string, string>,
    clientId?: string,
    secret?: string,
  ): Promise<{ access_token: string; refresh_token: string; id_token?: string; session_state: string }>;
  /** Refresh grant through `web`. */
  refresh(refreshToken: string, clientId?: string, secret?: string): Promise<request.Response>;
  /** The realm's stored user events of a type, newest first. */
  events(type: string): Promise<Array<Record<string, unknown>>>;
  endpoint(path: string): string;
}

export async function rpFixture(ts: TestServer, realm: string): Promise<RpFixture> {
  const admin = await ts.api();
  await createRealm(admin, realm, { eventsEnabled: true, enabledEventTypes: EVENT_TYPES });
  const alice = await createUser(ts, realm, 'alice', { password: 'alice-pw', firstName: 'Alice', lastName: 'Liddell', defaultRoles: true });
  const confidential = (clientId: string) => ({
    clientId,
    publicClient: false,
    secret: `${clientId}-secret`,
    directAccessGrantsEnabled: true,
    redirectUris: ['https://app.example/*'],
    webOrigins: ['https://app.example'],
  });
  await createClient(admin, realm, confidential('web'));
  await createClient(admin, realm, confidential('other'));
  await createClient(admin, realm, { clientId: 'spa', publicClient: true, directAccessGrantsEnabled: true });
  const ids = {
    web: await clientUuid(admin, realm, 'web'),
    other: await clientUuid(admin, realm, 'other'),
    spa: await clientUuid(admin, realm, 'spa'),
  };
  const endpoint = (path: string) => `/realms/${realm}/protocol/openid-connect/${path}`;
  const tokenRequest = (form: Record<string, string>, clientId: string, secret?: string) =>
    request(ts.app)
      .post(endpoint('token'))
      .type('form')
      .send({ client_id: clientId, ...(secret ? { client_secret: secret } : {}), ...form });
  return {
    admin,
    realm,
    alice,
    ids,
    endpoint,
    async login(extra = {}, clientId = 'web', secret = clientId === 'spa' ? undefined : `${clientId}-secret`) {
      const res = await tokenRequest({ grant_type: 'password', username: 'alice', password: 'alice-pw', ...extra }, clientId, secret);
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    refresh: (refreshToken, clientId = 'web', secret = clientId === 'spa' ? undefined : `${clientId}-secret`) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, clientId, secret),
    async events(type) {
      const res = await admin.get(`/admin/realms/${realm}/events?type=${type}`);
      if (res.status !== 200) throw new Error(`events: ${res.status}`);
      return res.body;
    },
  };
}
