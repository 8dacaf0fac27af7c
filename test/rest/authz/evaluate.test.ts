import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, createGroup, createRole, createUser, expectStatus, realmAdmin, realmServer } from '../../helpers/fixtures';
import { loadAuthzModel } from '../../../src/services/authz/authz-model';

/**
 * `POST .../authz/resource-server/policy/evaluate` (Keycloak's PolicyEvaluationService): the decision
 * per resource and scope for a user (or only the given roles), with the permissions and policies that
 * voted and the RPT the identity would get; the caller's rights; bad input.
 */
let ts: TestServer;
let api: AdminApi;
let id: string;
let rs: string;
let alice: string;
let bob: string;
const ids: Record<string, string> = {};
const R = 'authzeval';
type Rep = Record<string, unknown>;

const create = async (path: string, body: Rep): Promise<Rep> =>
  expectStatus(await api.post(`${rs}/${path}`, body), 201, `create ${body.name}`).body;
const evaluate = async (body: Rep, who: AdminApi = api) => who.post(`${rs}/policy/evaluate`, body);

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  id = await createClient(api, R, { clientId: 'store', publicClient: false, authorizationServicesEnabled: true });
  rs = `/admin/realms/${R}/clients/${id}/authz/resource-server`;
  await createRole(api, R, 'clerk');
  alice = await createUser(ts, R, 'alice');
  bob = await createUser(ts, R, 'bob');
  const clerk = (await api.get(`/admin/realms/${R}/roles/clerk`)).body;
  expectStatus(await api.post(`/admin/realms/${R}/users/${alice}/role-mappings/realm`, [clerk]), 204, 'clerk');
  const company = await createGroup(api, R, 'company');
  const staff = await createGroup(api, R, 'staff', company);
  expectStatus(await api.put(`/admin/realms/${R}/users/${bob}/groups/${staff}`), 204, 'join staff');
  for (const s of ['view', 'edit', 'delete']) ids[s] = String((await create('scope', { name: s })).id);
  ids.docs = String((await create('resource', { name: 'Docs', scopes: ['view', 'edit', 'delete'] }))._id);
  ids.vault = String((await create('resource', { name: 'Vault', uris: ['/vault/*'] }))._id);
  await create('policy/role', { name: 'clerks', roles: [{ id: 'clerk' }] });
  await create('policy/group', { name: 'company-members', groups: [{ path: '/company', extendChildren: true }] });
  await create('policy/user', { name: 'is-bob', users: ['bob'] });
  await create('policy/regex', { name: 'from-office', targetClaim: 'site', pattern: 'office-\\d+', targetContextAttributes: true });
  await create('policy/time', { name: 'always', notBefore: '2000-01-01 00:00:00' });
  await create('policy/aggregate', { name: 'bob-in-company', policies: ['is-bob', 'company-members'], decisionStrategy: 'UNANIMOUS' });
  await create('permission/scope', {
    name: 'view docs',
    resources: ['Docs'],
    scopes: ['view'],
    policies: ['clerks', 'company-members'],
    decisionStrategy: 'AFFIRMATIVE',
  });
  await create('permission/scope', { name: 'edit docs', resources: ['Docs'], scopes: ['edit'], policies: ['bob-in-company', 'always'] });
  await create('permission/scope', {
    name: 'delete docs',
    resources: ['Docs'],
    scopes: ['delete'],
    policies: ['clerks', 'always', 'is-bob'],
    decisionStrategy: 'CONSENSUS',
  });
  await create('permission/resource', { name: 'vault access', resources: ['Vault'], policies: ['from-office'] });
});
afterAll(() => ts.close());

const docs = (scopes: string[]) => ({ _id: ids.docs, scopes: scopes.map((name) => ({ name })) });

