import {
  adminEvents,
  createClient,
  createClientScope,
  createGroup,
  createRealm,
  createRole,
  createUser,
  realmAdmin,
} from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { startTestServer } from '../helpers/server';
import { type Json, gqlClient, ok } from './gql';

let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
let realms = 0;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  gql = gqlClient(ts);
});
afterAll(() => ts.close());

/** A new realm of its own for a test, with admin events (and their details) recorded. */
async function freshRealm(): Promise<string> {
  const realm = `bulk${++realms}`;
  await createRealm(api, realm, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });
  return realm;
}

const RESULT = 'ok failedCount results { index id status error { field code message } errors { field code message } }';

const CREATE = `mutation($realm: String!, $users: [UserCreateInput!]!, $mode: BulkMode) {
  bulkCreateUsers(realm: $realm, users: $users, mode: $mode) { ${RESULT} }
}`;

async function userCount(realm: string): Promise<number> {
  return (await api.get(`/admin/realms/${realm}/users/count`)).body as number;
}

async function usernames(realm: string): Promise<string[]> {
  const res = await api.get(`/admin/realms/${realm}/users?briefRepresentation=true&max=2000`);
  return (res.body as Json[]).map((u) => u.username as string).sort();
}

const statuses = (payload: Json) => (payload.results as Json[]).map((r) => r.status);

