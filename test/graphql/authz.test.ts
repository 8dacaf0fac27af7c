import { createClient, createRole, createUser, expectStatus, realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type GqlResult, type Json, USER_ERRORS, gqlClient, ok, startWithRealm, userErrors } from './gql';

/**
 * Authorization services through GraphQL (issue 13 item 6): `Client.authorization` and its nested
 * resources, scopes, policies, permissions, export and evaluation answer what the REST endpoints
 * answer (the same service functions); the mutations write what REST writes, report bad input as
 * `userErrors` with nothing written, and check the caller's rights; a listing over many clients costs
 * a bounded number of statements.
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlauthz';
let store: string;
let rs: string;
let alice: string;
const ids: Record<string, string> = {};

const create = async (path: string, body: Json): Promise<Json> =>
  expectStatus(await api.post(`${rs}/${path}`, body), 201, `create ${body.name}`).body;

const ONE = `query($id: ID!) { client(realm: "${R}", id: $id) { authorization { %s } } }`;
/** The `authorization` of the store client, with `selection`. */
async function authz(selection: string, variables: Json = {}, as = gql): Promise<GqlResult> {
  return as(ONE.replace('%s', selection).replace('query($id: ID!)', `query($id: ID!${varDecls(variables)})`), {
    id: store,
    ...variables,
  });
}
const varDecls = (vars: Json) =>
  Object.keys(vars)
    .map((k) => `, $${k}: ${k === 'input' ? 'JSONObject!' : k === 'rid' ? 'ID!' : 'String'}`)
    .join('');
const data = async (selection: string, variables: Json = {}) => ok(await authz(selection, variables)).client.authorization;

const MUT = (name: string, args: string, result: string) =>
  `mutation($c: ID!, $input: JSONObject!${args.includes('$id') ? ', $id: ID!' : ''}) { ${name}(realm: "${R}", clientUuid: $c, ${args}) { ${result} ${USER_ERRORS} } }`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  store = await createClient(api, R, { clientId: 'store', publicClient: false, authorizationServicesEnabled: true });
  rs = `/admin/realms/${R}/clients/${store}/authz/resource-server`;
  await createRole(api, R, 'clerk');
  alice = await createUser(ts, R, 'alice');
  const clerk = (await api.get(`/admin/realms/${R}/roles/clerk`)).body;
  expectStatus(await api.post(`/admin/realms/${R}/users/${alice}/role-mappings/realm`, [clerk]), 204, 'clerk');
  for (const s of ['view', 'edit']) ids[s] = String((await create('scope', { name: s, displayName: `Can ${s}` })).id);
  ids.docs = String((await create('resource', { name: 'Docs', type: 'doc', uris: ['/docs/*'], scopes: ['view', 'edit'] }))._id);
  ids.clerks = String((await create('policy/role', { name: 'clerks', roles: [{ id: 'clerk' }] })).id);
  ids.viewDocs = String(
    (await create('permission/scope', { name: 'view docs', resources: ['Docs'], scopes: ['view'], policies: ['clerks'] })).id,
  );
});
afterAll(() => ts.close());