describe('policy/evaluate', () => {
  test('a user: the decision per scope with the permissions and policies that voted, and the RPT', async () => {
    const res = await evaluate({ userId: alice, resources: [docs(['view', 'edit', 'delete'])], context: { attributes: {} } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('PERMIT');
    expect(res.body.entitlements).toBe(false);
    expect(res.body.results).toHaveLength(1);
    const [result] = res.body.results;
    // view: clerks permits (AFFIRMATIVE); edit: bob-in-company denies (UNANIMOUS); delete: clerks + always vs is-bob (CONSENSUS 2:1)
    expect(result.resource).toEqual({ id: ids.docs, name: 'Docs with scopes [delete, view]' });
    expect(result.status).toBe('PERMIT');
    expect(result.scopes.map((s: Rep) => s.name).sort()).toEqual(['delete', 'view']);
    expect(result.allowedScopes.map((s: Rep) => s.name).sort()).toEqual(['delete', 'view']);
    const byName = Object.fromEntries(result.policies.map((p: Rep) => [(p.policy as Rep).name, p]));
    expect(Object.keys(byName).sort()).toEqual(['delete docs', 'edit docs', 'view docs']);
    expect(byName['view docs'].status).toBe('PERMIT');
    expect(byName['edit docs']).toMatchObject({ status: 'DENY', scopes: ['edit'] });
    expect(byName['edit docs'].associatedPolicies.map((a: Rep) => [(a.policy as Rep).name, a.status])).toEqual([
      ['always', 'PERMIT'],
      ['bob-in-company', 'DENY'],
    ]);
    expect(byName['view docs'].policy).toMatchObject({
      type: 'scope',
      decisionStrategy: 'AFFIRMATIVE',
      resources: ['Docs'],
      scopes: ['view'],
    });
    const rpt = res.body.rpt;
    expect(rpt).toMatchObject({ sub: alice, azp: 'store', typ: 'Bearer', preferred_username: 'alice' });
    expect(rpt.realm_access.roles).toContain('clerk');
    expect([rpt.aud].flat()).toContain('store');
    expect(rpt.authorization.permissions).toEqual([{ rsid: ids.docs, rsname: 'Docs', scopes: expect.arrayContaining(['view', 'delete']) }]);
  });

  test('group policies with children, aggregates, usernames as userId; a denied result lists the asked scopes', async () => {
    const res = await evaluate({ userId: 'bob', resources: [docs(['view', 'edit'])] });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'PERMIT', resource: { name: 'Docs with scopes [edit, view]' } });
    const carol = await createUser(ts, R, 'carol');
    const denied = await evaluate({ userId: carol, resources: [docs(['edit'])] });
    expect(denied.body.status).toBe('DENY');
    expect(denied.body.results[0]).toMatchObject({
      status: 'DENY',
      allowedScopes: [],
      resource: { id: ids.docs, name: 'Docs with scopes [edit]' },
    });
    expect(denied.body.results[0].scopes.map((s: Rep) => s.name)).toEqual(['edit']);
    expect(denied.body.rpt.authorization.permissions).toEqual([]);
  });

  test('no user: only the given roles (by name), the subject is the client service account', async () => {
    const none = await evaluate({ resources: [docs(['view'])] });
    expect(none.body.status).toBe('DENY');
    const withRole = await evaluate({ roleIds: ['clerk'], resources: [docs(['view'])] });
    expect(withRole.body.status).toBe('PERMIT');
    expect(withRole.body.rpt).toMatchObject({ azp: 'store', aud: [id, 'store'], realm_access: { roles: ['clerk'] } });
    expect(withRole.body.rpt.authorization.permissions).toEqual([{ rsid: ids.docs, rsname: 'Docs', scopes: ['view'] }]);
  });

  test('context attributes feed regex policies; a resource permission grants the whole resource', async () => {
    const vault = { _id: ids.vault };
    expect((await evaluate({ userId: alice, resources: [vault] })).body.status).toBe('DENY');
    const ok = await evaluate({ userId: alice, resources: [vault], context: { attributes: { site: 'home,office-7' } } });
    expect(ok.body.status).toBe('PERMIT');
    expect(ok.body.results[0]).toMatchObject({ resource: { id: ids.vault, name: 'Vault' }, status: 'PERMIT', scopes: [] });
    expect(ok.body.results[0].policies[0]).toMatchObject({ policy: { name: 'vault access', type: 'resource' }, status: 'PERMIT' });
  });

  test('no resources: every resource of the server, the default permission granting the default resource', async () => {
    const res = await evaluate({ userId: alice, resources: [] });
    expect(res.status).toBe(200);
    const names = res.body.results.map((r: Rep) => (r.resource as Rep).name);
    expect(names).toEqual(expect.arrayContaining(['Default Resource', 'Docs with scopes [delete, view]']));
    const def = res.body.results.find((r: Rep) => (r.resource as Rep).name === 'Default Resource');
    expect(def.status).toBe('PERMIT');
    expect(def.policies[0].policy.name).toBe('Default Permission');
    expect(res.body.status).toBe('DENY');
  });

  test('a type and scopes without a resource', async () => {
    const byScope = await evaluate({ userId: alice, resources: [{ scopes: [{ name: 'view' }] }] });
    expect(byScope.body.results.map((r: Rep) => (r.resource as Rep).name)).toEqual(['Docs with scopes [view]']);
    const byType = await evaluate({ userId: alice, resources: [{ type: 'urn:store:resources:default' }] });
    expect(byType.body.results[0].resource.name).toBe('Default Resource');
  });

  test('rights: view-authorization suffices, view-clients does not', async () => {
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-authorization', 'view-clients']);
    expect((await evaluate({ userId: alice }, viewer)).status).toBe(200);
    const other = await realmAdmin(ts, R, 'other', ['view-clients']);
    const forbidden = await evaluate({ userId: alice }, other);
    expect([forbidden.status, forbidden.body]).toEqual([403, { error: 'HTTP 403 Forbidden' }]);
  });

  test('bad input: 4xx with Keycloak bodies; a client without authorization services is 404', async () => {
    expect((await evaluate({ resources: 'Docs' })).status).toBe(400);
    expect((await evaluate({ context: { attributes: 'x' } })).status).toBe(400);
    const unknown = await evaluate({ resources: [{ _id: 'no-such-resource' }] });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      { error: 'invalid_resource', error_description: 'Resource with id [no-such-resource] does not exist.' },
    ]);
    const bad = await api.post(`${rs}/policy/evaluate`).set('Content-Type', 'application/json').send('{');
    expect(bad.status).toBe(400);
    const plain = await createClient(api, R, { clientId: 'plain', publicClient: false });
    expect((await api.post(`/admin/realms/${R}/clients/${plain}/authz/resource-server/policy/evaluate`, {})).status).toBe(404);
    expect((await api.get(`${rs}/policy/evaluate`)).status).not.toBe(500);
  });

  test('the model loads in a constant number of statements', async () => {
    const small = await ts.countSql(() => loadAuthzModel(ts.db, id));
    for (let i = 0; i < 5; i++) {
      await create('resource', { name: `extra-${i}`, scopes: ['view'] });
      await create('permission/resource', { name: `extra-${i}`, resources: [`extra-${i}`], policies: ['clerks'] });
    }
    const large = await ts.countSql(() => loadAuthzModel(ts.db, id));
    expect(large.count).toBe(small.count);
    expect(large.count).toBeLessThanOrEqual(5);
    expect(large.result?.resources.length).toBeGreaterThan(small.result?.resources.length ?? 0);
  });
});
