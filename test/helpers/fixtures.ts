import type request from 'supertest';
import { type AdminApi, type TestServer, startTestServer } from './server';

/**
 * The fixtures every suite shares: realms, users, realm admins, clients, groups and roles, all created
 * through the admin REST API as the master admin, the way a user of the server would create them.
 * Each helper fails loudly (throws with the answer) when the server refuses, so set-up errors are not
 * mistaken for the behaviour under test.
 */

type Rep = Record<string, unknown>;

/** The id at the end of a `Location` header. */
export const idOf = (location: string): string => location.slice(location.lastIndexOf('/') + 1);

/** Throws with the server's answer unless `res` has the expected status; returns `res`. */
export function expectStatus(res: request.Response, status: number, what: string): request.Response {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** The id of the object a `201 Created` answer points to. */
export function createdId(res: request.Response, what: string): string {
  return idOf(String(expectStatus(res, 201, what).headers.location));
}

/** Creates an enabled realm (extra fields go into its representation) and returns its id. */
export async function createRealm(api: AdminApi, realm: string, extra: Rep = {}): Promise<string> {
  expectStatus(await api.post('/admin/realms', { realm, enabled: true, ...extra }), 201, `creating realm ${realm}`);
  return realmIdOf(api, realm);
}

/** The id of an existing realm, read from its representation. */
export async function realmIdOf(api: AdminApi, realm: string): Promise<string> {
  return expectStatus(await api.get(`/admin/realms/${realm}`), 200, `realm ${realm}`).body.id as string;
}

/** A fresh test server with an enabled realm `realm`, the master admin's api and the realm's id. */
export async function realmServer(realm: string, extra: Rep = {}): Promise<{ ts: TestServer; api: AdminApi; realmId: string }> {
  const ts = await startTestServer();
  const api = await ts.api();
  return { ts, api, realmId: await createRealm(api, realm, extra) };
}

export interface UserOptions {
  /** Password credential (default `pw`); `null` creates the user without one. */
  password?: string | null;
  /** Email (default `<username>@example.org`); `null` leaves it unset. */
  email?: string | null;
  emailVerified?: boolean;
  /** First and last name (default `F` / `L`); `null` leaves them unset. */
  firstName?: string | null;
  lastName?: string | null;
  /** `realm-management` client roles granted to the user. */
  roles?: string[];
  /**
   * Keep the realm's default roles the server grants to a new user (default false: they are removed, so
   * the user holds exactly `roles` and mapping and token assertions see nothing else).
   */
  defaultRoles?: boolean;
  /** Any further fields of the user representation. */
  extra?: Rep;
}

/**
 * An enabled user of `realm` created through `POST /users`: by default with an email, names and the
 * password `pw` (so the password grant accepts them in a non-master realm), holding the named
 * `realm-management` roles and, unless `defaultRoles`, nothing else. Returns the user's id.
 */
export async function createUser(ts: TestServer, realm: string, username: string, opts: UserOptions = {}): Promise<string> {
  const api = await ts.api();
  const optional = (key: string, value: unknown) => (value === null ? {} : { [key]: value });
  const password = opts.password === undefined ? 'pw' : opts.password;
  const id = createdId(
    await api.post(`/admin/realms/${realm}/users`, {
      username,
      enabled: true,
      emailVerified: opts.emailVerified ?? false,
      ...optional('email', opts.email === undefined ? `${username}@example.org` : opts.email),
      ...optional('firstName', opts.firstName === undefined ? 'F' : opts.firstName),
      ...optional('lastName', opts.lastName === undefined ? 'L' : opts.lastName),
      ...(password === null ? {} : { credentials: [{ type: 'password', value: password, temporary: false }] }),
      ...opts.extra,
    }),
    `creating user ${username}`,
  );
  if (!opts.defaultRoles) {
    expectStatus(await api.delete(`/admin/realms/${realm}/users/${id}/role-mappings/realm`), 204, `default roles of ${username}`);
  }
  if (opts.roles?.length) await grantClientRoles(api, realm, id, 'realm-management', opts.roles);
  return id;
}

/** Maps the named roles of client `clientId` to user `userId` (`POST /users/{id}/role-mappings/clients/{client}`). */
export async function grantClientRoles(api: AdminApi, realm: string, userId: string, clientId: string, roles: string[]): Promise<void> {
  const client = await clientUuid(api, realm, clientId);
  const reps = [];
  for (const name of roles) {
    reps.push(expectStatus(await api.get(`/admin/realms/${realm}/clients/${client}/roles/${name}`), 200, `role ${clientId}/${name}`).body);
  }
  const res = await api.post(`/admin/realms/${realm}/users/${userId}/role-mappings/clients/${client}`, reps);
  expectStatus(res, 204, `granting ${roles.join(', ')}`);
}

/** A user of `realm` holding the named `realm-management` roles, logged in through admin-cli: their api. */
export async function realmAdmin(ts: TestServer, realm: string, username: string, roles: string[], password = 'pw'): Promise<AdminApi> {
  await createUser(ts, realm, username, { roles, password });
  return ts.api({ realm, username, password });
}

/** An enabled user with a password and nothing else (no email, names or roles), e.g. a caller without admin rights. */
export function createLoginUser(ts: TestServer, realm: string, username: string, password: string): Promise<string> {
  return createUser(ts, realm, username, { password, email: null, firstName: null, lastName: null });
}

/** The internal id of client `clientId` of `realm` (`GET /clients?clientId=`). */
export async function clientUuid(api: AdminApi, realm: string, clientId: string): Promise<string> {
  const res = expectStatus(
    await api.get(`/admin/realms/${realm}/clients?clientId=${encodeURIComponent(clientId)}`),
    200,
    `client ${clientId}`,
  );
  if (res.body.length !== 1) throw new Error(`no client ${clientId} in ${realm}`);
  return res.body[0].id as string;
}

/** The id of user `username` of `realm` (`GET /users?username=&exact=true`). */
export async function userId(api: AdminApi, realm: string, username: string): Promise<string> {
  const res = expectStatus(
    await api.get(`/admin/realms/${realm}/users?username=${encodeURIComponent(username)}&exact=true`),
    200,
    username,
  );
  if (res.body.length !== 1) throw new Error(`no user ${username} in ${realm}`);
  return res.body[0].id as string;
}

/** Creates a client (`POST /clients`, the representation as given) and returns its internal id. */
export async function createClient(api: AdminApi, realm: string, rep: Rep): Promise<string> {
  return createdId(await api.post(`/admin/realms/${realm}/clients`, rep), `creating client ${rep.clientId}`);
}

/**
 * A confidential client with a service account, created through `POST /clients` as a user would:
 * the server generates the `service-account-<clientId>` user and links the realm's default scopes.
 */
export async function serviceAccountClient(
  api: AdminApi,
  realm: string,
  clientId: string,
  secret: string,
): Promise<{ id: string; userId: string }> {
  const id = await createClient(api, realm, {
    clientId,
    secret,
    publicClient: false,
    serviceAccountsEnabled: true,
    standardFlowEnabled: false,
  });
  const user = expectStatus(await api.get(`/admin/realms/${realm}/clients/${id}/service-account-user`), 200, 'service account');
  return { id, userId: user.body.id as string };
}

/** Creates a group, top-level or a child of `parentId` (extra fields go into its representation); returns its id. */
export async function createGroup(api: AdminApi, realm: string, name: string, parentId?: string, extra: Rep = {}): Promise<string> {
  const path = parentId ? `/admin/realms/${realm}/groups/${parentId}/children` : `/admin/realms/${realm}/groups`;
  return createdId(await api.post(path, { name, ...extra }), `creating group ${name}`);
}

/** Creates a realm role (extra fields go into its representation) and returns its representation. */
export async function createRole(api: AdminApi, realm: string, name: string, extra: Rep = {}): Promise<{ id: string; name: string }> {
  expectStatus(await api.post(`/admin/realms/${realm}/roles`, { name, ...extra }), 201, `creating role ${name}`);
  return expectStatus(await api.get(`/admin/realms/${realm}/roles/${encodeURIComponent(name)}`), 200, `role ${name}`).body;
}

/** Creates a client scope and returns its id. */
export async function createClientScope(api: AdminApi, realm: string, name: string, extra: Rep = {}): Promise<string> {
  return createdId(
    await api.post(`/admin/realms/${realm}/client-scopes`, { name, protocol: 'openid-connect', ...extra }),
    `creating scope ${name}`,
  );
}

/** Admin events of `realm` as `GET /admin-events` lists them, oldest first, with the given filters (e.g. `resourcePath`). */
export async function adminEvents(api: AdminApi, realm: string, query: Record<string, string> = {}): Promise<Rep[]> {
  const qs = new URLSearchParams({ direction: 'asc', max: '1000', ...query });
  return expectStatus(await api.get(`/admin/realms/${realm}/admin-events?${qs}`), 200, 'admin events').body;
}
