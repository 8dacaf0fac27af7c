import { formAction, Jar, type LoginWorld, loginWorld, redirectParams } from './browser-client';

/**
 * The browser login reads the realm's flows, executions, authenticator configs and required actions
 * from the node's cache, stamped with the realm's cache version read with the realm in the request's
 * first statement (flow-definitions.ts, ADR 40; ADR 23), as the password grant does. Pinned here: the
 * SQL of a warm login page and of a warm username/password POST (deterministic counts, no timing),
 * and that an execution changed through the admin API changes the very next page or POST. Across two
 * processes: test/rest/cache-nodes.test.ts. Keycloak keeps the same definitions in its realm cache
 * (RealmCacheSession / CachedRealm: authentication flows, executions, configs, required actions).
 */
let w: LoginWorld;
const R = 'login-fc';
const A = `/admin/realms/${R}`;
const OTP = {
  type: 'otp',
  secretData: JSON.stringify({ value: 'AbCdEfGhIjKlMnOpQrSt' }),
  credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
};

beforeAll(async () => {
  w = await loginWorld(R);
  await w.api
    .post(`${A}/users`, {
      username: 'otto',
      enabled: true,
      email: 'otto@example.org',
      firstName: 'Otto',
      lastName: 'Tp',
      credentials: [{ type: 'password', value: 'pw', temporary: false }, OTP],
    })
    .expect(201);
});
afterAll(() => w?.ts.close());

const FLOW_TABLES = [
  'authentication_flow',
  'authentication_execution',
  'authenticator_config',
  'required_action_provider',
  'client',
  'identity_provider',
  'component',
];
const readsOf = (statements: string[], table: string) => statements.filter((s) => new RegExp(`FROM \`${table}\``).test(s));

/** GET of the login page in a new browser (no cookie): the status and the page. */
async function loginPage(url = w.authUrl()): Promise<{ jar: Jar; status: number; html: string }> {
  const jar = new Jar();
  const res = await jar.fetch(url);
  return { jar, status: res.status, html: await res.text() };
}

test('a warm login page (known client, no cookie) costs the realm read and the authentication session: 3 statements', async () => {
  await loginPage();
  const { count, statements, result } = await w.ts.countSql(() => loginPage());
  expect(result.status).toBe(200);
  expect(result.html).toMatch(/id="username"/);
  for (const table of FLOW_TABLES) expect(readsOf(statements, table)).toEqual([]);
  // realm (with its cache version), INSERT of the authentication session, UPDATE with the flow's state.
  expect(count).toBe(3);
});

test('a warm username/password POST reads only the login, the user and what the session needs: 15 statements', async () => {
  const warm = await loginPage();
  await warm.jar.post(formAction(warm.html), { username: 'alice', password: 'pw' });
  const page = await loginPage();
  const { count, statements, result } = await w.ts.countSql(() =>
    page.jar.post(formAction(page.html), { username: 'alice', password: 'pw' }),
  );
  expect(result.status).toBe(302);
  expect(redirectParams(result).get('code')).toBeTruthy();
  for (const table of FLOW_TABLES) expect(readsOf(statements, table)).toEqual([]);
  // realm, authentication session, user, passwords, OTP count (conditional-user-configured), the
  // password's date (UPDATE_PASSWORD trigger), pending actions, attributes (VERIFY_PROFILE); the
  // session (BEGIN, two INSERTs, COMMIT), the code, the authentication session removed, the event.
  expect(count).toBe(15);
});

