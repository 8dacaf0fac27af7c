import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTestServer, type AdminApi, type TestServer } from '../helpers/server';

/**
 * Nested fields resolve through the per-request DataLoaders: realm → users → groups → effective
 * roles costs a fixed number of SQL statements, whatever the number of users.
 */
let ts: TestServer;
let api: AdminApi;
let token: string;

/**
 * Statements of one request: a fixed cost (bearer verification 4, the caller's admin roles 1, the
 * realm 1) plus a few per relation level (page of users ~8, groups 3, effective roles 1 recursive
 * query). Measured: 16 for 20 and for 100 users; the group/role query below 24.
 */
const BOUND = 28;

/**
 * A realm with `n` users, each in a top-level group and in a subgroup of another top-level group;
 * each user has a direct realm role, some of them composite (two levels deep); the groups carry
 * realm roles and client roles, which the subgroups inherit.
 */
async function seedRealm(name: string, n: number): Promise<void> {
  expect((await api.post('/admin/realms', { realm: name, enabled: true })).status).toBe(201);
  const m = ts.db.models;
  const realm = await m.Realm.findOne({ where: { name } });
  if (!realm) throw new Error('realm missing');
  const client = await m.Client.findOne({ where: { realmId: realm.id, clientId: 'account' } });
  if (!client) throw new Error('client missing');
  const realmRoles = Array.from({ length: 10 }, (_, i) => ({
    id: randomUUID(),
    realmId: realm.id,
    clientId: null,
    containerId: realm.id,
    name: `r${i}`,
  }));
  const clientRoles = Array.from({ length: 3 }, (_, i) => ({
    id: randomUUID(),
    realmId: realm.id,
    clientId: client.id,
    containerId: client.id,
    name: `c${i}`,
  }));
  await m.Role.bulkCreate([...realmRoles, ...clientRoles]);
  const r = (i: number) => realmRoles[i].id;
  // r0 ⊃ {r1, r2}; r3 ⊃ r4 ⊃ r5; r6 ⊃ c0.
  await m.CompositeRole.bulkCreate([
    { compositeId: r(0), childId: r(1) },
    { compositeId: r(0), childId: r(2) },
    { compositeId: r(3), childId: r(4) },
    { compositeId: r(4), childId: r(5) },
    { compositeId: r(6), childId: clientRoles[0].id },
  ]);
  const tops = Array.from({ length: 5 }, (_, i) => ({ id: randomUUID(), realmId: realm.id, name: `top${i}` }));
  const subs = tops.map((t, i) => ({ id: randomUUID(), realmId: realm.id, parentId: t.id, name: `sub${i}` }));
  await m.Group.bulkCreate([...tops, ...subs]);
  await m.GroupRoleMapping.bulkCreate([
    ...tops.map((g, i) => ({ groupId: g.id, roleId: r((i + 3) % 10) })),
    ...subs.map((g, i) => ({ groupId: g.id, roleId: clientRoles[i % 3].id })),
  ]);
  const users = Array.from({ length: n }, (_, i) => {
    const id = randomUUID();
    return {
      id,
      realmId: realm.id,
      username: `user${String(i).padStart(3, '0')}`,
      emailConstraint: id,
      enabled: true,
      emailVerified: false,
      createdTimestamp: Date.now(),
      notBefore: 0,
    };
  });
  await m.User.bulkCreate(users);
  await m.UserGroupMembership.bulkCreate(
    users.flatMap((u, i) => [
      { userId: u.id, groupId: tops[i % 5].id },
      { userId: u.id, groupId: subs[(i + 1) % 5].id },
    ]),
  );
  await m.UserRoleMapping.bulkCreate(users.map((u, i) => ({ userId: u.id, roleId: r(i % 10) })));
}

const QUERY = (realm: string) =>
  `{ realm(name: "${realm}") { users(max: 100) { username groups { name path } effectiveRoles { name } } } }`;

const post = (query: string) => request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query });

/** Runs a query counting its SQL statements, after warming the time-limited process caches (realm keys). */
async function counted(query: string) {
  await post('{ realms(brief: true) { name } }');
  return ts.countSql(() => post(query));
}

async function measure(realm: string) {
  const { result, count, statements } = await counted(QUERY(realm));
  expect(result.body.errors).toBeUndefined();
  return {
    users: result.body.data.realm.users as Array<{
      username: string;
      groups: Array<{ name: string; path: string }>;
      effectiveRoles: Array<{ name: string }>;
    }>,
    count,
    statements,
  };
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  token = await ts.token();
  await seedRealm('big', 100);
  await seedRealm('small', 20);
});
afterAll(() => ts.close());

describe('graphql batching', () => {
  test('realm → users → groups → effective roles: bounded statements, independent of the number of users', async () => {
    const big = await measure('big');
    const small = await measure('small');
    expect(big.users).toHaveLength(100);
    expect(small.users).toHaveLength(20);
    if (big.count > BOUND || big.count !== small.count) {
      throw new Error(
        `statements: 100 users → ${big.count}, 20 users → ${small.count}\n${big.statements.map((x) => x.slice(0, 160)).join('\n')}`,
      );
    }
    expect(big.count).toBeLessThanOrEqual(BOUND);
  });

  test('the batched answers are right (user000: top0, sub1; r0 ⊃ r1, r2; groups inherit)', async () => {
    const { users } = await measure('small');
    const u0 = users.find((u) => u.username === 'user000');
    expect(u0?.groups.map((g) => g.path)).toEqual(['/top1/sub1', '/top0']);
    // Direct r0 (⊃ r1, r2); top0 → r3 ⊃ r4 ⊃ r5; sub1 → c1, and its parent top1 → r4 ⊃ r5. Realm roles first.
    expect(u0?.effectiveRoles.map((r) => r.name)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'c1']);
    const rest = (await api.get('/admin/realms/small/users?username=user000&exact=true')).body[0];
    const restRealm = (await api.get(`/admin/realms/small/users/${rest.id}/role-mappings/realm/composite`)).body.map(
      (r: { name: string }) => r.name,
    );
    expect(restRealm).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  test('group → subGroups → members and role → composites are batched too', async () => {
    const q =
      '{ realm(name: "big") { groups { name subGroups { name members(max: 50) { username } } } roles { name composites { name } } } }';
    const { result, count, statements } = await counted(q);
    expect(result.body.errors).toBeUndefined();
    const groups = result.body.data.realm.groups;
    expect(groups).toHaveLength(5);
    expect(groups[0].subGroups[0].members).toHaveLength(20);
    if (count > BOUND) throw new Error(`${count} statements:\n${statements.map((x) => x.slice(0, 160)).join('\n')}`);
  });
});
