import { decodeJwt } from 'jose';
import request from 'supertest';
import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, createRole, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * The UMA grant of the token endpoint (`urn:ietf:params:oauth:grant-type:uma-ticket`, Keycloak's
 * AuthorizationTokenService): a bearer's holder or a confidential client asks a resource server
 * (`audience`) for permissions (`resource#scope`) and gets an RPT, a decision or the permission list,
 * or 403 `access_denied`; policies of each kind decide, under the permissions' and the resource
 * server's decision strategies.
 */
let ts: TestServer;
let api: AdminApi;
let realmId: string;
let rsId: string;
let rs: string;
const R = 'umagrant';
const ids: Record<string, string> = {};
const UMA = 'urn:ietf:params:oauth:grant-type:uma-ticket';
type Rep = Record<string, unknown>;

const create = async (path: string, body: Rep): Promise<Rep> =>
  expectStatus(await api.post(`${rs}/${path}`, body), 201, `create ${body.name}`).body;

/** A token request; `permission` may repeat (an array), `bearer` goes into the Authorization header. */
function token(form: Record<string, string | string[]>, bearer?: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
  const t = request(ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form');
  if (bearer) t.set('Authorization', `Bearer ${bearer}`);
  return t.send(body.toString());
}
const login = async (username: string) =>
  expectStatus(await token({ grant_type: 'password', client_id: 'web', username, password: 'pw' }), 200, `login ${username}`).body
    .access_token as string;
const uma = (bearer: string, extra: Record<string, string | string[]> = {}) =>
  token({ grant_type: UMA, audience: 'api', ...extra }, bearer);

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
  rsId = await createClient(api, R, { clientId: 'api', secret: 'api-secret', publicClient: false, authorizationServicesEnabled: true });
  await createClient(api, R, { clientId: 'web', publicClient: true, directAccessGrantsEnabled: true });
  await createClient(api, R, { clientId: 'plain', secret: 's', publicClient: false, serviceAccountsEnabled: true });
  rs = `/admin/realms/${R}/clients/${rsId}/authz/resource-server`;
  await createRole(api, R, 'reader');
  ids.alice = await createUser(ts, R, 'alice', { defaultRoles: true });
  ids.bob = await createUser(ts, R, 'bob', { defaultRoles: true });
  const reader = (await api.get(`/admin/realms/${R}/roles/reader`)).body;
  expectStatus(await api.post(`/admin/realms/${R}/users/${ids.alice}/role-mappings/realm`, [reader]), 204, 'reader');
  for (const s of ['read', 'write', 'share']) ids[s] = String((await create('scope', { name: s })).id);
  ids.photos = String((await create('resource', { name: 'Photos', uris: ['/photos/*'], scopes: ['read', 'write', 'share'] }))._id);
  ids.albums = String((await create('resource', { name: 'Albums', scopes: ['read'] }))._id);
  await create('policy/role', { name: 'readers', roles: [{ id: 'reader' }] });
  await create('policy/client', { name: 'from-web', clients: ['web'] });
  await create('policy/client-scope', { name: 'email-scope', clientScopes: [{ id: 'email', required: true }] });
  await create('policy/user', { name: 'not-bob', users: ['bob'], logic: 'NEGATIVE' });
  await create('policy/regex', { name: 'gold', targetClaim: 'tier', pattern: 'gold', targetContextAttributes: true });
  await create('policy/role', { name: 'protectors', roles: [{ id: 'api/uma_protection' }] });
  await create('permission/scope', { name: 'read photos', resources: ['Photos'], scopes: ['read'], policies: ['readers'] });
  await create('permission/scope', {
    name: 'write photos',
    resources: ['Photos'],
    scopes: ['write'],
    policies: ['from-web', 'email-scope'],
  });
  await create('permission/scope', { name: 'share photos', resources: ['Photos'], scopes: ['share'], policies: ['not-bob'] });
  await create('permission/resource', {
    name: 'albums',
    resources: ['Albums'],
    policies: ['gold', 'protectors'],
    decisionStrategy: 'AFFIRMATIVE',
  });
});
afterAll(() => ts.close());

