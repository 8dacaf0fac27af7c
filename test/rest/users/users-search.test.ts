import { randomUUID } from 'node:crypto';
import { grantClientRoles, realmIdOf, realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'search';
const U = `/admin/realms/${R}/users`;
const ids: Record<string, string> = {};

const names = (body: Array<{ username: string }>) => body.map((u) => u.username);
const list = async (query: string) => {
  const res = await api.get(`${U}?${query}`);
  expect(res.status).toBe(200);
  return names(res.body);
};
const count = async (query: string) => {
  const res = await api.get(`${U}/count?${query}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof res.body).toBe('number');
  return res.body as number;
};

async function create(body: Record<string, unknown>, path = U): Promise<string> {
  const res = await api.post(path, body);
  expect(res.status).toBe(201);
  const id = res.headers.location.split('/').pop() as string;
  ids[String(body.username)] = id;
  return id;
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const config = (await api.get(`${U}/profile`)).body;
  expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ENABLED' })).status).toBe(200);
  await create({
    username: 'alice',
    firstName: 'Alice',
    lastName: 'Smith',
    email: 'alice@example.com',
    enabled: true,
    emailVerified: true,
    attributes: { dept: ['Sales'], city: ['New York'] },
  });
  await create({
    username: 'alicia',
    firstName: 'Alicia',
    lastName: 'Keys',
    email: 'keys@music.org',
    enabled: true,
    attributes: { dept: ['Music'] },
  });
  await create({
    username: 'bob',
    firstName: 'Bob',
    lastName: 'Builder',
    email: 'bob@build.org',
    enabled: true,
    attributes: { dept: ['Engineering', 'Sales'] },
  });
  await create({ username: 'carol_x', firstName: 'Carol', lastName: 'Underscore', enabled: true });
  await create({ username: 'carolax', firstName: 'Carol', lastName: 'Ax', enabled: true });
  await create({ username: 'dave', firstName: 'Dave', lastName: 'Disabled', email: 'dave@x.org', enabled: false });
  ids['service-account-robot'] = (await serviceAccountClient(api, R, 'robot', 'robot-secret')).userId;
});
afterAll(() => ts.close());

const ALL = ['alice', 'alicia', 'bob', 'carol_x', 'carolax', 'dave'];

/**
 * 110 users `zz-000`..`zz-109` with attribute bulk=yes, for the paging limits, written in one go rather than
 * 110 POSTs; seeded once per file by whichever test needs them first.
 */
let bulkSeeded: Promise<void> | undefined;
const seedBulk = () =>
  (bulkSeeded ??= (async () => {
    const realmId = await realmIdOf(api, R);
    const rows = Array.from({ length: 110 }, (_, i) => {
      const id = randomUUID();
      return {
        id,
        realmId,
        username: `zz-${String(i).padStart(3, '0')}`,
        email: null,
        emailConstraint: id,
        enabled: true,
        emailVerified: false,
        createdTimestamp: Date.now(),
        notBefore: 0,
      };
    });
    await ts.db.models.User.bulkCreate(rows);
    await ts.db.models.UserAttribute.bulkCreate(rows.map((r) => ({ id: randomUUID(), userId: r.id, name: 'bulk', value: 'yes' })));
  })());

describe('GET /users', () => {
  test('no filter: every user but service accounts, ordered by username, with listing access', async () => {
    const res = await api.get(U);
    expect(names(res.body)).toEqual(ALL);
    const alice = res.body[0];
    expect(alice).toEqual({
      id: ids.alice,
      username: 'alice',
      firstName: 'Alice',
      lastName: 'Smith',
      email: 'alice@example.com',
      emailVerified: true,
      attributes: { city: ['New York'], dept: ['Sales'] },
      enabled: true,
      createdTimestamp: expect.any(Number),
      totp: false,
      disableableCredentialTypes: [],
      requiredActions: [],
      notBefore: 0,
      access: { manage: true },
    });
  });

  test('briefRepresentation drops totp, credential types, required actions and notBefore', async () => {
    const res = await api.get(`${U}?briefRepresentation=true&max=1`);
    expect(res.body).toEqual([
      {
        id: ids.alice,
        username: 'alice',
        firstName: 'Alice',
        lastName: 'Smith',
        email: 'alice@example.com',
        emailVerified: true,
        attributes: { city: ['New York'], dept: ['Sales'] },
        enabled: true,
        createdTimestamp: expect.any(Number),
        access: { manage: true },
      },
    ]);
  });

  test('search is a prefix match over username, email, first and last name', async () => {
    expect(await list('search=al')).toEqual(['alice', 'alicia']);
    expect(await list('search=AL')).toEqual(['alice', 'alicia']);
    expect(await list('search=lice')).toEqual([]);
    expect(await list('search=smi')).toEqual(['alice']);
    expect(await list('search=keys@')).toEqual(['alicia']);
    expect(await list('search=al%20smi')).toEqual(['alice']);
  });

  test('search: * is a wildcard, quoted terms are exact, % and _ are literal', async () => {
    expect(await list('search=*lice')).toEqual(['alice']);
    expect(await list('search=*li*')).toEqual(['alice', 'alicia']);
    expect(await list('search=a*e')).toEqual(['alice']);
    expect(await list(`search=${encodeURIComponent('"alice"')}`)).toEqual(['alice']);
    expect(await list(`search=${encodeURIComponent('"ali"')}`)).toEqual([]);
    expect(await list(`search=${encodeURIComponent('"SMITH"')}`)).toEqual(['alice']);
    expect(await list('search=carol_')).toEqual(['carol_x']);
    expect(await list(`search=${encodeURIComponent('%')}`)).toEqual([]);
    expect(await list(`search=${encodeURIComponent('*')}`)).toEqual(ALL);
  });

  test('search excludes service accounts, honours enabled and ignores the other filters', async () => {
    expect(await list('search=service')).toEqual([]);
    expect(await list('search=d&enabled=false')).toEqual(['dave']);
    expect(await list('search=d&enabled=true')).toEqual([]);
    expect(await list('search=al&username=bob&exact=true&q=dept:Music')).toEqual(['alice', 'alicia']);
  });

  test('search=id: returns the users with those ids', async () => {
    expect(await list(`search=id:${ids.bob}%20${ids.alice}%20unknown`)).toEqual(['bob', 'alice']);
    expect(await list(`search=id:${ids['service-account-robot']}`)).toEqual(['service-account-robot']);
  });

  test('attribute mode: substring filters AND-combined; exact=true for equality; service accounts included', async () => {
    expect(await list('username=lic')).toEqual(['alice', 'alicia']);
    expect(await list('username=ALICE&exact=true')).toEqual(['alice']);
    expect(await list('username=lic&exact=true')).toEqual([]);
    expect(await list('email=EXAMPLE')).toEqual(['alice']);
    expect(await list('firstName=ALI')).toEqual(['alice', 'alicia']);
    expect(await list('firstName=ali&lastName=key')).toEqual(['alicia']);
    expect(await list('lastName=smith&exact=true')).toEqual(['alice']);
    expect(await list('lastName=smit&exact=true')).toEqual([]);
    expect(await list('username=service')).toEqual(['service-account-robot']);
    expect(await list('username=service-account-robot&exact=true')).toEqual(['service-account-robot']);
    expect(await list('username=*')).toEqual([]);
    // Keycloak quirk: `_` acts as a wildcard in attribute mode.
    expect(await list('username=carol_')).toEqual(['carol_x', 'carolax']);
  });

  test('enabled and emailVerified filters', async () => {
    expect(await list('enabled=false')).toEqual(['dave']);
    expect(await list('enabled=true')).toEqual(['alice', 'alicia', 'bob', 'carol_x', 'carolax', 'service-account-robot']);
    expect(await list('emailVerified=true')).toEqual(['alice']);
    expect(await list('emailVerified=false&username=a')).toEqual(['alicia', 'carol_x', 'carolax', 'dave', 'service-account-robot']);
  });

  test('q: exact (case-insensitive) attribute match, AND-combined; substring with exact=false', async () => {
    expect(await list('q=dept:sales')).toEqual(['alice', 'bob']);
    expect(await list('q=dept:SALES')).toEqual(['alice', 'bob']);
    expect(await list('q=dept:sal')).toEqual([]);
    expect(await list('q=dept:sal&exact=false')).toEqual(['alice', 'bob']);
    expect(await list('q=dept:sales%20dept:engineering')).toEqual(['bob']);
    expect(await list(`q=${encodeURIComponent('city:"new york"')}`)).toEqual(['alice']);
    expect(await list('q=dept:sales&username=bob')).toEqual(['bob']);
  });

  test('idpAlias / idpUserId: no federated identities exist, so nothing matches', async () => {
    expect(await list('idpAlias=google')).toEqual([]);
    expect(await list('idpUserId=123')).toEqual([]);
  });

  test('first and max page the ordered result; max=0 is empty; non-numeric is 404', async () => {
    expect(await list('first=1&max=2')).toEqual(['alicia', 'bob']);
    expect(await list('first=5')).toEqual(['dave']);
    expect(await list('max=0')).toEqual([]);
    expect(await list('first=-3&max=2')).toEqual(['alice', 'alicia']);
    expect((await api.get(`${U}?first=abc`)).status).toBe(404);
  });

  test('default max is 100; a negative max lists all', async () => {
    await seedBulk();
    expect((await api.get(U)).body).toHaveLength(100);
    expect((await api.get(`${U}?max=-1`)).body).toHaveLength(116);
    expect(await list('first=110')).toEqual(['zz-104', 'zz-105', 'zz-106', 'zz-107', 'zz-108', 'zz-109']);
  });

  test('the number of SQL statements does not grow with the page size', async () => {
    await seedBulk();
    await api.get(`${U}?max=1`); // warm the token cache
    const small = await ts.countSql(() => api.get(`${U}?max=2&q=bulk:yes`));
    const large = await ts.countSql(() => api.get(`${U}?max=100&q=bulk:yes`));
    expect(small.result.body).toHaveLength(2);
    expect(large.result.body).toHaveLength(100);
    expect(large.result.body[0].attributes).toEqual({ bulk: ['yes'] });
    expect(large.count).toBe(small.count);
    expect(large.count).toBeLessThan(20);
  });
});

describe('GET /users/count', () => {
  test('no criteria counts every user, service accounts included', async () => {
    await seedBulk();
    expect(await count('')).toBe(117);
  });

  test('search counts matches without service accounts and ignores enabled', async () => {
    expect(await count('search=al')).toBe(2);
    expect(await count('search=d&enabled=true')).toBe(1);
    expect(await count('search=service')).toBe(0);
    expect(await count(`search=id:${ids.alice}`)).toBe(1);
    expect(await count('search=id:nobody')).toBe(0);
  });

  test('other criteria are AND-combined substring matches', async () => {
    expect(await count('username=lic')).toBe(2);
    expect(await count('username=ali&exact=true')).toBe(2);
    expect(await count('enabled=false')).toBe(1);
    expect(await count('firstName=carol&lastName=ax')).toBe(1);
    expect(await count('q=dept:sales')).toBe(2);
    expect(await count('username=service')).toBe(1);
  });
});

describe('listing permissions', () => {
  test('view-users sees users with manage:false; query-users sees nothing but may count', async () => {
    const admins: Record<string, AdminApi> = {};
    for (const role of ['view-users', 'query-users']) {
      const username = `adm-${role}`;
      const id = await create({
        username,
        email: `${username}@x.org`,
        firstName: 'A',
        lastName: 'B',
        enabled: true,
        credentials: [{ type: 'password', value: 'pw' }],
      });
      await grantClientRoles(api, R, id, 'realm-management', [role]);
      admins[role] = await ts.api({ realm: R, username, password: 'pw' });
    }
    const viewed = await admins['view-users'].get(`${U}?search=alice`);
    expect(viewed.status).toBe(200);
    expect(viewed.body.map((u: { access: unknown }) => u.access)).toEqual([{ manage: false }]);
    const queried = await admins['query-users'].get(`${U}?search=alice`);
    expect(queried.status).toBe(200);
    expect(queried.body).toEqual([]);
    const counted = await admins['query-users'].get(`${U}/count?search=al`);
    expect(counted.body).toBe(2);
  });
});
