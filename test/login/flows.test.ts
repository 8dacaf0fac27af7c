import { formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn } from './browser-client';

/**
 * The login follows the browser flow as edited through the admin API: an identity-first flow
 * (username form, then password form) bound to the client, a CONDITIONAL sub-flow with
 * conditional-user-role and deny-access-authenticator, a user with pending required actions, and
 * the realm's localization texts.
 */
let w: LoginWorld;
const R = '/admin/realms/login-f';
beforeAll(async () => {
  w = await loginWorld('login-f');
});
afterAll(() => w?.ts.close());

async function addExecution(flow: string, provider: string, requirement: string): Promise<string> {
  await w.api.post(`${R}/authentication/flows/${flow}/executions/execution`, { provider }).expect(201);
  const list = (await w.api.get(`${R}/authentication/flows/${flow}/executions`).expect(200)).body as Array<{
    id: string;
    providerId?: string;
    level: number;
  }>;
  const exec = list.filter((e) => e.providerId === provider && e.level === 0).pop() as { id: string };
  await w.api.put(`${R}/authentication/flows/${flow}/executions`, { ...exec, requirement }).expect(204);
  return exec.id;
}

test('an identity-first flow bound to the client: username, then password; an unknown name fails only at the password', async () => {
  const created = await w.api
    .post(`${R}/authentication/flows`, { alias: 'idfirst', providerId: 'basic-flow', topLevel: true, builtIn: false })
    .expect(201);
  const flowId = String(created.headers.location).split('/').pop();
  await addExecution('idfirst', 'auth-cookie', 'ALTERNATIVE');
  await w.api
    .post(`${R}/authentication/flows/idfirst/executions/flow`, {
      alias: 'idfirst-forms',
      type: 'basic-flow',
      provider: 'registration-page-form',
    })
    .expect(201);
  const list = (await w.api.get(`${R}/authentication/flows/idfirst/executions`).expect(200)).body as Array<{
    id: string;
    displayName: string;
  }>;
  const forms = list.find((e) => e.displayName === 'idfirst-forms') as { id: string };
  await w.api.put(`${R}/authentication/flows/idfirst/executions`, { ...forms, requirement: 'ALTERNATIVE' }).expect(204);
  await addExecution('idfirst-forms', 'auth-username-form', 'REQUIRED');
  await addExecution('idfirst-forms', 'auth-password-form', 'REQUIRED');
  const client = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body[0];
  await w.api.put(`${R}/clients/${client.id}`, { ...client, authenticationFlowBindingOverrides: { browser: flowId } }).expect(204);

  const jar = new Jar();
  const first = await (await jar.fetch(w.authUrl())).text();
  expect(first).toMatch(/id="username"/);
  expect(first).not.toMatch(/id="password"/);
  const second = await jar.post(formAction(first), { username: 'alice' });
  const html = await second.text();
  expect(html).toMatch(/id="password"/);
  expect(html).toMatch(/id="kc-attempted-username">alice</);
  const done = await jar.post(formAction(html), { password: 'pw' });
  expect(redirectParams(done).get('code')).toBeTruthy();

  const ghost = new Jar();
  const a = await ghost.post(formAction(await (await ghost.fetch(w.authUrl())).text()), { username: 'nobody' });
  expect(a.status).toBe(200);
  const b = await ghost.post(formAction(await a.text()), { password: 'pw' });
  expect([b.status, pageError(await b.text())]).toEqual([401, 'Invalid username or password.']);
  await w.api.put(`${R}/clients/${client.id}`, { ...client, authenticationFlowBindingOverrides: { browser: '' } }).expect(204);
});

