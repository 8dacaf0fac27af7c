import { routeTable } from '../../../rest/route-table';
import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Every authorization-services route, called on a real resource server with real and unknown ids and
 * with malformed bodies: below 500 always, and a refused write (4xx) leaves the tables as they were.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'authzhostile';
let client: string;
const ids: Record<string, string> = {};

const TABLES = [
  'resource_server',
  'resource_server_resource',
  'resource_server_scope',
  'resource_server_policy',
  'resource_scope',
  'resource_policy',
  'scope_policy',
  'associated_policy',
];

/** Every row of the authorization tables, as text: what a refused write must not change. */
async function fingerprint(): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) {
    const [rows] = await ts.db.sequelize.query(`SELECT * FROM ${t}`);
    parts.push(JSON.stringify((rows as Array<Record<string, unknown>>).map((r) => JSON.stringify(r)).sort()));
  }
  return parts.join('\n');
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  client = await createClient(api, R, { clientId: 'hostile', publicClient: false, authorizationServicesEnabled: true });
  const rs = `/admin/realms/${R}/clients/${client}/authz/resource-server`;
  ids.scope = expectStatus(await api.post(`${rs}/scope`, { name: 'h-scope' }), 201, 'scope').body.id;
  ids.resource = expectStatus(await api.post(`${rs}/resource`, { name: 'h-res', scopes: ['h-scope'] }), 201, 'resource').body._id;
  ids.policy = expectStatus(await api.post(`${rs}/policy/user`, { name: 'h-pol', users: [] }), 201, 'policy').body.id;
});
afterAll(() => ts.close());

const LONG = 'x'.repeat(300);
const BODIES: unknown[] = [
  null,
  [],
  [1, 'a'],
  {},
  { name: {} },
  { name: LONG },
  { name: 'h-new', type: {} },
  { name: 'h-new', type: 'role', roles: 'r' },
  { name: 'h-new', type: 'role', roles: [{ id: {} }] },
  { name: 'h-new', type: 'role', config: { roles: 'not json' } },
  { name: 'h-new', type: 'role', config: [] },
  { name: 'h-new', type: 'user', config: { users: '[{"a":1}]' } },
  { name: 'h-new', type: 'group', groups: [{ path: '' }] },
  { name: 'h-new', scopes: 'a' },
  { name: 'h-new', scopes: [{ id: 'nope' }] },
  { name: 'h-new', uris: {} },
  { name: 'h-new', owner: 5 },
  { name: 'h-new', owner: { id: {} } },
  { name: 'h-new', attributes: [] },
  { name: 'h-new', attributes: { a: { b: 1 } } },
  { name: 'h-new', policies: [{}] },
  { name: 'h-new', policies: ['nope'] },
  { name: 'h-new', resources: ['nope'] },
  { name: 'h-new', resourceType: {} },
  { name: 'h-new', logic: 'SIDEWAYS' },
  { name: 'h-new', decisionStrategy: 1 },
  { name: 'h-new', policyEnforcementMode: [] },
  { name: 'h-new', notBefore: 'soon' },
  { name: 'h-new', pattern: '(' },
  { name: 'h-new', displayName: LONG },
];

test('every route, real and unknown ids, malformed bodies: below 500, refused writes change nothing', async () => {
  const routes = routeTable().filter((r) => r.template.includes('/authz/resource-server'));
  expect(routes.length).toBeGreaterThan(50);
  const problems: string[] = [];
  let state = await fingerprint();
  for (const route of routes) {
    for (const real of [true, false]) {
      const url = route.template
        .replace(':realm', R)
        .replace(':clientUuid', client)
        .replace(/\/(resource|scope|policy|permission)\/:id/, (_m, kind: string) => {
          const key = kind === 'permission' ? 'policy' : kind;
          return `/${kind}/${real ? ids[key] : 'no-such-id'}`;
        })
        .replace(':type/:id', `user/${real ? ids.policy : 'no-such-id'}`)
        .replace(':type', 'user');
      const bodies = route.method === 'POST' || route.method === 'PUT' ? BODIES : [undefined];
      for (const body of bodies) {
        if (route.method === 'DELETE' && real) continue;
        const send = api[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'];
        const { result: res, writes } = await ts.writesDuring(() => send(url, body));
        const what = `${route.method} ${url} ${JSON.stringify(body)?.slice(0, 80)} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`;
        if (res.status >= 500) problems.push(what);
        // A refused request that issued no writing statement cannot have changed a table: only one that
        // did is compared with the tables as they were.
        else if (res.status >= 400 && writes.length > 0 && (await fingerprint()) !== state)
          problems.push(`${what}, but changed the tables`);
        if (res.status < 300 && route.method !== 'GET') {
          // A write that succeeded: undo what a create added so later names stay free.
          const made = (res.body as { id?: string; _id?: string } | undefined) ?? {};
          const base = `/admin/realms/${R}/clients/${client}/authz/resource-server`;
          if (made._id) await api.delete(`${base}/resource/${made._id}`);
          else if (made.id && route.template.includes('/scope')) await api.delete(`${base}/scope/${made.id}`);
          else if (made.id) await api.delete(`${base}/policy/${made.id}`);
          state = await fingerprint();
        }
      }
    }
  }
  expect(problems).toEqual([]);
}, 300_000);

test('bad paging parameters are 404 as JAX-RS conversion failures, never 500', async () => {
  const rs = `/admin/realms/${R}/clients/${client}/authz/resource-server`;
  for (const path of ['resource', 'scope', 'policy', 'permission']) {
    expect((await api.get(`${rs}/${path}?first=abc`)).status).toBe(404);
    expect((await api.get(`${rs}/${path}?max=-1`)).status).toBeLessThan(300);
  }
});
