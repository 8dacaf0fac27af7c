import { createUser } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, type gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL twins of the organization groups (the same services as REST, the same data and errors). */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlorggroups';
const base = `/admin/realms/${R}/organizations`;
let orgId: string;
let alice: string;
let carol: string;
const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
const FIELDS = 'id name description path parentId attributes organizationId';

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  expect((await api.put(`/admin/realms/${R}`, { organizationsEnabled: true })).status).toBe(204);
  orgId = idOf((await api.post(base, { name: 'gacme', domains: [{ name: 'gacme.example.org' }] })).headers.location);
  alice = await createUser(ts, R, 'galice');
  carol = await createUser(ts, R, 'gcarol');
  expect((await api.post(`${base}/${orgId}/members`, JSON.stringify(alice)).set('Content-Type', 'application/json')).status).toBe(201);
});
afterAll(() => ts.close());

const mutate = (name: string, args: string, selection: string, vars: Json = {}) =>
  gql(
    `mutation($r: String!, $id: ID!${Object.keys(vars)
      .map((k) => `, $${k}: ${k === 'input' ? (name.startsWith('update') ? 'GroupUpdateInput!' : 'GroupCreateInput!') : 'ID!'}`)
      .join('')}) {
    ${name}(realm: $r, id: $id${args}) { ${selection} ${USER_ERRORS} } }`,
    { r: R, id: orgId, ...vars },
  );

