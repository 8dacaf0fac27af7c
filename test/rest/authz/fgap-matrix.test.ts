import { routeTable } from '../../../rest/route-table';
import type { AdminApi, TestServer } from '../../helpers/server';
import {
  clientUuid,
  createClient,
  createClientScope,
  createGroup,
  createRole,
  createUser,
  expectStatus,
  realmServer,
} from '../../helpers/fixtures';

/**
 * The permission matrix of issue 13: an admin ("agent", member of group "helpdesk", holding none of the
 * realm-management roles) granted ONE fine-grained permission through a group policy on
 * realm-management's resource server, sent to EVERY admin route of the route table with its path
 * parameters filled with real objects of the realm (the granted ones where the name says so). Each
 * scenario lists the routes Keycloak 26 (FGAP v1) allows: those must not answer 403; every other route
 * must. A route where we disagree with Keycloak is in KNOWN_GAPS (reported, not bent). Each scenario
 * has its own realm (same cast), so writes that succeed never leak into the next one; inside a
 * scenario: GETs (in parallel chunks), then POST/PUT, then DELETEs, the fixtures' own deletions last.
 */
let ts: TestServer;
let api: AdminApi;
type Rep = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const NO_SUCH = '00000000-0000-4000-8000-000000000000';
/** `FGAP_MATRIX_PROBE=1`: logs every route's answer (to read a scenario's matrix when a rule changes). */
const PROBE = process.env.FGAP_MATRIX_PROBE === '1';

/** The objects of one scenario's realm. */
interface Fixture {
  realm: string;
  rsPath: string;
  helpdesk: string;
  /** The helpdesk members policy, made with the resource server (when the first permissions are turned on). */
  policy: string;
  group: string;
  user: string;
  client: string;
  scope: string;
  r1: string;
  /** A component of the realm (a key provider). */
  component: string;
  /** Authorization objects of client app. */
  authz: { resource: string; scope: string; policy: string; policyType: string; permission: string };
  agent: AdminApi;
}

/** A realm with the scenario's cast: helpdesk (agent), customers (cust), staff (employee), client app, role r1, idp idp1. */
async function setUp(realm: string): Promise<Fixture> {
  const base = `/admin/realms/${realm}`;
  expectStatus(await api.post('/admin/realms', { realm, enabled: true }), 201, realm);
  const rm = await clientUuid(api, realm, 'realm-management');
  const rsPath = `${base}/clients/${rm}/authz/resource-server`;
  const helpdesk = await createGroup(api, realm, 'helpdesk');
  const customers = await createGroup(api, realm, 'customers');
  const staff = await createGroup(api, realm, 'staff');
  const agent = await createUser(ts, realm, 'agent');
  const cust = await createUser(ts, realm, 'cust');
  const employee = await createUser(ts, realm, 'employee');
  for (const [user, group] of [
    [agent, helpdesk],
    [cust, customers],
    [employee, staff],
  ])
    expectStatus(await api.put(`${base}/users/${user}/groups/${group}`), 204, 'join');
  const client = await createClient(api, realm, {
    clientId: 'app',
    secret: 's3cret',
    serviceAccountsEnabled: true,
    authorizationServicesEnabled: true,
  });
  expectStatus(await api.post(`${base}/clients/${client}/roles`, { name: 'app-user' }), 201, 'app-user');
  const scope = await createClientScope(api, realm, 'cs1');
  const r1 = (await createRole(api, realm, 'r1')).id;
  await createRole(api, realm, 'r2');
  expectStatus(await api.post(`${base}/identity-provider/instances`, { alias: 'idp1', providerId: 'oidc', config: {} }), 201, 'idp');
  // The client's own authorization objects (its default resource, policy and permission, one scope).
  const appRs = `${base}/clients/${client}/authz/resource-server`;
  const policies: Rep[] = expectStatus(await api.get(`${appRs}/policy`), 200, 'policies').body;
  const policy = policies.find((p) => p.type !== 'resource' && p.type !== 'scope') as Rep;
  const authz = {
    resource: expectStatus(await api.get(`${appRs}/resource`), 200, 'resources').body[0]._id as string,
    scope: expectStatus(await api.post(`${appRs}/scope`, { name: 'sc1' }), 201, 'scope').body.id as string,
    policy: policy.id as string,
    policyType: policy.type as string,
    permission: (policies.find((p) => p.type === 'resource') as Rep).id as string,
  };
  const keys = expectStatus(await api.get(`${base}/components?type=org.keycloak.keys.KeyProvider`), 200, 'components').body;
  return {
    realm,
    rsPath,
    component: keys[0].id,
    authz,
    helpdesk,
    policy: '',
    group: customers,
    user: cust,
    client,
    scope,
    r1,
    agent: await ts.api({ realm, username: 'agent', password: 'pw' }),
  };
}

