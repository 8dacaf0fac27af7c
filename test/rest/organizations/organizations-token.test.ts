import request from 'supertest';
import { createUser } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * The `organization` client scope's `oidc-organization-membership-mapper` (Keycloak 26's
 * OrganizationMembershipMapper and OrganizationScope): requested with `scope=organization:*`,
 * `organization:<alias>` or plain `organization` (a user of exactly one organization), tokens carry
 * the aliases of the user's enabled organizations; with `jsonType.label` JSON, a map by alias with the id and
 * attributes when configured. Nothing without the scope, without organizations, or with the realm's
 * organizations off.
 */
type Mapper = { id: string; protocolMapper: string; config: Record<string, string> };
let ts: TestServer;
let api: AdminApi;
const R = 'orgtoken';
const base = `/admin/realms/${R}/organizations`;

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
const payload = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

async function tokens(username: string, scope?: string): Promise<{ access: Record<string, unknown>; id: Record<string, unknown> }> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'org-app', username, password: 'pw', scope: ['openid', scope].filter(Boolean).join(' ') });
  expect(res.status).toBe(200);
  return { access: payload(res.body.access_token), id: payload(res.body.id_token) };
}

async function member(orgId: string, userId: string) {
  expect((await api.post(`${base}/${orgId}/members`, JSON.stringify(userId)).set('Content-Type', 'application/json')).status).toBe(201);
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true, organizationsEnabled: true })).status).toBe(201);
  const app = { clientId: 'org-app', publicClient: true, directAccessGrantsEnabled: true };
  expect((await api.post(`/admin/realms/${R}/clients`, app)).status).toBe(201);
  const user = await createUser(ts, R, 'orguser');
  await createUser(ts, R, 'loner');
  const single = await createUser(ts, R, 'single');
  const acme = idOf((await api.post(base, { name: 'Acme', alias: 'acme', attributes: { tier: ['gold'] } })).headers.location);
  const beta = idOf((await api.post(base, { name: 'Beta', alias: 'beta' })).headers.location);
  const off = idOf((await api.post(base, { name: 'Off', alias: 'off', enabled: false })).headers.location);
  for (const o of [acme, beta, off]) await member(o, user);
  await member(acme, single);
  const halfOff = await createUser(ts, R, 'halfoff');
  await member(acme, halfOff);
  await member(off, halfOff);
});
afterAll(() => ts.close());

describe('organization claim', () => {
  test('scope=organization:*: the aliases of all enabled organizations of the user, in access and ID token', async () => {
    const { access, id } = await tokens('orguser', 'organization:*');
    expect(access.organization).toEqual(['acme', 'beta']);
    expect(id.organization).toEqual(['acme', 'beta']);
    expect(String(access.scope).split(' ')).toContain('organization:*');
  });

  test('scope=organization:<alias>: that organization when the user is a member and it is enabled', async () => {
    const beta = (await tokens('orguser', 'organization:beta')).access;
    expect(beta.organization).toEqual(['beta']);
    expect(String(beta.scope).split(' ')).toContain('organization:beta');
    expect((await tokens('orguser', 'organization:off')).access.organization).toBeUndefined();
    expect((await tokens('single', 'organization:beta')).access.organization).toBeUndefined();
  });

  test('plain scope=organization: only a user of exactly one organization gets it (Keycloak ANY)', async () => {
    const single = await tokens('single', 'organization');
    expect(single.access.organization).toEqual(['acme']);
    expect(String(single.access.scope).split(' ')).toContain('organization');
    expect((await tokens('orguser', 'organization')).access.organization).toBeUndefined();
  });

  test('plain scope=organization counts enabled organizations only: one enabled and one disabled give the enabled one', async () => {
    expect((await tokens('halfoff', 'organization')).access.organization).toEqual(['acme']);
  });

  test('no claim without the scope, or for a user without organizations', async () => {
    expect((await tokens('orguser')).access.organization).toBeUndefined();
    expect((await tokens('loner', 'organization:*')).access.organization).toBeUndefined();
  });

  test('JSON with addOrganizationId and addOrganizationAttributes: a map by alias', async () => {
    const scopes = (await api.get(`/admin/realms/${R}/client-scopes`)).body as Array<{ id: string; name: string }>;
    const scope = scopes.find((s) => s.name === 'organization') as { id: string };
    const mappers = (await api.get(`/admin/realms/${R}/client-scopes/${scope.id}/protocol-mappers/models`)).body as Array<Mapper>;
    const mapper = mappers.find((m) => m.protocolMapper === 'oidc-organization-membership-mapper') as Mapper;
    const put = await api.put(`/admin/realms/${R}/client-scopes/${scope.id}/protocol-mappers/models/${mapper.id}`, {
      ...mapper,
      config: { ...mapper.config, 'jsonType.label': 'JSON', addOrganizationId: 'true', addOrganizationAttributes: 'true' },
    });
    expect(put.status).toBe(204);
    const orgs = (await api.get(`${base}?max=-1`)).body as Array<{ id: string; alias: string }>;
    const idOfAlias = (a: string) => orgs.find((o) => o.alias === a)?.id;
    expect((await tokens('orguser', 'organization:*')).access.organization).toEqual({
      acme: { id: idOfAlias('acme'), tier: ['gold'] },
      beta: { id: idOfAlias('beta') },
    });
  });

  test('a realm with organizations off puts no claim', async () => {
    expect((await api.put(`/admin/realms/${R}`, { organizationsEnabled: false })).status).toBe(204);
    expect((await tokens('orguser', 'organization:*')).access.organization).toBeUndefined();
    expect((await api.put(`/admin/realms/${R}`, { organizationsEnabled: true })).status).toBe(204);
  });
});