describe('bulkCreateUsers', () => {
  test('1,000 users in one ATOMIC request are all created and visible through REST', async () => {
    const realm = await freshRealm();
    const users = Array.from({ length: 1000 }, (_, i) => ({ username: `user${i}`, email: `user${i}@example.org`, enabled: true }));
    const data = ok(await gql(CREATE, { realm, users }));
    const p = data.bulkCreateUsers;
    expect(p.ok).toBe(true);
    expect(p.failedCount).toBe(0);
    expect(p.results).toHaveLength(1000);
    expect(new Set(statuses(p))).toEqual(new Set(['CREATED']));
    expect((p.results as Json[]).map((r) => r.index)).toEqual(users.map((_, i) => i));
    expect(await userCount(realm)).toBe(1000);
    // The ids reported are the users created: one of them read back by id.
    const sample = p.results[737];
    const user = await api.get(`/admin/realms/${realm}/users/${sample.id}`);
    expect(user.body).toMatchObject({ id: sample.id, username: 'user737', email: 'user737@example.org', enabled: true });
    // One CREATE event per user, as POST /users records.
    expect(await adminEvents(api, realm, { resourceTypes: 'USER' })).toHaveLength(1000);
  }, 120_000);

  test('ATOMIC: a duplicate username in the middle creates nothing, reports why and records no admin event', async () => {
    const realm = await freshRealm();
    const users = ['ann', 'bob', 'cid', 'bob', 'dan'].map((username) => ({ username, enabled: true }));
    const p = ok(await gql(CREATE, { realm, users, mode: 'ATOMIC' })).bulkCreateUsers;
    expect(p.ok).toBe(false);
    expect(p.failedCount).toBe(1);
    expect(statuses(p)).toEqual(['ROLLED_BACK', 'ROLLED_BACK', 'ROLLED_BACK', 'FAILED', 'NOT_ATTEMPTED']);
    // Rolled-back creates name no user: they do not exist.
    expect((p.results as Json[]).map((r) => r.id)).toEqual([null, null, null, null, null]);
    const error = { field: ['users', '3', 'username'], code: 'CONFLICT', message: 'User exists with same username' };
    expect(p.results[3].error).toEqual(error);
    expect(p.results[3].errors).toEqual([error]);
    expect(p.results[0].error).toBeNull();
    expect(p.results[0].errors).toEqual([]);
    expect(await userCount(realm)).toBe(0);
    expect(await adminEvents(api, realm)).toEqual([]);
  });

  test('ATOMIC is the default mode', async () => {
    const realm = await freshRealm();
    await createUser(ts, realm, 'taken');
    const users = [{ username: 'fresh' }, { username: 'taken' }];
    const p = ok(await gql(CREATE, { realm, users })).bulkCreateUsers;
    expect(statuses(p)).toEqual(['ROLLED_BACK', 'FAILED']);
    expect(await usernames(realm)).toEqual(['taken']);
  });

  test('PER_ITEM: all but the duplicate are created, each with its admin event', async () => {
    const realm = await freshRealm();
    const users = ['ann', 'bob', 'cid', 'bob', 'dan'].map((username) => ({ username, enabled: true }));
    const p = ok(await gql(CREATE, { realm, users, mode: 'PER_ITEM' })).bulkCreateUsers;
    expect(p.ok).toBe(false);
    expect(p.failedCount).toBe(1);
    expect(statuses(p)).toEqual(['CREATED', 'CREATED', 'CREATED', 'FAILED', 'CREATED']);
    expect(p.results[3]).toMatchObject({ id: null, error: { field: ['users', '3', 'username'], code: 'CONFLICT' } });
    expect(await usernames(realm)).toEqual(['ann', 'bob', 'cid', 'dan']);
    const events = await adminEvents(api, realm);
    const created = (p.results as Json[]).filter((r) => r.status === 'CREATED').map((r) => `users/${r.id}`);
    expect(events.map((e) => e.resourcePath)).toEqual(created);
    expect(events.every((e) => e.operationType === 'CREATE' && e.resourceType === 'USER')).toBe(true);
    // The representation is the item's input, as for POST /users.
    expect(JSON.parse(String(events[3].representation))).toEqual({ username: 'dan', enabled: true });
  });

  test('PER_ITEM: user-profile validation errors name the attribute, with the Keycloak key and words', async () => {
    const realm = await freshRealm();
    const users = [{ username: 'good', email: 'good@example.org' }, { username: 'bad', email: 'not-an-email' }, { username: 'x<y' }];
    const p = ok(await gql(CREATE, { realm, users, mode: 'PER_ITEM' })).bulkCreateUsers;
    expect(statuses(p)).toEqual(['CREATED', 'FAILED', 'FAILED']);
    expect(p.results[1].errors).toEqual([
      { field: ['users', '1', 'email'], code: 'error-invalid-email', message: 'email is not a valid email address.' },
    ]);
    expect(p.results[2].error).toEqual({
      field: ['users', '2', 'username'],
      code: 'error-username-invalid-character',
      message: 'username contains a character that is not allowed.',
    });
    expect(await usernames(realm)).toEqual(['good']);
  });

  test('passwords: checked against the realm policy per item, and the created users can log in with theirs', async () => {
    const realm = `bulkpw${++realms}`;
    await createRealm(api, realm, { passwordPolicy: 'length(8) and hashAlgorithm(pbkdf2-sha256) and hashIterations(1000)' });
    const users = ['pwone', 'pwtwo', 'pwthree'].map((username, i) => ({
      username,
      email: `${username}@example.org`,
      firstName: 'F',
      lastName: 'L',
      enabled: true,
      credentials: [{ type: 'password', value: i === 1 ? 'short' : `${username}-secret`, temporary: false }],
    }));
    const p = ok(await gql(CREATE, { realm, users, mode: 'PER_ITEM' })).bulkCreateUsers;
    expect(statuses(p)).toEqual(['CREATED', 'FAILED', 'CREATED']);
    expect(p.results[1].error).toMatchObject({ field: ['users', '1'], code: 'BAD_REQUEST' });
    expect(p.results[1].error.message).toBe('Invalid password: minimum length 8.');
    // The single write refuses it the same way.
    const single = await api.post(`/admin/realms/${realm}/users`, users[1]);
    expect([single.status, JSON.stringify(single.body)]).toEqual([400, expect.stringContaining('Invalid password: minimum length 8.')]);
    for (const username of ['pwone', 'pwthree']) {
      await expect(ts.token({ realm, username, password: `${username}-secret` })).resolves.toEqual(expect.any(String));
    }
    await expect(ts.token({ realm, username: 'pwone', password: 'wrong-password' })).rejects.toThrow(/Invalid user credentials/);
    // Hashed with the realm's hash policy, as POST /users hashes.
    const creds = (await api.get(`/admin/realms/${realm}/users/${p.results[0].id}/credentials`)).body as Json[];
    expect(JSON.parse(creds[0].credentialData)).toMatchObject({ algorithm: 'pbkdf2-sha256', hashIterations: 1000 });
  });

  test('more than 1,000 items are refused with 400 before anything is written', async () => {
    const realm = await freshRealm();
    const users = Array.from({ length: 1001 }, (_, i) => ({ username: `u${i}` }));
    const res = await gql(CREATE, { realm, users });
    expect(res.data?.bulkCreateUsers ?? null).toBeNull();
    expect(res.errors?.[0]).toMatchObject({
      message: 'A bulk write takes at most 1000 items; this one has 1001. Split it into several requests.',
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
    const ids = Array.from({ length: 1001 }, (_, i) => `id${i}`);
    const del = await gql(`mutation($realm: String!, $ids: [ID!]!) { bulkDelete(realm: $realm, kind: USER, ids: $ids) { ok } }`, {
      realm,
      ids,
    });
    expect(del.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', http: { status: 400 } });
    expect(await userCount(realm)).toBe(0);
  });

  test('an empty list is a successful no-op', async () => {
    const realm = await freshRealm();
    expect(ok(await gql(CREATE, { realm, users: [] })).bulkCreateUsers).toEqual({ ok: true, failedCount: 0, results: [] });
  });
});

describe('permissions', () => {
  test('a caller without manage-users gets FORBIDDEN from the user bulk writes and nothing changes', async () => {
    const realm = await freshRealm();
    const member = await createUser(ts, realm, 'member');
    const group = await createGroup(api, realm, 'team');
    await createRole(api, realm, 'reader');
    await realmAdmin(ts, realm, 'viewer', ['view-users', 'query-groups']);
    const viewer = gqlClient(ts, { realm, username: 'viewer', password: 'pw' });
    const before = await usernames(realm);
    const attempts = [
      viewer(CREATE, { realm, users: [{ username: 'sneaky' }], mode: 'PER_ITEM' }),
      viewer(`mutation($realm: String!, $u: [UserBulkUpdateInput!]!) { bulkUpdateUsers(realm: $realm, users: $u) { ok } }`, {
        realm,
        u: [{ id: member, firstName: 'Changed' }],
      }),
      viewer(`mutation($realm: String!, $g: ID!, $u: [ID!]!) { addGroupMembers(realm: $realm, groupId: $g, userIds: $u) { ok } }`, {
        realm,
        g: group,
        u: [member],
      }),
      viewer(`mutation($realm: String!, $u: [ID!]!) { assignRealmRoles(realm: $realm, userIds: $u, roleNames: ["reader"]) { ok } }`, {
        realm,
        u: [member],
      }),
      viewer(`mutation($realm: String!, $u: [ID!]!) { bulkDelete(realm: $realm, kind: USER, ids: $u, mode: PER_ITEM) { ok } }`, {
        realm,
        u: [member],
      }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.errors?.[0]).toMatchObject({ message: 'HTTP 403 Forbidden', extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
    }
    expect(await usernames(realm)).toEqual(before);
    const m = await api.get(`/admin/realms/${realm}/users/${member}`);
    expect(m.body.firstName).toBe('F');
    expect((await api.get(`/admin/realms/${realm}/groups/${group}/members`)).body).toEqual([]);
    expect((await api.get(`/admin/realms/${realm}/users/${member}/role-mappings/realm`)).body).toEqual([]);
    expect(await adminEvents(api, realm, { authUser: 'viewer' })).toEqual([]);
  });

  test('roles are checked per item as DELETE /roles-by-id checks them: a manage-users caller cannot delete realm roles', async () => {
    const realm = await freshRealm();
    const role = await createRole(api, realm, 'keep');
    await realmAdmin(ts, realm, 'usermgr', ['manage-users']);
    const caller = gqlClient(ts, { realm, username: 'usermgr', password: 'pw' });
    const p = ok(
      await caller(
        `mutation($realm: String!, $ids: [ID!]!) { bulkDelete(realm: $realm, kind: ROLE, ids: $ids, mode: PER_ITEM) { ${RESULT} } }`,
        {
          realm,
          ids: [role.id],
        },
      ),
    ).bulkDelete;
    expect(p.results).toEqual([
      {
        index: 0,
        id: role.id,
        status: 'FAILED',
        error: { field: ['ids', '0'], code: 'FORBIDDEN', message: 'HTTP 403 Forbidden' },
        errors: [{ field: ['ids', '0'], code: 'FORBIDDEN', message: 'HTTP 403 Forbidden' }],
      },
    ]);
    expect((await api.get(`/admin/realms/${realm}/roles/keep`)).status).toBe(200);
  });
});

describe('bulkUpdateUsers', () => {
  const UPDATE = `mutation($realm: String!, $users: [UserBulkUpdateInput!]!, $mode: BulkMode) {
    bulkUpdateUsers(realm: $realm, users: $users, mode: $mode) { ${RESULT} }
  }`;

  test('PER_ITEM: updates each user named by id; an unknown user and a taken email fail alone', async () => {
    const realm = await freshRealm();
    const a = await createUser(ts, realm, 'amy');
    const b = await createUser(ts, realm, 'ben');
    const users = [
      { id: a, firstName: 'Alice' },
      { id: 'no-such-user', firstName: 'Ghost' },
      { id: b, email: 'amy@example.org' },
      { id: b, lastName: 'Brown' },
    ];
    const p = ok(await gql(UPDATE, { realm, users, mode: 'PER_ITEM' })).bulkUpdateUsers;
    expect(statuses(p)).toEqual(['UPDATED', 'FAILED', 'FAILED', 'UPDATED']);
    expect(p.results.map((r: Json) => r.id)).toEqual([a, 'no-such-user', b, b]);
    expect(p.results[1].error).toEqual({ field: ['users', '1'], code: 'NOT_FOUND', message: 'User not found' });
    expect(p.results[2].error).toEqual({ field: ['users', '2', 'email'], code: 'CONFLICT', message: 'User exists with same email' });
    expect((await api.get(`/admin/realms/${realm}/users/${a}`)).body).toMatchObject({ firstName: 'Alice', lastName: 'L' });
    expect((await api.get(`/admin/realms/${realm}/users/${b}`)).body).toMatchObject({ email: 'ben@example.org', lastName: 'Brown' });
    const events = await adminEvents(api, realm, { operationTypes: 'UPDATE' });
    expect(events.map((e) => e.resourcePath)).toEqual([`users/${a}`, `users/${b}`]);
  });

  test('the id of each user to update is required by the schema: a change without one is refused before anything runs', async () => {
    const realm = await freshRealm();
    const res = await gql(UPDATE, { realm, users: [{ firstName: 'Nobody' }], mode: 'PER_ITEM' });
    expect(res.errors?.[0].message).toContain('Field "id" of required type "ID!" was not provided');
  });

  test('ATOMIC: a failure leaves every user as it was', async () => {
    const realm = await freshRealm();
    const a = await createUser(ts, realm, 'amy');
    const users = [{ id: a, firstName: 'Changed' }, { id: 'no-such-user' }];
    const p = ok(await gql(UPDATE, { realm, users })).bulkUpdateUsers;
    expect(statuses(p)).toEqual(['ROLLED_BACK', 'FAILED']);
    expect(p.results[0].id).toBe(a);
    expect((await api.get(`/admin/realms/${realm}/users/${a}`)).body.firstName).toBe('F');
    expect(await adminEvents(api, realm, { operationTypes: 'UPDATE' })).toEqual([]);
  });
});

describe('addGroupMembers', () => {
  const ADD = `mutation($realm: String!, $group: ID!, $users: [ID!]!, $mode: BulkMode) {
    addGroupMembers(realm: $realm, groupId: $group, userIds: $users, mode: $mode) { ${RESULT} }
  }`;

  test('PER_ITEM: new members CREATED, an existing member UNCHANGED, an unknown user FAILED; events per membership', async () => {
    const realm = await freshRealm();
    const group = await createGroup(api, realm, 'team');
    const [a, b, c] = [await createUser(ts, realm, 'amy'), await createUser(ts, realm, 'ben'), await createUser(ts, realm, 'cat')];
    expect((await api.put(`/admin/realms/${realm}/users/${b}/groups/${group}`)).status).toBe(204);
    const p = ok(await gql(ADD, { realm, group, users: [a, b, 'nobody', c], mode: 'PER_ITEM' })).addGroupMembers;
    expect(statuses(p)).toEqual(['CREATED', 'UNCHANGED', 'FAILED', 'CREATED']);
    expect(p.results[2]).toMatchObject({ id: 'nobody', error: { field: ['userIds', '2'], code: 'NOT_FOUND', message: 'User not found' } });
    const members = (await api.get(`/admin/realms/${realm}/groups/${group}/members`)).body as Json[];
    expect(members.map((m) => m.username).sort()).toEqual(['amy', 'ben', 'cat']);
    const events = await adminEvents(api, realm, { resourceTypes: 'GROUP_MEMBERSHIP' });
    // The direct PUT for b, then one per successful item (PUT /users/{id}/groups/{gid} records one even when already a member).
    expect(events.map((e) => e.resourcePath)).toEqual([b, a, b, c].map((u) => `users/${u}/groups/${group}`));
  });

  test('ATOMIC: an unknown user adds nobody; an unknown group is NOT_FOUND for the whole request', async () => {
    const realm = await freshRealm();
    const group = await createGroup(api, realm, 'team');
    const a = await createUser(ts, realm, 'amy');
    const p = ok(await gql(ADD, { realm, group, users: [a, 'nobody'] })).addGroupMembers;
    expect(statuses(p)).toEqual(['ROLLED_BACK', 'FAILED']);
    expect((await api.get(`/admin/realms/${realm}/groups/${group}/members`)).body).toEqual([]);
    expect(await adminEvents(api, realm, { resourceTypes: 'GROUP_MEMBERSHIP' })).toEqual([]);
    const missing = await gql(ADD, { realm, group: 'no-group', users: [a] });
    expect(missing.errors?.[0]).toMatchObject({ message: 'Group not found', extensions: { code: 'NOT_FOUND', http: { status: 404 } } });
  });
});

describe('assignRealmRoles and assignClientRoles', () => {
  test('realm roles: CREATED, UNCHANGED for a holder, FAILED for an unknown user; REST shows the mappings', async () => {
    const realm = await freshRealm();
    await createRole(api, realm, 'r1');
    await createRole(api, realm, 'r2');
    const a = await createUser(ts, realm, 'amy');
    const b = await createUser(ts, realm, 'ben');
    const p1 = ok(
      await gql(
        `mutation($realm: String!, $u: [ID!]!) { assignRealmRoles(realm: $realm, userIds: $u, roleNames: ["r1", "r2"]) { ${RESULT} } }`,
        { realm, u: [a] },
      ),
    ).assignRealmRoles;
    expect(statuses(p1)).toEqual(['CREATED']);
    const p = ok(
      await gql(
        `mutation($realm: String!, $u: [ID!]!) { assignRealmRoles(realm: $realm, userIds: $u, roleNames: ["r1", "r2"], mode: PER_ITEM) { ${RESULT} } }`,
        { realm, u: [a, 'ghost', b] },
      ),
    ).assignRealmRoles;
    expect(statuses(p)).toEqual(['UNCHANGED', 'FAILED', 'CREATED']);
    expect(p.results[1].error).toEqual({ field: ['userIds', '1'], code: 'NOT_FOUND', message: 'User not found' });
    for (const u of [a, b]) {
      const roles = (await api.get(`/admin/realms/${realm}/users/${u}/role-mappings/realm`)).body as Json[];
      expect(roles.map((r) => r.name).sort()).toEqual(['r1', 'r2']);
    }
    const events = await adminEvents(api, realm, { operationTypes: 'CREATE', resourceTypes: 'REALM_ROLE_MAPPING' });
    expect(events.map((e) => e.resourcePath)).toEqual([a, a, b].map((u) => `users/${u}/role-mappings/realm`));
  });

  test('an unknown role name is NOT_FOUND for the whole request and maps nothing', async () => {
    const realm = await freshRealm();
    await createRole(api, realm, 'r1');
    const a = await createUser(ts, realm, 'amy');
    const res = await gql(
      `mutation($realm: String!, $u: [ID!]!) { assignRealmRoles(realm: $realm, userIds: $u, roleNames: ["r1", "nope"], mode: PER_ITEM) { ok } }`,
      { realm, u: [a] },
    );
    expect(res.errors?.[0]).toMatchObject({ message: 'Role not found: nope', extensions: { code: 'NOT_FOUND', http: { status: 404 } } });
    expect((await api.get(`/admin/realms/${realm}/users/${a}/role-mappings/realm`)).body).toEqual([]);
  });

  test('client roles: granted through the client UUID, ATOMIC rolls back on an unknown user', async () => {
    const realm = await freshRealm();
    const client = await createClient(api, realm, { clientId: 'app' });
    for (const name of ['viewer', 'editor']) {
      expect((await api.post(`/admin/realms/${realm}/clients/${client}/roles`, { name })).status).toBe(201);
    }
    const a = await createUser(ts, realm, 'amy');
    const b = await createUser(ts, realm, 'ben');
    const Q = `mutation($realm: String!, $c: ID!, $u: [ID!]!) {
      assignClientRoles(realm: $realm, clientUuid: $c, userIds: $u, roleNames: ["viewer", "editor"]) { ${RESULT} }
    }`;
    const failed = ok(await gql(Q, { realm, c: client, u: [a, 'ghost', b] })).assignClientRoles;
    expect(statuses(failed)).toEqual(['ROLLED_BACK', 'FAILED', 'NOT_ATTEMPTED']);
    expect((await api.get(`/admin/realms/${realm}/users/${a}/role-mappings/clients/${client}`)).body).toEqual([]);
    const p = ok(await gql(Q, { realm, c: client, u: [a, b] })).assignClientRoles;
    expect(p).toMatchObject({ ok: true, failedCount: 0 });
    expect(statuses(p)).toEqual(['CREATED', 'CREATED']);
    for (const u of [a, b]) {
      const roles = (await api.get(`/admin/realms/${realm}/users/${u}/role-mappings/clients/${client}`)).body as Json[];
      expect(roles.map((r) => r.name).sort()).toEqual(['editor', 'viewer']);
    }
    const events = await adminEvents(api, realm, { operationTypes: 'CREATE', resourceTypes: 'CLIENT_ROLE_MAPPING' });
    expect(events.map((e) => e.resourcePath)).toEqual([a, b].map((u) => `users/${u}/role-mappings/clients/${client}`));
    const unknownClient = await gql(Q, { realm, c: 'no-client', u: [a] });
    expect(unknownClient.errors?.[0]).toMatchObject({ message: 'Client not found', extensions: { code: 'NOT_FOUND' } });
  });
});

describe('bulkDelete', () => {
  const DELETE = `mutation($realm: String!, $kind: BulkDeleteKind!, $ids: [ID!]!, $mode: BulkMode) {
    bulkDelete(realm: $realm, kind: $kind, ids: $ids, mode: $mode) { ${RESULT} }
  }`;

  test('each kind: the objects are gone, an unknown id fails alone in PER_ITEM, one DELETE event per object', async () => {
    const realm = await freshRealm();
    const users = [await createUser(ts, realm, 'amy'), await createUser(ts, realm, 'ben')];
    const groups = [await createGroup(api, realm, 'g1'), await createGroup(api, realm, 'g2')];
    const roles = [(await createRole(api, realm, 'r1')).id, (await createRole(api, realm, 'r2')).id];
    const clients = [await createClient(api, realm, { clientId: 'c1' }), await createClient(api, realm, { clientId: 'c2' })];
    const scopes = [await createClientScope(api, realm, 's1'), await createClientScope(api, realm, 's2')];
    const cases: Array<[string, string[], string, string, string]> = [
      ['USER', users, 'users', 'USER', 'User not found'],
      ['GROUP', groups, 'groups', 'GROUP', 'Could not find group by id'],
      ['ROLE', roles, 'roles-by-id', 'REALM_ROLE', 'Could not find role with id'],
      ['CLIENT', clients, 'clients', 'CLIENT', 'Could not find client'],
      ['CLIENT_SCOPE', scopes, 'client-scopes', 'CLIENT_SCOPE', 'Could not find client scope'],
    ];
    for (const [kind, ids, path, resourceType, notFound] of cases) {
      const p = ok(await gql(DELETE, { realm, kind, ids: [ids[0], 'missing', ids[1]], mode: 'PER_ITEM' })).bulkDelete;
      expect([kind, statuses(p)]).toEqual([kind, ['DELETED', 'FAILED', 'DELETED']]);
      expect([kind, p.results[1].error]).toEqual([kind, { field: ['ids', '1'], code: 'NOT_FOUND', message: notFound }]);
      for (const id of ids) expect([kind, (await api.get(`/admin/realms/${realm}/${path}/${id}`)).status]).toEqual([kind, 404]);
      const events = await adminEvents(api, realm, { operationTypes: 'DELETE', resourceTypes: resourceType });
      expect(events.map((e) => e.resourcePath)).toEqual(ids.map((id) => `${path}/${id}`));
    }
  });

  test('ATOMIC: one unknown id deletes nothing', async () => {
    const realm = await freshRealm();
    const a = await createUser(ts, realm, 'amy');
    const g = await createGroup(api, realm, 'g');
    const p = ok(await gql(DELETE, { realm, kind: 'USER', ids: [a, 'missing'] })).bulkDelete;
    expect(statuses(p)).toEqual(['ROLLED_BACK', 'FAILED']);
    expect((await api.get(`/admin/realms/${realm}/users/${a}`)).status).toBe(200);
    const pg = ok(await gql(DELETE, { realm, kind: 'GROUP', ids: ['missing', g] })).bulkDelete;
    expect(statuses(pg)).toEqual(['FAILED', 'NOT_ATTEMPTED']);
    expect((await api.get(`/admin/realms/${realm}/groups/${g}`)).status).toBe(200);
    expect(await adminEvents(api, realm, { operationTypes: 'DELETE', resourceTypes: 'USER,GROUP' })).toEqual([]);
  });

  test('a rule of the single DELETE holds per item: the default role cannot be deleted', async () => {
    const realm = await freshRealm();
    const defaultRole = (await api.get(`/admin/realms/${realm}/roles/default-roles-${realm}`)).body.id as string;
    const other = (await createRole(api, realm, 'other')).id;
    const p = ok(await gql(DELETE, { realm, kind: 'ROLE', ids: [other, defaultRole], mode: 'PER_ITEM' })).bulkDelete;
    expect(statuses(p)).toEqual(['DELETED', 'FAILED']);
    expect(p.results[1].error).toEqual({
      field: ['ids', '1'],
      code: 'BAD_REQUEST',
      message: `default-roles-${realm} is default role of the realm and cannot be removed.`,
    });
  });
});

describe('statements per item', () => {
  test('creating users costs a bounded number of statements per user, whatever the batch size', async () => {
    const realm = await freshRealm();
    const create = async (n: number, prefix: string) => {
      const users = Array.from({ length: n }, (_, i) => ({ username: `${prefix}-${i}`, email: `${prefix}-${i}@example.org` }));
      const { result, count } = await ts.countSql(() => gql(CREATE, { realm, users, mode: 'PER_ITEM' }));
      expect(ok(result).bulkCreateUsers).toMatchObject({ ok: true, failedCount: 0 });
      return count;
    };
    await create(1, 'warm'); // the realm's caches filled once
    const ten = await create(10, 'ten');
    const thirty = await create(30, 'thirty');
    const perUser = (thirty - ten) / 20;
    // Savepoint, two uniqueness reads, the user row, its default role, the default groups, the admin event.
    expect(perUser).toBeLessThanOrEqual(7);
  });
});
