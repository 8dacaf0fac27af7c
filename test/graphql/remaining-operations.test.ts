import { createClient, createClientScope, createRole, expectStatus, idOf, realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type GqlResult, type Json, gqlClient, ok, restSpelling, startWithRealm } from './gql';

/**
 * The last REST reads that had no GraphQL twin (issue 9, item 1): one protocol mapper, the mappers of
 * one protocol, the scope mappings of one client, a role's composites of one container, one
 * localization text. Each GraphQL field answers the same data as the REST route, and the same
 * status and Keycloak body where REST answers an error.
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlremaining';
const base = `/admin/realms/${R}`;

const MAPPER = 'id name protocol protocolMapper consentRequired config';
const ROLE = 'id name description composite clientRole containerId';

let appId: string; // client with roles, the container read by the tests
let webId: string; // client owning mappers and scope mappings
let scopeId: string; // client scope owning mappers and scope mappings
const mapperIds: Record<'clients' | 'client-scopes', { oidc: string; saml: string }> = {
  clients: { oidc: '', saml: '' },
  'client-scopes': { oidc: '', saml: '' },
};
const role: Record<string, Json> = {};

const get = async (path: string) => expectStatus(await api.get(`${base}${path}`), 200, `GET ${path}`).body;
/** A role representation as GraphQL's ROLE selection gives it (no attributes in brief form). */
const brief = (reps: Json[]) =>
  reps.map(({ id, name, description, composite, clientRole, containerId }) => ({
    id,
    name,
    description: description ?? null,
    composite,
    clientRole,
    containerId,
  }));

/** The one error of a result: its code, status and Keycloak body. */
function errorOf(r: GqlResult): { code: string; status?: number; body?: Json } {
  expect(r.errors).toHaveLength(1);
  const e = r.errors?.[0];
  return { code: e?.extensions.code ?? '', status: e?.extensions.http?.status, body: e?.extensions.keycloak };
}

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  appId = await createClient(api, R, { clientId: 'app' });
  webId = await createClient(api, R, { clientId: 'web', fullScopeAllowed: false });
  scopeId = await createClientScope(api, R, 'extra');
  for (const name of ['c1', 'c2', 'cparent']) {
    expectStatus(await api.post(`${base}/clients/${appId}/roles`, { name }), 201, `client role ${name}`);
    role[name] = await get(`/clients/${appId}/roles/${name}`);
  }
  for (const name of ['r1', 'r2', 'parent']) role[name] = await createRole(api, R, name, { description: `realm role ${name}` });
  expectStatus(await api.post(`${base}/roles/parent/composites`, [role.r1, role.r2, role.c1]), 204, 'parent composites');
  expectStatus(await api.post(`${base}/clients/${appId}/roles/cparent/composites`, [role.r2, role.c2]), 204, 'cparent composites');

  for (const [kind, id] of [
    ['clients', webId],
    ['client-scopes', scopeId],
  ] as const) {
    const at = `${base}/${kind}/${id}/protocol-mappers/models`;
    const oidc = { name: 'dept', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': 'dept', 'claim.value': 'x' } };
    const saml = { name: 'email', protocolMapper: 'saml-user-property-mapper', config: { 'user.attribute': 'email' } };
    mapperIds[kind].oidc = idOf(expectStatus(await api.post(at, oidc), 201, `${kind} oidc mapper`).headers.location);
    mapperIds[kind].saml = idOf(expectStatus(await api.post(at, saml), 201, `${kind} saml mapper`).headers.location);
  }
  expectStatus(await api.post(`${base}/clients/${webId}/scope-mappings/clients/${appId}`, [role.c1, role.c2]), 204, 'web scope');
  expectStatus(await api.post(`${base}/clients/${webId}/scope-mappings/realm`, [role.r1]), 204, 'web realm scope');
  expectStatus(await api.post(`${base}/client-scopes/${scopeId}/scope-mappings/clients/${appId}`, [role.cparent]), 204, 'scope scope');
});
afterAll(() => ts.close());

