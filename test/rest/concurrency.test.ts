import type request from 'supertest';
import { createClient, createClientScope, createGroup, createRole, createUser, expectStatus, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * Concurrent conflicting writes through the REST API, on whichever database the suite runs on
 * (issue 10): for every family of link rows (role mappings, group membership, composites, scope
 * mappings, default scopes) and for attribute maps, 50 requests at once must answer only what
 * Keycloak answers for them (never a 5xx: a lost lock race is retried by `db.transaction`), and end
 * in a state some serial order of them gives, the same through every read path.
 *
 * Each link family gets the same workload on one owner: a contested item that half of 26 requests add
 * and half remove (either end state is serial, so both are accepted, but every read path must agree),
 * 12 items added and 12 items removed by one request each (every serial order ends with exactly those
 * added and none of those removed).
 */
let ts: TestServer;
let api: AdminApi;
let live: AdminApi;
const R = 'conc';
const A = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  live = await ts.api({ live: true });
});
afterAll(() => ts.close());

type Method = 'post' | 'put' | 'delete';

/** One request on the listening server (supertest on `app` would open a server per request). */
const send = (method: Method, path: string, body?: unknown) => live[method](path, body);

/** Fires the requests at once; fails with every answer `allowed` refuses (a 5xx above all), bodies included. */
async function race(requests: Array<() => request.Test>, allowed: (r: request.Response) => boolean): Promise<number[]> {
  const results = await Promise.all(requests.map((r) => r()));
  const wrong = results.filter((r) => !allowed(r)).map((r) => `${r.status} ${JSON.stringify(r.body)}`);
  expect(wrong).toEqual([]);
  return results.map((r) => r.status);
}

/** Throws unless every read path saw the same items; returns that set. */
async function agreed(paths: Record<string, () => Promise<string[]>>): Promise<string[]> {
  const seen: Record<string, string[]> = {};
  for (const [name, read] of Object.entries(paths)) seen[name] = [...new Set(await read())].sort();
  const first = Object.values(seen)[0];
  for (const [name, items] of Object.entries(seen)) expect({ [name]: items }).toEqual({ [name]: first });
  return first;
}

const get = async (path: string) => expectStatus(await api.get(path), 200, path).body;
const names = (reps: Array<{ name: string }>) => reps.map((r) => r.name);

interface LinkFamily<Item> {
  /** The owner's links among `items`, as one read path shows them (names). */
  readPaths: (items: Item[]) => Record<string, () => Promise<string[]>>;
  add: (item: Item) => () => request.Test;
  remove: (item: Item) => () => request.Test;
  nameOf: (item: Item) => string;
  /** Answers Keycloak may give besides 204 (an add that finds the link already there, for some lists). */
  alsoAllowed?: (r: request.Response) => boolean;
}

/**
 * The shared workload: `make(n)` builds n fresh items; the last 12 are linked first (to be removed).
 * 26 requests on the contested item (adds and removes interleaved), 12 adds, 12 removes: 50 at once.
 */
async function linkRace<Item>(family: LinkFamily<Item>, make: (n: number) => Promise<Item[]>) {
  const items = await make(25);
  const [contested, toAdd, toRemove] = [items[0], items.slice(1, 13), items.slice(13)];
  for (const item of toRemove) expectStatus(await family.add(item)(), 204, `linking ${family.nameOf(item)}`);
  const requests: Array<() => request.Test> = [];
  for (let i = 0; i < 12; i++)
    requests.push(family.add(contested), family.remove(contested), family.add(toAdd[i]), family.remove(toRemove[i]));
  requests.push(family.add(contested), family.remove(contested));
  await race(requests, (r) => r.status === 204 || !!family.alsoAllowed?.(r));
  const linked = await agreed(family.readPaths(items));
  const expected = toAdd.map(family.nameOf);
  const withContested = [...expected, family.nameOf(contested)].sort();
  expect([expected.sort(), withContested]).toContainEqual(linked);
}

/** Realm roles named `<prefix><i>`, as `{ id, name }`. */
const realmRoles = (prefix: string) => async (n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => createRole(api, R, `${prefix}${String(i).padStart(2, '0')}`)));

