import { decodeJwt } from 'jose';
import request from 'supertest';
import { createClientScope, createdId, createRole, createUser, realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * The token endpoint keeps a client's token configuration (its row, scopes, mappers, scope roles) under
 * the realm's cache version (client-config-cache.ts, ADR 23). Every change to it through the admin API
 * must be in the very next token: each case warms the cache with a grant, changes one thing, and looks
 * at the next token.
 */
const R = 'tokcache';
let ts: TestServer;
let api: AdminApi;
let client: { id: string; userId: string };
let secret = 'svc-secret';
const C = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  client = await serviceAccountClient(api, R, 'svc', secret);
});
afterAll(() => ts.close());

async function token(extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: 'svc', client_secret: secret, ...extra });
  if (res.status !== 200) return { status: res.status, error: res.body.error };
  return { ...decodeJwt(res.body.access_token), granted: res.body.scope };
}

const ok = <T extends { status: number; body: unknown }>(res: T): T => {
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

test('a client mapper added, changed and removed: the next token follows', async () => {
  await token();
  const mapper = {
    name: 'tier',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-hardcoded-claim-mapper',
    config: { 'claim.name': 'tier', 'claim.value': 'gold', 'jsonType.label': 'String', 'access.token.claim': 'true' },
  };
  const res = ok(await api.post(`${C}/clients/${client.id}/protocol-mappers/models`, mapper));
  const mapperId = String(res.headers.location).split('/').pop();
  expect((await token()).tier).toBe('gold');
  ok(
    await api.put(`${C}/clients/${client.id}/protocol-mappers/models/${mapperId}`, {
      ...mapper,
      id: mapperId,
      config: { ...mapper.config, 'claim.value': 'silver' },
    }),
  );
  expect((await token()).tier).toBe('silver');
  ok(await api.delete(`${C}/clients/${client.id}/protocol-mappers/models/${mapperId}`));
  expect((await token()).tier).toBeUndefined();
});

test('a client scope linked, given a mapper, and unlinked: the granted scope and the claims follow', async () => {
  const scopeId = await createClientScope(api, R, 'extra');
  await token({ scope: 'extra' });
  ok(await api.put(`${C}/clients/${client.id}/optional-client-scopes/${scopeId}`));
  expect((await token({ scope: 'extra' })).granted).toContain('extra');
  ok(
    await api.post(`${C}/client-scopes/${scopeId}/protocol-mappers/models`, {
      name: 'flag',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': 'flag', 'claim.value': 'on', 'jsonType.label': 'String', 'access.token.claim': 'true' },
    }),
  );
  expect((await token({ scope: 'extra' })).flag).toBe('on');
  ok(
    await api.put(`${C}/client-scopes/${scopeId}`, {
      name: 'extra',
      protocol: 'openid-connect',
      attributes: { 'include.in.token.scope': 'false' },
    }),
  );
  expect((await token({ scope: 'extra' })).granted).not.toContain('extra');
  ok(await api.delete(`${C}/clients/${client.id}/optional-client-scopes/${scopeId}`));
  const after = await token({ scope: 'extra' });
  expect(after.flag).toBeUndefined();
});

test('scope mappings of a client without full scope, and composites: the roles in the token follow', async () => {
  const role = await createRole(api, R, 'reports');
  const inner = await createRole(api, R, 'reports-read');
  ok(await api.post(`${C}/users/${client.userId}/role-mappings/realm`, [role]));
  const roles = async () => ((await token()).realm_access as { roles?: string[] } | undefined)?.roles ?? [];
  expect(await roles()).toContain('reports');
  ok(await api.put(`${C}/clients/${client.id}`, { clientId: 'svc', fullScopeAllowed: false }));
  expect(await roles()).not.toContain('reports');
  ok(await api.post(`${C}/clients/${client.id}/scope-mappings/realm`, [role]));
  expect(await roles()).toContain('reports');
  ok(await api.post(`${C}/roles-by-id/${role.id}/composites`, [inner]));
  ok(await api.post(`${C}/clients/${client.id}/scope-mappings/realm`, [inner]));
  expect(await roles()).toEqual(expect.arrayContaining(['reports', 'reports-read']));
  ok(await api.delete(`${C}/clients/${client.id}/scope-mappings/realm`, [role]));
  expect(await roles()).not.toContain('reports');
  ok(await api.put(`${C}/clients/${client.id}`, { clientId: 'svc', fullScopeAllowed: true }));
  expect(await roles()).toContain('reports');
});

test('a new secret and a disabled client take effect on the next request', async () => {
  await token();
  const regenerated = ok(await api.post(`${C}/clients/${client.id}/client-secret`));
  const old = secret;
  secret = regenerated.body.value;
  expect((await token()).azp).toBe('svc');
  secret = old;
  expect(await token()).toEqual({ status: 401, error: 'unauthorized_client' });
  secret = regenerated.body.value;
  ok(await api.put(`${C}/clients/${client.id}`, { clientId: 'svc', enabled: false }));
  expect((await token()).status).toBe(401);
  ok(await api.put(`${C}/clients/${client.id}`, { clientId: 'svc', enabled: true }));
  expect((await token()).azp).toBe('svc');
});

test("the service account's roles and groups, kept under its own and the realm's counters: every change is in the next token", async () => {
  const groupsMapper = {
    name: 'groups',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-group-membership-mapper',
    config: { 'claim.name': 'groups', 'full.path': 'true', 'access.token.claim': 'true' },
  };
  ok(await api.post(`${C}/clients/${client.id}/protocol-mappers/models`, groupsMapper));
  const claims = async () => {
    const t = await token();
    return { roles: ((t.realm_access as { roles?: string[] } | undefined)?.roles ?? []).sort(), groups: (t.groups as string[]) ?? [] };
  };
  const direct = await createRole(api, R, 'svc-direct');
  const viaGroup = await createRole(api, R, 'svc-via-group');
  const inner = await createRole(api, R, 'svc-inner');
  await claims();
  // The user's own counter: a role mapping added and removed.
  ok(await api.post(`${C}/users/${client.userId}/role-mappings/realm`, [direct]));
  expect((await claims()).roles).toContain('svc-direct');
  ok(await api.delete(`${C}/users/${client.userId}/role-mappings/realm`, [direct]));
  expect((await claims()).roles).not.toContain('svc-direct');
  // Group membership (the user's counter), then the group's roles, its name and its parent (the realm's).
  const parent = createdId(await api.post(`${C}/groups`, { name: 'ops' }), 'group');
  const group = createdId(await api.post(`${C}/groups/${parent}/children`, { name: 'batch' }), 'group');
  expect((await claims()).groups).toEqual([]);
  ok(await api.put(`${C}/users/${client.userId}/groups/${group}`));
  expect((await claims()).groups).toEqual(['/ops/batch']);
  ok(await api.post(`${C}/groups/${group}/role-mappings/realm`, [viaGroup]));
  expect((await claims()).roles).toContain('svc-via-group');
  ok(await api.post(`${C}/roles-by-id/${viaGroup.id}/composites`, [inner]));
  expect((await claims()).roles).toEqual(expect.arrayContaining(['svc-via-group', 'svc-inner']));
  ok(await api.put(`${C}/groups/${parent}`, { name: 'operations' }));
  expect((await claims()).groups).toEqual(['/operations/batch']);
  ok(await api.delete(`${C}/users/${client.userId}/groups/${group}`));
  expect(await claims()).toEqual({ roles: expect.not.arrayContaining(['svc-via-group', 'svc-inner']), groups: [] });
  // A client role of another client, through the user's counter.
  const other = createdId(await api.post(`${C}/clients`, { clientId: 'ledger' }), 'client');
  ok(await api.post(`${C}/clients/${other}/roles`, { name: 'post' }));
  const post = (await api.get(`${C}/clients/${other}/roles/post`)).body;
  ok(await api.post(`${C}/users/${client.userId}/role-mappings/clients/${other}`, [post]));
  expect(((await token()).resource_access as Record<string, { roles: string[] }>).ledger.roles).toEqual(['post']);
  ok(await api.delete(`${C}/roles-by-id/${post.id}`));
  expect(((await token()).resource_access as Record<string, unknown> | undefined)?.ledger).toBeUndefined();
});

test("a refreshed token has the user's roles as they are now: kept roles follow the user's counter", async () => {
  const userId = await createUser(ts, R, 'refresher');
  const role = await createRole(api, R, 'refresher-role');
  ok(await api.post(`${C}/clients`, { clientId: 'app', publicClient: true, directAccessGrantsEnabled: true }));
  const login = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'app', username: 'refresher', password: 'pw' });
  expect(login.status).toBe(200);
  let refreshToken = login.body.refresh_token as string;
  const refreshedRoles = async () => {
    const res = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: 'app', refresh_token: refreshToken });
    expect(res.body).toHaveProperty('access_token');
    refreshToken = res.body.refresh_token;
    return (decodeJwt(res.body.access_token).realm_access as { roles?: string[] } | undefined)?.roles ?? [];
  };
  expect(await refreshedRoles()).not.toContain('refresher-role');
  ok(await api.post(`${C}/users/${userId}/role-mappings/realm`, [role]));
  expect(await refreshedRoles()).toContain('refresher-role');
  expect(await refreshedRoles()).toContain('refresher-role');
  ok(await api.delete(`${C}/users/${userId}/role-mappings/realm`, [role]));
  expect(await refreshedRoles()).not.toContain('refresher-role');
});