/** Turns on the permissions of an object (`path` + /management/permissions, or the users one) and arms `scopes` with the helpdesk policy. */
async function grant(fx: Fixture, path: string, scopes: string[]): Promise<void> {
  const url = `/admin/realms/${fx.realm}${path}`;
  const ref = expectStatus(await api.put(url, { enabled: true }), 200, `enable ${path}`).body;
  fx.policy ||= expectStatus(
    await api.post(`${fx.rsPath}/policy/group`, { name: 'helpdesk members', groups: [{ id: fx.helpdesk, extendChildren: false }] }),
    201,
    'policy',
  ).body.id;
  for (const s of scopes) {
    const id = ref.scopePermissions[s];
    const p = expectStatus(await api.get(`${fx.rsPath}/permission/scope/${id}`), 200, 'permission').body;
    const resources = (await api.get(`${fx.rsPath}/policy/${id}/resources`)).body.map((r: Rep) => r._id);
    const sc = (await api.get(`${fx.rsPath}/policy/${id}/scopes`)).body.map((x: Rep) => x.id);
    expectStatus(
      await api.put(`${fx.rsPath}/permission/scope/${id}`, { ...p, resources, scopes: sc, policies: [fx.policy] }),
      201,
      `arm ${s}`,
    );
  }
}

/** The value of a path parameter, chosen by its name and the segment before it. */
function param(fx: Fixture, name: string, prev: string, template: string): string {
  switch (name) {
    case 'realm':
      return fx.realm;
    case 'path':
      return 'customers';
    case 'userId':
      return fx.user;
    case 'groupId':
      return fx.group;
    case 'mapClient':
    case 'compositeClient':
    case 'roleClient':
    case 'roleContainerId':
    case 'clientUuid':
      return fx.client;
    case 'scopeId':
      return fx.scope;
    case 'roleName':
      return template.includes('/clients/:clientUuid/roles/') ? 'app-user' : 'r1';
    case 'roleId':
      return fx.r1;
    case 'clientId':
      return 'app';
    case 'alias':
      if (prev === 'flows') return 'browser';
      if (prev === 'required-actions') return 'CONFIGURE_TOTP';
      return 'idp1';
    case 'attr':
      return 'jwt.credential';
    case 'node':
      return 'node1';
    case 'protocol':
      return 'openid-connect';
    case 'locale':
      return 'en';
    case 'key':
      return 'k';
    case 'type':
      return prev === 'policy' ? fx.authz.policyType : 'resource';
    case 'providerId':
      if (prev === 'providers' && template.includes('/installation/')) return 'keycloak-oidc-keycloak-json';
      if (prev === 'providers') return 'oidc';
      return 'auth-otp-form';
  }
  if (name === 'id' && template.includes('/authz/resource-server/')) {
    const kind = /\/(resource|scope|policy|permission)\/(:type\/)?:id/.exec(template)?.[1] as keyof Fixture['authz'];
    return fx.authz[kind];
  }
  if (name === 'ownerId' || name === 'id') {
    if (prev === 'users') return fx.user;
    if (prev === 'groups') return fx.group;
    if (prev === 'clients') return fx.client;
    if (prev === 'client-scopes' || prev === 'client-templates') return fx.scope;
    if (prev === 'components') return fx.component;
  }
  return NO_SUCH;
}

