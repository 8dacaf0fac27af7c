import { decodeJwt } from 'jose';
import request from 'supertest';
import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, createRole, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Refreshing an RPT (Keycloak's TokenManager.refreshAccessToken): the refresh token the UMA grant
 * returns carries the RPT's `authorization`, and `grant_type=refresh_token` on it issues an access
 * token with the same `authorization` claim (and a refresh token that keeps it for the next refresh);
 * an ordinary refresh token gives an access token without one.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'rptrefresh';
const UMA = 'urn:ietf:params:oauth:grant-type:uma-ticket';
type Rep = Record<string, unknown>;

function token(form: Record<string, string>, bearer?: string) {
  const t = request(ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form');
  if (bearer) t.set('Authorization', `Bearer ${bearer}`);
  return t.send(new URLSearchParams(form).toString());
}
const login = async () =>
  expectStatus(await token({ grant_type: 'password', client_id: 'web', username: 'alice', password: 'pw' }), 200, 'login').body as Rep;
const refresh = (refresh_token: string) => token({ grant_type: 'refresh_token', client_id: 'web', refresh_token });

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const rsId = await createClient(api, R, { clientId: 'api', secret: 's', publicClient: false, authorizationServicesEnabled: true });
  await createClient(api, R, { clientId: 'web', publicClient: true, directAccessGrantsEnabled: true });
  await createRole(api, R, 'reader');
  const alice = await createUser(ts, R, 'alice', { defaultRoles: true });
  const reader = (await api.get(`/admin/realms/${R}/roles/reader`)).body;
  expectStatus(await api.post(`/admin/realms/${R}/users/${alice}/role-mappings/realm`, [reader]), 204, 'reader');
  const rs = `/admin/realms/${R}/clients/${rsId}/authz/resource-server`;
  const create = async (path: string, body: Rep) => expectStatus(await api.post(`${rs}/${path}`, body), 201, String(body.name));
  for (const s of ['read', 'write']) await create('scope', { name: s });
  await create('resource', { name: 'Photos', scopes: ['read', 'write'] });
  await create('policy/role', { name: 'readers', roles: [{ id: 'reader' }] });
  await create('permission/scope', { name: 'read photos', resources: ['Photos'], scopes: ['read'], policies: ['readers'] });
});
afterAll(() => ts.close());

describe('refreshing an RPT', () => {
  test('the refreshed access token carries the same authorization, refresh after refresh', async () => {
    const { access_token } = await login();
    const rpt = expectStatus(await token({ grant_type: UMA, audience: 'api', permission: 'Photos#read' }, String(access_token)), 200, 'rpt')
      .body as Rep;
    const granted = decodeJwt(String(rpt.access_token)).authorization as { permissions: Rep[] };
    expect(granted.permissions).toEqual([{ rsid: expect.any(String), rsname: 'Photos', scopes: ['read'] }]);
    expect(decodeJwt(String(rpt.refresh_token)).authorization).toEqual(granted);

    const once = await refresh(String(rpt.refresh_token));
    expect(once.status).toBe(200);
    const first = decodeJwt(once.body.access_token);
    expect(first.authorization).toEqual(granted);
    expect(first).toMatchObject({ azp: 'web', typ: 'Bearer', preferred_username: 'alice' });
    expect(first.jti).not.toBe(decodeJwt(String(rpt.access_token)).jti);

    const twice = await refresh(once.body.refresh_token);
    expect(twice.status).toBe(200);
    expect(decodeJwt(twice.body.access_token).authorization).toEqual(granted);

    // the refreshed RPT is a valid bearer: the admin API verifies it (403: no admin role; an invalid token is 401)
    const me = await request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${twice.body.access_token}`);
    expect(me.status).toBe(403);
  });

  test('an ordinary refresh token: no authorization claim; a tampered RPT refresh token is refused', async () => {
    const plain = await login();
    const res = await refresh(String(plain.refresh_token));
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token).authorization).toBeUndefined();
    expect(decodeJwt(res.body.refresh_token).authorization).toBeUndefined();

    const rpt = (await token({ grant_type: UMA, audience: 'api', permission: 'Photos#read' }, String(plain.access_token))).body as Rep;
    const [h, p, sig] = String(rpt.refresh_token).split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.authorization.permissions[0].scopes = ['read', 'write'];
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    const refused = await refresh(forged);
    expect([refused.status, refused.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Invalid refresh token' }]);
  });
});