describe('organization groups over GraphQL', () => {
  test('create, subgroup, list and read equal REST; duplicate names are user errors', async () => {
    const made = ok(
      await mutate('createOrganizationGroup', ', input: $input', `organizationGroup { ${FIELDS} }`, {
        input: { name: 'gq-eng', description: 'Builds', attributes: { floor: ['2'] } },
      }),
    ) as Json;
    const eng = made.createOrganizationGroup.organizationGroup;
    expect(eng).toMatchObject({ name: 'gq-eng', path: '', organizationId: orgId, parentId: orgId });
    const dup = await mutate('createOrganizationGroup', ', input: $input', 'organizationGroup { id }', { input: { name: 'gq-eng' } });
    expect(userErrors(dup, 'createOrganizationGroup')[0]).toMatchObject({ message: 'Group with the given name already exists.' });

    const sub = ok(
      await mutate('createOrganizationSubGroup', ', groupId: $groupId, input: $input', `organizationGroup { ${FIELDS} }`, {
        groupId: eng.id,
        input: { name: 'gq-backend' },
      }),
    ) as Json;
    expect(sub.createOrganizationSubGroup.organizationGroup).toMatchObject({
      name: 'gq-backend',
      parentId: eng.id,
      path: `/${orgId}/gq-eng/gq-backend`,
    });

    const q = `query($r: String!, $id: ID!, $g: ID!) {
      organization(realm: $r, id: $id) { groups { id name path parentId } }
      organizationGroup(realm: $r, id: $id, groupId: $g) { id name description path subGroups { id name path } } }`;
    const data = ok(await gql(q, { r: R, id: orgId, g: eng.id })) as Json;
    expect(data.organization.groups).toEqual(
      (await api.get(`${base}/${orgId}/groups`)).body.map(({ id, name, path, parentId }: Json) => ({ id, name, path, parentId })),
    );
    const rest = (await api.get(`${base}/${orgId}/groups/${eng.id}`)).body;
    expect(data.organizationGroup).toMatchObject({ id: rest.id, name: rest.name, description: 'Builds', path: rest.path });
    const restChildren = (await api.get(`${base}/${orgId}/groups/${eng.id}/children`)).body;
    expect(data.organizationGroup.subGroups).toEqual(restChildren.map(({ id, name, path }: Json) => ({ id, name, path })));
  });

  test('update, move, members, member groups, leave, delete; errors as REST', async () => {
    const [eng] = (await api.get(`${base}/${orgId}/groups`)).body as Json[];
    const other = ok(
      await mutate('createOrganizationGroup', ', input: $input', 'organizationGroup { id }', { input: { name: 'gq-ops' } }),
    ) as Json;
    const opsId = other.createOrganizationGroup.organizationGroup.id;
    const upd = ok(
      await mutate('updateOrganizationGroup', ', groupId: $groupId, input: $input', 'organizationGroup { name attributes }', {
        groupId: opsId,
        input: { name: 'gq-operations', attributes: { a: ['1'] } },
      }),
    ) as Json;
    // Brief, as REST's GET of one group (26.7): the attributes are written, not shown.
    expect(upd.updateOrganizationGroup.organizationGroup).toEqual({ name: 'gq-operations', attributes: null });
    expect((await ts.db.models.Group.findByPk(opsId))?.attributes).toEqual({ a: ['1'] });
    const moved = ok(
      await mutate('moveOrganizationGroup', ', groupId: $groupId, parentId: $parentId', 'organizationGroup { parentId }', {
        groupId: opsId,
        parentId: eng.id,
      }),
    ) as Json;
    expect(moved.moveOrganizationGroup.organizationGroup.parentId).toBe(eng.id);

    const join = (userId: string) =>
      mutate('joinOrganizationGroup', ', groupId: $groupId, userId: $userId', 'ok', { groupId: eng.id, userId });
    expect(ok(await join(alice))).toMatchObject({ joinOrganizationGroup: { ok: true } });
    expect(userErrors(await join(alice), 'joinOrganizationGroup')[0]).toMatchObject({ message: 'User is already a member of the group' });
    expect(userErrors(await join(carol), 'joinOrganizationGroup')[0]).toMatchObject({ message: 'User is not member of the organization' });
    const q = `query($r: String!, $id: ID!, $g: ID!, $u: ID!) {
      organizationGroup(realm: $r, id: $id, groupId: $g) { members { membershipType user { id username } } }
      organizationMemberGroups(realm: $r, id: $id, userId: $u) { id path } }`;
    const data = ok(await gql(q, { r: R, id: orgId, g: eng.id, u: alice })) as Json;
    expect(data.organizationGroup.members).toEqual([{ membershipType: 'UNMANAGED', user: { id: alice, username: 'galice' } }]);
    expect(data.organizationMemberGroups).toEqual(
      (await api.get(`${base}/${orgId}/members/${alice}/groups`)).body.map(({ id, path }: Json) => ({ id, path })),
    );

    expect(
      ok(await mutate('leaveOrganizationGroup', ', groupId: $groupId, userId: $userId', 'ok', { groupId: eng.id, userId: alice })),
    ).toBeTruthy();
    expect((await api.get(`${base}/${orgId}/groups/${eng.id}/members`)).body).toEqual([]);
    const missing = await gql('query($r: String!, $id: ID!) { organizationGroup(realm: $r, id: $id, groupId: "nope") { id } }', {
      r: R,
      id: orgId,
    });
    expect(missing.errors?.[0]).toMatchObject({ message: 'Group does not exist', extensions: { http: { status: 404 } } });
    expect(ok(await mutate('deleteOrganizationGroup', ', groupId: $groupId', 'ok', { groupId: eng.id }))).toBeTruthy();
    expect((await api.get(`${base}/${orgId}/groups`)).body).toEqual([]);
    expect(await ts.db.models.Group.count({ where: { organizationId: orgId } })).toBe(0);
  });

  test('Organization.groups under a list of organizations: statements do not grow with the organizations', async () => {
    for (const i of [1, 2, 3]) {
      const id = idOf((await api.post(base, { name: `gsweep-${i}`, domains: [{ name: `gsweep${i}.example.org` }] })).headers.location);
      for (const g of ['a', 'b']) expect((await api.post(`${base}/${id}/groups`, { name: `gs-${i}-${g}` })).status).toBe(201);
    }
    const q = (max: number) => `{ realm(name: "${R}") { organizations(search: "gsweep", max: ${max}) { name groups { id name path } } } }`;
    const one = await ts.countSql(() => gql(q(1)));
    const three = await ts.countSql(() => gql(q(3)));
    const orgs = (ok(three.result) as Json).realm.organizations as Json[];
    expect(orgs.map((o) => o.groups.map((g: Json) => g.name))).toEqual([
      ['gs-1-a', 'gs-1-b'],
      ['gs-2-a', 'gs-2-b'],
      ['gs-3-a', 'gs-3-b'],
    ]);
    expect(three.count).toBe(one.count);
  });
});
