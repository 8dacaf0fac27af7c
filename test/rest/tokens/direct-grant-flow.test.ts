import { Secret, TOTP } from 'otpauth';
import request from 'supertest';
import { clientUuid, createRole, createUser, realmServer, serviceAccountClient, userId } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * The password grant runs the realm's direct grant flow through the flow engine (Keycloak's
 * ResourceOwnerPasswordCredentialsGrantType → AuthenticationProcessor.authenticateOnly, with the
 * authenticators of authenticators/directgrant: ValidateUsername, ValidatePassword, ValidateOTP), as
 * configured through the admin API: the conditional OTP sub-flow asks users with an OTP device for
 * `totp`, and every change to the flow (a requirement, an added step, its config, a client's
 * direct_grant override) is in the very next grant, though the node keeps the flow between requests.
 */
const R = 'dgrant';
const A = `/admin/realms/${R}`;
const SECRET = 'AbCdEfGhIjKlMnOpQrSt';
let ts: TestServer;
let api: AdminApi;

const totp = (offset = 0) =>
  new TOTP({ secret: new Secret({ buffer: new Uint8Array(Buffer.from(SECRET, 'utf8')).buffer }), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offset,
  });

const otpCredential = {
  type: 'otp',
  userLabel: 'phone',
  secretData: JSON.stringify({ value: SECRET }),
  credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
};

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { eventsEnabled: true }));
  await createUser(ts, R, 'plain');
  await createUser(ts, R, 'otpuser', { extra: { credentials: [{ type: 'password', value: 'pw', temporary: false }, otpCredential] } });
});
afterAll(() => ts.close());

const grant = (form: Record<string, string>, clientId = 'admin-cli') =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: clientId, ...form });

const answer = async (form: Record<string, string>, clientId?: string) => {
  const res = await grant(form, clientId);
  return res.status === 200 ? 200 : { status: res.status, body: res.body };
};
const INVALID = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };

const lastError = async () =>
  ((await api.get(`${A}/events?type=LOGIN_ERROR&max=1`).expect(200)).body as Array<{ error: string; details?: Record<string, string> }>)[0];

interface Execution {
  id: string;
  requirement: string;
  displayName: string;
  providerId?: string;
  level: number;
  authenticationConfig?: string;
}
const executions = async (flow: string) =>
  (await api.get(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions`).expect(200)).body as Execution[];
const setRequirement = async (flow: string, exec: Execution, requirement: string) =>
  api.put(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions`, { ...exec, requirement }).expect(204);

/** Adds `provider` to `flow` with `requirement` (and a config, when given); returns the execution. */
async function addExecution(flow: string, provider: string, requirement: string, config?: Record<string, string>): Promise<Execution> {
  await api.post(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions/execution`, { provider }).expect(201);
  const exec = (await executions(flow)).filter((e) => e.providerId === provider && e.level === 0).pop() as Execution;
  await setRequirement(flow, exec, requirement);
  if (config) await api.post(`${A}/authentication/executions/${exec.id}/config`, { alias: `${provider}-${exec.id}`, config }).expect(201);
  return exec;
}

/** A top-level flow of its own (built-in flows take no new executions). */
async function newFlow(alias: string): Promise<string> {
  const res = await api.post(`${A}/authentication/flows`, { alias, providerId: 'basic-flow', topLevel: true, builtIn: false }).expect(201);
  return String(res.headers.location).split('/').pop() as string;
}

/** A CONDITIONAL sub-flow of `flow`; returns its alias. */
async function conditionalSubFlow(flow: string, alias: string): Promise<string> {
  await api
    .post(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions/flow`, {
      alias,
      type: 'basic-flow',
      provider: 'registration-page-form',
    })
    .expect(201);
  const sub = (await executions(flow)).find((e) => e.displayName === alias) as Execution;
  await setRequirement(flow, sub, 'CONDITIONAL');
  return alias;
}

describe('the built-in direct grant flow', () => {
  test('a user with an OTP device must send a current code as `totp` (or `otp`); one without needs none', async () => {
    expect(await answer({ username: 'plain', password: 'pw' })).toBe(200);
    expect(await answer({ username: 'otpuser', password: 'pw' })).toEqual(INVALID);
    expect(await lastError()).toMatchObject({ error: 'invalid_user_credentials', details: { username: 'otpuser' } });
    expect(await answer({ username: 'otpuser', password: 'pw', totp: totp(-300_000) })).toEqual(INVALID);
    expect(await answer({ username: 'otpuser', password: 'wrong', totp: totp() })).toEqual(INVALID);
    expect(await answer({ username: 'otpuser', password: 'pw', totp: totp() })).toBe(200);
    expect(await answer({ username: 'otpuser', password: 'pw', otp: totp() })).toBe(200);
  });

  test("Keycloak's answers for a missing username, an unknown user, a disabled account and a service account", async () => {
    expect(await answer({ password: 'pw' })).toEqual({
      status: 401,
      body: { error: 'invalid_request', error_description: 'Missing parameter: username' },
    });
    expect(await lastError()).toMatchObject({ error: 'user_not_found' });
    expect(await answer({ username: 'nobody', password: 'pw' })).toEqual(INVALID);
    const id = await createUser(ts, R, 'off');
    await api.put(`${A}/users/${id}`, { enabled: false }).expect(204);
    // As ValidateUsername: a disabled account is said so before the password is checked.
    for (const password of ['pw', 'wrong'])
      expect(await answer({ username: 'off', password })).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Account disabled' },
      });
    expect(await lastError()).toMatchObject({ error: 'user_disabled' });
    await serviceAccountClient(api, R, 'robot', 'robot-secret');
    expect(await answer({ username: 'service-account-robot', password: 'x' })).toEqual(INVALID);
    expect(await lastError()).toMatchObject({ error: 'invalid_user', details: { reason: 'User is a service account' } });
  });

  test('a wrong code counts as a failed login for brute-force detection', async () => {
    await api.put(A, { bruteForceProtected: true, failureFactor: 2 }).expect(204);
    try {
      const id = await userId(api, R, 'otpuser');
      expect(await answer({ username: 'otpuser', password: 'pw', totp: '000000' === totp() ? '111111' : '000000' })).toEqual(INVALID);
      expect((await api.get(`${A}/attack-detection/brute-force/users/${id}`).expect(200)).body.numFailures).toBe(1);
      expect(await answer({ username: 'otpuser', password: 'pw', totp: totp() })).toBe(200);
      expect((await api.get(`${A}/attack-detection/brute-force/users/${id}`).expect(200)).body.numFailures).toBe(0);
    } finally {
      await api.put(A, { bruteForceProtected: false }).expect(204);
    }
  });
});

