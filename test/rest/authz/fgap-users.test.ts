import { isImpersonatable } from '../../../src/auth/fgap-users';
import { createContext } from '../../../src/core/context';
import type { RealmModel } from '../../../src/db/models/realm';
import type { UserModel } from '../../../src/db/models/user';
import request from 'supertest';
import { clientUuid, createGroup, createUser, expectStatus, realmServer } from '../../helpers/fixtures';
import { attachPolicies } from '../../helpers/fgap';
import type { AdminApi, TestServer } from '../../helpers/server';
import { type TestSmtp, startSmtp } from '../../helpers/smtp';

/**
 * Fine-grained admin permissions on what an admin does to a user beyond reading and editing it
 * (src/auth/fgap-users.ts): the user's sessions, logout, e-mails, impersonation (the caller's
 * `impersonate` permission and the target's `user-impersonated` one, evaluated with the TARGET's
 * identity, for master admins too), the realm-wide session endpoints (users manage), and the
 * management permissions of a deleted identity provider. The caller holds no realm-management role
 * and is granted through group policies on realm-management's resource server, as in fgap-gating.
 */
let ts: TestServer;
let api: AdminApi;
let smtp: TestSmtp;
const R = 'fgapusers';
const base = `/admin/realms/${R}`;
let rsPath: string;
let realm: RealmModel;
const g: Record<string, string> = {};
const u: Record<string, string> = {};
const policies: Record<string, string> = {};
type Rep = Record<string, unknown>;

const attach = (permissionId: string, policyIds: string[]): Promise<void> => attachPolicies(api, rsPath, permissionId, policyIds);

const groupPolicy = async (name: string, groupId: string) =>
  expectStatus(await api.post(`${rsPath}/policy/group`, { name, groups: [{ id: groupId, extendChildren: false }] }), 201, name).body.id;

/** A fresh login of a user of R: a new session each time (impersonating in its own realm ends the caller's session). */
async function login(username: string): Promise<string> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password: 'pw' });
  return expectStatus(res, 200, `login ${username}`).body.access_token;
}

/** The REST admin API as a freshly logged-in user of R. */
async function as(username: string) {
  const bearer = `Bearer ${await login(username)}`;
  const send = (t: request.Test, body?: unknown) =>
    body === undefined ? t.set('Authorization', bearer) : t.set('Authorization', bearer).send(body as object);
  return {
    get: (path: string) => send(request(ts.app).get(path)),
    post: (path: string, body?: unknown) => send(request(ts.app).post(path), body),
    put: (path: string, body?: unknown) => send(request(ts.app).put(path), body),
    delete: (path: string) => send(request(ts.app).delete(path)),
  };
}

/** GraphQL as a freshly logged-in user of R (the master admin when no user is named). */
function gqlAs(username?: string) {
  return async (query: string, variables: Rep): Promise<{ data?: Rep; errors?: Array<{ extensions: Rep }> }> => {
    const token = username ? await login(username) : await ts.token();
    const res = await request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });
    return { data: res.body.data ?? undefined, errors: res.body.errors };
  };
}

const statusOf = (r: { errors?: Array<{ extensions: Rep }> }) => (r.errors?.[0]?.extensions.http as Rep | undefined)?.status;

