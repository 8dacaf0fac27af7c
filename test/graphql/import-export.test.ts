import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL over partial import and partial export: the same services, data and errors as REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlimport';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  expect((await api.post(`${base}/users`, { username: 'existing', enabled: true })).status).toBe(201);
  expect((await api.post(`${base}/clients`, { clientId: 'exp-app', secret: 'top-secret' })).status).toBe(201);
  expect((await api.post(`${base}/groups`, { name: 'exp-group' })).status).toBe(201);
});
afterAll(() => ts.close());

const IMPORT = `mutation($r: String!, $in: JSONObject!, $p: PartialImportPolicy) {
  partialImport(realm: $r, input: $in, ifResourceExists: $p) { partialImportResults { overwritten added skipped results { action resourceType resourceName id } } ${USER_ERRORS} } }`;

const DOC = {
  clients: [{ clientId: 'gi-app', redirectUris: ['https://app.example/*'] }],
  roles: { realm: [{ name: 'gi-role' }], client: { 'gi-app': [{ name: 'gi-app-role' }] } },
  groups: [{ name: 'gi-group', realmRoles: ['gi-role'] }],
  users: [{ username: 'gi-user', enabled: true, realmRoles: ['gi-role'], groups: ['/gi-group'] }],
};

const sorted = (results: Json[]) =>
  [...results].sort((a, b) => `${a.resourceType} ${a.resourceName}`.localeCompare(`${b.resourceType} ${b.resourceName}`));

describe('partial import over GraphQL', () => {
  test('adds the resources and reports them as REST would', async () => {
    const res = ok(await gql(IMPORT, { r: R, in: DOC })).partialImport.partialImportResults as Json;
    expect(res).toMatchObject({ added: 5, skipped: 0, overwritten: 0 });
    const app = (await api.get(`${base}/clients?clientId=gi-app`)).body[0];
    const user = (await api.get(`${base}/users?username=gi-user&exact=true`)).body[0];
    const group = (await api.get(`${base}/groups?search=gi-group`)).body[0];
    const role = (await api.get(`${base}/roles/gi-role`)).body;
    expect(sorted(res.results)).toEqual([
      { action: 'ADDED', resourceType: 'CLIENT', resourceName: 'gi-app', id: app.id },
      { action: 'ADDED', resourceType: 'CLIENT_ROLE', resourceName: 'gi-app-->gi-app-role', id: app.id },
      { action: 'ADDED', resourceType: 'GROUP', resourceName: 'gi-group', id: group.id },
      { action: 'ADDED', resourceType: 'REALM_ROLE', resourceName: 'gi-role', id: role.id },
      { action: 'ADDED', resourceType: 'USER', resourceName: 'gi-user', id: user.id },
    ]);
    expect((await api.get(`${base}/users/${user.id}/role-mappings/realm`)).body.map((r: Json) => r.name)).toContain('gi-role');
  });

  test('SKIP (as an argument or in the document) answers exactly what REST answers', async () => {
    const viaArg = ok(await gql(IMPORT, { r: R, in: DOC, p: 'SKIP' })).partialImport.partialImportResults as Json;
    const viaDoc = ok(await gql(IMPORT, { r: R, in: { ...DOC, ifResourceExists: 'SKIP' } })).partialImport.partialImportResults as Json;
    const rest = await api.post(`${base}/partialImport`, { ...DOC, ifResourceExists: 'SKIP' });
    expect(rest.status).toBe(200);
    expect({ ...viaArg, results: sorted(viaArg.results) }).toEqual({ ...rest.body, results: sorted(rest.body.results) });
    expect(viaDoc).toEqual(viaArg);
    expect(viaArg).toMatchObject({ added: 0, skipped: 5, overwritten: 0 });
  });

  test('OVERWRITE recreates existing resources', async () => {
    const before = (await api.get(`${base}/users?username=gi-user&exact=true`)).body[0];
    const res = ok(await gql(IMPORT, { r: R, in: { users: [{ username: 'gi-user', firstName: 'Over' }] }, p: 'OVERWRITE' })).partialImport
      .partialImportResults as Json;
    const after = (await api.get(`${base}/users?username=gi-user&exact=true`)).body[0];
    expect(res).toEqual({
      overwritten: 1,
      added: 0,
      skipped: 0,
      results: [{ action: 'OVERWRITTEN', resourceType: 'USER', resourceName: 'gi-user', id: after.id }],
    });
    expect([after.id === before.id, after.firstName]).toEqual([false, 'Over']);
  });

  test('a failing item leaves nothing written, with the REST status and body', async () => {
    const existing = {
      clients: [{ clientId: 'gi-rollback' }],
      roles: { realm: [{ name: 'gi-rb-role' }] },
      users: [{ username: 'existing' }],
    };
    const failed = await gql(IMPORT, { r: R, in: existing });
    expect(failed.data?.partialImport.partialImportResults).toBeNull();
    expect(userErrors(failed, 'partialImport')).toMatchObject([{ field: ['input'], code: 'CONFLICT' }]);
    const halfway = {
      clients: [{ clientId: 'gi-rollback' }],
      groups: [{ name: 'gi-rb-group' }],
      roles: { realm: [{ name: 'gi-rb-role', composites: { realm: ['no-such-role'] } }] },
    };
    const broken = await gql(IMPORT, { r: R, in: halfway });
    const rest = await api.post(`${base}/partialImport`, halfway);
    expect(rest.status).toBe(400);
    expect(userErrors(broken, 'partialImport')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message: rest.body.errorMessage }]);
    expect((await api.get(`${base}/clients?clientId=gi-rollback`)).body).toEqual([]);
    expect((await api.get(`${base}/roles/gi-rb-role`)).status).toBe(404);
    expect((await api.get(`${base}/groups?search=gi-rb-group`)).body).toEqual([]);
    const twins = await gql(IMPORT, { r: R, in: { users: [{ username: 'gi-twin' }, { username: 'gi-twin' }] } });
    expect(userErrors(twins, 'partialImport')).toMatchObject([{ code: 'CONFLICT' }]);
    expect((await api.get(`${base}/users?username=gi-twin&exact=true`)).body).toEqual([]);
    const badShape = await gql(IMPORT, { r: R, in: { users: 'x' } });
    const restShape = (await api.post(`${base}/partialImport`, { users: 'x' })).body;
    expect(restShape).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    expect(userErrors(badShape, 'partialImport')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: restShape.error_description },
    ]);
  });
});

