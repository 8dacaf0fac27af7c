import type { ChildProcess } from 'node:child_process';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from '../../src/db';
import { startChildServer } from '../helpers/child-server';
import { ADMIN, freshDbOptions } from '../helpers/server';
import { formAction, Jar } from '../login/browser-client';

/**
 * Caches correct on several nodes (issue 12, item 3; ADR 23): two idserver processes serve one
 * database (SQLite file, or MariaDB with IDSERVER_TEST_DB_URL). Each node caches realms, keys, an
 * admin's effective roles, the user-profile configuration and whether a realm has identity
 * providers. A write through node A is seen by the very next request through node B: no waiting,
 * no time-to-live. Each check first reads through B twice, so that B answers from its cache, and then
 * writes through A.
 */

const HOSTNAME = 'http://idserver.test';
const R = 'nodes';
const procs: ChildProcess[] = [];
let cleanup: () => Promise<void>;
let a: string;
let b: string;

/** Starts `idserver start` on the shared database and resolves with its URL once it listens. */
async function startNode(dbUrl: string, vendor: string): Promise<string> {
  const node = await startChildServer(
    ['start', `--hostname=${HOSTNAME}`, '--http-host=127.0.0.1', '--http-port=0', `--db=${vendor}`, `--db-url=${dbUrl}`],
    { IDSERVER_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, IDSERVER_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password },
  );
  procs.push(node.proc);
  return node.url;
}

async function call(
  node: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${node}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

async function tokenOf(node: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${node}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password }).toString(),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token for ${username}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Asserts the status, with the body in the message when it differs. */
function expectStatus(res: { status: number; body: unknown }, status: number): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
}

let admin: string;
/** The shared database, for what no API shows (cache versions). */
let direct: Sequelize;

beforeAll(async () => {
  const fresh = await freshDbOptions();
  cleanup = fresh.cleanup;
  direct = createSequelize(fresh.opts);
  // One after the other: the second node finds the database migrated and bootstrapped.
  a = await startNode(fresh.opts.url as string, fresh.opts.vendor);
  b = await startNode(fresh.opts.url as string, fresh.opts.vendor);
  admin = await tokenOf(a, ADMIN.username, ADMIN.password);
  expectStatus(await call(a, 'POST', '/admin/realms', admin, { realm: R, enabled: true }), 201);
}, 120_000);

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  await direct?.close();
  await cleanup?.();
});

test('an admin role revoked through node A is denied on the next request through node B, and granted back', async () => {
  expectStatus(
    await call(a, 'POST', '/admin/realms/master/users', admin, {
      username: 'ops',
      enabled: true,
      credentials: [{ type: 'password', value: 'ops', temporary: false }],
    }),
    201,
  );
  const opsId = ((await call(a, 'GET', '/admin/realms/master/users?username=ops&exact=true', admin)).body as Array<{ id: string }>)[0].id;
  const clients = (await call(a, 'GET', `/admin/realms/master/clients?clientId=${R}-realm`, admin)).body as Array<{ id: string }>;
  const role = (await call(a, 'GET', `/admin/realms/master/clients/${clients[0].id}/roles/view-users`, admin)).body;
  const mappings = `/admin/realms/master/users/${opsId}/role-mappings/clients/${clients[0].id}`;
  expectStatus(await call(a, 'POST', mappings, admin, [role]), 204);
  const ops = await tokenOf(a, 'ops', 'ops');

  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 200);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 200);
  expectStatus(await call(a, 'DELETE', mappings, admin, [role]), 204);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 403);

  expectStatus(await call(a, 'POST', mappings, admin, [role]), 204);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 200);

  // Through a group: a role granted to a group the caller is in, then taken from the group.
  expectStatus(await call(a, 'DELETE', mappings, admin, [role]), 204);
  const created = await fetch(`${a}/admin/realms/master/groups`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'auditors' }),
  });
  const groupId = String(created.headers.get('location')).split('/').pop();
  expectStatus(await call(a, 'PUT', `/admin/realms/master/users/${opsId}/groups/${groupId}`, admin), 204);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 403);
  const groupMappings = `/admin/realms/master/groups/${groupId}/role-mappings/clients/${clients[0].id}`;
  expectStatus(await call(a, 'POST', groupMappings, admin, [role]), 204);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 200);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 200);
  expectStatus(await call(a, 'DELETE', groupMappings, admin, [role]), 204);
  expectStatus(await call(b, 'GET', `/admin/realms/${R}/users`, ops), 403);
});