beforeAll(async () => {
  smtp = await startSmtp();
  ({ ts, api } = await realmServer(R, { smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' } }));
  rsPath = `${base}/clients/${await clientUuid(api, R, 'realm-management')}/authz/resource-server`;
  realm = (await ts.db.models.Realm.findOne({ where: { name: R } })) as RealmModel;
  g.helpdesk = await createGroup(api, R, 'helpdesk');
  g.customers = await createGroup(api, R, 'customers');
  for (const name of ['agent', 'cust', 'employee', 'usermgr']) u[name] = await createUser(ts, R, name);
  expectStatus(await api.put(`${base}/users/${u.agent}/groups/${g.helpdesk}`), 204, 'agent joins helpdesk');
  expectStatus(await api.put(`${base}/users/${u.cust}/groups/${g.customers}`), 204, 'cust joins customers');
  // manage-members on "customers" for the members of "helpdesk": the agent may view and manage cust.
  const ref = expectStatus(await api.put(`${base}/groups/${g.customers}/management/permissions`, { enabled: true }), 200, 'on').body;
  policies.helpdesk = await groupPolicy('helpdesk members', g.helpdesk);
  await attach(ref.scopePermissions['manage-members'], [policies.helpdesk]);
});
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

describe("a user's sessions and logout follow view / manage of that user", () => {
  test('GET /users/{id}/sessions and offline-sessions: 200 for a manageable user, 403 for another', async () => {
    await login('cust');
    await login('employee');
    const agent = await as('agent');
    const sessions = expectStatus(await agent.get(`${base}/users/${u.cust}/sessions`), 200, 'cust sessions').body;
    expect(sessions.map((s: Rep) => s.username)).toEqual(['cust']);
    expectStatus(await agent.get(`${base}/users/${u.employee}/sessions`), 403, 'employee sessions');
    const cli = await clientUuid(api, R, 'admin-cli');
    expect(expectStatus(await agent.get(`${base}/users/${u.cust}/offline-sessions/${cli}`), 200, 'offline').body).toEqual([]);
    // The user's view comes before the client lookup (UserResource#getOfflineSessions).
    const unknown = expectStatus(await agent.get(`${base}/users/${u.cust}/offline-sessions/nope`), 404, 'unknown client');
    expect(unknown.body).toEqual({ error: 'Client not found' });
    expectStatus(await agent.get(`${base}/users/${u.employee}/offline-sessions/nope`), 403, 'employee first');
  });

  test('GraphQL User.sessions answers through the same decision', async () => {
    const gql = gqlAs('agent');
    const q = 'query($r: String!, $id: ID!) { user(realm: $r, id: $id) { sessions { username } } }';
    const ok = await gql(q, { r: R, id: u.cust });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.user).toEqual({ sessions: [{ username: 'cust' }] });
  });

  test('POST /users/{id}/logout: 204 for a manageable user (its sessions end), 403 for another', async () => {
    const agent = await as('agent');
    expectStatus(await agent.post(`${base}/users/${u.employee}/logout`), 403, 'employee logout');
    expect((await api.get(`${base}/users/${u.employee}/sessions`)).body).toHaveLength(1);
    expectStatus(await agent.post(`${base}/users/${u.cust}/logout`), 204, 'cust logout');
    expect((await api.get(`${base}/users/${u.cust}/sessions`)).body).toEqual([]);
    // GraphQL logoutUser: the same rule.
    const gql = gqlAs('agent');
    const m = 'mutation($r: String!, $id: ID!) { logoutUser(realm: $r, id: $id) { ok } }';
    expect(statusOf(await gql(m, { r: R, id: u.employee }))).toBe(403);
    const ok = await gql(m, { r: R, id: u.cust });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.logoutUser).toEqual({ ok: true });
  });

  test('DELETE /sessions/{id} and logout-all need users manage realm-wide: a group grant is not enough', async () => {
    await login('cust');
    const [session] = (await api.get(`${base}/users/${u.cust}/sessions`)).body;
    const agent = await as('agent');
    expectStatus(await agent.delete(`${base}/sessions/${session.id}`), 403, 'delete session');
    expectStatus(await agent.post(`${base}/logout-all`), 403, 'logout-all');
    expect((await api.get(`${base}/users/${u.cust}/sessions`)).body).toHaveLength(1);
  });
});

describe('execute-actions-email and send-verify-email follow manage of the user', () => {
  test('REST: 204 and a mail for a manageable user, 403 (and no mail) for another', async () => {
    const agent = await as('agent');
    const before = smtp.messages.length;
    expectStatus(await agent.put(`${base}/users/${u.employee}/execute-actions-email`, ['UPDATE_PASSWORD']), 403, 'employee actions');
    expectStatus(await agent.put(`${base}/users/${u.employee}/send-verify-email`), 403, 'employee verify');
    expectStatus(await agent.put(`${base}/users/${u.cust}/execute-actions-email`, ['UPDATE_PASSWORD']), 204, 'cust actions');
    expectStatus(await agent.put(`${base}/users/${u.cust}/send-verify-email`), 204, 'cust verify');
    const mails = await smtp.waitFor(before + 2);
    expect(mails.slice(before).map((x) => [x.recipients, x.subject])).toEqual([
      [['cust@example.org'], 'Update Your Account'],
      [['cust@example.org'], 'Verify email'],
    ]);
  });

  test('GraphQL executeActionsEmail: the same rule', async () => {
    const gql = gqlAs('agent');
    const m = 'mutation($r: String!, $id: ID!) { executeActionsEmail(realm: $r, userId: $id, actions: ["VERIFY_EMAIL"]) { ok } }';
    expect(statusOf(await gql(m, { r: R, id: u.employee }))).toBe(403);
    const before = smtp.messages.length;
    const ok = await gql(m, { r: R, id: u.cust });
    expect(ok.errors).toBeUndefined();
    await smtp.waitFor(before + 1);
  });
});

describe('impersonation: the caller may impersonate, and the target may be impersonated', () => {
  let usersRef: { scopePermissions: Record<string, string> };
  beforeAll(async () => {
    usersRef = expectStatus(await api.put(`${base}/users-management-permissions`, { enabled: true }), 200, 'users on').body;
    expect(Object.keys(usersRef.scopePermissions).sort()).toEqual([
      'impersonate',
      'manage',
      'manage-group-membership',
      'map-roles',
      'user-impersonated',
      'view',
    ]);
  });

  test('without the impersonation role or the admin-impersonating permission: 403', async () => {
    expectStatus(await (await as('agent')).post(`${base}/users/${u.cust}/impersonation`), 403, 'no permission');
    const gql = gqlAs('agent');
    const m = 'mutation($r: String!, $id: ID!) { impersonate(realm: $r, id: $id) { impersonation { sameRealm } } }';
    expect(statusOf(await gql(m, { r: R, id: u.cust }))).toBe(403);
  });

  test('the admin-impersonating permission lets the helpdesk impersonate (REST and GraphQL); access.impersonate says so', async () => {
    await attach(usersRef.scopePermissions.impersonate, [policies.helpdesk]);
    const res = expectStatus(await (await as('agent')).post(`${base}/users/${u.cust}/impersonation`), 200, 'impersonate');
    expect(res.body).toEqual({ redirect: `http://localhost:8080/realms/${R}/account`, sameRealm: true });
    const gql = gqlAs('agent');
    const m = 'mutation($r: String!, $id: ID!) { impersonate(realm: $r, id: $id) { impersonation { sameRealm } } }';
    const ok = await gql(m, { r: R, id: u.employee });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.impersonate).toEqual({ impersonation: { sameRealm: true } });
    expect((await (await as('agent')).get(`${base}/users/${u.cust}`)).body.access.impersonate).toBe(true);
  });

  test('user-impersonated with a policy: only users the policy grants (their own identity) may be impersonated, by anyone', async () => {
    policies.customers = await groupPolicy('customers members', g.customers);
    await attach(usersRef.scopePermissions['user-impersonated'], [policies.customers]);
    // The helpdesk agent (by permission): cust is in customers, employee is not.
    expectStatus(await (await as('agent')).post(`${base}/users/${u.cust}/impersonation`), 200, 'cust');
    expectStatus(await (await as('agent')).post(`${base}/users/${u.employee}/impersonation`), 403, 'employee');
    // A realm admin holding the impersonation role, and the master admin: the target's permission still decides.
    await createUser(ts, R, 'imper', { roles: ['impersonation', 'view-users'] });
    expectStatus(await (await as('imper')).post(`${base}/users/${u.employee}/impersonation`), 403, 'role, employee');
    expectStatus(await (await as('imper')).post(`${base}/users/${u.cust}/impersonation`), 200, 'role, cust');
    expectStatus(await api.post(`${base}/users/${u.employee}/impersonation`), 403, 'master, employee');
    expectStatus(await api.post(`${base}/users/${u.cust}/impersonation`), 200, 'master, cust');
    // GraphQL: the same refusal.
    const m = 'mutation($r: String!, $id: ID!) { impersonate(realm: $r, id: $id) { impersonation { sameRealm } } }';
    expect(statusOf(await gqlAs()(m, { r: R, id: u.employee }))).toBe(403);
  });

  test("a regex policy reads the target's attributes (Keycloak's UserModelIdentity)", async () => {
    const regex = expectStatus(
      await api.post(`${rsPath}/policy/regex`, { name: 'impersonable', targetClaim: 'impersonable', pattern: 'yes' }),
      201,
      'regex policy',
    ).body;
    await attach(usersRef.scopePermissions['user-impersonated'], [regex.id]);
    expectStatus(await api.post(`${base}/users/${u.employee}/impersonation`), 403, 'no attribute');
    const profile = (await api.get(`${base}/users/profile`)).body;
    expectStatus(await api.put(`${base}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }), 200, 'profile');
    const rep = (await api.get(`${base}/users/${u.employee}`)).body;
    expectStatus(await api.put(`${base}/users/${u.employee}`, { ...rep, attributes: { impersonable: ['yes'] } }), 204, 'attribute');
    expectStatus(await api.post(`${base}/users/${u.employee}/impersonation`), 200, 'attribute yes');
    expectStatus(await api.post(`${base}/users/${u.cust}/impersonation`), 403, 'cust has none');
  });

  test('a realm without fine-grained permissions: every user impersonatable, for one statement', async () => {
    const R2 = 'fgapusers-off';
    expectStatus(await api.post('/admin/realms', { realm: R2, enabled: true }), 201, 'realm');
    const realm2 = (await ts.db.models.Realm.findOne({ where: { name: R2 } })) as RealmModel;
    const id = await createUser(ts, R2, 'someone');
    const user = (await ts.db.models.User.findByPk(id)) as UserModel;
    const master = (await ts.db.models.Realm.findOne({ where: { name: 'master' } })) as RealmModel;
    const ctx = createContext(ts.db, { realmId: master.id, realmName: 'master', userId: u.agent, clientId: 'x' }, 'http://x');
    const { count, result } = await ts.countSql(() => isImpersonatable(ctx, realm2, user));
    expect(result).toBe(true);
    expect(count).toBe(1);
  });
});

describe('realm-wide session endpoints with the users manage permission', () => {
  test('DELETE /sessions/{id} (REST and GraphQL) and logout-all: 403 without, allowed with', async () => {
    const mgr = await as('usermgr');
    await login('cust');
    await login('cust');
    const [first, second] = (await api.get(`${base}/users/${u.cust}/sessions`)).body;
    expectStatus(await mgr.delete(`${base}/sessions/${first.id}`), 403, 'no permission');
    const usersRef = (await api.get(`${base}/users-management-permissions`)).body;
    const mgrPolicy = expectStatus(await api.post(`${rsPath}/policy/user`, { name: 'usermgr', users: [u.usermgr] }), 201, 'user policy');
    await attach(usersRef.scopePermissions.manage, [mgrPolicy.body.id]);
    expectStatus(await mgr.delete(`${base}/sessions/${first.id}`), 204, 'delete session');
    const gql = gqlAs('usermgr');
    const ok = await gql('mutation($r: String!, $id: ID!) { deleteSession(realm: $r, id: $id) { ok } }', { r: R, id: second.id });
    expect(ok.errors).toBeUndefined();
    const left = (await api.get(`${base}/users/${u.cust}/sessions`)).body.map((x: Rep) => x.id);
    expect([left.includes(first.id), left.includes(second.id)]).toEqual([false, false]);
    // The helpdesk agent still cannot; usermgr can end every session of the realm (its own too).
    expectStatus(await (await as('agent')).post(`${base}/logout-all`), 403, 'agent logout-all');
    expectStatus(await (await as('usermgr')).post(`${base}/logout-all`), 200, 'logout-all');
    expect(await ts.db.models.UserSession.count({ where: { realmId: realm.id } })).toBe(0);
  });
});

describe('deleting an identity provider deletes its management permissions', () => {
  test('REST and GraphQL: the resource and the token-exchange permission go with the provider', async () => {
    const gql = gqlAs();
    for (const alias of ['idp-rest', 'idp-gql']) {
      expectStatus(await api.post(`${base}/identity-provider/instances`, { alias, providerId: 'oidc', config: {} }), 201, alias);
      const ref = expectStatus(
        await api.put(`${base}/identity-provider/instances/${alias}/management/permissions`, { enabled: true }),
        200,
        `${alias} on`,
      ).body;
      const internalId = ref.resource.startsWith('idp.resource.') ? ref.resource.slice(13) : undefined;
      const names = async () => ({
        resources: (await api.get(`${rsPath}/resource?max=1000`)).body.map((r: Rep) => r.name).filter((n: string) => n.includes('idp.')),
        permissions: (await api.get(`${rsPath}/policy?max=1000`)).body.map((p: Rep) => p.name).filter((n: string) => n.includes('.idp.')),
      });
      const idp = (await api.get(`${base}/identity-provider/instances/${alias}`)).body;
      expect(await names()).toEqual({
        resources: [`idp.resource.${idp.internalId}`],
        permissions: [`token-exchange.permission.idp.${idp.internalId}`],
      });
      expect(internalId === undefined || internalId === idp.internalId).toBe(true);
      if (alias === 'idp-rest') expectStatus(await api.delete(`${base}/identity-provider/instances/${alias}`), 204, 'delete');
      else {
        const r = await gql('mutation($r: String!, $a: String!) { deleteIdentityProvider(realm: $r, alias: $a) { ok } }', {
          r: R,
          a: alias,
        });
        expect(r.errors).toBeUndefined();
      }
      expect(await names()).toEqual({ resources: [], permissions: [] });
    }
    // The scope stays (Keycloak deletes the permission and the resource only).
    expect((await api.get(`${rsPath}/scope?name=token-exchange`)).body.map((s: Rep) => s.name)).toContain('token-exchange');
  });
});