describe('the flow as edited through the admin API, in the very next grant', () => {
  test('the conditional OTP sub-flow DISABLED: no code asked; CONDITIONAL again: asked again', async () => {
    await answer({ username: 'otpuser', password: 'pw', totp: totp() }); // the node now keeps the flow
    const sub = (await executions('direct grant')).find((e) => e.displayName === 'Direct Grant - Conditional OTP') as Execution;
    expect(sub.requirement).toBe('CONDITIONAL');
    await setRequirement('direct grant', sub, 'DISABLED');
    expect(await answer({ username: 'otpuser', password: 'pw' })).toBe(200);
    await setRequirement('direct grant', sub, 'CONDITIONAL');
    expect(await answer({ username: 'otpuser', password: 'pw' })).toEqual(INVALID);
  });

  test("the realm's directGrantFlow: deny-access REQUIRED answers 401 with its configured message; allow-access lets through", async () => {
    const flowId = await newFlow('strict grant');
    await addExecution('strict grant', 'direct-grant-validate-username', 'REQUIRED');
    await addExecution('strict grant', 'direct-grant-validate-password', 'REQUIRED');
    await answer({ username: 'plain', password: 'pw' });
    await api.put(A, { directGrantFlow: 'strict grant' }).expect(204);
    try {
      // No OTP sub-flow in this flow: the OTP user needs no code.
      expect(await answer({ username: 'otpuser', password: 'pw' })).toBe(200);
      const deny = await addExecution('strict grant', 'deny-access-authenticator', 'REQUIRED');
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual({ status: 401, body: { error: 'Access denied' } });
      expect(await lastError()).toMatchObject({ error: 'access_denied' });
      await api
        .post(`${A}/authentication/executions/${deny.id}/config`, { alias: 'deny-msg', config: { denyErrorMessage: 'No tokens here' } })
        .expect(201);
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual({ status: 401, body: { error: 'No tokens here' } });
      const config = (await executions('strict grant')).find((e) => e.id === deny.id)?.authenticationConfig as string;
      await api
        .put(`${A}/authentication/config/${config}`, { alias: 'deny-msg', config: { denyErrorMessage: 'Still no tokens' } })
        .expect(204);
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual({ status: 401, body: { error: 'Still no tokens' } });
      await api.delete(`${A}/authentication/executions/${deny.id}`).expect(204);
      expect(await answer({ username: 'plain', password: 'pw' })).toBe(200);
      // A flow that identifies nobody gives no tokens.
      await newFlow('nobody grant');
      await addExecution('nobody grant', 'allow-access-authenticator', 'REQUIRED');
      await api.put(A, { directGrantFlow: 'nobody grant' }).expect(204);
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual(INVALID);
    } finally {
      await api.put(A, { directGrantFlow: 'direct grant' }).expect(204);
    }
    expect(flowId).toBeTruthy();
  });

  test("a client's direct_grant override; conditional-user-role with deny-access stops that role's users only", async () => {
    await createRole(api, R, 'no-api');
    const blocked = await createUser(ts, R, 'blocked');
    const role = (await api.get(`${A}/roles/no-api`).expect(200)).body;
    await api.post(`${A}/users/${blocked}/role-mappings/realm`, [role]).expect(204);
    const flowId = await newFlow('role guard');
    await addExecution('role guard', 'direct-grant-validate-username', 'REQUIRED');
    await addExecution('role guard', 'direct-grant-validate-password', 'REQUIRED');
    const sub = await conditionalSubFlow('role guard', 'role guard blocked');
    await addExecution(sub, 'conditional-user-role', 'REQUIRED', { condUserRole: 'no-api' });
    await addExecution(sub, 'deny-access-authenticator', 'REQUIRED');
    await api
      .post(`${A}/clients`, {
        clientId: 'cli2',
        publicClient: true,
        directAccessGrantsEnabled: true,
        authenticationFlowBindingOverrides: { direct_grant: flowId },
      })
      .expect(201);
    expect(await answer({ username: 'blocked', password: 'pw' }, 'cli2')).toEqual({ status: 401, body: { error: 'Access denied' } });
    expect(await answer({ username: 'plain', password: 'pw' }, 'cli2')).toBe(200);
    // The override has no OTP step; admin-cli keeps the realm's flow.
    expect(await answer({ username: 'otpuser', password: 'pw' }, 'cli2')).toBe(200);
    expect(await answer({ username: 'otpuser', password: 'pw' })).toEqual(INVALID);
    expect(await answer({ username: 'blocked', password: 'pw' })).toBe(200);
    // The override removed: cli2 runs the realm's flow again.
    const id = await clientUuid(api, R, 'cli2');
    const rep = (await api.get(`${A}/clients/${id}`).expect(200)).body;
    await api.put(`${A}/clients/${id}`, { ...rep, authenticationFlowBindingOverrides: { direct_grant: '' } }).expect(204);
    expect(await answer({ username: 'blocked', password: 'pw' }, 'cli2')).toBe(200);
    expect(await answer({ username: 'otpuser', password: 'pw' }, 'cli2')).toEqual(INVALID);
  });

  test('conditional-level-of-authentication: the first level reached skips the higher ones', async () => {
    await newFlow('levels');
    await addExecution('levels', 'direct-grant-validate-username', 'REQUIRED');
    await addExecution('levels', 'direct-grant-validate-password', 'REQUIRED');
    const one = await conditionalSubFlow('levels', 'levels one');
    await addExecution(one, 'conditional-level-of-authentication', 'REQUIRED', { 'loa-condition-level': '1', 'loa-max-age': '0' });
    await addExecution(one, 'allow-access-authenticator', 'REQUIRED');
    const two = await conditionalSubFlow('levels', 'levels two');
    await addExecution(two, 'conditional-level-of-authentication', 'REQUIRED', { 'loa-condition-level': '2', 'loa-max-age': '0' });
    await addExecution(two, 'deny-access-authenticator', 'REQUIRED');
    await api.put(A, { directGrantFlow: 'levels' }).expect(204);
    try {
      expect(await answer({ username: 'plain', password: 'pw' })).toBe(200);
      // Level one's sub-flow off: level two is the first level, and denies.
      const oneExec = (await executions('levels')).find((e) => e.displayName === one) as Execution;
      await setRequirement('levels', oneExec, 'DISABLED');
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual({ status: 401, body: { error: 'Access denied' } });
    } finally {
      await api.put(A, { directGrantFlow: 'direct grant' }).expect(204);
    }
  });

  test('the level the direct grant flow reached is the acr claim (AcrProtocolMapper)', async () => {
    await newFlow('level two');
    await addExecution('level two', 'direct-grant-validate-username', 'REQUIRED');
    await addExecution('level two', 'direct-grant-validate-password', 'REQUIRED');
    const two = await conditionalSubFlow('level two', 'level two only');
    await addExecution(two, 'conditional-level-of-authentication', 'REQUIRED', { 'loa-condition-level': '2', 'loa-max-age': '0' });
    await addExecution(two, 'allow-access-authenticator', 'REQUIRED');
    const acrOf = async () => {
      const res = await grant({ username: 'plain', password: 'pw', scope: 'openid' });
      expect(res.status).toBe(200);
      const claims = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()).acr;
      // admin-cli's access token is a lightweight one: the ID token carries the claim.
      return claims(res.body.id_token);
    };
    expect(await acrOf()).toBe('1');
    await api.put(A, { directGrantFlow: 'level two' }).expect(204);
    try {
      expect(await acrOf()).toBe('2');
    } finally {
      await api.put(A, { directGrantFlow: 'direct grant' }).expect(204);
    }
  });

  test('a step that needs a browser, REQUIRED in the direct grant flow: 400 naming it, never a 500', async () => {
    await newFlow('browserish');
    await addExecution('browserish', 'auth-username-password-form', 'REQUIRED');
    await api.put(A, { directGrantFlow: 'browserish' }).expect(204);
    try {
      expect(await answer({ username: 'plain', password: 'pw' })).toEqual({
        status: 400,
        body: {
          error: 'invalid_request',
          error_description: 'Authenticator not supported in the direct grant flow: auth-username-password-form',
        },
      });
    } finally {
      await api.put(A, { directGrantFlow: 'direct grant' }).expect(204);
    }
  });
});