test('a client renamed through node A shows its new clientId through node B', async () => {
  const res = await fetch(`${a}/admin/realms/${R}/clients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ clientId: 'inventory' }),
  });
  expect(res.status).toBe(201);
  const id = String(res.headers.get('location')).split('/').pop();
  for (let i = 0; i < 2; i++)
    expect((await call(b, 'GET', `/admin/realms/${R}/clients/${id}`, admin)).body).toMatchObject({ clientId: 'inventory' });
  expectStatus(await call(a, 'PUT', `/admin/realms/${R}/clients/${id}`, admin, { clientId: 'inventory-v2' }), 204);
  expect((await call(b, 'GET', `/admin/realms/${R}/clients/${id}`, admin)).body).toMatchObject({ clientId: 'inventory-v2' });
  expect((await call(b, 'GET', `/admin/realms/${R}/clients?clientId=inventory`, admin)).body).toEqual([]);
});

test("a client's protocol mapper and secret changed through node A are in node B's next token", async () => {
  expectStatus(
    await call(a, 'POST', `/admin/realms/${R}/clients`, admin, {
      clientId: 'worker',
      secret: 'worker-secret',
      publicClient: false,
      serviceAccountsEnabled: true,
    }),
    201,
  );
  const [{ id }] = (await call(a, 'GET', `/admin/realms/${R}/clients?clientId=worker`, admin)).body as Array<{ id: string }>;
  const grant = async (secret: string) => {
    const res = await fetch(`${b}/realms/${R}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'worker', client_secret: secret }).toString(),
    });
    const body = (await res.json()) as { access_token?: string };
    return body.access_token
      ? (JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString()) as Record<string, unknown>)
      : res.status;
  };
  for (let i = 0; i < 2; i++) expect(await grant('worker-secret')).not.toHaveProperty('tier');
  const mapper = {
    name: 'tier',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-hardcoded-claim-mapper',
    config: { 'claim.name': 'tier', 'claim.value': 'gold', 'jsonType.label': 'String', 'access.token.claim': 'true' },
  };
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/clients/${id}/protocol-mappers/models`, admin, mapper), 201);
  expect(await grant('worker-secret')).toHaveProperty('tier', 'gold');
  const fresh = (await call(a, 'POST', `/admin/realms/${R}/clients/${id}/client-secret`, admin)).body as { value: string };
  expect(await grant('worker-secret')).toBe(401);
  expect(await grant(fresh.value)).toHaveProperty('tier', 'gold');
  // The service account's roles are kept by B under its own counter: a role granted and revoked
  // through A is in and out of B's next token.
  const roles = async () => ((await grant(fresh.value)) as { realm_access?: { roles: string[] } }).realm_access?.roles ?? [];
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/roles`, admin, { name: 'batch' }), 201);
  const role = (await call(a, 'GET', `/admin/realms/${R}/roles/batch`, admin)).body;
  const account = (await call(a, 'GET', `/admin/realms/${R}/clients/${id}/service-account-user`, admin)).body as { id: string };
  for (let i = 0; i < 2; i++) expect(await roles()).not.toContain('batch');
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/users/${account.id}/role-mappings/realm`, admin, [role]), 204);
  expect(await roles()).toContain('batch');
  expectStatus(await call(a, 'DELETE', `/admin/realms/${R}/users/${account.id}/role-mappings/realm`, admin, [role]), 204);
  expect(await roles()).not.toContain('batch');
});

test('realm settings, the user profile and identity providers changed through node A are what node B uses next', async () => {
  for (let i = 0; i < 2; i++) expect((await call(b, 'GET', `/admin/realms/${R}`, admin)).body).not.toHaveProperty('displayName', 'Nodes');
  expectStatus(await call(a, 'PUT', `/admin/realms/${R}`, admin, { displayName: 'Nodes' }), 204);
  expect((await call(b, 'GET', `/admin/realms/${R}`, admin)).body).toHaveProperty('displayName', 'Nodes');

  const profile = (await call(a, 'GET', `/admin/realms/${R}/users/profile`, admin)).body as Record<string, unknown>;
  expectStatus(await call(a, 'PUT', `/admin/realms/${R}/users/profile`, admin, { ...profile, unmanagedAttributePolicy: 'ENABLED' }), 200);
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/users`, admin, { username: 'dana', attributes: { shoeSize: ['42'] } }), 201);
  const danaId = ((await call(a, 'GET', `/admin/realms/${R}/users?username=dana&exact=true`, admin)).body as Array<{ id: string }>)[0].id;
  for (let i = 0; i < 2; i++) {
    const dana = (await call(b, 'GET', `/admin/realms/${R}/users/${danaId}`, admin)).body as Record<string, unknown>;
    expect(dana.attributes).toEqual({ shoeSize: ['42'] });
    expect(dana).not.toHaveProperty('federatedIdentities');
  }
  // Unmanaged attributes off again (Keycloak's default): B no longer shows shoeSize.
  const { unmanagedAttributePolicy: _, ...withoutPolicy } = profile;
  expectStatus(await call(a, 'PUT', `/admin/realms/${R}/users/profile`, admin, withoutPolicy), 200);
  expectStatus(
    await call(a, 'POST', `/admin/realms/${R}/identity-provider/instances`, admin, {
      alias: 'corp',
      providerId: 'oidc',
      config: { clientId: 'x', clientSecret: 'y', authorizationUrl: 'https://corp.example/auth', tokenUrl: 'https://corp.example/token' },
    }),
    201,
  );
  const dana = (await call(b, 'GET', `/admin/realms/${R}/users/${danaId}`, admin)).body as Record<string, unknown>;
  expect(dana.attributes).toBeUndefined();
  expect(dana.federatedIdentities).toEqual([]);
});