test('realm role mappings of one user: 50 concurrent adds and removes', async () => {
  const user = await createUser(ts, R, 'rrm-user');
  const path = `${A}/users/${user}/role-mappings/realm`;
  await linkRace<{ id: string; name: string }>(
    {
      add: (role) => () => send('post', path, [role]),
      remove: (role) => () => send('delete', path, [role]),
      nameOf: (role) => role.name,
      readPaths: (roles) => {
        const mine = (list: string[]) => list.filter((n) => roles.some((r) => r.name === n));
        return {
          direct: async () => mine(names(await get(path))),
          all: async () => mine(names((await get(`${A}/users/${user}/role-mappings`)).realmMappings ?? [])),
          effective: async () => mine(names(await get(`${path}/composite`))),
          holders: async () => {
            const held = await Promise.all(
              roles.map(async (r) => ((await get(`${A}/roles/${r.name}/users`)) as Array<{ id: string }>).some((u) => u.id === user)),
            );
            return roles.filter((_, i) => held[i]).map((r) => r.name);
          },
        };
      },
    },
    realmRoles('rrm-'),
  );
});

test('client role mappings of one user: 50 concurrent adds and removes', async () => {
  const user = await createUser(ts, R, 'crm-user');
  const client = await createClient(api, R, { clientId: 'crm-client' });
  const path = `${A}/users/${user}/role-mappings/clients/${client}`;
  const make = (n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const name = `crm-${String(i).padStart(2, '0')}`;
        expectStatus(await api.post(`${A}/clients/${client}/roles`, { name }), 201, name);
        return get(`${A}/clients/${client}/roles/${name}`) as Promise<{ id: string; name: string }>;
      }),
    );
  await linkRace<{ id: string; name: string }>(
    {
      add: (role) => () => send('post', path, [role]),
      remove: (role) => () => send('delete', path, [role]),
      nameOf: (role) => role.name,
      readPaths: (roles) => ({
        direct: async () => names(await get(path)),
        all: async () => names((await get(`${A}/users/${user}/role-mappings`)).clientMappings?.['crm-client']?.mappings ?? []),
        effective: async () => names(await get(`${path}/composite`)),
        holders: async () => {
          const held = await Promise.all(
            roles.map(async (r) =>
              ((await get(`${A}/clients/${client}/roles/${r.name}/users`)) as Array<{ id: string }>).some((u) => u.id === user),
            ),
          );
          return roles.filter((_, i) => held[i]).map((r) => r.name);
        },
      }),
    },
    make,
  );
});

test('group membership of one user: 50 concurrent joins and leaves', async () => {
  const user = await createUser(ts, R, 'gm-user');
  const make = (n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const name = `gm-${String(i).padStart(2, '0')}`;
        return { id: await createGroup(api, R, name), name };
      }),
    );
  await linkRace<{ id: string; name: string }>(
    {
      add: (g) => () => send('put', `${A}/users/${user}/groups/${g.id}`),
      remove: (g) => () => send('delete', `${A}/users/${user}/groups/${g.id}`),
      nameOf: (g) => g.name,
      readPaths: (groups) => ({
        groups: async () => names(await get(`${A}/users/${user}/groups?max=100`)),
        count: async () => {
          // The count agrees with the listing: as many groups as names.
          const count = (await get(`${A}/users/${user}/groups/count`)).count as number;
          const listed = names(await get(`${A}/users/${user}/groups?max=100`));
          expect(count).toBe(listed.length);
          return listed;
        },
        members: async () => {
          const held = await Promise.all(
            groups.map(async (g) => ((await get(`${A}/groups/${g.id}/members`)) as Array<{ id: string }>).some((u) => u.id === user)),
          );
          return groups.filter((_, i) => held[i]).map((g) => g.name);
        },
      }),
    },
    make,
  );
});

test('composites of one role: 50 concurrent adds and removes', async () => {
  const parent = await createRole(api, R, 'cmp-parent');
  const holder = await createUser(ts, R, 'cmp-user');
  expectStatus(await api.post(`${A}/users/${holder}/role-mappings/realm`, [parent]), 204, 'mapping the composite');
  const path = `${A}/roles-by-id/${parent.id}/composites`;
  await linkRace<{ id: string; name: string }>(
    {
      add: (role) => () => send('post', path, [role]),
      remove: (role) => () => send('delete', path, [role]),
      nameOf: (role) => role.name,
      readPaths: (roles) => {
        const mine = (list: string[]) => list.filter((n) => roles.some((r) => r.name === n));
        return {
          byId: async () => names(await get(path)),
          byName: async () => names(await get(`${A}/roles/cmp-parent/composites`)),
          realm: async () => names(await get(`${A}/roles/cmp-parent/composites/realm`)),
          flag: async () => ((await get(`${A}/roles-by-id/${parent.id}`)).composite ? mine(names(await get(path))) : []),
          holderEffective: async () => mine(names(await get(`${A}/users/${holder}/role-mappings/realm/composite`))),
        };
      },
    },
    realmRoles('cmp-'),
  );
});