describe('graphql authorization services: reads', () => {
  test('Client.authorization is the resource server of GET .../resource-server; null where authorization is off', async () => {
    const a = await data('id clientId name allowRemoteResourceManagement policyEnforcementMode decisionStrategy representation');
    const rest = (await api.get(rs)).body;
    expect(a.representation).toEqual(rest);
    expect(a).toMatchObject({
      id: store,
      clientId: store,
      name: 'store',
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
    });
    const plainClient = await createClient(api, R, { clientId: 'no-authz', publicClient: false });
    const r = ok(await gql(`{ client(realm: "${R}", id: "${plainClient}") { clientId authorization { id } } }`));
    expect(r.client).toEqual({ clientId: 'no-authz', authorization: null });
  });

  test('resources, scopes and policies are the REST listings, with their filters', async () => {
    const a = await data(`resources { id name type uris iconUri owner attributes representation scopes { id name } }
      docs: resources(name: "doc") { name } none: resources(name: "nothing") { name }
      scopes { id name displayName representation } edit: scopes(name: "ed") { name }
      policies { id name type logic decisionStrategy config representation }
      permissions: policies(permission: true, typed: true) { name representation }
      roles: policies(type: "role", typed: true) { name representation }`);
    expect(a.resources.map((r: Json) => r.representation)).toEqual((await api.get(`${rs}/resource`)).body);
    const docs = a.resources.find((r: Json) => r.name === 'Docs');
    expect(docs).toMatchObject({ id: ids.docs, type: 'doc', uris: ['/docs/*'], iconUri: null, owner: { id: store, name: 'store' } });
    expect(docs.scopes.map((s: Json) => s.name)).toEqual(['edit', 'view']);
    expect(a.docs.map((r: Json) => r.name)).toEqual(['Docs']);
    expect(a.none).toEqual([]);
    expect(a.scopes.map((s: Json) => s.representation)).toEqual((await api.get(`${rs}/scope`)).body);
    expect(a.edit).toEqual([{ name: 'edit' }]);
    expect(a.policies.map((p: Json) => p.representation)).toEqual((await api.get(`${rs}/policy`)).body);
    expect(a.policies.find((p: Json) => p.name === 'clerks')).toMatchObject({
      type: 'role',
      logic: 'POSITIVE',
      config: expect.any(Object),
    });
    expect(a.permissions.map((p: Json) => p.representation)).toEqual((await api.get(`${rs}/permission`)).body);
    expect(a.roles.map((p: Json) => p.representation)).toEqual((await api.get(`${rs}/policy/role`)).body);
  });

  test('one object by id or by name, and their relations, as the REST sub-resources', async () => {
    const a = await data(
      `resource(id: $rid) { name permissions { id name type } scopes { id name } attributes }
       resourceByName(name: "Docs") { id } missing: resourceByName(name: "nope") { id }
       scope(id: "${ids.view}") { name resources { id name } permissions { id name type } }
       scopeByName(name: "edit") { id }
       policy(id: "${ids.viewDocs}", typed: true) { name representation resources { id name } scopes { id name } associatedPolicies { id name type description } }
       generic: policy(id: "${ids.viewDocs}") { representation }
       clerks: policy(id: "${ids.clerks}") { dependentPolicies { id name type } }
       policyByName(name: "view docs", typed: true) { representation } noPolicy: policyByName(name: "x") { id }
       policyProviders { type name group }`,
      { rid: ids.docs },
    );
    expect(a.resource.permissions).toEqual((await api.get(`${rs}/resource/${ids.docs}/permissions`)).body);
    expect(a.resource.scopes).toEqual((await api.get(`${rs}/resource/${ids.docs}/scopes`)).body);
    expect(a.resource.attributes).toEqual((await api.get(`${rs}/resource/${ids.docs}/attributes`)).body);
    expect(a.resourceByName.id).toBe(ids.docs);
    expect(a.missing).toBeNull();
    expect(a.scope.resources.map((r: Json) => ({ _id: r.id, name: r.name }))).toEqual(
      (await api.get(`${rs}/scope/${ids.view}/resources`)).body,
    );
    expect(a.scope.permissions).toEqual((await api.get(`${rs}/scope/${ids.view}/permissions`)).body);
    expect(a.scopeByName.id).toBe(ids.edit);
    expect(a.policy.representation).toEqual((await api.get(`${rs}/permission/${ids.viewDocs}`)).body);
    expect(a.generic.representation).toEqual((await api.get(`${rs}/policy/${ids.viewDocs}`)).body);
    expect(a.policy.resources.map((r: Json) => ({ name: r.name, _id: r.id }))).toEqual(
      (await api.get(`${rs}/policy/${ids.viewDocs}/resources`)).body,
    );
    expect(a.policy.scopes).toEqual((await api.get(`${rs}/policy/${ids.viewDocs}/scopes`)).body);
    expect(a.policy.associatedPolicies.map((p: Json) => p.name)).toEqual(['clerks']);
    expect(a.clerks.dependentPolicies).toEqual((await api.get(`${rs}/policy/${ids.clerks}/dependentPolicies`)).body);
    expect(a.policyByName.representation).toEqual((await api.get(`${rs}/permission/search?name=view%20docs`)).body);
    expect(a.noPolicy).toBeNull();
    expect(a.policyProviders).toEqual((await api.get(`${rs}/policy/providers`)).body);
  });

  test('an unknown id is NOT_FOUND at its path, the rest of the answer stands', async () => {
    const r = await authz('name resource(id: "00000000-0000-0000-0000-000000000000") { id }');
    expect(r.data?.client.authorization).toEqual({ name: 'store', resource: null });
    expect(r.errors?.[0]).toMatchObject({ path: ['client', 'authorization', 'resource'], extensions: { http: { status: 404 } } });
  });

  test('settings export and policy evaluation answer what REST answers', async () => {
    const body = { userId: alice, resources: [{ _id: ids.docs, scopes: [{ name: 'view' }] }], context: { attributes: {} } };
    const a = await data('settings evaluate(input: $input)', { input: body });
    expect(a.settings).toEqual((await api.get(`${rs}/settings`)).body);
    const rest = (await api.post(`${rs}/policy/evaluate`, body)).body;
    expect(a.evaluate.status).toBe('PERMIT');
    expect(a.evaluate.results).toEqual(rest.results);
  });
});

