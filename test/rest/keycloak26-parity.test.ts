import { createGroup, serviceAccountClient } from '../helpers/fixtures';
import type { TestServer } from '../helpers/server';
import { type SessionFixture, sessionFixture } from '../helpers/sessions';
import { startTestServer } from '../helpers/server';

/**
 * Issue 15 item 4: behaviours checked against Keycloak 26's own sources, each named next to its test,
 * pinned through real HTTP against SQLite or MariaDB.
 */
let ts: TestServer;
let f: SessionFixture;
const R = 'kc26parity';
const A = `/admin/realms/${R}`;
type Rep = Record<string, unknown>;

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['ann', 'ben', 'cat'], { bruteForceProtected: true, failureFactor: 2, permanentLockout: false });
  const put = (u: string, body: Rep) => f.admin.put(`${A}/users/${f.users[u]}`, body);
  expect((await put('ann', { email: 'ann@alpha.example', firstName: 'Ann', lastName: 'Archer' })).status).toBe(204);
  expect((await put('ben', { email: 'ben@beta.example', firstName: 'Ben', lastName: 'Baker', emailVerified: true })).status).toBe(204);
  expect((await put('cat', { email: 'cat@alpha.example', firstName: 'Cat', lastName: 'Cooper', enabled: false })).status).toBe(204);
});
afterAll(() => ts.close());