describe('partial export over GraphQL', () => {
  test('the same document as REST, with and without clients and groups/roles', async () => {
    const q = 'query($r: String!, $c: Boolean!, $g: Boolean!) { partialExport(realm: $r, exportClients: $c, exportGroupsAndRoles: $g) }';
    for (const [c, g] of [
      [false, false],
      [true, true],
    ]) {
      const doc = ok(await gql(q, { r: R, c, g })).partialExport as Json;
      const rest = await api.post(`${base}/partial-export?exportClients=${c}&exportGroupsAndRoles=${g}`);
      expect(rest.status).toBe(200);
      expect(doc).toEqual(rest.body);
    }
    const plain = ok(await gql('query($r: String!) { partialExport(realm: $r) }', { r: R })).partialExport as Json;
    expect([plain.realm, plain.clients, plain.groups]).toEqual([R, undefined, undefined]);
    const full = ok(await gql(q, { r: R, c: true, g: true })).partialExport as Json;
    const app = (full.clients as Json[]).find((x) => x.clientId === 'exp-app');
    expect(app?.secret).toBe('**********');
    expect((full.groups as Json[]).map((x) => x.name)).toContain('exp-group');
  });
});

describe('permissions', () => {
  test('manage-realm is required for import and export: FORBIDDEN otherwise, nothing written', async () => {
    await realmAdmin(ts, R, 'gi-users', ['manage-users', 'view-users', 'view-clients']);
    const asUsers = gqlClient(ts, { realm: R, username: 'gi-users', password: 'pw' });
    const imported = await asUsers(IMPORT, { r: R, in: { users: [{ username: 'gi-sneaky' }] } });
    expect(imported.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    expect((await api.get(`${base}/users?username=gi-sneaky&exact=true`)).body).toEqual([]);
    const exported = await asUsers('query($r: String!) { partialExport(realm: $r) }', { r: R });
    expect(exported.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const noRealm = await gql('query { partialExport(realm: "nosuch") }');
    expect([noRealm.errors?.[0].extensions.code, noRealm.errors?.[0].message]).toEqual(['NOT_FOUND', 'Realm not found.']);
  });
});