async function executionsOf(
  flow: string,
): Promise<Array<Record<string, unknown> & { id: string; displayName: string; providerId?: string }>> {
  return (await w.api.get(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions`).expect(200)).body;
}

async function setRequirement(flow: string, displayName: string, requirement: string): Promise<void> {
  const e = (await executionsOf(flow)).find((x) => x.displayName === displayName);
  if (!e) throw new Error(`no execution ${displayName} in ${flow}`);
  await w.api.put(`${A}/authentication/flows/${encodeURIComponent(flow)}/executions`, { ...e, requirement }).expect(204);
}

test("the browser flow's Conditional 2FA changed through the admin API decides the very next POST", async () => {
  const post = async (page: { jar: Jar; html: string }) => page.jar.post(formAction(page.html), { username: 'otto', password: 'pw' });
  // Warm: the OTP sub-flow asks otto (who has a device) for a code.
  for (let i = 0; i < 2; i++) {
    const res = await post(await loginPage());
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/id="otp"/);
  }
  // The page is shown under the old flow; the flow changes; the POST runs the new one.
  const page = await loginPage();
  await setRequirement('browser', 'Browser - Conditional 2FA', 'DISABLED');
  const done = await post(page);
  expect(done.status).toBe(302);
  expect(redirectParams(done).get('code')).toBeTruthy();
  const page2 = await loginPage();
  await setRequirement('browser', 'Browser - Conditional 2FA', 'CONDITIONAL');
  const again = await post(page2);
  expect(again.status).toBe(200);
  expect(await again.text()).toMatch(/id="otp"/);
});

test('a copied browser flow bound to the realm, then an execution added and disabled in it: each is the very next login page', async () => {
  await w.api.post(`${A}/authentication/flows/browser/copy`, { newName: 'browser-fc' }).expect(201);
  for (let i = 0; i < 2; i++) expect((await loginPage()).html).toMatch(/id="username"/);
  const realm = (await w.api.get(A).expect(200)).body;
  await w.api.put(A, { ...realm, browserFlow: 'browser-fc' }).expect(204);
  expect((await loginPage()).html).toMatch(/id="username"/);
  // A REQUIRED deny-access at the top of the bound copy: its ALTERNATIVE forms no longer count.
  await w.api.post(`${A}/authentication/flows/browser-fc/executions/execution`, { provider: 'deny-access-authenticator' }).expect(201);
  const deny = (await executionsOf('browser-fc')).find((e) => e.providerId === 'deny-access-authenticator') as Record<string, unknown>;
  await w.api.put(`${A}/authentication/flows/browser-fc/executions`, { ...deny, requirement: 'REQUIRED' }).expect(204);
  const denied = await loginPage();
  expect(denied.html).not.toMatch(/id="username"/);
  expect(denied.status).toBeGreaterThanOrEqual(400);
  expect((await loginPage()).html).not.toMatch(/id="username"/);
  await w.api.put(`${A}/authentication/flows/browser-fc/executions`, { ...deny, requirement: 'DISABLED' }).expect(204);
  const back = await loginPage();
  expect([back.status, /id="username"/.test(back.html)]).toEqual([200, true]);
  await w.api.put(A, { ...realm, browserFlow: 'browser' }).expect(204);
});

test('a required action disabled through the admin API is no longer asked at the very next login', async () => {
  // Keycloak registers it disabled; a user may be given only an enabled action.
  const terms = (await w.api.get(`${A}/authentication/required-actions/TERMS_AND_CONDITIONS`).expect(200)).body;
  await w.api.put(`${A}/authentication/required-actions/TERMS_AND_CONDITIONS`, { ...terms, enabled: true }).expect(204);
  const user = (await w.api.get(`${A}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${A}/users/${w.userId}`, { ...user, requiredActions: ['TERMS_AND_CONDITIONS'] }).expect(204);
  const login = async () => {
    const page = await loginPage();
    return page.jar.post(formAction(page.html), { username: 'alice', password: 'pw' });
  };
  for (let i = 0; i < 2; i++) {
    const res = await login();
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/kc-terms-text|termsTitle|Terms and Conditions/i);
  }
  await w.api.put(`${A}/authentication/required-actions/TERMS_AND_CONDITIONS`, { ...terms, enabled: false }).expect(204);
  const res = await login();
  expect(res.status).toBe(302);
  expect(redirectParams(res).get('code')).toBeTruthy();
  await w.api.put(`${A}/users/${w.userId}`, { ...user, requiredActions: [] }).expect(204);
});

test('a user-profile attribute made required through the admin API is asked (VERIFY_PROFILE) at the very next login', async () => {
  const login = async () => {
    const page = await loginPage();
    return page.jar.post(formAction(page.html), { username: 'alice', password: 'pw' });
  };
  for (let i = 0; i < 2; i++) expect((await login()).status).toBe(302);
  const config = (await w.api.get(`${A}/users/profile`).expect(200)).body;
  const department = {
    name: 'department',
    displayName: 'Department',
    permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
    required: { roles: ['user'] },
  };
  await w.api.put(`${A}/users/profile`, { ...config, attributes: [...config.attributes, department] }).expect(200);
  const asked = await login();
  expect(asked.status).toBe(200);
  expect(await asked.text()).toMatch(/name="department"/);
  await w.api.put(`${A}/users/profile`, config).expect(200);
  expect((await login()).status).toBe(302);
});
