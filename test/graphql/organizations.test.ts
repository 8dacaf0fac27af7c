import { createUser } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, type gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL over the organization services: the same data and errors as REST, nested lists batched. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlorg';
const base = `/admin/realms/${R}/organizations`;
const orgIds: string[] = [];
let userIds: string[] = [];

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  expect((await api.put(`/admin/realms/${R}`, { organizationsEnabled: true })).status).toBe(204);
  userIds = [await createUser(ts, R, 'gm-a'), await createUser(ts, R, 'gm-b')];
  for (const i of [1, 2, 3, 4]) {
    const res = await api.post(base, { name: `gorg-${i}`, domains: [{ name: `gorg${i}.example.org` }], attributes: { n: [String(i)] } });
    const id = idOf(res.headers.location);
    orgIds.push(id);
    for (const u of userIds) {
      expect((await api.post(`${base}/${id}/members`, JSON.stringify(u)).set('Content-Type', 'application/json')).status).toBe(201);
    }
    expect((await api.post(`/admin/realms/${R}/identity-provider/instances`, { alias: `gidp-${i}`, providerId: 'oidc' })).status).toBe(201);
    expect(
      (await api.post(`${base}/${id}/identity-providers`, JSON.stringify(`gidp-${i}`)).set('Content-Type', 'application/json')).status,
    ).toBe(204);
  }
});
afterAll(() => ts.close());

describe('organizations over GraphQL', () => {
  test('Realm.organizations equals GET /organizations; members, counts and providers batched', async () => {
    const q = `query($r: String!) { realm(name: $r) { organizationsCount organizations(briefRepresentation: false) {
      id name alias enabled attributes domains { name verified } membersCount
      members { membershipType user { id username } } identityProviders { alias organizationId } } } }`;
    const { result, count } = await ts.countSql(() => gql(q, { r: R }));
    const realm = ok(result).realm as Json;
    const rest = (await api.get(`${base}?briefRepresentation=false`)).body as Json[];
    expect(realm.organizationsCount).toBe(4);
    expect(
      realm.organizations.map(({ id, name, alias, enabled, attributes, domains }: Json) => ({
        id,
        name,
        alias,
        enabled,
        attributes,
        domains,
      })),
    ).toEqual(rest);
    for (const o of realm.organizations as Json[]) {
      expect(o.membersCount).toBe(2);
      expect(o.members.map((m: Json) => [m.user.username, m.membershipType])).toEqual([
        ['gm-a', 'UNMANAGED'],
        ['gm-b', 'UNMANAGED'],
      ]);
      expect(o.identityProviders).toEqual([{ alias: `gidp-${o.name.slice(5)}`, organizationId: o.id }]);
    }
    // 4 organizations: a bounded number of statements, not a few per organization.
    expect(count).toBeLessThan(20);
  });

  test('organization and userOrganizations queries; unknown id is the REST 404', async () => {
    const one = ok(
      await gql(`query($r: String!, $id: ID!) { organization(realm: $r, id: $id) { name attributes } }`, { r: R, id: orgIds[0] }),
    ).organization as Json;
    expect(one).toEqual({ name: 'gorg-1', attributes: { n: ['1'] } });
    const mine = ok(await gql(`query($r: String!, $u: ID!) { userOrganizations(realm: $r, userId: $u) { name } }`, { r: R, u: userIds[0] }))
      .userOrganizations as Json[];
    expect(mine.map((o) => o.name)).toEqual(['gorg-1', 'gorg-2', 'gorg-3', 'gorg-4']);
    const missing = await gql(`query($r: String!) { organization(realm: $r, id: "nope") { name } }`, { r: R });
    expect(missing.errors?.[0].extensions.http?.status).toBe(404);
    expect(missing.errors?.[0].message).toBe('Organization not found.');
  });

  test('mutations: create, update, members, providers, delete; errors as REST', async () => {
    const created = ok(
      await gql(
        `mutation($r: String!, $in: OrganizationInput!) { createOrganization(realm: $r, input: $in) { organization { id name alias domains { name } } } }`,
        {
          r: R,
          in: { name: 'gql-made', domains: [{ name: 'gql-made.example.org' }] },
        },
      ),
    ).createOrganization.organization as Json;
    expect(created).toMatchObject({ name: 'gql-made', alias: 'gql-made', domains: [{ name: 'gql-made.example.org' }] });
    expect((await api.get(`${base}/${created.id}`)).body.name).toBe('gql-made');
    const dup = await gql(
      `mutation($r: String!) { createOrganization(realm: $r, input: { name: "gql-made" }) { organization { id } ${USER_ERRORS} } }`,
      { r: R },
    );
    expect(userErrors(dup, 'createOrganization')[0]).toMatchObject({
      code: 'CONFLICT',
      message: 'A organization with the same name already exists.',
    });
    const updated = ok(
      await gql(
        `mutation($r: String!, $id: ID!) { updateOrganization(realm: $r, id: $id, input: { name: "gql-made", alias: "gql-made", description: "d" }) { organization { description domains { name } } } }`,
        {
          r: R,
          id: created.id,
        },
      ),
    ).updateOrganization.organization as Json;
    expect(updated).toEqual({ description: 'd', domains: null });
    const vars = { r: R, id: created.id, u: userIds[1] };
    expect(
      ok(await gql(`mutation($r: String!, $id: ID!, $u: ID!) { addOrganizationMember(realm: $r, id: $id, userId: $u) { ok } }`, vars))
        .addOrganizationMember.ok,
    ).toBe(true);
    expect((await api.get(`${base}/${created.id}/members/count`)).body).toBe(1);
    expect(
      ok(await gql(`mutation($r: String!, $id: ID!, $u: ID!) { removeOrganizationMember(realm: $r, id: $id, userId: $u) { ok } }`, vars))
        .removeOrganizationMember.ok,
    ).toBe(true);
    expect((await api.get(`${base}/${created.id}/members/count`)).body).toBe(0);
    expect((await api.post(`/admin/realms/${R}/identity-provider/instances`, { alias: 'gql-free', providerId: 'oidc' })).status).toBe(201);
    const link = `mutation($r: String!, $id: ID!) { linkOrganizationIdentityProvider(realm: $r, id: $id, alias: "gql-free") { ok ${USER_ERRORS} } }`;
    expect(ok(await gql(link, { r: R, id: created.id })).linkOrganizationIdentityProvider.ok).toBe(true);
    expect(userErrors(await gql(link, { r: R, id: created.id }), 'linkOrganizationIdentityProvider')[0]).toMatchObject({
      message: 'Identity provider already associated to the organization',
    });
    const unlink = `mutation($r: String!, $id: ID!) { unlinkOrganizationIdentityProvider(realm: $r, id: $id, alias: "gql-free") { ok } }`;
    expect(ok(await gql(unlink, { r: R, id: created.id })).unlinkOrganizationIdentityProvider.ok).toBe(true);
    expect(
      ok(await gql(`mutation($r: String!, $id: ID!) { deleteOrganization(realm: $r, id: $id) { ok } }`, { r: R, id: created.id }))
        .deleteOrganization.ok,
    ).toBe(true);
    expect((await api.get(`${base}/${created.id}`)).status).toBe(404);
  });
});
