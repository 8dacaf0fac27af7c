import { canClientRoles } from '../../../src/auth/fgap-clients';
import { createContext } from '../../../src/core/context';
import type { ClientModel } from '../../../src/db/models/client';
import type { RealmModel } from '../../../src/db/models/realm';
import type { AdminApi, TestServer } from '../../helpers/server';
import { gqlClient } from '../../graphql/gql';
import { clientUuid, createClient, createClientScope, createGroup, createUser, expectStatus, realmServer } from '../../helpers/fixtures';
import { attachPolicies } from '../../helpers/fgap';

/**
 * Fine-grained admin permissions on clients (Keycloak's ClientPermissions, FGAP v1), for admins holding
 * no realm-management role (or only query-clients / query-users), granted through a group policy on
 * realm-management's resource server: view of "app-view", configure of "app-conf", manage of
 * "app-man" to the members of group "devs". REST and GraphQL: the client itself, its sub-resources
 * (what needs view, configure or manage), GET /clients (batched), client roles' container decisions,
 * and deleting a client dropping its permissions and those of its roles.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'fgapclients';
const base = `/admin/realms/${R}`;
let rsPath: string;
let realm: RealmModel;
let adminCli: string;
const c: Record<string, string> = {};
const u: Record<string, string> = {};
let devs: string;
let policyId: string;
type Rep = Record<string, unknown>;
const NO_SUCH = '00000000-0000-4000-8000-000000000000';

/** Attaches policies to a permission (as the admin console does: PUT the permission with its policies). */
const attach = (permissionId: string, policyIds: string[]): Promise<void> => attachPolicies(api, rsPath, permissionId, policyIds);

/** Turns a client's permissions on and grants `scope` of it to the members of "devs". */
async function grant(clientId: string, scope: string): Promise<void> {
  const ref = expectStatus(await api.put(`${base}/clients/${clientId}/management/permissions`, { enabled: true }), 200, 'on').body;
  await attach(ref.scopePermissions[scope], [policyId]);
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  rsPath = `${base}/clients/${await clientUuid(api, R, 'realm-management')}/authz/resource-server`;
  adminCli = await clientUuid(api, R, 'admin-cli');
  realm = (await ts.db.models.Realm.findOne({ where: { name: R } })) as RealmModel;
  for (const name of ['app-view', 'app-conf', 'app-man', 'app-other'])
    c[name] = await createClient(api, R, { clientId: name, publicClient: false, secret: `${name}-secret`, serviceAccountsEnabled: true });
  devs = await createGroup(api, R, 'devs');
  u.dev = await createUser(ts, R, 'dev');
  u.lister = await createUser(ts, R, 'lister', { roles: ['query-clients'] });
  u.quser = await createUser(ts, R, 'quser', { roles: ['query-users'] });
  for (const name of ['dev', 'lister', 'quser']) expectStatus(await api.put(`${base}/users/${u[name]}/groups/${devs}`), 204, 'join');
  // Permissions on (this makes realm-management's resource server); app-other's get no policy: they grant nothing.
  for (const name of ['app-view', 'app-conf', 'app-man', 'app-other'])
    expectStatus(await api.put(`${base}/clients/${c[name]}/management/permissions`, { enabled: true }), 200, `${name} on`);
  policyId = expectStatus(
    await api.post(`${rsPath}/policy/group`, { name: 'devs members', groups: [{ id: devs, extendChildren: false }] }),
    201,
    'group policy',
  ).body.id;
  await grant(c['app-view'], 'view');
  await grant(c['app-conf'], 'configure');
  await grant(c['app-man'], 'manage');
});
afterAll(() => ts.close());