test('a signing key disabled through node A no longer verifies tokens on node B', async () => {
  const user = await tokenOf(a, ADMIN.username, ADMIN.password);
  for (let i = 0; i < 2; i++) expectStatus(await call(b, 'GET', '/admin/realms/master', user), 200);
  const keys = (await call(a, 'GET', '/admin/realms/master/keys', admin)).body as {
    keys: Array<{ kid: string; algorithm: string; providerId: string; status: string }>;
  };
  const rs = keys.keys.find((k) => k.algorithm === 'RS256' && k.status === 'ACTIVE');
  expect(rs).toBeDefined();
  // A new active RS256 key of higher priority signs from now on; the old one is disabled.
  const created = await call(a, 'POST', '/admin/realms/master/components', admin, {
    name: 'rotated',
    providerId: 'rsa-generated',
    providerType: 'org.keycloak.keys.KeyProvider',
    config: { priority: ['500'] },
  });
  expectStatus(created, 201);
  const old = (await call(a, 'GET', `/admin/realms/master/components?type=org.keycloak.keys.KeyProvider&name=rsa-generated`, admin))
    .body as Array<{ id: string; config: Record<string, string[]> }>;
  expect(old.length).toBe(1);
  expectStatus(
    await call(a, 'PUT', `/admin/realms/master/components/${old[0].id}`, admin, {
      ...old[0],
      config: { ...old[0].config, enabled: ['false'] },
    }),
    204,
  );
  // The token signed with the disabled key is refused by B at once; a new one (new key) is accepted.
  expectStatus(await call(b, 'GET', '/admin/realms/master', user), 401);
  admin = await tokenOf(a, ADMIN.username, ADMIN.password);
  expectStatus(await call(b, 'GET', '/admin/realms/master', admin), 200);
});

