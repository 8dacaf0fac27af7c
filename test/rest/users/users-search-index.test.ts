import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createdId, realmIdOf, realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * GET /users through the search indexes of migration 0014 (ADR 24): prefix terms through index
 * branches (username, email, lower-cased names) paged per branch, infix terms through the trigram
 * index on SQLite. The answers must be Keycloak's whichever branch finds a user, and the side tables
 * must follow every write (read directly where the API cannot show them).
 */
let ts: TestServer;
let api: AdminApi;
const R = 'idx';
const U = `/admin/realms/${R}/users`;

const list = async (query: string) => {
  const res = await api.get(`${U}?${query}`);
  expect(res.status).toBe(200);
  return (res.body as Array<{ username: string }>).map((u) => u.username);
};
const count = async (query: string) => {
  const res = await api.get(`${U}/count?${query}`);
  expect(res.status).toBe(200);
  return res.body as number;
};
async function create(body: Record<string, unknown>, realm = R): Promise<string> {
  const res = await api.post(`/admin/realms/${realm}/users`, { enabled: true, ...body });
  return createdId(res, `user ${body.username}`);
}

const sqlite = () => ts.db.vendor === 'sqlite';
const rows = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
  ts.db.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });

/** The side tables agree with user_entity: one name row per user with its lower-cased names; the FTS index matches its content. */
async function expectInStep(): Promise<void> {
  const stale = await rows<{ n: number }>(
    `SELECT COUNT(*) AS n FROM user_entity u LEFT JOIN user_search_name n ON n.user_id = u.id
     WHERE n.user_id IS NULL OR n.realm_id <> u.realm_id
        OR COALESCE(n.first_lc, '') <> COALESCE(LOWER(u.first_name), '') OR COALESCE(n.last_lc, '') <> COALESCE(LOWER(u.last_name), '')`,
  );
  expect(Number(stale[0].n)).toBe(0);
  const orphans = await rows<{ n: number }>(
    'SELECT COUNT(*) AS n FROM user_search_name n LEFT JOIN user_entity u ON u.id = n.user_id WHERE u.id IS NULL',
  );
  expect(Number(orphans[0].n)).toBe(0);
  // FTS5 'integrity-check' with rank 1 compares the index with the rows of its content table; it throws on any difference.
  if (sqlite()) await ts.db.sequelize.query("INSERT INTO user_search_fts (user_search_fts, rank) VALUES ('integrity-check', 1)");
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { editUsernameAllowed: true }));
  // Each user is found by a different branch for the term `ka`: username, email, first name, last name.
  await create({ username: 'kate', email: 'k1@x.org', firstName: 'Zed', lastName: 'One' });
  await create({ username: 'zoe', email: 'kaz@x.org', firstName: 'Zoë', lastName: 'Two' });
  await create({ username: 'adam', email: 'a@x.org', firstName: 'KArl', lastName: 'Three' });
  await create({ username: 'bea', email: 'b@x.org', firstName: 'Bea', lastName: 'Kahn' });
  await create({ username: 'carl', email: 'c@x.org', firstName: 'Carl', lastName: 'Four', enabled: false });
  await create({ username: 'ka_1', email: 'ka1@x.org', firstName: 'Under', lastName: 'Score' });
  await create({ username: 'kax1', email: 'kax@x.org', firstName: 'Not', lastName: 'Under' });
  await serviceAccountClient(api, R, 'kapp', 'kapp-secret');
});
afterAll(() => ts.close());