function url(fx: Fixture, template: string): string {
  const segs = template.split('/');
  return segs
    .map((s, i) => (s.startsWith(':') || s.startsWith('*') ? encodeURIComponent(param(fx, s.slice(1), segs[i - 1], template)) : s))
    .join('/');
}

/** A body that reaches the access check: a list where the endpoint takes roles, an object otherwise. */
function body(method: Method, template: string): unknown {
  if (method === 'GET') return undefined;
  if (/\/(role-mappings|scope-mappings|composites)(\/|$)/.test(template)) return [];
  if (method === 'DELETE') return undefined;
  if (/\/(add-models|disable-credential-types|execute-actions-email)$/.test(template)) return [];
  // Turning the granted object's permissions off would end the scenario: a PUT keeps them on.
  if (/management\/permissions$/.test(template)) return { enabled: true };
  // An update without it would turn the client's authorization services off (Keycloak's rule).
  if (template.endsWith('/clients/:clientUuid')) return { authorizationServicesEnabled: true };
  return {};
}

/** The routes that delete a fixture itself: last. */
const DELETES_FIXTURE =
  /\/(users\/:id|groups\/:id|clients\/:clientUuid|roles\/:roleName|roles-by-id\/:roleId|client-scopes\/:id|client-templates\/:id|identity-provider\/instances\/:alias)$/;

const ROUTES = routeTable()
  .filter((r) => !(r.method === 'DELETE' && r.template === '/admin/realms/:realm'))
  .map((r) => ({ method: r.method as Method, template: r.template, key: `${r.method} ${r.template}` }));
const rank = (r: { method: Method; template: string }) =>
  r.method === 'GET' ? 0 : r.method !== 'DELETE' ? 1 : DELETES_FIXTURE.test(r.template) ? 3 : 2;
const ORDERED = [...ROUTES].sort((a, b) => rank(a) - rank(b));

