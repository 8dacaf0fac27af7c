import request from 'supertest';
import { hashPassword } from '../../../src/auth/passwords';
import { createGroup, grantClientRoles, realmServer, userId } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'ur';
const U = `/admin/realms/${R}/users`;

const idOf = (location: string) => location.split('/').pop() as string;
/** Every user of the realm, service accounts included (`GET /users/count` without criteria). */
const userRows = async (): Promise<number> => (await api.get(`${U}/count`)).body;

/** The ids of every role mapped to user `id` directly, realm and client roles (`GET /users/{id}/role-mappings`). */
async function directRoleIds(id: string, realm = R): Promise<string[]> {
  const body = (await api.get(`/admin/realms/${realm}/users/${id}/role-mappings`)).body;
  const clients = Object.values(body.clientMappings ?? {}) as Array<{ mappings: Array<{ id: string }> }>;
  return [...(body.realmMappings ?? []), ...clients.flatMap((c) => c.mappings)].map((r: { id: string }) => r.id);
}

async function create(body: unknown, path = U): Promise<string> {
  const res = await api.post(path, body);
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

/** A user of `realm` holding the given realm-management roles, with a password; returns an api for it. */
async function localAdmin(realm: string, username: string, roles: string[]): Promise<AdminApi> {
  const id = await create(
    {
      username,
      email: `${username}@x.org`,
      firstName: 'Loc',
      lastName: 'Admin',
      enabled: true,
      credentials: [{ type: 'password', value: 'pw' }],
    },
    `/admin/realms/${realm}/users`,
  );
  await grantClientRoles(api, realm, id, 'realm-management', roles);
  return ts.api({ realm, username, password: 'pw' });
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

describe('POST /users', () => {
  test('201 with Location and no body; defaults like Keycloak', async () => {
    const res = await api.post(U, { username: 'Minimal.User' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(new RegExp(`^http://localhost:8080/admin/realms/${R}/users/[0-9a-f-]{36}$`));
    expect(res.text).toBe('');
    const got = await api.get(`${U}/${idOf(res.headers.location)}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: idOf(res.headers.location),
      username: 'minimal.user',
      emailVerified: false,
      enabled: false,
      createdTimestamp: expect.any(Number),
      totp: false,
      disableableCredentialTypes: [],
      requiredActions: [],
      notBefore: 0,
      access: { view: true, manage: true, mapRoles: true, manageGroupMembership: true, impersonate: true },
    });
    expect(Object.keys(got.body)).toEqual([
      'id',
      'username',
      'emailVerified',
      'enabled',
      'createdTimestamp',
      'totp',
      'disableableCredentialTypes',
      'requiredActions',
      'notBefore',
      'access',
    ]);
  });

  test('stores username and email lower-case and keeps the given fields', async () => {
    const id = await create({
      username: 'MiXeD',
      email: 'MiXeD@Example.COM',
      firstName: 'Mi',
      lastName: 'Xed',
      enabled: true,
      emailVerified: true,
      createdTimestamp: 1234,
    });
    const got = (await api.get(`${U}/${id}`)).body;
    expect(got).toMatchObject({
      username: 'mixed',
      email: 'mixed@example.com',
      firstName: 'Mi',
      lastName: 'Xed',
      enabled: true,
      emailVerified: true,
      createdTimestamp: 1234,
    });
  });

  test('grants the default role and joins default groups and groups given by path', async () => {
    const def = await createGroup(api, R, 'defaults');
    const parent = await createGroup(api, R, 'parent');
    const child = await createGroup(api, R, 'child', parent);
    expect((await api.put(`/admin/realms/${R}/default-groups/${def}`)).status).toBe(204);
    const id = await create({
      username: 'grouped',
      groups: ['/parent/child'],
      realmRoles: ['offline_access'],
      clientRoles: { account: ['x'] },
    });
    const groups = (await api.get(`${U}/${id}/groups`)).body as Array<{ id: string }>;
    expect(groups.map((g) => g.id).sort()).toEqual([def, child].sort());
    expect(await directRoleIds(id)).toEqual([(await api.get(`/admin/realms/${R}`)).body.defaultRole.id]);
    expect((await api.delete(`/admin/realms/${R}/default-groups/${def}`)).status).toBe(204);
  });

  test('unknown group path is 400 Could not create user and creates nothing', async () => {
    const before = await userRows();
    const res = await api.post(U, { username: 'nogroup', groups: ['/does/not/exist'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'Could not create user' });
    expect(await userRows()).toBe(before);
  });

  test('required actions: only enabled actions of the realm are kept; default actions are added', async () => {
    const id = await create({ username: 'actions', requiredActions: ['UPDATE_PASSWORD', 'bogus', 'TERMS_AND_CONDITIONS', 'VERIFY_EMAIL'] });
    expect((await api.get(`${U}/${id}`)).body.requiredActions.sort()).toEqual(['UPDATE_PASSWORD', 'VERIFY_EMAIL']);
    const totp = `/admin/realms/${R}/authentication/required-actions/CONFIGURE_TOTP`;
    const action = (await api.get(totp)).body;
    expect((await api.put(totp, { ...action, defaultAction: true })).status).toBe(204);
    const id2 = await create({ username: 'actions2' });
    expect((await api.get(`${U}/${id2}`)).body.requiredActions).toEqual(['CONFIGURE_TOTP']);
    expect((await api.put(totp, { ...action, defaultAction: false })).status).toBe(204);
  });

  test('credentials: a password lets the user log in; temporary adds UPDATE_PASSWORD; hashed credentials are taken as-is', async () => {
    const M = '/admin/realms/master/users';
    await create({ username: 'pwuser', enabled: true, credentials: [{ type: 'password', value: 's3cret' }] }, M);
    expect(await ts.token({ username: 'pwuser', password: 's3cret' })).toEqual(expect.any(String));
    const tmp = await create({ username: 'tmpuser', enabled: true, credentials: [{ type: 'password', value: 'x', temporary: true }] }, M);
    expect((await api.get(`${M}/${tmp}`)).body.requiredActions).toEqual(['UPDATE_PASSWORD']);
    const stored = await hashPassword('imported', 'pbkdf2-sha256', 1000);
    await create({ username: 'hashed', enabled: true, credentials: [{ type: 'password', ...stored }] }, M);
    expect(await ts.token({ username: 'hashed', password: 'imported' })).toEqual(expect.any(String));
    // The stored hash itself: the API never shows a credential's secret data.
    const cred = await ts.db.models.Credential.findOne({
      where: { userId: await userId(api, 'master', 'hashed') },
    });
    expect(cred?.secretData).toBe(stored.secretData);
  });

  test('registrationEmailAsUsername: the email becomes the username', async () => {
    await api.post('/admin/realms', { realm: 'emailname', enabled: true, registrationEmailAsUsername: true });
    const id = await create({ username: 'ignored', email: 'Mail@Name.org' }, '/admin/realms/emailname/users');
    expect((await api.get(`/admin/realms/emailname/users/${id}`)).body).toMatchObject({
      username: 'mail@name.org',
      email: 'mail@name.org',
    });
    const res = await api.post('/admin/realms/emailname/users', { username: 'nomail' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'User name is missing' });
  });
});

describe('validation and conflicts', () => {
  test.each([
    [{}, { errorMessage: 'User name is missing' }],
    [{ username: '   ' }, { errorMessage: 'User name is missing' }],
    [{ username: 'ab' }, { field: 'username', errorMessage: 'error-invalid-length', params: ['username', 3, 255] }],
    [{ username: 'a'.repeat(256) }, { field: 'username', errorMessage: 'error-invalid-length', params: ['username', 3, 255] }],
    [{ username: 'has space' }, { field: 'username', errorMessage: 'error-username-invalid-character', params: ['username'] }],
    [{ username: 'a<b>c' }, { field: 'username', errorMessage: 'error-username-invalid-character', params: ['username'] }],
    [
      { username: 'okname', email: 'not-an-email' },
      { field: 'email', errorMessage: 'error-invalid-email', params: ['email', 'not-an-email'] },
    ],
    [
      { username: 'okname', firstName: 'x<script>' },
      { field: 'firstName', errorMessage: 'error-person-name-invalid-character', params: ['firstName'] },
    ],
    [
      { username: 'ab', email: 'bad@' },
      {
        errors: [
          { field: 'username', errorMessage: 'error-invalid-length', params: ['username', 3, 255] },
          { field: 'email', errorMessage: 'error-invalid-email', params: ['email', 'bad@'] },
        ],
      },
    ],
  ])('400 for %j', async (body, expected) => {
    const before = await userRows();
    const res = await api.post(U, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expected);
    expect(await userRows()).toBe(before);
  });

  test('409 for a taken username (case-insensitive) or email', async () => {
    await create({ username: 'taken', email: 'taken@x.org' });
    const before = await userRows();
    const a = await api.post(U, { username: 'TAKEN' });
    expect(a.status).toBe(409);
    expect(a.body).toEqual({ errorMessage: 'User exists with same username' });
    const b = await api.post(U, { username: 'other', email: 'Taken@X.org' });
    expect(b.status).toBe(409);
    expect(b.body).toEqual({ errorMessage: 'User exists with same email' });
    expect(await userRows()).toBe(before);
  });

  test('duplicate emails are fine when the realm allows them', async () => {
    await api.post('/admin/realms', { realm: 'dupmail', enabled: true, duplicateEmailsAllowed: true });
    await create({ username: 'one', email: 'same@x.org' }, '/admin/realms/dupmail/users');
    await create({ username: 'two', email: 'same@x.org' }, '/admin/realms/dupmail/users');
  });

  test('malformed JSON, unknown fields, wrong types, empty and null bodies are 4xx and change nothing', async () => {
    const before = await userRows();
    const bad = await api.post(U).set('Content-Type', 'application/json').send('{"username": "x",');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', error_description: 'Cannot parse the JSON' });
    const unknown = await api.post(U).set('Content-Type', 'application/json').send('{"username":"a","nosuchfield":1}');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(
      /^Invalid json representation for UserRepresentation\. Unrecognized field "nosuchfield" at line 1 column \d+\.$/,
    );
    const wrong = await api.post(U, { username: 'wrongtype', enabled: { a: 1 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    const attrs = await api.post(U, { username: 'wrongattrs', attributes: { a: { nested: true } } });
    expect(attrs.status).toBe(400);
    for (const raw of ['', 'null', '[]', '"text"']) {
      const res = await api.post(U).set('Content-Type', 'application/json').send(raw);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect(await userRows()).toBe(before);
  });
});

describe('attributes and the user profile', () => {
  test('GET /users/profile: the default config (master without required blocks)', async () => {
    const res = await api.get(`${U}/profile`);
    expect(res.status).toBe(200);
    expect(res.body.attributes.map((a: { name: string }) => a.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
    expect(res.body.attributes[1]).toEqual({
      name: 'email',
      displayName: '${email}',
      validations: { email: {}, length: { max: 255 } },
      required: { roles: ['user'] },
      permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
      multivalued: false,
    });
    expect(res.body.unmanagedAttributePolicy).toBeUndefined();
    const master = (await api.get('/admin/realms/master/users/profile')).body;
    expect(master.attributes[1].required).toBeUndefined();
  });

  test('custom attributes are dropped unless unmanagedAttributePolicy allows them', async () => {
    const dropped = await create({ username: 'noattrs', attributes: { color: ['red'] } });
    expect((await api.get(`${U}/${dropped}`)).body.attributes).toBeUndefined();

    const config = (await api.get(`${U}/profile`)).body;
    const put = await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ENABLED' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...config, unmanagedAttributePolicy: 'ENABLED' });
    expect((await api.get(`${U}/profile`)).body.unmanagedAttributePolicy).toBe('ENABLED');
    // Nothing was stored for the dropped attribute: with unmanaged attributes enabled it would show now.
    expect((await api.get(`${U}/${dropped}`)).body.attributes).toBeUndefined();
    const [row] = (await api.get(`/admin/realms/${R}/components?type=org.keycloak.userprofile.UserProfileProvider`)).body;
    expect(row?.providerId).toBe('declarative-user-profile');
    expect(JSON.parse(row.config['kc.user.profile.config'][0]).unmanagedAttributePolicy).toBe('ENABLED');

    const id = await create({
      username: 'withattrs',
      attributes: { color: ['red', 'blue', 'green', 'amber'], single: 'one', email: ['ignored@x.org'] },
    });
    const got = (await api.get(`${U}/${id}`)).body;
    expect(got.attributes).toEqual({ color: ['red', 'blue', 'green', 'amber'], single: ['one'] });
    expect(got.email).toBeUndefined();
    // Five rows, no more: a stray row for the root attribute `email` would not show in the representation.
    expect(await ts.db.models.UserAttribute.count({ where: { userId: id } })).toBe(5);

    // PUT replaces the custom attributes; absent attributes keep them.
    expect((await api.put(`${U}/${id}`, { firstName: 'Attr' })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.attributes).toEqual({ color: ['red', 'blue', 'green', 'amber'], single: ['one'] });
    expect((await api.put(`${U}/${id}`, { attributes: { color: ['black'] } })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.attributes).toEqual({ color: ['black'] });
  });

  test('ADMIN_VIEW: unmanaged attributes are readable but not writable', async () => {
    const config = (await api.get(`${U}/profile`)).body;
    expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ADMIN_VIEW' })).status).toBe(200);
    const id = await create({ username: 'viewattrs', attributes: { color: ['red'] } });
    expect((await api.get(`${U}/${id}`)).body.attributes).toBeUndefined();
    // the value is stored while unmanaged attributes are writable, then the policy goes back to ADMIN_VIEW
    expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ENABLED' })).status).toBe(200);
    expect((await api.put(`${U}/${id}`, { attributes: { color: ['stored'] } })).status).toBe(204);
    expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ADMIN_VIEW' })).status).toBe(200);
    expect((await api.get(`${U}/${id}`)).body.attributes).toEqual({ color: ['stored'] });
    expect((await api.put(`${U}/${id}`, { attributes: { color: ['changed'] } })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.attributes).toEqual({ color: ['stored'] });
    expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ENABLED' })).status).toBe(200);
  });

  test('managed attributes are validated', async () => {
    const config = (await api.get(`${U}/profile`)).body;
    const withPhone = {
      ...config,
      attributes: [
        ...config.attributes,
        {
          name: 'phone',
          validations: { pattern: { pattern: '^[0-9]+$', 'error-message': 'bad-phone' } },
          permissions: { view: ['admin'], edit: ['admin'] },
        },
      ],
    };
    expect((await api.put(`${U}/profile`, withPhone)).status).toBe(200);
    const res = await api.post(U, { username: 'phoney', attributes: { phone: ['12a'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ field: 'phone', errorMessage: 'bad-phone', params: ['phone', '^[0-9]+$'] });
    const id = await create({ username: 'phoned', attributes: { phone: ['123'] } });
    expect((await api.get(`${U}/${id}`)).body.attributes).toEqual({ phone: ['123'] });
    expect((await api.put(`${U}/profile`, config)).status).toBe(200);
  });

  test('PUT /users/profile refuses to remove username or email', async () => {
    const config = (await api.get(`${U}/profile`)).body;
    const res = await api.put(`${U}/profile`, {
      ...config,
      attributes: config.attributes.filter((a: { name: string }) => a.name !== 'username'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: "[The attribute 'username' can not be removed]" });
    expect((await api.get(`${U}/profile`)).body).toEqual(config);
  });

  test('is_temporary_admin is always returned', async () => {
    const list = (await api.get('/admin/realms/master/users?username=admin&exact=true')).body;
    expect(list[0].attributes).toEqual({ is_temporary_admin: ['true'] });
  });
});

describe('GET, PUT, DELETE /users/{id}', () => {
  test('unknown id is 404 User not found on GET, PUT and DELETE', async () => {
    for (const res of [await api.get(`${U}/nope`), await api.put(`${U}/nope`, { firstName: 'x' }), await api.delete(`${U}/nope`)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'User not found' });
    }
    // A user of another realm is unknown here.
    const other = await create({ username: 'elsewhere' }, '/admin/realms/master/users');
    expect((await api.get(`${U}/${other}`)).status).toBe(404);
  });

  test('PUT merges: absent fields are kept, username is kept unless editing is allowed', async () => {
    const id = await create({ username: 'merge', email: 'merge@x.org', firstName: 'Me', lastName: 'Rge', enabled: true });
    const res = await api.put(`${U}/${id}`, { username: 'renamed', firstName: 'New', emailVerified: true });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`${U}/${id}`)).body).toMatchObject({
      username: 'merge',
      email: 'merge@x.org',
      firstName: 'New',
      lastName: 'Rge',
      enabled: true,
      emailVerified: true,
    });
    expect((await api.put(`${U}/${id}`, { enabled: false, lastName: '' })).status).toBe(204);
    const got = (await api.get(`${U}/${id}`)).body;
    expect(got.enabled).toBe(false);
    expect(got.lastName).toBeUndefined();
  });

  test('PUT renames when editUsernameAllowed, with 409 on collisions', async () => {
    await api.post('/admin/realms', { realm: 'editname', enabled: true, editUsernameAllowed: true });
    const P = '/admin/realms/editname/users';
    const id = await create({ username: 'before', email: 'before@x.org' }, P);
    await create({ username: 'occupied', email: 'occupied@x.org' }, P);
    expect((await api.put(`${P}/${id}`, { username: 'After' })).status).toBe(204);
    expect((await api.get(`${P}/${id}`)).body.username).toBe('after');
    const dupName = await api.put(`${P}/${id}`, { username: 'occupied' });
    expect(dupName.status).toBe(409);
    expect(dupName.body).toEqual({ errorMessage: 'User exists with same username' });
    const dupMail = await api.put(`${P}/${id}`, { email: 'OCCUPIED@x.org' });
    expect(dupMail.status).toBe(409);
    expect(dupMail.body).toEqual({ errorMessage: 'User exists with same email' });
    const invalid = await api.put(`${P}/${id}`, { email: 'broken' });
    expect(invalid.status).toBe(400);
    expect((await api.get(`${P}/${id}`)).body).toMatchObject({ username: 'after', email: 'before@x.org' });
    expect((await api.put(`${P}/${id}`, { email: 'before@x.org', firstName: 'Same' })).status).toBe(204);
  });

  test('PUT requiredActions replaces the set; credentials are processed', async () => {
    const id = await create({ username: 'reqs', requiredActions: ['UPDATE_PASSWORD', 'VERIFY_EMAIL'] });
    expect((await api.put(`${U}/${id}`, { requiredActions: ['UPDATE_PROFILE', 'nope'] })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.requiredActions).toEqual(['UPDATE_PROFILE']);
    expect((await api.put(`${U}/${id}`, { firstName: 'Keep' })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.requiredActions).toEqual(['UPDATE_PROFILE']);
    expect((await api.put(`${U}/${id}`, { credentials: [{ type: 'password', value: 'a', temporary: true }] })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.requiredActions.sort()).toEqual(['UPDATE_PASSWORD', 'UPDATE_PROFILE']);
    expect((await api.put(`${U}/${id}`, { credentials: [{ type: 'password', value: 'b' }] })).status).toBe(204);
    expect((await api.get(`${U}/${id}/credentials`)).body).toHaveLength(1);
  });

  test('PUT with bad input is 400 and changes nothing', async () => {
    const id = await create({ username: 'stable', firstName: 'Stable' });
    const bad = await api.put(`${U}/${id}`).set('Content-Type', 'application/json').send('{nope');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', error_description: 'Cannot parse the JSON' });
    const unknown = await api.put(`${U}/${id}`).set('Content-Type', 'application/json').send('{"firstName":"x","bogus":true}');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Invalid json representation for UserRepresentation\. Unrecognized field "bogus"/);
    const wrong = await api.put(`${U}/${id}`, { firstName: 'y', requiredActions: 'UPDATE_PASSWORD' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    const invalid = await api.put(`${U}/${id}`, { firstName: 'a<b' });
    expect(invalid.status).toBe(400);
    expect((await api.get(`${U}/${id}`)).body.firstName).toBe('Stable');
  });

  test('DELETE removes the user and everything hanging off it', async () => {
    const id = await create({
      username: 'doomed',
      requiredActions: ['UPDATE_PASSWORD'],
      credentials: [{ type: 'password', value: 'x' }],
      attributes: { color: ['red'] },
    });
    expect(await directRoleIds(id)).toHaveLength(1);
    const res = await api.delete(`${U}/${id}`);
    expect(res.status).toBe(204);
    expect((await api.get(`${U}/${id}`)).status).toBe(404);
    // The API cannot show anything of a deleted user: the tables show nothing hanging off it is left behind.
    const m = ts.db.models;
    for (const model of [m.UserAttribute, m.UserRequiredAction, m.Credential, m.UserRoleMapping, m.UserGroupMembership, m.UserSession]) {
      expect(await (model as typeof m.UserAttribute).count({ where: { userId: id } })).toBe(0);
    }
    expect(await m.User.count({ where: { id } })).toBe(0);
  });
});

describe('permissions', () => {
  let viewer: AdminApi;
  let querier: AdminApi;
  let target: string;

  beforeAll(async () => {
    viewer = await localAdmin(R, 'viewer', ['view-users']);
    querier = await localAdmin(R, 'querier', ['query-users']);
    target = await create({ username: 'target', email: 'target@x.org' });
  });

  test('view-users can read (with a matching access map) but not write', async () => {
    const got = await viewer.get(`${U}/${target}`);
    expect(got.status).toBe(200);
    expect(got.body.access).toEqual({ view: true, manage: false, mapRoles: false, manageGroupMembership: false, impersonate: false });
    expect((await viewer.get(U)).status).toBe(200);
    expect((await viewer.get(`${U}/profile`)).status).toBe(200);
    const forbidden = { error: 'HTTP 403 Forbidden' };
    const before = await userRows();
    for (const res of [
      await viewer.post(U, { username: 'sneaky' }),
      await viewer.put(`${U}/${target}`, { firstName: 'Hacked' }),
      await viewer.delete(`${U}/${target}`),
      await viewer.put(`${U}/profile`, (await api.get(`${U}/profile`)).body),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(forbidden);
    }
    expect(await userRows()).toBe(before);
    expect((await api.get(`${U}/${target}`)).body.firstName).toBeUndefined();
    expect((await viewer.get(`${U}/unknown-id`)).status).toBe(404);
  });

  test('query-users alone lists nothing and cannot read a user', async () => {
    expect((await querier.get(U)).body).toEqual([]);
    expect((await querier.get(`${U}/${target}`)).status).toBe(403);
    expect((await querier.get(`${U}/unknown-id`)).body).toEqual({ error: 'User not found' });
  });

  test('a user without admin roles gets 403 even for unknown ids; another realm gets 403', async () => {
    const nobody = await localAdmin(R, 'nobody', []);
    expect((await nobody.get(`${U}/unknown-id`)).status).toBe(403);
    expect((await nobody.get(U)).status).toBe(403);
    await api.post('/admin/realms', { realm: 'other', enabled: true });
    const foreign = await localAdmin('other', 'foreign', ['manage-users']);
    const res = await foreign.get(`${U}/${target}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await foreign.post(U, { username: 'intruder' })).status).toBe(403);
  });

  test('no token is 401', async () => {
    expect((await request(ts.app).get(U)).status).toBe(401);
  });
});