test('a realm deleted and made again under the same name is never taken for the cached one, even at the same version', async () => {
  const name = 'again';
  const idOf = async () => ((await call(a, 'GET', `/admin/realms/${name}`, admin)).body as { id: string }).id;
  // The cache version is read from its table and set there: no API shows or sets it.
  const versionOf = async (realmId: string) =>
    Number(
      (
        await direct.query<{ version: number }>('SELECT version FROM realm_cache_version WHERE realm_id = :realmId', {
          replacements: { realmId },
          type: QueryTypes.SELECT,
        })
      )[0].version,
    );
  expectStatus(await call(a, 'POST', '/admin/realms', admin, { realm: name, enabled: true }), 201);
  for (let i = 0; i < 2; i++) expectStatus(await call(b, 'GET', `/admin/realms/${name}/users`, admin), 200);
  const oldId = await idOf();
  const cachedVersion = await versionOf(oldId);
  expectStatus(await call(a, 'DELETE', `/admin/realms/${name}`, admin), 204);
  expectStatus(await call(a, 'POST', '/admin/realms', admin, { realm: name, enabled: true }), 201);
  expectStatus(await call(a, 'POST', `/admin/realms/${name}/users`, admin, { username: 'fresh' }), 201);
  const newId = await idOf();
  expect(newId).not.toBe(oldId);
  // Same name, same version as what B cached: only the id tells the two realms apart.
  await direct.query('UPDATE realm_cache_version SET version = :v WHERE realm_id = :realmId', {
    replacements: { v: cachedVersion, realmId: newId },
  });
  const users = await call(b, 'GET', `/admin/realms/${name}/users`, admin);
  expectStatus(users, 200);
  expect((users.body as Array<{ username: string }>).map((u) => u.username)).toEqual(['fresh']);
});

test("the direct grant flow edited through node A is what node B's next password grant runs (ADR 40)", async () => {
  const otp = {
    type: 'otp',
    secretData: JSON.stringify({ value: 'AbCdEfGhIjKlMnOpQrSt' }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
  };
  const user = {
    username: 'otp-node',
    enabled: true,
    email: 'otp-node@example.org',
    firstName: 'O',
    lastName: 'N',
    credentials: [{ type: 'password', value: 'pw', temporary: false }, otp],
  };
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/users`, admin, user), 201);
  const grant = async () => {
    const res = await fetch(`${b}/realms/${R}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'otp-node', password: 'pw' }).toString(),
    });
    return res.status;
  };
  // Without a code, the OTP sub-flow of node B's (cached) flow refuses the user.
  for (let i = 0; i < 2; i++) expect(await grant()).toBe(400);
  const path = `/admin/realms/${R}/authentication/flows/${encodeURIComponent('direct grant')}/executions`;
  const sub = ((await call(a, 'GET', path, admin)).body as Array<{ displayName: string }>).find(
    (e) => e.displayName === 'Direct Grant - Conditional OTP',
  ) as Record<string, unknown>;
  expectStatus(await call(a, 'PUT', path, admin, { ...sub, requirement: 'DISABLED' }), 204);
  expect(await grant()).toBe(200);
  expectStatus(await call(a, 'PUT', path, admin, { ...sub, requirement: 'CONDITIONAL' }), 204);
  expect(await grant()).toBe(400);
});