describe('UMA grant', () => {
  test('an RPT with the granted permissions, for the bearer token holder', async () => {
    const res = await uma(await login('alice'), { permission: ['Photos#read', 'Photos#write'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', upgraded: false, expires_in: expect.any(Number) });
    expect(res.body.refresh_token).toEqual(expect.any(String));
    expect(res.body.id_token).toBeUndefined();
    const rpt = decodeJwt(res.body.access_token);
    expect(rpt).toMatchObject({ azp: 'web', sub: ids.alice, typ: 'Bearer' });
    expect([rpt.aud].flat()).toContain('api');
    const [perm] = (rpt.authorization as { permissions: Rep[] }).permissions;
    expect(perm).toMatchObject({ rsid: ids.photos, rsname: 'Photos' });
    expect((perm.scopes as string[]).sort()).toEqual(['read', 'write']);
    // the RPT is an access token like any other: the admin API accepts it as a bearer (401 only when invalid)
    const me = await request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${res.body.access_token}`);
    expect(me.status).toBe(403);
  });

  test('response modes: decision, permissions, without resource names; the scope parameter', async () => {
    const bearer = await login('alice');
    expect((await uma(bearer, { permission: 'Photos#read', response_mode: 'decision' })).body).toEqual({ result: true });
    const list = await uma(bearer, { permission: 'Photos#read', response_mode: 'permissions' });
    expect(list.body).toEqual([{ rsid: ids.photos, rsname: 'Photos', scopes: ['read'] }]);
    const bare = await uma(bearer, {
      permission: 'Photos',
      scope: 'read',
      response_mode: 'permissions',
      response_include_resource_name: 'false',
    });
    expect(bare.body).toEqual([{ rsid: ids.photos, scopes: ['read'] }]);
    const byUri = await uma(bearer, {
      permission: '/photos/1#read',
      permission_resource_format: 'uri',
      permission_resource_matching_uri: 'true',
      response_mode: 'permissions',
    });
    // the default resource's `/*` matches too, and the default permission grants it
    expect(byUri.body).toEqual([
      { rsid: expect.any(String), rsname: 'Default Resource' },
      { rsid: ids.photos, rsname: 'Photos', scopes: ['read'] },
    ]);
    const bad = await uma(bearer, { permission: 'Photos#read', response_mode: 'tokens' });
    expect([bad.status, bad.body]).toEqual([400, { error: 'invalid_request', error_description: 'Invalid response_mode' }]);
  });

  test('denied: 403 access_denied; NEGATIVE logic; a scope granted without the others', async () => {
    const bob = await login('bob');
    const denied = await uma(bob, { permission: 'Photos#read' });
    expect([denied.status, denied.body]).toEqual([403, { error: 'access_denied', error_description: 'not_authorized' }]);
    expect((await uma(bob, { permission: 'Photos#share', response_mode: 'decision' })).status).toBe(403);
    const alice = await login('alice');
    expect((await uma(alice, { permission: 'Photos#share', response_mode: 'decision' })).body).toEqual({ result: true });
    const partial = await uma(bob, { permission: 'Photos#read,write', response_mode: 'permissions' });
    expect(partial.body).toEqual([{ rsid: ids.photos, rsname: 'Photos', scopes: ['write'] }]);
  });

  test('no permission asked: everything the requester may have', async () => {
    const res = await uma(await login('alice'), { response_mode: 'permissions' });
    expect(res.status).toBe(200);
    const photos = (res.body as Rep[]).find((p) => p.rsid === ids.photos);
    expect(((photos?.scopes ?? []) as string[]).sort()).toEqual(['read', 'share', 'write']);
    expect((res.body as Rep[]).some((p) => p.rsname === 'Default Resource')).toBe(true);
    expect((res.body as Rep[]).some((p) => p.rsid === ids.albums)).toBe(false);
  });

  test('a confidential client for itself: its service account, pushed claims, the resource permission', async () => {
    const basic = { grant_type: UMA, audience: 'api', client_id: 'api', client_secret: 'api-secret' };
    const res = await token({ ...basic, permission: 'Albums', response_mode: 'permissions' });
    // a resource permission grants the resource with all its scopes
    expect([res.status, res.body]).toEqual([200, [{ rsid: ids.albums, rsname: 'Albums', scopes: ['read'] }]]);
    const rptRes = await token({ ...basic, permission: 'Albums' });
    expect(rptRes.status).toBe(200);
    const rpt = decodeJwt(rptRes.body.access_token);
    expect(rpt.azp).toBe('api');
    expect(rpt.authorization).toEqual({ permissions: [{ rsid: ids.albums, rsname: 'Albums', scopes: ['read'] }] });
    // a client without the role: only the pushed claim decides (AFFIRMATIVE)
    const plain = { grant_type: UMA, audience: 'api', client_id: 'plain', client_secret: 's', permission: 'Albums' };
    expect((await token({ ...plain, response_mode: 'decision' })).status).toBe(403);
    const claim = Buffer.from(JSON.stringify({ tier: ['gold'] })).toString('base64url');
    const pushed = await token({
      ...plain,
      response_mode: 'decision',
      claim_token: claim,
      claim_token_format: 'urn:ietf:params:oauth:token-type:jwt',
    });
    expect([pushed.status, pushed.body]).toEqual([200, { result: true }]);
    const wrong = await token({ ...basic, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    const publicClaims = await uma(await login('alice'), {
      claim_token: claim,
      claim_token_format: 'urn:ietf:params:oauth:token-type:jwt',
    });
    expect([publicClaims.status, publicClaims.body.error]).toEqual([403, 'invalid_grant']);
  });

  test("the resource server's decision strategy: a scope granted by one permission and denied by another", async () => {
    await create('policy/user', { name: 'only-bob', users: ['bob'] });
    const deny = await create('permission/scope', { name: 'bob reads', resources: ['Photos'], scopes: ['read'], policies: ['only-bob'] });
    const alice = await login('alice');
    try {
      expect((await uma(alice, { permission: 'Photos#read', response_mode: 'decision' })).status).toBe(403);
      expectStatus(await api.put(rs, { policyEnforcementMode: 'ENFORCING', decisionStrategy: 'AFFIRMATIVE' }), 204, 'affirmative');
      expect((await uma(alice, { permission: 'Photos#read', response_mode: 'decision' })).body).toEqual({ result: true });
      expectStatus(await api.put(rs, { policyEnforcementMode: 'PERMISSIVE', decisionStrategy: 'UNANIMOUS' }), 204, 'permissive');
      const free = await create('resource', { name: 'Free' });
      expect((await uma(alice, { permission: 'Free', response_mode: 'permissions' })).body).toEqual([{ rsid: free._id, rsname: 'Free' }]);
    } finally {
      await api.put(rs, { policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS' });
      await api.delete(`${rs}/permission/${deny.id}`);
    }
  });

  test('an earlier RPT: its permissions carried over (upgraded)', async () => {
    const alice = await login('alice');
    const first = await uma(alice, { permission: 'Photos#read' });
    const second = await uma(alice, { permission: 'Photos#write', rpt: first.body.access_token });
    expect(second.status).toBe(200);
    expect(second.body.upgraded).toBe(true);
    const perms = (decodeJwt(second.body.access_token).authorization as { permissions: Rep[] }).permissions;
    expect((perms[0].scopes as string[]).sort()).toEqual(['read', 'write']);
    const forged = await uma(alice, { permission: 'Photos#read', rpt: `${first.body.access_token.slice(0, -4)}AAAA` });
    expect([forged.status, forged.body.error]).toEqual([403, 'invalid_rpt']);
  });

  test('bad requests: 400 with the OAuth error, 401 for a bad bearer token', async () => {
    const alice = await login('alice');
    const cases: Array<[Record<string, string>, number, Rep]> = [
      [{ permission: 'Nothing#read' }, 400, { error: 'invalid_resource', error_description: 'Resource with id [Nothing] does not exist.' }],
      [{ permission: 'Photos#fly' }, 400, { error: 'invalid_scope', error_description: 'One of the given scopes [fly] is invalid' }],
      [{ audience: 'nobody' }, 400, { error: 'invalid_request', error_description: 'Unknown resource server id.' }],
      [{ audience: 'plain' }, 400, { error: 'invalid_request', error_description: 'Client does not support permissions' }],
      [{ audience: '' }, 400, { error: 'invalid_request', error_description: 'You must provide the issuedFor' }],
    ];
    for (const [form, status, body] of cases) {
      const res = await uma(alice, form);
      expect([form, res.status, res.body]).toEqual([form, status, body]);
    }
    const bad = await uma('not-a-token', { permission: 'Photos#read' });
    expect([bad.status, bad.body]).toEqual([401, { error: 'invalid_grant', error_description: 'Invalid bearer token' }]);
    const anonymous = await token({ grant_type: UMA, audience: 'api' });
    expect(anonymous.status).toBe(401);
  });

  test('the PERMISSION_TOKEN event; the grant in the discovery document', async () => {
    expectStatus(await api.put(`/admin/realms/${R}`, { eventsEnabled: true, enabledEventTypes: ['PERMISSION_TOKEN'] }), 204, 'events');
    await uma(await login('alice'), { permission: 'Photos#read', response_mode: 'decision' });
    const events = await ts.db.models.Event.findAll({ where: { realmId, type: 'PERMISSION_TOKEN' } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ clientId: 'web', userId: ids.alice });
    expect(events[0].details).toMatchObject({ audience: 'api', permission: 'Photos#read', auth_method: 'oauth_credentials' });
    const discovery = await request(ts.app).get(`/realms/${R}/.well-known/openid-configuration`);
    expect(discovery.body.grant_types_supported).toContain(UMA);
  });

  test('statements do not grow with the resource server', async () => {
    const alice = await login('alice');
    const ask = () => uma(alice, { permission: 'Photos#read', response_mode: 'decision' });
    await ask();
    const before = await ts.countSql(ask);
    for (let i = 0; i < 5; i++) {
      await create('resource', { name: `more-${i}`, scopes: ['read'] });
      await create('permission/scope', {
        name: `more-${i}`,
        resources: [`more-${i}`],
        scopes: ['read'],
        policies: ['readers', 'from-web'],
      });
    }
    const after = await ts.countSql(ask);
    expect(after.result.status).toBe(200);
    expect(after.count).toBe(before.count);
  });
});