describe.each([
  ['CLIENT', 'clients'],
  ['CLIENT_SCOPE', 'client-scopes'],
] as const)('protocol mappers of a %s', (owner, kind) => {
  const ownerId = () => (kind === 'clients' ? webId : scopeId);
  const at = () => `/${kind}/${ownerId()}/protocol-mappers`;

  test('protocolMapper(id) is GET .../protocol-mappers/models/{id}', async () => {
    for (const id of [mapperIds[kind].oidc, mapperIds[kind].saml]) {
      const data = ok(
        await gql(
          `query($r: String!, $o: ID!, $id: ID!) { protocolMapper(realm: $r, owner: ${owner}, ownerId: $o, id: $id) { ${MAPPER} } }`,
          {
            r: R,
            o: ownerId(),
            id,
          },
        ),
      );
      expect(restSpelling(data.protocolMapper)).toEqual(await get(`${at()}/models/${id}`));
    }
  });

  test('an unknown mapper or owner answers NOT_FOUND with the REST body', async () => {
    const rest = await api.get(`${base}${at()}/models/nope`);
    expect(rest.status).toBe(404);
    const r = await gql(`query($r: String!, $o: ID!) { protocolMapper(realm: $r, owner: ${owner}, ownerId: $o, id: "nope") { id } }`, {
      r: R,
      o: ownerId(),
    });
    expect(r.data).toEqual({ protocolMapper: null });
    expect(errorOf(r)).toEqual({ code: 'NOT_FOUND', status: 404, body: rest.body });

    const restOwner = await api.get(`${base}/${kind}/nope/protocol-mappers/protocol/openid-connect`);
    expect(restOwner.status).toBe(404);
    const byProtocol = await gql(
      `query($r: String!) { protocolMappers(realm: $r, owner: ${owner}, ownerId: "nope", protocol: "saml") { id } }`,
      {
        r: R,
      },
    );
    expect(errorOf(byProtocol)).toEqual({ code: 'NOT_FOUND', status: 404, body: restOwner.body });
  });

  test('protocolMappers(protocol:) is GET .../protocol-mappers/protocol/{protocol}', async () => {
    for (const protocol of ['openid-connect', 'saml', 'docker-v2']) {
      const data = ok(
        await gql(
          `query($r: String!, $o: ID!, $p: String) { protocolMappers(realm: $r, owner: ${owner}, ownerId: $o, protocol: $p) { ${MAPPER} } }`,
          { r: R, o: ownerId(), p: protocol },
        ),
      );
      const rest = await get(`${at()}/protocol/${protocol}`);
      expect(restSpelling(data.protocolMappers)).toEqual(rest);
      if (protocol !== 'docker-v2') expect(rest.map((m: Json) => m.protocol)).toContain(protocol);
    }
    // Without the argument: every mapper, as before.
    const all = ok(
      await gql(`query($r: String!, $o: ID!) { protocolMappers(realm: $r, owner: ${owner}, ownerId: $o) { id } }`, { r: R, o: ownerId() }),
    );
    expect(all.protocolMappers.map((m: Json) => m.id).sort()).toEqual([mapperIds[kind].oidc, mapperIds[kind].saml].sort());
  });
});

describe.each([
  ['client', 'Client', 'clients'],
  ['clientScope', 'ClientScope', 'client-scopes'],
] as const)('%s.clientScopeMappings(clientUuid)', (lookup, _type, kind) => {
  const ownerId = () => (kind === 'clients' ? webId : scopeId);
  const query = (field: string) =>
    `query($r: String!, $o: ID!, $c: ID!) { ${field}(realm: $r, id: $o) { clientScopeMappings(clientUuid: $c) { ${ROLE} } } }`;

  test('is GET .../scope-mappings/clients/{client}', async () => {
    const rest = await get(`/${kind}/${ownerId()}/scope-mappings/clients/${appId}`);
    expect(rest.length).toBeGreaterThan(0);
    const data = ok(await gql(query(lookup), { r: R, o: ownerId(), c: appId }));
    expect(data[lookup].clientScopeMappings).toEqual(brief(rest));
    // A client without mappings of this owner: an empty list on both fronts.
    expect(await get(`/${kind}/${ownerId()}/scope-mappings/clients/${webId}`)).toEqual([]);
    expect(ok(await gql(query(lookup), { r: R, o: ownerId(), c: webId }))[lookup].clientScopeMappings).toEqual([]);
  });

  test('an unknown client answers NOT_FOUND with the REST body', async () => {
    const rest = await api.get(`${base}/${kind}/${ownerId()}/scope-mappings/clients/nope`);
    expect(rest.status).toBe(404);
    const r = await gql(query(lookup), { r: R, o: ownerId(), c: 'nope' });
    expect(errorOf(r)).toEqual({ code: 'NOT_FOUND', status: 404, body: rest.body });
    expect(r.errors?.[0].path).toEqual([lookup, 'clientScopeMappings']);
  });
});