describe('prefix search through the index branches', () => {
  test('a term matches by any of the four fields, ordered by username, service accounts excluded', async () => {
    expect(await list('search=ka')).toEqual(['adam', 'bea', 'ka_1', 'kate', 'kax1', 'zoe']);
    expect(await list('search=KA*')).toEqual(['adam', 'bea', 'ka_1', 'kate', 'kax1', 'zoe']);
    expect(await count('search=ka')).toBe(6);
    expect(await list('search=service-account-k')).toEqual([]);
  });

  test('pages of the union agree with the whole list and with the count', async () => {
    const all = await list('search=ka&max=100');
    const paged: string[] = [];
    for (let first = 0; first < all.length + 2; first += 2) paged.push(...(await list(`search=ka&first=${first}&max=2`)));
    expect(paged).toEqual(all);
    expect(await list('search=ka&first=5&max=10')).toEqual(all.slice(5));
    expect(await list('search=ka&max=-1')).toEqual(all);
    expect(await list('search=ka&first=3&max=-1')).toEqual(all.slice(3));
  });

  test('enabled applies to the list, not to the count', async () => {
    expect(await list('search=ca&enabled=false')).toEqual(['carl']);
    expect(await list('search=ca&enabled=true')).toEqual([]);
    expect(await list('search=ka&enabled=true')).toHaveLength(6);
    expect(await count('search=ca&enabled=true')).toBe(1);
  });

  test('_ and % are literal in a prefix, * is the wildcard, quotes are exact', async () => {
    expect(await list('search=ka_')).toEqual(['ka_1']);
    expect(await list('search=ka%25')).toEqual([]);
    expect(await list('search=k*1')).toEqual(['ka_1', 'kate', 'kax1']);
    expect(await list('search=%22kahn%22')).toEqual(['bea']);
    expect(await list('search=%22ka%22')).toEqual([]);
    expect(await count('search=%22karl%22')).toBe(1);
  });

  test('several terms must all match; the longest prefix drives, the others filter', async () => {
    expect(await list('search=ka%20two')).toEqual(['zoe']);
    expect(await list('search=b@x%20kahn')).toEqual(['bea']);
    expect(await list('search=x.org%20kahn')).toEqual([]);
    expect(await list('search=kat%20*ne')).toEqual(['kate']);
    expect(await count('search=ka%20two')).toBe(1);
  });

  test('quotes and colons in a term are values, escaped into the statement (never placeholders or SQL)', async () => {
    const id = await create({ username: 'oneil', email: 'o@x.org', firstName: 'Ann:Marie', lastName: "O'Neil" });
    try {
      expect(await list('search=ann:m')).toEqual(['oneil']);
      expect(await list(`search=${encodeURIComponent("o'n")}`)).toEqual(['oneil']);
      expect(await list(`search=${encodeURIComponent("o' OR 'a'='a")}`)).toEqual([]);
      expect(await list('search=ann:m&first=1')).toEqual([]);
      expect(await count('search=ann:m')).toBe(1);
    } finally {
      await api.delete(`${U}/${id}`).expect(204);
    }
  });

  test('a non-ASCII prefix, and a prefix past the last character of the alphabet', async () => {
    expect(await list('search=zo')).toEqual(['zoe']);
    expect(await list('search=zoë')).toEqual(['zoe']);
    expect(await list(`search=${encodeURIComponent('\u{10FFFF}')}`)).toEqual([]);
  });
});

describe('infix and substring filters', () => {
  test('*term* and attribute substring filters find users anywhere in the value', async () => {
    expect(await list('search=*ahn')).toEqual(['bea']);
    expect(await list('search=*ar*')).toEqual(['adam', 'carl']);
    expect(await list('search=*@x.org*&max=3')).toEqual(['adam', 'bea', 'carl']);
    expect(await list('email=az@')).toEqual(['zoe']);
    expect(await list('firstName=arl')).toEqual(['adam', 'carl']);
    expect(await list('lastName=NDE')).toEqual(['kax1']);
    expect(await count('lastName=nde')).toBe(1);
  });

  test('attribute filters keep Keycloak quirks: _ and % are wildcards, * is literal', async () => {
    expect(await list('username=ka_1')).toEqual(['ka_1', 'kax1']);
    expect(await list('username=ka*')).toEqual([]);
    expect(await list('email=k%25x.org')).toEqual(['kate', 'ka_1', 'kax1', 'zoe'].sort());
  });

  test('exact first and last names compare lower-cased values', async () => {
    expect(await list('firstName=karl&exact=true')).toEqual(['adam']);
    expect(await list('lastName=KAHN&exact=true')).toEqual(['bea']);
    expect(await list('firstName=kar&exact=true')).toEqual([]);
  });
});