test("the browser flow edited through node A is what node B's next login page and login POST run (ADR 40)", async () => {
  const created = await call(a, 'POST', `/admin/realms/${R}/clients`, admin, {
    clientId: 'web-nodes',
    publicClient: true,
    redirectUris: ['http://app.example/cb'],
  });
  expectStatus(created, 201);
  const otp = {
    type: 'otp',
    secretData: JSON.stringify({ value: 'AbCdEfGhIjKlMnOpQrSt' }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
  };
  const user = {
    username: 'otp-browser',
    enabled: true,
    email: 'otp-browser@example.org',
    firstName: 'O',
    lastName: 'B',
    credentials: [{ type: 'password', value: 'pw', temporary: false }, otp],
  };
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/users`, admin, user), 201);
  const authUrl = `${b}/realms/${R}/protocol/openid-connect/auth?${new URLSearchParams({
    client_id: 'web-nodes',
    response_type: 'code',
    redirect_uri: 'http://app.example/cb',
    scope: 'openid',
    state: 's',
  })}`;
  /** The login page through node B in a new browser; its form posts to node B too. */
  const pageOnB = async () => {
    const jar = new Jar();
    const res = await jar.fetch(authUrl);
    const html = await res.text();
    const post = () => jar.post(formAction(html).replace(HOSTNAME, b), { username: 'otp-browser', password: 'pw' });
    return { status: res.status, html, post };
  };
  const path = `/admin/realms/${R}/authentication/flows/browser/executions`;
  const execs = async () =>
    (await call(a, 'GET', path, admin)).body as Array<Record<string, unknown> & { displayName: string; providerId?: string }>;
  const twoFactor = (await execs()).find((e) => e.displayName === 'Browser - Conditional 2FA') as Record<string, unknown>;

  // The POST: B answers twice from its cache (the OTP page), then runs the flow A changed in between.
  for (let i = 0; i < 2; i++) expect(await (await (await pageOnB()).post()).text()).toMatch(/id="otp"/);
  let page = await pageOnB();
  expectStatus(await call(a, 'PUT', path, admin, { ...twoFactor, requirement: 'DISABLED' }), 204);
  const done = await page.post();
  expect(done.status).toBe(302);
  expect(new URL(String(done.headers.get('location'))).searchParams.get('code')).toBeTruthy();
  page = await pageOnB();
  expectStatus(await call(a, 'PUT', path, admin, { ...twoFactor, requirement: 'CONDITIONAL' }), 204);
  expect(await (await page.post()).text()).toMatch(/id="otp"/);

  // The page: a copy of the browser flow bound to the client, then a REQUIRED deny-access added to it through A.
  expectStatus(await call(a, 'POST', `/admin/realms/${R}/authentication/flows/browser/copy`, admin, { newName: 'browser-nodes' }), 201);
  const flows = (await call(a, 'GET', `/admin/realms/${R}/authentication/flows`, admin)).body as Array<{ id: string; alias: string }>;
  const flowId = (flows.find((f) => f.alias === 'browser-nodes') as { id: string }).id;
  const clientId = ((await call(a, 'GET', `/admin/realms/${R}/clients?clientId=web-nodes`, admin)).body as Array<{ id: string }>)[0].id;
  const client = (await call(a, 'GET', `/admin/realms/${R}/clients/${clientId}`, admin)).body as Record<string, unknown>;
  expectStatus(
    await call(a, 'PUT', `/admin/realms/${R}/clients/${clientId}`, admin, {
      ...client,
      authenticationFlowBindingOverrides: { browser: flowId },
    }),
    204,
  );
  for (let i = 0; i < 2; i++) expect((await pageOnB()).html).toMatch(/id="username"/);
  const copy = `/admin/realms/${R}/authentication/flows/browser-nodes/executions`;
  expectStatus(await call(a, 'POST', `${copy}/execution`, admin, { provider: 'deny-access-authenticator' }), 201);
  expect((await pageOnB()).html).toMatch(/id="username"/); // added DISABLED: the page stays
  const deny = (await call(a, 'GET', copy, admin)).body as Array<Record<string, unknown> & { providerId?: string }>;
  const denyExec = deny.find((e) => e.providerId === 'deny-access-authenticator') as Record<string, unknown>;
  expectStatus(await call(a, 'PUT', copy, admin, { ...denyExec, requirement: 'REQUIRED' }), 204);
  const denied = await pageOnB();
  expect(denied.html).not.toMatch(/id="username"/);
  expect(denied.status).toBeGreaterThanOrEqual(400);
  expectStatus(await call(a, 'PUT', copy, admin, { ...denyExec, requirement: 'DISABLED' }), 204);
  expect((await pageOnB()).html).toMatch(/id="username"/);
});