describe("a role's composites of one container", () => {
  /** The three REST spellings of one role and the GraphQL lookup that finds it. */
  const ways = () => [
    { rest: '/roles/parent', lookup: 'role(realm: $r, name: "parent")' },
    { rest: `/clients/${appId}/roles/cparent`, lookup: `role(realm: $r, name: "cparent", clientUuid: "${appId}")` },
    { rest: `/roles-by-id/${role.parent.id}`, lookup: `role(realm: $r, id: "${role.parent.id}")` },
    { rest: `/roles-by-id/${role.cparent.id}`, lookup: `role(realm: $r, id: "${role.cparent.id}")` },
  ];

  test('Role.realmComposites is GET .../composites/realm, Role.clientComposites GET .../composites/clients/{client}', async () => {
    for (const { rest, lookup } of ways()) {
      const data = ok(
        await gql(
          `query($r: String!, $c: ID!) { ${lookup} { realmComposites { ${ROLE} } clientComposites(clientUuid: $c) { ${ROLE} } } }`,
          {
            r: R,
            c: appId,
          },
        ),
      );
      const realm = await get(`${rest}/composites/realm`);
      const client = await get(`${rest}/composites/clients/${appId}`);
      expect(realm.length + client.length).toBe(rest.includes('cparent') || rest.endsWith(role.cparent.id) ? 2 : 3);
      expect(data.role).toEqual({ realmComposites: brief(realm), clientComposites: brief(client) });
    }
    // A client none of whose roles are children: empty on both fronts.
    const none = ok(
      await gql(`query($r: String!, $c: ID!) { role(realm: $r, name: "parent") { clientComposites(clientUuid: $c) { id } } }`, {
        r: R,
        c: webId,
      }),
    );
    expect(none.role.clientComposites).toEqual(await get(`/roles/parent/composites/clients/${webId}`));
    expect(none.role.clientComposites).toEqual([]);
  });

  test('an unknown client answers NOT_FOUND with the REST body', async () => {
    for (const { rest, lookup } of ways()) {
      const res = await api.get(`${base}${rest}/composites/clients/nope`);
      expect(res.status).toBe(404);
      const r = await gql(`query($r: String!) { ${lookup} { clientComposites(clientUuid: "nope") { id } } }`, { r: R });
      expect(errorOf(r)).toEqual({ code: 'NOT_FOUND', status: 404, body: res.body });
      expect(r.errors?.[0].path).toEqual(['role', 'clientComposites']);
    }
  });
});

describe('Realm.localizationText(locale, key)', () => {
  test('is GET /localization/{locale}/{key}; an unknown key is null with the REST 404', async () => {
    expectStatus(await api.post(`${base}/localization/de`, { hello: 'Hallo', bye: 'Tschüss' }), 204, 'texts');
    const data = ok(
      await gql(
        `query($r: String!) { realm(name: $r) { hello: localizationText(locale: "de", key: "hello") bye: localizationText(locale: "de", key: "bye") } }`,
        {
          r: R,
        },
      ),
    );
    expect(data.realm).toEqual({
      hello: (await api.get(`${base}/localization/de/hello`)).text,
      bye: (await api.get(`${base}/localization/de/bye`)).text,
    });
    expect(data.realm).toEqual({ hello: 'Hallo', bye: 'Tschüss' });

    for (const [locale, key] of [
      ['de', 'nope'],
      ['fr', 'hello'],
    ]) {
      const rest = await api.get(`${base}/localization/${locale}/${key}`);
      expect(rest.status).toBe(404);
      const r = await gql(
        `query($r: String!, $l: String!, $k: String!) { realm(name: $r) { realm localizationText(locale: $l, key: $k) } }`,
        {
          r: R,
          l: locale,
          k: key,
        },
      );
      expect(r.data).toEqual({ realm: { realm: R, localizationText: null } });
      expect(errorOf(r)).toEqual({ code: 'NOT_FOUND', status: 404, body: rest.body });
    }
  });
});

describe('permissions', () => {
  test('a caller without view-clients gets FORBIDDEN where REST answers 403', async () => {
    const viewerApi = await realmAdmin(ts, R, 'remaining-viewer', ['view-users']);
    const viewer = gqlClient(ts, { realm: R, username: 'remaining-viewer', password: 'pw' });
    const id = mapperIds.clients.oidc;

    const restOne = await viewerApi.get(`${base}/clients/${webId}/protocol-mappers/models/${id}`);
    expect(restOne.status).toBe(403);
    const one = await viewer(
      `query($r: String!, $o: ID!, $id: ID!) { protocolMapper(realm: $r, owner: CLIENT, ownerId: $o, id: $id) { id } }`,
      {
        r: R,
        o: webId,
        id,
      },
    );
    expect(one.data).toEqual({ protocolMapper: null });
    expect(errorOf(one)).toEqual({ code: 'FORBIDDEN', status: 403, body: restOne.body });

    const restList = await viewerApi.get(`${base}/clients/${webId}/protocol-mappers/protocol/openid-connect`);
    expect(restList.status).toBe(403);
    const list = await viewer(
      `query($r: String!, $o: ID!) { protocolMappers(realm: $r, owner: CLIENT, ownerId: $o, protocol: "openid-connect") { id } }`,
      { r: R, o: webId },
    );
    expect(errorOf(list)).toEqual({ code: 'FORBIDDEN', status: 403, body: restList.body });
  });
});