for (const owner of ['clients', 'client-scopes'] as const) {
  test(`realm scope mappings of one ${owner === 'clients' ? 'client' : 'client scope'}: 50 concurrent adds and removes`, async () => {
    const prefix = owner === 'clients' ? 'csm-' : 'ssm-';
    const id =
      owner === 'clients'
        ? await createClient(api, R, { clientId: `${prefix}client`, fullScopeAllowed: false })
        : await createClientScope(api, R, `${prefix}scope`);
    const path = `${A}/${owner}/${id}/scope-mappings/realm`;
    await linkRace<{ id: string; name: string }>(
      {
        add: (role) => () => send('post', path, [role]),
        remove: (role) => () => send('delete', path, [role]),
        nameOf: (role) => role.name,
        readPaths: (roles) => {
          const mine = (list: string[]) => list.filter((n) => roles.some((r) => r.name === n));
          return {
            direct: async () => mine(names(await get(path))),
            all: async () => mine(names((await get(`${A}/${owner}/${id}/scope-mappings`)).realmMappings ?? [])),
            effective: async () => mine(names(await get(`${path}/composite`))),
            notAvailable: async () => {
              const available = new Set(names(await get(`${path}/available`)));
              return roles.filter((r) => !available.has(r.name)).map((r) => r.name);
            },
          };
        },
      },
      realmRoles(prefix),
    );
  });
}

const scopes = (prefix: string) => (n: number) =>
  Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const name = `${prefix}${String(i).padStart(2, '0')}`;
      return { id: await createClientScope(api, R, name), name };
    }),
  );

test('default client scopes of one client: 50 concurrent links and unlinks', async () => {
  const client = await createClient(api, R, { clientId: 'dcs-client' });
  const path = `${A}/clients/${client}/default-client-scopes`;
  await linkRace<{ id: string; name: string }>(
    {
      add: (s) => () => send('put', `${path}/${s.id}`),
      remove: (s) => () => send('delete', `${path}/${s.id}`),
      nameOf: (s) => s.name,
      readPaths: (list) => {
        const mine = (ns: string[]) => ns.filter((n) => list.some((s) => s.name === n));
        return {
          links: async () => mine(names(await get(path))),
          client: async () => mine((await get(`${A}/clients/${client}`)).defaultClientScopes ?? []),
        };
      },
    },
    scopes('dcs-'),
  );
});

test("the realm's default client scopes: 50 concurrent links and unlinks", async () => {
  const path = `${A}/default-default-client-scopes`;
  await linkRace<{ id: string; name: string }>(
    {
      add: (s) => () => send('put', `${path}/${s.id}`),
      remove: (s) => () => send('delete', `${path}/${s.id}`),
      nameOf: (s) => s.name,
      // Keycloak inserts the realm's link without looking first: a second add is the key's 409.
      alsoAllowed: (r) => r.status === 409 && r.body?.error === 'conflict',
      readPaths: (list) => {
        const mine = (ns: string[]) => ns.filter((n) => list.some((s) => s.name === n));
        return {
          defaults: async () => mine(names(await get(path))),
          // A client created now is linked to exactly the realm's default scopes.
          newClient: async () => {
            const client = await createClient(api, R, { clientId: `rds-probe-${Date.now()}` });
            return mine(names(await get(`${A}/clients/${client}/default-client-scopes`)));
          },
        };
      },
    },
    scopes('rds-'),
  );
});

/** 50 concurrent PUTs of an attribute map: the stored map is exactly one of them, never a mix. */
async function attributeRace(path: string, rep: Record<string, unknown>, search: (i: number) => Promise<boolean>) {
  const attrs = (i: number) => ({ color: [`c${i}`], shape: [`s${i}`, `t${i}`] });
  await race(
    Array.from({ length: 50 }, (_, i) => () => send('put', path, { ...rep, attributes: attrs(i) })),
    (r) => r.status === 204,
  );
  const stored = (await get(path)).attributes as Record<string, string[]>;
  const winner = Number(String(stored.color?.[0]).slice(1));
  expect(stored).toEqual(attrs(winner));
  // The search index of attributes holds the same winner and no other value.
  expect(await search(winner)).toBe(true);
  expect(await search((winner + 1) % 50)).toBe(false);
}