describe('one client: view ⇐ configure ⇐ manage', () => {
  let dev: AdminApi;
  beforeAll(async () => {
    dev = await ts.api({ realm: R, username: 'dev', password: 'pw' });
  });
  const status = async (method: 'get' | 'put' | 'delete' | 'post', path: string, body?: unknown) =>
    (await dev[method](`${base}${path}`, body)).status;

  test('GET /clients/{id}: the access map per client; the scope lists stay empty without view-clients', async () => {
    const view = expectStatus(await dev.get(`${base}/clients/${c['app-view']}`), 200, 'view').body;
    expect(view.access).toEqual({ view: true, configure: false, manage: false });
    expect([view.defaultClientScopes, view.optionalClientScopes]).toEqual([[], []]);
    expect((await dev.get(`${base}/clients/${c['app-conf']}`)).body.access).toEqual({ view: true, configure: true, manage: false });
    expect((await dev.get(`${base}/clients/${c['app-man']}`)).body.access).toEqual({ view: true, configure: true, manage: true });
    for (const id of [c['app-other'], adminCli]) expect(await status('get', `/clients/${id}`)).toBe(403);
    // Listing needs a role (ClientPermissions#canList): an unknown id is 403, not 404, and GET /clients is refused.
    expect(await status('get', `/clients/${NO_SUCH}`)).toBe(403);
    expect(await status('get', '/clients')).toBe(403);
  });

  test('PUT needs configure; changing fullScopeAllowed needs manage; DELETE needs manage', async () => {
    expect(await status('put', `/clients/${c['app-view']}`, { description: 'x' })).toBe(403);
    expect(await status('put', `/clients/${c['app-conf']}`, { description: 'configured' })).toBe(204);
    expect((await api.get(`${base}/clients/${c['app-conf']}`)).body.description).toBe('configured');
    expect(await status('put', `/clients/${c['app-conf']}`, { fullScopeAllowed: false })).toBe(403);
    expect((await api.get(`${base}/clients/${c['app-conf']}`)).body.fullScopeAllowed).toBe(true);
    expect(await status('put', `/clients/${c['app-man']}`, { fullScopeAllowed: false })).toBe(204);
    expect(await status('delete', `/clients/${c['app-conf']}`)).toBe(403);
  });

  test('sub-resources: view, configure or manage of the client, as ClientResource asks', async () => {
    const cases: Array<[string, 'get' | 'post' | 'put' | 'delete', string, unknown, Record<string, number>]> = [
      ['secret', 'get', '/client-secret', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['new secret', 'post', '/client-secret', undefined, { 'app-view': 403, 'app-conf': 200 }],
      ['drop rotated', 'delete', '/client-secret/rotated', undefined, { 'app-view': 403, 'app-conf': 204 }],
      ['registration token', 'post', '/registration-access-token', undefined, { 'app-conf': 403, 'app-man': 200 }],
      ['service account', 'get', '/service-account-user', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['installation', 'get', '/installation/providers/keycloak-oidc-keycloak-json', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['certificate', 'get', '/certificates/jwt.credential', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['generate', 'post', '/certificates/jwt.credential/generate', undefined, { 'app-view': 403, 'app-conf': 200 }],
      ['node', 'post', '/nodes', { node: 'n1' }, { 'app-view': 403, 'app-conf': 204 }],
      ['unregister', 'delete', '/nodes/n1', undefined, { 'app-view': 403, 'app-conf': 204 }],
      ['mappers', 'get', '/protocol-mappers/models', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['scope mappings', 'get', '/scope-mappings', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['evaluate', 'get', '/evaluate-scopes/protocol-mappers?scope=openid', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['default scopes', 'get', '/default-client-scopes', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['sessions', 'get', '/user-sessions', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['offline sessions', 'get', '/offline-sessions', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['session count', 'get', '/session-count', undefined, { 'app-view': 200, 'app-other': 403 }],
      ['push revocation', 'post', '/push-revocation', undefined, { 'app-view': 403, 'app-conf': 200 }],
    ];
    for (const [what, method, sub, body, expected] of cases)
      for (const [name, want] of Object.entries(expected))
        expect([what, name, await status(method, `/clients/${c[name]}${sub}`, body)]).toEqual([what, name, want]);
    // Linked scopes are not shown without view-clients (canViewClientScopes).
    expect((await dev.get(`${base}/clients/${c['app-view']}/default-client-scopes`)).body).toEqual([]);
    expect((await api.get(`${base}/clients/${c['app-view']}/default-client-scopes`)).body.length).toBeGreaterThan(0);
  });

  test('protocol mappers: create needs manage of the client', async () => {
    const mapper = (name: string) => ({
      name,
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': name, 'claim.value': 'v', 'access.token.claim': 'true' },
    });
    expect(await status('post', `/clients/${c['app-conf']}/protocol-mappers/models`, mapper('m1'))).toBe(403);
    expect(await status('post', `/clients/${c['app-man']}/protocol-mappers/models`, mapper('m1'))).toBe(201);
  });

  test('scope links: manage of the client, then 404 for an unknown scope, then manage-clients for the scope', async () => {
    const scope = await createClientScope(api, R, 'extra-scope');
    expect(await status('put', `/clients/${c['app-conf']}/optional-client-scopes/${scope}`)).toBe(403);
    expect(await status('put', `/clients/${c['app-man']}/optional-client-scopes/${NO_SUCH}`)).toBe(404);
    expect(await status('put', `/clients/${c['app-man']}/optional-client-scopes/${scope}`)).toBe(403);
    expect(await status('delete', `/clients/${c['app-man']}/optional-client-scopes/${scope}`)).toBe(403);
  });

  test('client roles: the container decisions RolePermissions delegates to the client', async () => {
    const ctx = createContext(ts.db, { realmId: realm.id, realmName: R, userId: u.dev, clientId: adminCli }, 'http://x');
    const model = async (name: string) => (await ts.db.models.Client.findByPk(c[name])) as ClientModel;
    const matrix: Record<string, string[]> = {};
    for (const name of ['app-view', 'app-conf', 'app-man', 'app-other']) {
      matrix[name] = [];
      for (const a of ['list', 'view', 'manage'] as const) if (await canClientRoles(ctx, realm, await model(name), a)) matrix[name].push(a);
    }
    expect(matrix).toEqual({
      'app-view': ['list', 'view'],
      'app-conf': ['list', 'view', 'manage'],
      'app-man': ['list', 'view', 'manage'],
      'app-other': [],
    });
  });

  test('GraphQL answers through the same decisions', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'dev', password: 'pw' });
    const q = 'query($r: String!, $id: ID!) { client(realm: $r, id: $id) { clientId access } }';
    const ok = await gql(q, { r: R, id: c['app-conf'] });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.client).toEqual({ clientId: 'app-conf', access: { view: true, configure: true, manage: false } });
    const refused = await gql(q, { r: R, id: c['app-other'] });
    expect(refused.errors?.[0]?.extensions.http?.status ?? refused.errors?.[0]?.extensions.code).toEqual(403);
  });
});

describe('GET /clients without view-clients', () => {
  const ids = (list: Rep[]) => list.map((x) => x.clientId);
  const mine = ['app-conf', 'app-man', 'app-other', 'app-view'];

  test('query-clients: the viewable clients in full with their access, the others listed only', async () => {
    const lister = await ts.api({ realm: R, username: 'lister', password: 'pw' });
    const all = expectStatus(await lister.get(`${base}/clients`), 200, 'list').body as Rep[];
    const byId = new Map(all.map((x) => [x.clientId, x]));
    expect(ids(all).filter((x) => mine.includes(String(x)))).toEqual(mine);
    expect(byId.get('app-view')).toMatchObject({ id: c['app-view'], access: { view: true, configure: false, manage: false } });
    expect(byId.get('app-man')).toMatchObject({ protocol: 'openid-connect', access: { view: true, configure: true, manage: true } });
    expect(Object.keys(byId.get('app-other') as Rep).sort()).toEqual(['clientId', 'id']);
    expect(Object.keys(byId.get('admin-cli') as Rep).sort()).toEqual(['clientId', 'id']);
    expect(ids((await lister.get(`${base}/clients?viewableOnly=true`)).body)).toEqual(['app-conf', 'app-man', 'app-view']);
    // Paged after the decisions; the exact lookup too.
    expect(ids((await lister.get(`${base}/clients?viewableOnly=true&first=1&max=1`)).body)).toEqual(['app-man']);
    expect(ids((await lister.get(`${base}/clients?clientId=app-&search=true&viewableOnly=true&max=2`)).body)).toEqual([
      'app-conf',
      'app-man',
    ]);
    expect((await lister.get(`${base}/clients?clientId=app-other`)).body).toEqual([{ id: c['app-other'], clientId: 'app-other' }]);
    expect((await lister.get(`${base}/clients?clientId=app-other&viewableOnly=true`)).body).toEqual([]);
    // A caller who may list clients gets 404 for an unknown one.
    expect((await lister.get(`${base}/clients/${NO_SUCH}`)).status).toBe(404);
  });

  test('query-users may list clients and sees exactly the ones he may view (keycloak#40192)', async () => {
    const quser = await ts.api({ realm: R, username: 'quser', password: 'pw' });
    const listed = await quser.get(`${base}/clients`);
    expect(listed.status).toBe(200);
    expect((listed.body as Rep[]).map((x) => x.clientId).sort()).toEqual(['app-conf', 'app-man', 'app-view']);
    expect((listed.body as Rep[]).every((x) => x.access !== undefined)).toBe(true);
    expect((await quser.get(`${base}/clients/${c['app-view']}`)).status).toBe(200);
    expect((await quser.get(`${base}/clients/${c['app-other']}`)).status).toBe(403);
  });

  test('GraphQL lists the same clients', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'lister', password: 'pw' });
    const res = await gql('query($r: String!) { realm(name: $r) { clients { clientId access } } }', { r: R });
    expect(res.errors).toBeUndefined();
    const mineListed = ((res.data?.realm.clients ?? []) as Rep[]).filter((x) => mine.includes(String(x.clientId)));
    expect(mineListed).toEqual([
      { clientId: 'app-conf', access: { view: true, configure: true, manage: false } },
      { clientId: 'app-man', access: { view: true, configure: true, manage: true } },
      { clientId: 'app-other', access: null },
      { clientId: 'app-view', access: { view: true, configure: false, manage: false } },
    ]);
    const conn = await gql('query($r: String!) { realm(name: $r) { clientsConnection(filter: {viewableOnly: true}) { totalCount } } }', {
      r: R,
    });
    expect(conn.errors).toBeUndefined();
    expect(conn.data?.realm.clientsConnection.totalCount).toBe(3);
  });

  test('a listing of many viewable clients costs the SQL of a listing of a few (decisions in memory)', async () => {
    const lister = await ts.api({ realm: R, username: 'lister', password: 'pw' });
    const path = `${base}/clients?viewableOnly=true`;
    await lister.get(path);
    const few = await ts.countSql(async () => expectStatus(await lister.get(path), 200, 'few').body);
    for (let i = 0; i < 12; i++) await grant(await createClient(api, R, { clientId: `bulk-${String(i).padStart(2, '0')}` }), 'view');
    await lister.get(path);
    const many = await ts.countSql(async () => expectStatus(await lister.get(path), 200, 'many').body);
    expect(few.result).toHaveLength(3);
    expect(many.result).toHaveLength(15);
    expect(many.count).toBe(few.count);
  });
});

describe('deleting a client', () => {
  test('drops its management permissions and those of its roles, in the same transaction', async () => {
    const doomed = await createClient(api, R, { clientId: 'doomed' });
    expectStatus(await api.post(`${base}/clients/${doomed}/roles`, { name: 'payer' }), 201, 'role');
    const role = (await api.get(`${base}/clients/${doomed}/roles/payer`)).body;
    const clientRef = expectStatus(await api.put(`${base}/clients/${doomed}/management/permissions`, { enabled: true }), 200, 'c').body;
    const roleRef = expectStatus(await api.put(`${base}/roles-by-id/${role.id}/management/permissions`, { enabled: true }), 200, 'r').body;
    await grant(doomed, 'manage');
    const dev = await ts.api({ realm: R, username: 'dev', password: 'pw' });
    expectStatus(await dev.delete(`${base}/clients/${doomed}`), 204, 'delete by a manager through the permission');
    for (const resource of [clientRef.resource, roleRef.resource])
      expect((await api.get(`${rsPath}/resource/${resource}`)).status).toBe(404);
    for (const id of [...Object.values(clientRef.scopePermissions), ...Object.values(roleRef.scopePermissions)])
      expect((await api.get(`${rsPath}/permission/scope/${id}`)).status).toBe(404);
    // Other clients' permissions stay.
    expect((await api.get(`${base}/clients/${c['app-man']}/management/permissions`)).body.enabled).toBe(true);
    expect((await api.get(`${rsPath}/policy/${policyId}`)).status).toBe(200);
  });
});

describe('a realm without fine-grained permissions', () => {
  test('a view-clients admin pays at most the one fgapOn statement for the access map', async () => {
    const R2 = 'fgapclientsoff';
    expectStatus(await api.post('/admin/realms', { realm: R2, enabled: true }), 201, 'realm');
    const app = await createClient(api, R2, { clientId: 'app' });
    await createUser(ts, R2, 'viewer', { roles: ['view-clients'] });
    await createUser(ts, R2, 'manager', { roles: ['manage-clients'] });
    const viewer = await ts.api({ realm: R2, username: 'viewer', password: 'pw' });
    const manager = await ts.api({ realm: R2, username: 'manager', password: 'pw' });
    const path = `/admin/realms/${R2}/clients/${app}`;
    await viewer.get(path);
    await manager.get(path);
    const v = await ts.countSql(async () => expectStatus(await viewer.get(path), 200, 'viewer').body);
    const m = await ts.countSql(async () => expectStatus(await manager.get(path), 200, 'manager').body);
    expect(v.result.access).toEqual({ view: true, configure: false, manage: false });
    expect(m.result.access).toEqual({ view: true, configure: true, manage: true });
    expect(v.count - m.count).toBeLessThanOrEqual(1);
  });
});