describe('graphql authorization services: writes', () => {
  test('create, update and delete a scope, a resource and a policy: the objects REST reads back', async () => {
    const s = ok(await gql(MUT('createAuthzScope', 'input: $input', 'authzScope { id name }'), { c: store, input: { name: 'print' } }))
      .createAuthzScope.authzScope;
    expect((await api.get(`${rs}/scope/${s.id}`)).body).toEqual({ id: s.id, name: 'print' });
    const su = ok(
      await gql(MUT('updateAuthzScope', 'id: $id, input: $input', 'authzScope { displayName }'), {
        c: store,
        id: s.id,
        input: { name: 'print', displayName: 'Print' },
      }),
    );
    expect(su.updateAuthzScope.authzScope.displayName).toBe('Print');

    const r = ok(
      await gql(MUT('createAuthzResource', 'input: $input', 'authzResource { id name scopes { name } representation }'), {
        c: store,
        input: { name: 'Printer', uris: ['/printer'], scopes: [{ name: 'print' }] },
      }),
    ).createAuthzResource.authzResource;
    expect(r.representation).toEqual((await api.get(`${rs}/resource/${r.id}`)).body);
    const ru = ok(
      await gql(MUT('updateAuthzResource', 'id: $id, input: $input', 'authzResource { uris }'), {
        c: store,
        id: r.id,
        input: { name: 'Printer', uris: ['/printer/*'], scopes: [{ name: 'print' }] },
      }),
    );
    expect(ru.updateAuthzResource.authzResource.uris).toEqual(['/printer/*']);

    const p = ok(
      await gql(
        `mutation($c: ID!, $input: JSONObject!) { createAuthzPolicy(realm: "${R}", clientUuid: $c, type: "resource", input: $input) { authzPolicy { id name type representation } ${USER_ERRORS} } }`,
        { c: store, input: { name: 'printing', resources: ['Printer'], policies: ['clerks'] } },
      ),
    ).createAuthzPolicy.authzPolicy;
    expect(p.type).toBe('resource');
    expect((await api.get(`${rs}/permission/${p.id}`)).body).toMatchObject({ name: 'printing', type: 'resource' });
    const typed = ok(
      await gql(MUT('updateAuthzPolicy', 'id: $id, input: $input', 'authzPolicy { description representation }'), {
        c: store,
        id: p.id,
        input: { ...p.representation, description: 'who may print' },
      }),
    ).updateAuthzPolicy.authzPolicy;
    expect(typed.description).toBe('who may print');
    expect(typed.representation).toEqual((await api.get(`${rs}/permission/${p.id}`)).body);
    const generic = (await api.get(`${rs}/policy/${p.id}`)).body;
    const g = ok(
      await gql(
        `mutation($c: ID!, $id: ID!, $input: JSONObject!) { updateAuthzPolicy(realm: "${R}", clientUuid: $c, id: $id, input: $input, generic: true) { authzPolicy { logic config } ${USER_ERRORS} } }`,
        { c: store, id: p.id, input: { ...generic, logic: 'NEGATIVE' } },
      ),
    ).updateAuthzPolicy.authzPolicy;
    expect(g.logic).toBe('NEGATIVE');
    expect(g.config).toEqual((await api.get(`${rs}/policy/${p.id}`)).body.config);

    for (const [m, id] of [
      ['deleteAuthzPolicy', p.id],
      ['deleteAuthzResource', r.id],
      ['deleteAuthzScope', s.id],
    ]) {
      const d = ok(await gql(`mutation { ${m}(realm: "${R}", clientUuid: "${store}", id: "${id}") { ok ${USER_ERRORS} } }`));
      expect(d[m]).toEqual({ ok: true, userErrors: [] });
    }
    expect((await api.get(`${rs}/scope/${s.id}`)).status).toBe(404);
    expect((await api.get(`${rs}/resource/${r.id}`)).status).toBe(404);
    expect((await api.get(`${rs}/policy/${p.id}`)).status).toBe(404);
  });

  test('bad input is userErrors with Keycloak messages, and nothing is written', async () => {
    const before = (await api.get(`${rs}/scope`)).body;
    const dup = await gql(MUT('createAuthzScope', 'input: $input', 'authzScope { id }'), { c: store, input: { name: 'view' } });
    expect(userErrors(dup, 'createAuthzScope')).toEqual([
      { field: ['input'], code: 'CONFLICT', message: 'Scope with name [view] already exists.' },
    ]);
    expect((dup.data as Json).createAuthzScope.authzScope).toBeNull();
    const badRole = await gql(
      `mutation($c: ID!, $input: JSONObject!) { createAuthzPolicy(realm: "${R}", clientUuid: $c, type: "role", input: $input) { authzPolicy { id } ${USER_ERRORS} } }`,
      { c: store, input: { name: 'ghosts', roles: [{ id: 'no-such-role' }] } },
    );
    expect(userErrors(badRole, 'createAuthzPolicy')[0]).toMatchObject({ field: ['input'] });
    const badMode = await gql(MUT('updateResourceServer', 'input: $input', 'resourceServer { id }'), {
      c: store,
      input: { policyEnforcementMode: 'SOMETIMES' },
    });
    expect(userErrors(badMode, 'updateResourceServer')[0]).toMatchObject({ field: ['input'], code: 'BAD_REQUEST' });
    expect((await api.get(`${rs}/scope`)).body).toEqual(before);
    expect((await api.get(`${rs}/policy/search?name=ghosts`)).status).toBe(204);
    expect((await api.get(rs)).body.policyEnforcementMode).toBe('ENFORCING');
  });

  test('the resource server settings and an import, read back by REST', async () => {
    const u = ok(
      await gql(
        MUT(
          'updateResourceServer',
          'input: $input',
          'resourceServer { policyEnforcementMode decisionStrategy allowRemoteResourceManagement }',
        ),
        {
          c: store,
          input: { policyEnforcementMode: 'PERMISSIVE', decisionStrategy: 'AFFIRMATIVE', allowRemoteResourceManagement: true },
        },
      ),
    ).updateResourceServer.resourceServer;
    expect(u).toEqual({ policyEnforcementMode: 'PERMISSIVE', decisionStrategy: 'AFFIRMATIVE', allowRemoteResourceManagement: true });
    expect((await api.get(rs)).body).toMatchObject(u);

    const other = await createClient(api, R, { clientId: 'copy', publicClient: false, authorizationServicesEnabled: true });
    const settings = (await api.get(`${rs}/settings`)).body;
    const imp = ok(
      await gql(
        `mutation($c: ID!, $input: JSONObject!) { importResourceServer(realm: "${R}", clientUuid: $c, input: $input) { resourceServer { name policyEnforcementMode } ${USER_ERRORS} } }`,
        { c: other, input: settings },
      ),
    ).importResourceServer;
    expect(imp).toEqual({ resourceServer: { name: 'copy', policyEnforcementMode: 'PERMISSIVE' }, userErrors: [] });
    const names = (await api.get(`/admin/realms/${R}/clients/${other}/authz/resource-server/resource`)).body.map((r: Json) => r.name);
    expect(names).toContain('Docs');
    expectStatus(await api.put(rs, { policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS' }), 204, 'reset');
  });

  test('a mutation on a client without authorization services is NOT_FOUND, as REST', async () => {
    const plainClient = await createClient(api, R, { clientId: 'no-authz-2', publicClient: false });
    const r = await gql(MUT('createAuthzScope', 'input: $input', 'authzScope { id }'), { c: plainClient, input: { name: 'x' } });
    expect(r.errors?.[0].extensions.http?.status).toBe(404);
  });
});

describe('graphql authorization services: rights', () => {
  test('view-authorization reads; writes and the export need manage-authorization; view-clients alone reads nothing', async () => {
    await realmAdmin(ts, R, 'authz-viewer', ['view-authorization', 'view-clients']);
    await realmAdmin(ts, R, 'clients-viewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'authz-viewer', password: 'pw' });
    const clientsOnly = gqlClient(ts, { realm: R, username: 'clients-viewer', password: 'pw' });

    const read = await authz('name scopes { name }', {}, viewer);
    expect(read.errors).toBeUndefined();
    expect(read.data?.client.authorization.name).toBe('store');
    const exp = await authz('settings', {}, viewer);
    expect(exp.errors?.[0].extensions.http?.status).toBe(403);
    expect((await api.get(rs)).status).toBe(200);
    const write = await viewer(MUT('createAuthzScope', 'input: $input', 'authzScope { id }'), { c: store, input: { name: 'nope' } });
    expect(write.errors?.[0].extensions.http?.status).toBe(403);
    expect((await api.get(`${rs}/scope/search?name=nope`)).text).toBe('');

    const denied = await authz('name resources { name }', {}, clientsOnly);
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
  });
});

describe('graphql authorization services: batching', () => {
  test("every client's resources in a bounded number of statements, whatever the number of clients", async () => {
    const seed = async (prefix: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const c = await createClient(api, R, { clientId: `${prefix}-${i}`, publicClient: false, authorizationServicesEnabled: true });
        const base = `/admin/realms/${R}/clients/${c}/authz/resource-server`;
        expectStatus(await api.post(`${base}/scope`, { name: 'read' }), 201, 'scope');
        expectStatus(await api.post(`${base}/resource`, { name: `doc-${i}`, scopes: ['read'], owner: 'alice' }), 201, 'resource');
      }
    };
    const q = `{ realm(name: "${R}") { clients(max: 30) { clientId authorization { name policyEnforcementMode resources(max: 10) { id name owner scopes { name } } } } } }`;
    const measure = async () => {
      await gql(q);
      const { result, count } = await ts.countSql(() => gql(q));
      return { clients: ok(result).realm.clients as Json[], count };
    };
    await seed('few', 2);
    const small = await measure();
    await seed('many', 10);
    const big = await measure();
    const many = big.clients.filter((c) => String(c.clientId).startsWith('many-'));
    expect(many).toHaveLength(10);
    for (const c of many) {
      const docs = c.authorization.resources.filter((r: Json) => String(r.name).startsWith('doc-'));
      expect(docs).toHaveLength(1);
      expect(docs[0].owner.name).toBe('alice');
      expect(docs[0].scopes).toEqual([{ name: 'read' }]);
    }
    expect(big.count).toBe(small.count);
    expect(big.count).toBeLessThan(30);
  });
});