test("one user's attributes: 50 concurrent PUTs, the stored map is one of them", async () => {
  const user = await createUser(ts, R, 'attr-user');
  expectStatus(
    await api.put(`${A}/users/profile`, { ...(await get(`${A}/users/profile`)), unmanagedAttributePolicy: 'ENABLED' }),
    200,
    'profile',
  );
  await attributeRace(
    `${A}/users/${user}`,
    { username: 'attr-user', email: 'attr-user@example.org', firstName: 'F', lastName: 'L' },
    async (i) => ((await get(`${A}/users?q=color:c${i}`)) as Array<{ id: string }>).some((u) => u.id === user),
  );
});

test("one group's attributes: 50 concurrent PUTs, the stored map is one of them", async () => {
  const group = await createGroup(api, R, 'attr-group');
  await attributeRace(`${A}/groups/${group}`, { name: 'attr-group' }, async (i) =>
    ((await get(`${A}/groups?q=color:c${i}&briefRepresentation=false`)) as Array<{ id: string }>).some((g) => g.id === group),
  );
});

test('deleting a role while 49 requests link it: nothing 5xx, and no link to it is left', async () => {
  const role = await createRole(api, R, 'doomed');
  const n = (i: number) => String(i).padStart(2, '0');
  const users = await Promise.all(Array.from({ length: 25 }, (_, i) => createUser(ts, R, `doomed-u${n(i)}`)));
  const groups = await Promise.all(Array.from({ length: 8 }, (_, i) => createGroup(api, R, `doomed-g${n(i)}`)));
  const parents = await Promise.all(Array.from({ length: 8 }, (_, i) => createRole(api, R, `doomed-p${n(i)}`)));
  const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => createClient(api, R, { clientId: `doomed-c${n(i)}` })));
  // Some hold it already, so the delete has links to remove while others are being added.
  for (const u of users.slice(0, 5)) expectStatus(await api.post(`${A}/users/${u}/role-mappings/realm`, [role]), 204, 'pre-mapping');
  const gone = (message: string) => (r: request.Response) => r.status === 204 || (r.status === 404 && r.body?.error === message);
  type Check = (r: request.Response) => boolean;
  const kinds: Array<Array<[() => request.Test, Check]>> = [
    users.map((u) => [() => send('post', `${A}/users/${u}/role-mappings/realm`, [role]), gone('Role not found')]),
    groups.map((g) => [() => send('post', `${A}/groups/${g}/role-mappings/realm`, [role]), gone('Role not found')]),
    parents.map((p) => [() => send('post', `${A}/roles-by-id/${p.id}/composites`, [role]), gone('Could not find composite role')]),
    clients.map((c) => [() => send('post', `${A}/clients/${c}/scope-mappings/realm`, [role]), gone('Role not found')]),
  ];
  // Interleaved, so that links of every kind are in flight when the delete runs.
  const requests: Array<[() => request.Test, Check]> = [];
  for (let i = 0; i < users.length; i++) for (const kind of kinds) if (kind[i]) requests.push(kind[i]);
  requests.splice(20, 0, [() => send('delete', `${A}/roles-by-id/${role.id}`), (r) => r.status === 204]);
  const results = await Promise.all(requests.map(([r]) => r()));
  const wrong = results.filter((r, i) => !requests[i][1](r)).map((r) => `${r.status} ${JSON.stringify(r.body)}`);
  expect(wrong).toEqual([]);
  expect((await api.get(`${A}/roles-by-id/${role.id}`)).status).toBe(404);
  for (const u of users) expect(names((await get(`${A}/users/${u}/role-mappings`)).realmMappings ?? [])).not.toContain('doomed');
  for (const g of groups) expect(names((await get(`${A}/groups/${g}/role-mappings`)).realmMappings ?? [])).not.toContain('doomed');
  for (const p of parents) expect(names(await get(`${A}/roles-by-id/${p.id}/composites`))).not.toContain('doomed');
  for (const c of clients) expect(names(await get(`${A}/clients/${c}/scope-mappings/realm`))).not.toContain('doomed');
  // The API never shows a link whose role is gone, so the tables are read to prove none is left.
  const m = ts.db.models;
  const left = {
    users: await m.UserRoleMapping.count({ where: { roleId: role.id } }),
    groups: await m.GroupRoleMapping.count({ where: { roleId: role.id } }),
    composites: await m.CompositeRole.count({ where: { childId: role.id } }),
    scopes: await m.ScopeMapping.count({ where: { roleId: role.id } }),
  };
  expect(left).toEqual({ users: 0, groups: 0, composites: 0, scopes: 0 });
});