describe('the side tables follow every write', () => {
  test('create, update of username, email and names, delete', async () => {
    const id = await create({ username: 'moved', email: 'moved@x.org', firstName: 'Mona', lastName: 'Lisa' });
    expect(await list('search=mon')).toEqual(['moved']);
    expect(await list('search=*isa')).toEqual(['moved']);
    await expectInStep();

    const put = await api.put(`${U}/${id}`, { username: 'shifted', email: 'gone@y.org', firstName: 'Rita', lastName: 'Hayworth' });
    expect(put.status).toBe(204);
    expect(await list('search=mon')).toEqual([]);
    expect(await list('search=*isa')).toEqual([]);
    expect(await list('search=rit')).toEqual(['shifted']);
    expect(await list('search=hay')).toEqual(['shifted']);
    expect(await list('search=*worth')).toEqual(['shifted']);
    expect(await list('search=gone@')).toEqual(['shifted']);
    expect(await list('email=one@y')).toEqual(['shifted']);
    expect(await list('search=shif')).toEqual(['shifted']);
    await expectInStep();

    expect((await api.delete(`${U}/${id}`)).status).toBe(204);
    expect(await list('search=rit')).toEqual([]);
    expect(await list('search=*worth')).toEqual([]);
    await expectInStep();
  });

  test('users of a realm import are searchable; a realm delete leaves nothing behind', async () => {
    const realm = `imp-${randomUUID().slice(0, 8)}`;
    const res = await api.post('/admin/realms', {
      realm,
      enabled: true,
      users: [
        { username: 'imported-1', email: 'i1@imp.org', firstName: 'Ingrid', lastName: 'Bergman', enabled: true },
        { username: 'imported-2', firstName: 'Igor', lastName: 'Stravinsky', enabled: true },
      ],
    });
    expect(res.status).toBe(201);
    const iu = `/admin/realms/${realm}/users`;
    expect((await api.get(`${iu}?search=ingr`)).body.map((u: { username: string }) => u.username)).toEqual(['imported-1']);
    expect((await api.get(`${iu}?search=*vinsk*`)).body.map((u: { username: string }) => u.username)).toEqual(['imported-2']);
    expect((await api.get(`${iu}?lastName=bergman&exact=true`)).body).toHaveLength(1);
    await expectInStep();

    const realmId = await realmIdOf(api, realm);
    expect((await api.delete(`/admin/realms/${realm}`)).status).toBe(204);
    const left = await rows<{ n: number }>('SELECT COUNT(*) AS n FROM user_search_name WHERE realm_id = :realmId', { realmId });
    expect(Number(left[0].n)).toBe(0);
    await expectInStep();
  });

  test('users written by bulk SQL (as an import or a migration would) are indexed too', async () => {
    const realmId = await realmIdOf(api, R);
    const id = randomUUID();
    await ts.db.models.User.bulkCreate([
      {
        id,
        realmId,
        username: 'bulk-one',
        email: null,
        emailConstraint: id,
        firstName: 'Quincy',
        lastName: 'Jones',
        enabled: true,
        emailVerified: false,
        createdTimestamp: Date.now(),
        notBefore: 0,
      },
    ]);
    expect(await list('search=quin')).toEqual(['bulk-one']);
    expect(await list('search=*ones')).toEqual(['bulk-one']);
    await expectInStep();
    await ts.db.models.User.destroy({ where: { id } });
    expect(await list('search=quin')).toEqual([]);
    await expectInStep();
  });
});

test('the number of SQL statements of a searched page does not grow with the page size', async () => {
  const small = await ts.countSql(() => api.get(`${U}?search=ka&max=2`));
  const large = await ts.countSql(() => api.get(`${U}?search=ka&max=100`));
  expect(large.count).toBe(small.count);
});