test('a CONDITIONAL sub-flow with conditional-user-role and deny-access stops users of that role only', async () => {
  await w.api.post(`${R}/roles`, { name: 'blocked' }).expect(201);
  await w.api.post(`${R}/users`, { username: 'carol', enabled: true, credentials: [{ type: 'password', value: 'pw' }] }).expect(201);
  const carol = (await w.api.get(`${R}/users?username=carol&exact=true`).expect(200)).body[0].id;
  const role = (await w.api.get(`${R}/roles/blocked`).expect(200)).body;
  await w.api.post(`${R}/users/${carol}/role-mappings/realm`, [role]).expect(204);
  // A flow of its own (built-in flows take no new executions): the form, then the guarded sub-flow.
  const created = await w.api
    .post(`${R}/authentication/flows`, { alias: 'guarded', providerId: 'basic-flow', topLevel: true, builtIn: false })
    .expect(201);
  const flowId = String(created.headers.location).split('/').pop();
  await addExecution('guarded', 'auth-username-password-form', 'REQUIRED');
  await w.api
    .post(`${R}/authentication/flows/guarded/executions/flow`, {
      alias: 'deny-blocked',
      type: 'basic-flow',
      provider: 'registration-page-form',
    })
    .expect(201);
  const list = (await w.api.get(`${R}/authentication/flows/guarded/executions`).expect(200)).body as Array<{
    id: string;
    displayName: string;
  }>;
  const sub = list.find((e) => e.displayName === 'deny-blocked') as { id: string };
  await w.api.put(`${R}/authentication/flows/guarded/executions`, { ...sub, requirement: 'CONDITIONAL' }).expect(204);
  const cond = await addExecution('deny-blocked', 'conditional-user-role', 'REQUIRED');
  await w.api
    .post(`${R}/authentication/executions/${cond}/config`, { alias: 'is-blocked', config: { condUserRole: 'blocked', negate: 'false' } })
    .expect(201);
  await addExecution('deny-blocked', 'deny-access-authenticator', 'REQUIRED');
  // Bound as the realm's browser flow this time.
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, browserFlow: 'guarded' }).expect(204);
  expect(flowId).toBeTruthy();

  const denied = await signIn(new Jar(), w.authUrl(), 'carol', 'pw');
  expect([denied.status, pageError(await denied.text())]).toEqual([401, 'Access denied']);
  const allowed = await signIn(new Jar(), w.authUrl(), 'alice', 'pw');
  expect(redirectParams(allowed).get('code')).toBeTruthy();
  const events = (await w.api.get(`${R}/events?type=LOGIN_ERROR&max=50`).expect(200)).body as Array<{ error: string }>;
  expect(events.map((e) => e.error)).toContain('access_denied');
  await w.api.put(R, { ...realm, browserFlow: 'browser' }).expect(204);
});

test('a pending required action this server cannot run yet: a page says so, and no code is issued', async () => {
  await w.api
    .post(`${R}/users`, {
      username: 'dave',
      enabled: true,
      requiredActions: ['webauthn-register'],
      credentials: [{ type: 'password', value: 'pw' }],
    })
    .expect(201);
  const res = await signIn(new Jar(), w.authUrl(), 'dave', 'pw');
  expect(res.status).toBe(403);
  expect(res.headers.get('location')).toBeNull();
  expect(await res.text()).toMatch(/register a passkey/);
});

test("localized texts: the realm's own texts in the locale ui_locales asks for, English otherwise; display name escaped", async () => {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api
    .put(R, {
      ...realm,
      displayName: '<b>Acme</b>',
      internationalizationEnabled: true,
      supportedLocales: ['en', 'de'],
      defaultLocale: 'en',
    })
    .expect(204);
  await w.api.post(`${R}/localization/de`, { loginAccountTitle: 'Anmelden', invalidUserMessage: 'Falsch.' }).expect(204);
  const de = await (await fetch(w.authUrl({ ui_locales: 'de' }), { redirect: 'manual' })).text();
  expect(de).toMatch(/<h1 id="kc-page-title">Anmelden<\/h1>/);
  expect(de).toContain('&lt;b&gt;Acme&lt;/b&gt;');
  expect(de).toMatch(/<html lang="de">/);
  const en = await (await fetch(w.authUrl(), { redirect: 'manual', headers: { 'accept-language': 'fr, en;q=0.5' } })).text();
  expect(en).toMatch(/<h1 id="kc-page-title">Sign in to your account<\/h1>/);
  const byHeader = await (await fetch(w.authUrl(), { redirect: 'manual', headers: { 'accept-language': 'de-CH, en;q=0.5' } })).text();
  expect(byHeader).toMatch(/Anmelden/);
  const jar = new Jar();
  const wrong = await signIn(jar, w.authUrl({ ui_locales: 'de' }), 'alice', 'bad');
  expect(pageError(await wrong.text())).toBe('Falsch.');
});