/** Every route as the agent, in order (GETs in parallel chunks): the status per "METHOD template". */
async function sweep(fx: Fixture): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const send = async (r: (typeof ORDERED)[number]) => {
    const m = r.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    const path = url(fx, r.template);
    let req = fx.agent[m](path, body(r.method, r.template));
    // Endpoints that read another media type: sent what they consume, so the access check is reached.
    if (r.template.endsWith('/localization/:locale/:key')) req = fx.agent.put(path).set('Content-Type', 'text/plain').send('v');
    if (/\/upload(-certificate)?$/.test(r.template))
      req = fx.agent.post(path).field('keystoreFormat', 'Certificate PEM').attach('file', Buffer.from('x'), 'c.pem');
    const res = await req;
    out.set(r.key, res.status);
    if (PROBE) console.log(`${fx.realm} ${r.key} -> ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
  };
  const gets = ORDERED.filter((r) => r.method === 'GET');
  for (let i = 0; i < gets.length; i += 8) await Promise.all(gets.slice(i, i + 8).map(send));
  for (const r of ORDERED.filter((x) => x.method !== 'GET')) await send(r);
  return out;
}

/** "METHOD /path" relative to `/admin/realms/:realm`, as the route table spells it. */
const at = (...routes: string[]) => routes.map((r) => r.replace(' /', ' /admin/realms/:realm/'));
const users = (m: string, ...subs: string[]) => subs.map((s) => `${m} /users/:userId/${s}`);

// Routes that only answer 405 (no such operation, in Keycloak too: JAX-RS refuses the method before any check).
const NO_OPERATION = at(
  'POST /clients/:clientUuid/authz/resource-server/policy/:id',
  'POST /clients/:clientUuid/authz/resource-server/permission/:id',
);

// ClientResource / RoleContainerResource / ScopeMappedResource / ProtocolMappersResource: what needs
// ClientPermissions#canView(client) (view ⇐ configure ⇐ manage), client roles through RolePermissions#canView(client).
const CLIENT_VIEW = at(
  'GET /clients/:clientUuid',
  'GET /clients/:clientUuid/management/permissions', // auth.roles().requireView(client)
  'GET /clients/:clientUuid/client-secret',
  'GET /clients/:clientUuid/client-secret/rotated',
  'GET /clients/:clientUuid/service-account-user',
  'GET /clients/:clientUuid/default-client-scopes',
  'GET /clients/:clientUuid/optional-client-scopes',
  'GET /clients/:clientUuid/installation/providers/:providerId',
  'GET /clients/:clientUuid/session-count',
  'GET /clients/:clientUuid/offline-session-count',
  'GET /clients/:clientUuid/user-sessions',
  'GET /clients/:clientUuid/offline-sessions',
  'GET /clients/:clientUuid/certificates/:attr',
  'POST /clients/:clientUuid/certificates/:attr/download',
  'GET /clients/:ownerId/protocol-mappers/models',
  'GET /clients/:ownerId/protocol-mappers/models/:mapperId',
  'GET /clients/:ownerId/protocol-mappers/protocol/:protocol',
  'GET /clients/:ownerId/scope-mappings',
  'GET /clients/:ownerId/scope-mappings/realm',
  'GET /clients/:ownerId/scope-mappings/realm/available',
  'GET /clients/:ownerId/scope-mappings/realm/composite',
  'GET /clients/:ownerId/scope-mappings/clients/:roleClient',
  'GET /clients/:ownerId/scope-mappings/clients/:roleClient/available',
  'GET /clients/:ownerId/scope-mappings/clients/:roleClient/composite',
  'GET /clients/:clientUuid/evaluate-scopes/protocol-mappers',
  'GET /clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/granted',
  'GET /clients/:clientUuid/evaluate-scopes/scope-mappings/:roleContainerId/not-granted',
  'GET /clients/:clientUuid/evaluate-scopes/generate-example-access-token',
  'GET /clients/:clientUuid/evaluate-scopes/generate-example-id-token',
  'GET /clients/:clientUuid/evaluate-scopes/generate-example-userinfo',
  'GET /clients/:clientUuid/roles', // RolePermissions#canList(client) ⇐ canView(client)
  'GET /clients/:clientUuid/roles/:roleName',
  'GET /clients/:clientUuid/roles/:roleName/composites',
  'GET /clients/:clientUuid/roles/:roleName/composites/realm',
  'GET /clients/:clientUuid/roles/:roleName/composites/clients/:compositeClient',
  'GET /clients/:clientUuid/roles/:roleName/groups',
  'GET /clients/:clientUuid/roles/:roleName/management/permissions',
  // not: roles/:roleName/users (also needs users query), authz/* (view/manage-authorization roles only).
);

interface Gap {
  route: string;
  keycloak: 'allowed' | 'refused';
  ours: string;
}

/**
 * Where this server disagrees with Keycloak (reported to the owner, not bent): the route answers as
 * `ours` says, Keycloak as `keycloak` says. Remove an entry when the owning file is fixed.
 */
const KNOWN_GAPS: Record<string, Gap[]> = {};

const SCENARIOS: Array<{ name: string; realm: string; grant: (fx: Fixture) => Promise<void>; allowed: string[] }> = [
  {
    name: 'manage-members on group "customers"',
    realm: 'fgapmx1',
    grant: (fx) => grant(fx, `/groups/${fx.group}/management/permissions`, ['manage-members']),
    allowed: [
      // GroupPermissions#canViewMembers ⇐ manage-members: the members listing.
      ...at('GET /groups/:id/members'),
      // UserPermissions#canView(user) / canManage(user) ⇐ the group of the user (canViewByGroup / canManageByGroup).
      ...at('GET /users/:id', 'PUT /users/:id', 'DELETE /users/:id'),
      ...at(
        ...users(
          'GET',
          'groups',
          'groups/count',
          'consents',
          'federated-identity',
          'credentials',
          'configured-user-storage-credential-types',
          'unmanagedAttributes',
          'sessions',
          'offline-sessions/:clientUuid',
        ),
        ...users('DELETE', 'consents/:clientId', 'federated-identity/:alias', 'credentials/:credentialId'),
        ...users(
          'POST',
          'federated-identity/:alias',
          'credentials/:credentialId/moveToFirst',
          'credentials/:credentialId/moveAfter/:previousId',
          'logout',
        ),
        ...users(
          'PUT',
          'credentials/:credentialId/userLabel',
          'reset-password',
          'disable-credential-types',
          'execute-actions-email',
          'send-verify-email',
          'reset-password-email',
        ),
      ),
      // RoleMapperResource: reads need view of the user; writes UserPermissions#canMapRoles ⇐ canManage(user).
      ...at(
        'GET /users/:ownerId/role-mappings',
        'GET /users/:ownerId/role-mappings/realm',
        'GET /users/:ownerId/role-mappings/realm/available',
        'GET /users/:ownerId/role-mappings/realm/composite',
        'GET /users/:ownerId/role-mappings/clients/:mapClient',
        'GET /users/:ownerId/role-mappings/clients/:mapClient/available',
        'GET /users/:ownerId/role-mappings/clients/:mapClient/composite',
        'POST /users/:ownerId/role-mappings/realm',
        'DELETE /users/:ownerId/role-mappings/realm',
        'POST /users/:ownerId/role-mappings/clients/:mapClient',
        'DELETE /users/:ownerId/role-mappings/clients/:mapClient',
      ),
      // AttackDetectionResource: the user's view / manage.
      ...at('GET /attack-detection/brute-force/users/:userId', 'DELETE /attack-detection/brute-force/users/:userId'),
      // not: impersonation (impersonate), group membership (manage-membership on the group), any listing (query).
    ],
  },
  {
    name: 'view on client "app"',
    realm: 'fgapmx2',
    grant: (fx) => grant(fx, `/clients/${fx.client}/management/permissions`, ['view']),
    allowed: CLIENT_VIEW,
  },
  {
    name: 'users map-roles and map-role on realm role "r1"',
    realm: 'fgapmx3',
    grant: async (fx) => {
      await grant(fx, '/users-management-permissions', ['map-roles']);
      await grant(fx, `/roles-by-id/${fx.r1}/management/permissions`, ['map-role']);
    },
    // RoleMapperResource writes: UserPermissions#canMapRoles(user) ⇐ the users map-roles permission, then
    // RolePermissions#canMapRole per role (an empty list maps nothing). Reads need view of the user: refused.
    allowed: at(
      'POST /users/:ownerId/role-mappings/realm',
      'DELETE /users/:ownerId/role-mappings/realm',
      'POST /users/:ownerId/role-mappings/clients/:mapClient',
      'DELETE /users/:ownerId/role-mappings/clients/:mapClient',
    ),
  },
  {
    name: 'manage on group "customers"',
    realm: 'fgapmx4',
    grant: (fx) => grant(fx, `/groups/${fx.group}/management/permissions`, ['manage']),
    // GroupPermissions#canView(group) ⇐ manage; canManage(group): the group, its children, its role
    // mappings (roles one by one), its permissions. Not its members (view-members / manage-members).
    allowed: at(
      'GET /groups/:id',
      'PUT /groups/:id',
      'DELETE /groups/:id',
      'GET /groups/:id/children',
      'POST /groups/:id/children',
      'GET /group-by-path/*path',
      'GET /groups/:id/management/permissions',
      'PUT /groups/:id/management/permissions',
      'GET /groups/:ownerId/role-mappings',
      'GET /groups/:ownerId/role-mappings/realm',
      'GET /groups/:ownerId/role-mappings/realm/available',
      'GET /groups/:ownerId/role-mappings/realm/composite',
      'GET /groups/:ownerId/role-mappings/clients/:mapClient',
      'GET /groups/:ownerId/role-mappings/clients/:mapClient/available',
      'GET /groups/:ownerId/role-mappings/clients/:mapClient/composite',
      'POST /groups/:ownerId/role-mappings/realm',
      'DELETE /groups/:ownerId/role-mappings/realm',
      'POST /groups/:ownerId/role-mappings/clients/:mapClient',
      'DELETE /groups/:ownerId/role-mappings/clients/:mapClient',
    ),
  },
  {
    name: 'configure on client "app"',
    realm: 'fgapmx5',
    grant: (fx) => grant(fx, `/clients/${fx.client}/management/permissions`, ['configure']),
    allowed: [
      ...CLIENT_VIEW,
      // ClientResource#requireConfigure: the client, its secret, certificates, nodes, revocation.
      ...at(
        'PUT /clients/:clientUuid',
        'POST /clients/:clientUuid/client-secret',
        'DELETE /clients/:clientUuid/client-secret/rotated',
        'POST /clients/:clientUuid/certificates/:attr/generate',
        'POST /clients/:clientUuid/certificates/:attr/generate-and-download',
        'POST /clients/:clientUuid/certificates/:attr/upload',
        'POST /clients/:clientUuid/certificates/:attr/upload-certificate',
        'POST /clients/:clientUuid/nodes',
        'DELETE /clients/:clientUuid/nodes/:node',
        'GET /clients/:clientUuid/test-nodes-available',
        'POST /clients/:clientUuid/push-revocation',
      ),
      // RolePermissions#canManage(client container) ⇐ ClientPermissions#canConfigure: its roles.
      ...at(
        'POST /clients/:clientUuid/roles',
        'PUT /clients/:clientUuid/roles/:roleName',
        'DELETE /clients/:clientUuid/roles/:roleName',
        'POST /clients/:clientUuid/roles/:roleName/composites',
        'DELETE /clients/:clientUuid/roles/:roleName/composites',
        'PUT /clients/:clientUuid/roles/:roleName/management/permissions',
      ),
      // not (requireManage): DELETE, registration-access-token, protocol mappers and scope-mapping writes,
      // default/optional client scopes, its management permissions; nor authz/* (roles only).
    ],
  },
];

beforeAll(async () => {
  ({ ts, api } = await realmServer('fgapmxbase'));
});
afterAll(() => ts.close());

const KNOWN_ROUTES = new Set(ROUTES.map((r) => r.key));

test('the expectations name routes of the route table', () => {
  expect(ROUTES.length).toBeGreaterThan(370);
  const named = [
    ...NO_OPERATION,
    ...SCENARIOS.flatMap((s) => s.allowed),
    ...Object.values(KNOWN_GAPS).flatMap((g) => g.map((x) => x.route)),
  ];
  expect(named.filter((k) => !KNOWN_ROUTES.has(k))).toEqual([]);
});

/** A scenario sweeps every admin route: more than jest's default 30 s on a loaded CI machine (one sweep passed 30 s there). */
const SWEEP_TIMEOUT = 180_000;

for (const sc of SCENARIOS) {
  test(
    `${sc.name}: 403 exactly where Keycloak refuses (every admin route)`,
    async () => {
      const fx = await setUp(sc.realm);
      await sc.grant(fx);
      const statuses = await sweep(fx);
      expect(statuses.size).toBe(ROUTES.length);
      const gaps = KNOWN_GAPS[sc.realm] ?? [];
      const expected = new Set([...NO_OPERATION, ...sc.allowed]);
      for (const g of gaps) {
        if (g.keycloak === 'allowed') expected.delete(g.route);
        else expected.add(g.route);
      }
      const refusedButExpected = [...expected].filter((k) => statuses.get(k) === 403).sort();
      const allowedButNotExpected = [...statuses]
        .filter(([k, s]) => s !== 403 && !expected.has(k))
        .map(([k, s]) => `${k} -> ${s}`)
        .sort();
      expect({ refusedButExpected, allowedButNotExpected }).toEqual({ refusedButExpected: [], allowedButNotExpected: [] });
      if (sc.realm === 'fgapmx3') {
        // The role check behind the empty list: r1 may be mapped (to anyone), r2 may not.
        const role = async (n: string) => (await api.get(`/admin/realms/${fx.realm}/roles/${n}`)).body;
        const mappings = `/admin/realms/${fx.realm}/users/${fx.user}/role-mappings/realm`;
        expect((await fx.agent.post(mappings, [await role('r1')])).status).toBe(204);
        expect((await fx.agent.post(mappings, [await role('r2')])).status).toBe(403);
        expect((await api.get(mappings)).body.map((r: Rep) => r.name)).toEqual(['r1']);
      }
    },
    SWEEP_TIMEOUT,
  );
}