describe('Keycloak 26 parity (issue 15 item 4)', () => {
  // Keycloak: AuthenticationManagementResource#getFormActionProviders lists the FormActionFactory
  // providers with buildProviderMetadata (id, displayName, description); the ids and display names are
  // those of ProvidersTest#testFormActionProviders (RegistrationProfile is gone since Keycloak 24).
  test('form-action-providers: the five form actions of Keycloak 26, id/displayName/description only', async () => {
    const res = await f.admin.get(`${A}/authentication/form-action-providers`);
    expect(res.status).toBe(200);
    const rows = res.body as Rep[];
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['description', 'displayName', 'id']);
      expect(row.description).toEqual(expect.any(String));
    }
    expect(Object.fromEntries(rows.map((r) => [r.id, r.displayName]))).toEqual({
      'registration-recaptcha-action': 'reCAPTCHA',
      'registration-recaptcha-enterprise': 'reCAPTCHA Enterprise',
      'registration-password-action': 'Password Validation',
      'registration-user-creation': 'Registration User Profile Creation',
      'registration-terms-and-conditions': 'Terms and conditions',
    });
  });

  // Keycloak: AttackDetectionResource#bruteForceUserStatus (26.2+, fgap package): a map with exactly
  // disabled, numFailures, numSecondaryAuthFailures, numTemporaryLockouts, lastFailure, lastIPFailure and
  // failedLoginNotBefore; zeros and "n/a" before any failure.
  test('brute-force status: Keycloak 26 keys, zero record, then counts and the lockout end', async () => {
    const path = `${A}/attack-detection/brute-force/users/${f.users.ben}`;
    const zero = await f.admin.get(path);
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({
      disabled: false,
      numFailures: 0,
      numSecondaryAuthFailures: 0,
      numTemporaryLockouts: 0,
      lastFailure: 0,
      lastIPFailure: 'n/a',
      failedLoginNotBefore: 0,
    });
    for (let i = 0; i < 2; i++) {
      const res = await f.login('ben', { password: 'wrong' });
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    }
    const locked = await f.admin.get(path);
    expect(Object.keys(locked.body).sort()).toEqual(Object.keys(zero.body).sort());
    expect(locked.body).toMatchObject({ disabled: true, numFailures: 2, numTemporaryLockouts: 1 });
    expect(locked.body.failedLoginNotBefore).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(locked.body.lastFailure).toBeGreaterThan(0);
    expect(locked.body.lastIPFailure).not.toBe('n/a');
    expect((await f.admin.delete(path)).status).toBe(204);
  });

  // Keycloak: UserResource#groupMembership maps each group with ModelToRepresentation#toRepresentation
  // (id, name, description, path, parentId; full adds attributes, realmRoles, clientRoles) and no
  // subGroupCount. GroupRepresentation#getSubGroups creates an empty list when none was set, and Keycloak's
  // ObjectMapperResolver leaves out only nulls, so `subGroups: []` IS in the JSON (the issue's "no subGroups
  // key" does not hold against the source).
  test('/users/{id}/groups: brief by default with subGroups [], no subGroupCount; full adds attributes and roles', async () => {
    const parent = await createGroup(f.admin, R, 'team');
    const child = await createGroup(f.admin, R, 'red', parent);
    expect((await f.admin.put(`${A}/users/${f.users.ann}/groups/${child}`, {})).status).toBe(204);
    const brief = await f.admin.get(`${A}/users/${f.users.ann}/groups`);
    expect(brief.status).toBe(200);
    expect(brief.body).toEqual([{ id: child, name: 'red', path: '/team/red', parentId: parent, subGroups: [] }]);
    const full = await f.admin.get(`${A}/users/${f.users.ann}/groups?briefRepresentation=false`);
    expect(full.body).toEqual([
      { id: child, name: 'red', path: '/team/red', parentId: parent, subGroups: [], attributes: {}, realmRoles: [], clientRoles: {} },
    ]);
  });

  // Keycloak: GroupResource#getSubGroups: full representations by default (briefRepresentation=false)
  // with the caller's access map, subGroupCount set by GroupUtils#populateSubGroupCount unless
  // subGroupsCount=false; GroupsResource#getGroups: brief top-level groups with subGroupCount.
  test('/groups/{id}/children counts its children; subGroupsCount=false leaves the count out; /groups counts too', async () => {
    const root = await createGroup(f.admin, R, 'org');
    const a = await createGroup(f.admin, R, 'a', root);
    await createGroup(f.admin, R, 'a1', a);
    await createGroup(f.admin, R, 'a2', a);
    const b = await createGroup(f.admin, R, 'b', root);
    const children = await f.admin.get(`${A}/groups/${root}/children`);
    expect(children.status).toBe(200);
    expect((children.body as Rep[]).map((g) => [g.name, g.subGroupCount])).toEqual([
      ['a', 2],
      ['b', 0],
    ]);
    const first = (children.body as Rep[])[0];
    expect(first).toMatchObject({ id: a, path: '/org/a', parentId: root, subGroups: [], attributes: {}, realmRoles: [], clientRoles: {} });
    expect(first.access).toEqual(expect.objectContaining({ view: true, manage: true }));
    const noCount = await f.admin.get(`${A}/groups/${root}/children?subGroupsCount=false&briefRepresentation=true`);
    expect((noCount.body as Rep[]).map((g) => g.id)).toEqual([a, b]);
    for (const g of noCount.body as Rep[]) {
      expect(g).not.toHaveProperty('subGroupCount');
      expect(g).not.toHaveProperty('attributes');
    }
    const top = await f.admin.get(`${A}/groups?search=org&exact=true`);
    expect(top.body).toEqual([expect.objectContaining({ id: root, name: 'org', subGroupCount: 2 })]);
  });

  // Keycloak: UsersResource#getUsers puts the parsed `q` into the same criteria map as the username/email/
  // firstName/lastName parameters (putAll: q wins), and JpaUserProvider#predicates matches the UserModel
  // keys username, email, firstName, lastName (substring, or equal with exact=true), emailVerified and
  // enabled against the user's columns; only other keys are attributes.
  test('users?q=email:... searches the built-in fields as Keycloak 26; other keys stay attributes', async () => {
    const names = async (query: string) => {
      const res = await f.admin.get(`${A}/users?${query}`);
      expect(res.status).toBe(200);
      return (res.body as Array<{ username: string }>).map((u) => u.username);
    };
    expect(await names(`q=${encodeURIComponent('email:alpha.example')}`)).toEqual(['ann', 'cat']);
    expect(await names(`q=${encodeURIComponent('email:ALPHA.example')}`)).toEqual(['ann', 'cat']);
    expect(await names(`q=${encodeURIComponent('email:alpha')}&exact=true`)).toEqual([]);
    expect(await names(`q=${encodeURIComponent('email:ann@alpha.example')}&exact=true`)).toEqual(['ann']);
    expect(await names(`q=${encodeURIComponent('username:be')}`)).toEqual(['ben']);
    expect(await names(`q=${encodeURIComponent('firstName:cat lastName:coop')}`)).toEqual(['cat']);
    expect(await names(`q=${encodeURIComponent('email:alpha enabled:true')}`)).toEqual(['ann']);
    expect(await names(`q=${encodeURIComponent('emailVerified:true')}`)).toEqual(['ben']);
    // q wins over the parameter of the same field.
    expect(await names(`email=beta&q=${encodeURIComponent('email:alpha')}`)).toEqual(['ann', 'cat']);
    // A key that is not a built-in field is an attribute: nobody has one named `mail`.
    expect(await names(`q=${encodeURIComponent('mail:alpha')}`)).toEqual([]);
    const count = await f.admin.get(`${A}/users/count?q=${encodeURIComponent('email:alpha.example')}`);
    expect(count.body).toBe(2);
  });

  // Keycloak: SearchQueryUtils#getFields of a `q` without any key:value pair is empty, and UsersResource
  // then lists users as without filters: service accounts left out.
  test('users?q= without key:value pairs lists users as without filters (no service accounts)', async () => {
    await serviceAccountClient(f.admin, R, 'svc-parity', 'svc-secret');
    const res = await f.admin.get(`${A}/users?q=nothing`);
    expect(res.status).toBe(200);
    const names = (res.body as Array<{ username: string }>).map((u) => u.username);
    expect(names).toEqual(expect.arrayContaining(['ann', 'ben', 'cat']));
    expect(names.some((n) => n.startsWith('service-account-'))).toBe(false);
    const sa = await f.admin.get(`${A}/users?q=${encodeURIComponent('username:service-account-svc-parity')}`);
    expect((sa.body as Array<{ username: string }>).map((u) => u.username)).toEqual(['service-account-svc-parity']);
  });
});
