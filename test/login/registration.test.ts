import { createClient } from '../helpers/fixtures';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * Self-registration through the realm's registration flow, as Keycloak 26 runs it: the login page's
 * "Register" link (login.ftl, only with registrationAllowed), RegistrationPage with its form actions
 * run by FormAuthenticationFlow (every action validates, then all succeed), RegistrationUserCreation
 * (user profile in the REGISTRATION context, duplicates, registrationEmailAsUsername; events REGISTER /
 * REGISTER_ERROR with invalid_registration, username_in_use, email_in_use), RegistrationPassword
 * (missingPasswordMessage, invalidPasswordConfirmMessage, the policy), RegistrationTermsAndConditions
 * (termsAcceptanceRequired, terms_and_conditions attribute), LoginActionsService.registerPage /
 * processRegister and AuthorizationEndpoint.register (`/protocol/openid-connect/registrations`).
 */
let w: LoginWorld;
let smtp: TestSmtp;
const REALM = 'login-register';
const R = `/admin/realms/${REALM}`;

const setRealm = async (changes: Record<string, unknown>) => {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, ...changes }).expect(204);
};
const setRequirement = async (provider: string, requirement: string) => {
  const list = (await w.api.get(`${R}/authentication/flows/registration/executions`).expect(200)).body as Array<{
    providerId?: string;
  }>;
  const exec = list.find((e) => e.providerId === provider);
  await w.api.put(`${R}/authentication/flows/registration/executions`, { ...exec, requirement }).expect(204);
};
type Ev = { type: string; error?: string; userId?: string; details?: Record<string, string> };
const events = async (type: string) => ((await w.api.get(`${R}/events?max=500`).expect(200)).body as Ev[]).filter((e) => e.type === type);
const userByName = async (username: string) =>
  (
    (await w.api.get(`${R}/users?username=${encodeURIComponent(username)}&exact=true`).expect(200)).body as Array<Record<string, unknown>>
  )[0];

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const fieldError = (html: string, name: string) => {
  const m = new RegExp(`id="input-error-${name}"[^>]*>([^<]*)<`).exec(html);
  return m ? htmlText(m[1]) : undefined;
};
const inputOf = (html: string, name: string) => new RegExp(`<input id="${name}"[^>]*>`).exec(html)?.[0] ?? '';
const linkOf = (html: string, id: string) => {
  const m = new RegExp(`id="${id}" href="([^"]+)"`).exec(html);
  if (!m) throw new Error(`no ${id} in ${html.slice(0, 800)}`);
  return `${w.base}${htmlText(m[1])}`;
};

/** Opens the login page and follows its "Register" link: the registration form. */
async function registerForm(jar: Jar, params: Record<string, string> = {}): Promise<string> {
  const login = await jar.fetch(w.authUrl(params));
  expect(login.status).toBe(200);
  const res = await jar.fetch(linkOf(await login.text(), 'kc-register-link'));
  expect(res.status).toBe(200);
  return res.text();
}

const fields = (username: string, extra: Record<string, string> = {}) => ({
  username,
  email: `${username}@example.org`,
  firstName: 'New',
  lastName: 'User',
  password: 'Secret123',
  'password-confirm': 'Secret123',
  ...extra,
});

beforeAll(async () => {
  smtp = await startSmtp();
  w = await loginWorld(REALM, { registrationAllowed: true });
  const [client] = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body;
  await w.api.put(`${R}/clients/${client.id}`, { ...client, directAccessGrantsEnabled: true }).expect(204);
});
afterAll(async () => {
  await w?.ts.close();
  await smtp?.close();
});

test('registrationAllowed off: no Register link, the registration paths say "Registration not allowed"', async () => {
  await setRealm({ registrationAllowed: false });
  try {
    const jar = new Jar();
    const login = await jar.fetch(w.authUrl());
    const html = await login.text();
    expect(html).not.toContain('kc-register-link');
    const tab = new URL(formAction(html)).searchParams;
    const page = await jar.fetch(`${w.base}/realms/${REALM}/login-actions/registration?client_id=app&tab_id=${tab.get('tab_id')}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Registration not allowed');
    const entry = await jar.fetch(w.authUrl().replace('/auth?', '/registrations?'));
    expect(entry.status).toBe(400);
    expect(await entry.text()).toContain('Registration not allowed');
    const create = await jar.fetch(w.authUrl({ prompt: 'create' }));
    expect(create.status).toBe(400);
    expect(await create.text()).toContain('Registration not allowed');
    const discovery = (await (await fetch(`${w.base}/realms/${REALM}/.well-known/openid-configuration`)).json()) as {
      prompt_values_supported: string[];
    };
    expect(discovery.prompt_values_supported).toEqual(['none', 'login', 'consent']);
    expect((await events('REGISTER_ERROR')).some((e) => e.error === 'registration_disabled')).toBe(true);
  } finally {
    await setRealm({ registrationAllowed: true });
  }
});

test('the Register link opens the form of the registration flow: profile fields, password pair, labels, no script', async () => {
  const jar = new Jar();
  const html = await registerForm(jar);
  expect(html).toContain('<h1 id="kc-page-title">Register</h1>');
  for (const name of ['username', 'email', 'firstName', 'lastName', 'password', 'password-confirm']) {
    expect(html).toContain(`<label for="${name}">`);
    expect(html).toContain(`id="${name}" name="${name}"`);
  }
  expect(inputOf(html, 'password')).toContain('autocomplete="new-password"');
  expect(html).not.toContain('<script');
  expect(html).not.toContain('termsAccepted'); // terms and conditions: DISABLED by default
  expect(formAction(html)).toContain(`/realms/${REALM}/login-actions/registration?session_code=`);
  // "Back to Login" returns to the login form of the same login.
  const back = await jar.fetch(linkOf(html, 'kc-back-to-login'));
  const login = await back.text();
  expect(login).toContain('id="kc-form-login"');
  expect(formAction(login)).toContain('/login-actions/authenticate?');
});

test('a registration logs the new user in: code to the client, REGISTER then LOGIN, default role and group, password works', async () => {
  const group = await w.api.post(`${R}/groups`, { name: 'newcomers' }).expect(201);
  const groupId = String(group.headers.location).split('/').pop();
  await w.api.put(`${R}/default-groups/${groupId}`).expect(204);
  const jar = new Jar();
  const html = await registerForm(jar);
  const res = await jar.post(formAction(html), fields('newbie', { username: 'NewBie' }));
  expect(res.status).toBe(302);
  const location = res.headers.get('location') as string;
  expect(location.startsWith(`${REDIRECT}?`)).toBe(true);
  expect(redirectParams(res).get('state')).toBe('st-1');
  const tokens = await exchange(w, redirectParams(res).get('code') as string);
  expect(tokens.status).toBe(200);
  const user = await userByName('newbie');
  expect(user).toMatchObject({ username: 'newbie', email: 'newbie@example.org', firstName: 'New', lastName: 'User', enabled: true });
  expect(user.emailVerified).toBe(false);
  const roles = (await w.api.get(`${R}/users/${user.id}/role-mappings/realm`).expect(200)).body as Array<{ name: string }>;
  expect(roles.map((r) => r.name)).toContain(`default-roles-${REALM}`);
  const groups = (await w.api.get(`${R}/users/${user.id}/groups`).expect(200)).body as Array<{ name: string }>;
  expect(groups.map((g) => g.name)).toEqual(['newcomers']);
  const sessions = (await w.api.get(`${R}/users/${user.id}/sessions`).expect(200)).body as unknown[];
  expect(sessions).toHaveLength(1);
  const [register] = await events('REGISTER');
  expect(register.userId).toBe(user.id);
  expect(register.details).toMatchObject({
    register_method: 'form',
    username: 'newbie',
    email: 'newbie@example.org',
    first_name: 'New',
    last_name: 'User',
    redirect_uri: REDIRECT,
  });
  const login = (await events('LOGIN')).find((e) => e.userId === user.id);
  expect(login?.details?.username).toBe('newbie');
  const grant = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'app', username: 'newbie', password: 'Secret123' }),
  });
  expect(grant.status).toBe(200);
  await w.api.delete(`${R}/default-groups/${groupId}`).expect(204);
});

test('validation: every action reports its errors at once, with Keycloak messages and REGISTER_ERROR codes; nothing is created', async () => {
  await setRealm({ passwordPolicy: 'length(8)' });
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    let res = await jar.post(formAction(html), fields('', { email: 'not-an-email', password: 'abc', 'password-confirm': 'abd' }));
    expect(res.status).toBe(200);
    html = await res.text();
    expect(fieldError(html, 'username')).toBe('Please specify username.');
    expect(fieldError(html, 'email')).toBe('Invalid email address.');
    expect(fieldError(html, 'password-confirm')).toBe("Password confirmation doesn't match.");
    expect(fieldError(html, 'password')).toBe('Invalid password: minimum length 8.');
    expect(inputOf(html, 'username')).toContain('aria-invalid=true');
    // The typed values stay, the passwords do not.
    expect(inputOf(html, 'firstName')).toContain('value="New"');
    expect(inputOf(html, 'password')).not.toContain('value=');
    res = await jar.post(formAction(html), fields('shorty', { password: '', 'password-confirm': '' }));
    html = await res.text();
    expect(fieldError(html, 'password')).toBe('Please specify password.');
    // Taken: alice's username, then alice's e-mail.
    res = await jar.post(formAction(html), fields('alice', { email: 'another@example.org' }));
    html = await res.text();
    expect(fieldError(html, 'username')).toBe('Username already exists.');
    res = await jar.post(formAction(html), fields('alice2', { email: 'ALICE@example.org' }));
    html = await res.text();
    expect(fieldError(html, 'email')).toBe('Email already exists.');
    const errors = (await events('REGISTER_ERROR')).map((e) => e.error);
    expect(errors).toEqual(expect.arrayContaining(['invalid_registration', 'username_in_use', 'email_in_use']));
    expect(await userByName('shorty')).toBeUndefined();
    expect(await userByName('alice2')).toBeUndefined();
    // A forged or stale POST (an older session_code) shows the current form again and creates nobody.
    const stale = formAction(html).replace(/session_code=[^&]+/, 'session_code=forged');
    res = await jar.post(stale, fields('forged'));
    expect(res.status).toBe(200);
    expect(await userByName('forged')).toBeUndefined();
    // Without the browser's AUTH_SESSION_ID cookie (a cross-site POST), nothing happens either.
    res = await new Jar().post(formAction(html), fields('crosssite'));
    expect(res.status).toBe(400);
    expect(await userByName('crosssite')).toBeUndefined();
  } finally {
    await setRealm({ passwordPolicy: '' });
  }
});

test('duplicateEmailsAllowed lets a second account use an address', async () => {
  await setRealm({ duplicateEmailsAllowed: true });
  try {
    const jar = new Jar();
    const html = await registerForm(jar);
    const res = await jar.post(formAction(html), fields('twin', { email: 'alice@example.org' }));
    expect(res.status).toBe(302);
    expect((await userByName('twin')).email).toBe('alice@example.org');
  } finally {
    await setRealm({ duplicateEmailsAllowed: false });
  }
});

test('registrationEmailAsUsername: no username field, the e-mail is the username, a taken one is "Email already exists."', async () => {
  await setRealm({ registrationEmailAsUsername: true });
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    expect(html).not.toContain('id="username" name="username"');
    let res = await jar.post(formAction(html), fields('ignored', { email: 'alice@example.org' }));
    html = await res.text();
    expect(fieldError(html, 'email')).toBe('Email already exists.');
    expect((await events('REGISTER_ERROR')).at(0)?.error).toBe('email_in_use');
    res = await jar.post(formAction(html), fields('ignored', { email: 'Mail.Name@example.org' }));
    expect(res.status).toBe(302);
    expect((await userByName('mail.name@example.org')).email).toBe('mail.name@example.org');
  } finally {
    await setRealm({ registrationEmailAsUsername: false });
  }
});

test("the realm's user profile: custom attributes with validators and permissions, required ones", async () => {
  const config = (await w.api.get(`${R}/users/profile`).expect(200)).body;
  const saved = structuredClone(config);
  config.attributes.push(
    {
      name: 'department',
      displayName: 'Department',
      validations: { length: { min: 2, max: 5 } },
      permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
      required: { roles: ['user'] },
    },
    { name: 'level', displayName: 'Level', permissions: { view: ['user'], edit: ['admin'] } },
    { name: 'secretNote', permissions: { view: ['admin'], edit: ['admin'] } },
  );
  await w.api.put(`${R}/users/profile`, config).expect(200);
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    expect(html).toContain('<label for="department">Department *</label>');
    expect(html).not.toContain('name="level"'); // the user may not set it
    expect(html).not.toContain('secretNote');
    let res = await jar.post(formAction(html), fields('profiled', { department: 'toolong', secretNote: 'sneaky' }));
    html = await res.text();
    expect(fieldError(html, 'department')).toBe('Length must be between 2 and 5.');
    res = await jar.post(formAction(html), fields('profiled', { department: '' }));
    html = await res.text();
    expect(fieldError(html, 'department')).toBeDefined();
    res = await jar.post(formAction(html), fields('profiled', { department: 'ops', level: 'senior', secretNote: 'sneaky' }));
    expect(res.status).toBe(302);
    const user = await userByName('profiled');
    expect(user.attributes).toEqual({ department: ['ops'] });
  } finally {
    await w.api.put(`${R}/users/profile`, saved).expect(200);
  }
});

test('terms and conditions enabled: the box must be ticked, the acceptance time is stored', async () => {
  await setRequirement('registration-terms-and-conditions', 'REQUIRED');
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    expect(html).toContain('id="termsAccepted" name="termsAccepted"');
    let res = await jar.post(formAction(html), fields('termsuser'));
    html = await res.text();
    expect(fieldError(html, 'terms-accepted')).toBe('You must agree to our terms and conditions.');
    expect(await userByName('termsuser')).toBeUndefined();
    res = await jar.post(formAction(html), fields('termsuser', { termsAccepted: 'on' }));
    expect(res.status).toBe(302);
    const user = await userByName('termsuser');
    // Keycloak's terms_and_conditions attribute (unmanaged, so not in the admin representation by default).
    const row = await w.ts.db.models.UserAttribute.findOne({ where: { userId: String(user.id), name: 'terms_and_conditions' } });
    const at = Number(row?.value);
    expect(Math.abs(at - Date.now() / 1000)).toBeLessThan(60);
  } finally {
    await setRequirement('registration-terms-and-conditions', 'DISABLED');
  }
});

test('reCAPTCHA (RegistrationRecaptcha): not configured refuses; configured, the widget and a check at Google siteverify', async () => {
  await setRequirement('registration-recaptcha-action', 'REQUIRED');
  const realFetch = globalThis.fetch;
  const verified: URLSearchParams[] = [];
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    expect(html).toContain('Recaptcha is required, but not configured');
    let res = await jar.post(formAction(html), fields('captcha'));
    html = await res.text();
    expect(html).toContain('Recaptcha is required, but not configured');
    expect(await userByName('captcha')).toBeUndefined();
    const list = (await w.api.get(`${R}/authentication/flows/registration/executions`).expect(200)).body as Array<{
      id: string;
      providerId?: string;
    }>;
    const exec = list.find((e) => e.providerId === 'registration-recaptcha-action') as { id: string };
    await w.api
      .post(`${R}/authentication/executions/${exec.id}/config`, {
        alias: 'captcha',
        config: { 'site.key': 'site-123', 'secret.key': 'secret-456', action: 'signup' },
      })
      .expect(201);
    // Google's siteverify, answered here: the response "good" passes.
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input) === 'https://www.google.com/recaptcha/api/siteverify') {
        const body = new URLSearchParams(String(init?.body));
        verified.push(body);
        return new Response(JSON.stringify({ success: body.get('response') === 'good' }), {
          headers: { 'content-type': 'application/json' },
        });
      }
      return realFetch(input, init);
    }) as typeof fetch;
    html = await registerForm(new Jar());
    expect(html).toContain('<div class="g-recaptcha" data-size="normal" data-sitekey="site-123" data-action="signup"></div>');
    expect(html).toContain('<script src="https://www.google.com/recaptcha/api.js?hl=en" async defer></script>');
    const jar2 = new Jar();
    html = await registerForm(jar2);
    res = await jar2.post(formAction(html), fields('captcha'));
    html = await res.text();
    expect(html).toContain('<div class="alert" role="alert" id="input-error">Invalid Recaptcha</div>');
    res = await jar2.post(formAction(html), fields('captcha', { 'g-recaptcha-response': 'bad' }));
    html = await res.text();
    expect(html).toContain('Invalid Recaptcha');
    expect(await userByName('captcha')).toBeUndefined();
    res = await jar2.post(formAction(html), fields('captcha', { 'g-recaptcha-response': 'good' }));
    expect(res.status).toBe(302);
    expect(await userByName('captcha')).toBeDefined();
    expect(verified.map((b) => [b.get('secret'), b.get('response')])).toEqual([
      ['secret-456', 'bad'],
      ['secret-456', 'good'],
    ]);
    expect(verified[0].get('remoteip')).toBeTruthy();
  } finally {
    globalThis.fetch = realFetch;
    await setRequirement('registration-recaptcha-action', 'DISABLED');
  }
});

test('/protocol/openid-connect/registrations takes the authorization parameters and opens the form; errors as the auth endpoint', async () => {
  const jar = new Jar();
  const url = w.authUrl({ state: 'reg-state' }).replace('/auth?', '/registrations?');
  const page = await jar.fetch(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('id="kc-register-form"');
  const res = await jar.post(formAction(html), fields('viaentry'));
  expect(res.status).toBe(302);
  expect(redirectParams(res).get('state')).toBe('reg-state');
  expect((await exchange(w, redirectParams(res).get('code') as string)).status).toBe(200);
  const bad = await jar.fetch(url.replace(encodeURIComponent(REDIRECT), encodeURIComponent('http://evil.example/cb')));
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('Invalid parameter: redirect_uri');
});

test('prompt=create (OpenID Connect Prompt Create) opens the registration form; discovery lists it', async () => {
  const discovery = (await (await fetch(`${w.base}/realms/${REALM}/.well-known/openid-configuration`)).json()) as {
    prompt_values_supported: string[];
  };
  expect(discovery.prompt_values_supported).toEqual(['none', 'login', 'consent', 'create']);
  const jar = new Jar();
  const page = await jar.fetch(w.authUrl({ prompt: 'create', state: 'create-1' }));
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('id="kc-register-form"');
  const res = await jar.post(formAction(html), fields('prompted'));
  expect(res.status).toBe(302);
  expect(redirectParams(res).get('state')).toBe('create-1');
  expect(await userByName('prompted')).toBeDefined();
});

test('verifyEmail: after registering, the VERIFY_EMAIL required action follows', async () => {
  await setRealm({ verifyEmail: true, smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' } });
  try {
    smtp.messages.length = 0;
    const jar = new Jar();
    const html = await registerForm(jar);
    const res = await jar.post(formAction(html), fields('verifyme'));
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('id="kc-verify-email-form"');
    const [mail] = await smtp.waitFor(1);
    expect(mail.recipients).toEqual(['verifyme@example.org']);
    expect((await userByName('verifyme')).emailVerified).toBe(false);
  } finally {
    await setRealm({ verifyEmail: false });
  }
});

test('brute-force detection is not involved: registering is no login failure', async () => {
  await setRealm({ bruteForceProtected: true, failureFactor: 1 });
  try {
    const jar = new Jar();
    let html = await registerForm(jar);
    let res = await jar.post(formAction(html), fields('alice', { password: 'wrong1', 'password-confirm': 'wrong1' }));
    html = await res.text();
    res = await jar.post(formAction(html), fields('alice', { password: 'wrong2', 'password-confirm': 'wrong2' }));
    const alice = (await w.api.get(`${R}/attack-detection/brute-force/users/${w.userId}`).expect(200)).body;
    expect(alice.numFailures).toBe(0);
    expect(alice.disabled).toBe(false);
  } finally {
    await setRealm({ bruteForceProtected: false });
  }
});

// Keycloak's login-oauth-grant.ftl: the client itself as a line (display.on.consent.screen, its consent.screen.text), its tosUri / policyUri links.
test("the consent page shows the client's own line and its terms and policy links", async () => {
  await createClient(w.api, REALM, {
    clientId: 'shop',
    name: 'The Shop',
    publicClient: true,
    consentRequired: true,
    redirectUris: [REDIRECT],
    attributes: {
      'display.on.consent.screen': 'true',
      'consent.screen.text': 'Your shop account',
      tosUri: 'https://shop.example/tos',
      policyUri: 'https://shop.example/privacy',
    },
  });
  const jar = new Jar();
  const res = await signIn(jar, w.authUrl({ client_id: 'shop' }));
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('<h1 id="kc-page-title">Grant Access to The Shop</h1>');
  expect(html).toContain('<li><span>Your shop account</span></li>');
  expect(html).toContain('Make sure you trust The Shop by learning how The Shop will handle your data.');
  expect(html).toContain('<a id="kc-client-tos" href="https://shop.example/tos"');
  expect(html).toContain('<a id="kc-client-policy" href="https://shop.example/privacy"');
  // Without those attributes: the title only, no client line, no links.
  await createClient(w.api, REALM, { clientId: 'plain', publicClient: true, consentRequired: true, redirectUris: [REDIRECT] });
  const other = await (await signIn(new Jar(), w.authUrl({ client_id: 'plain' }))).text();
  expect(other).toContain('<h1 id="kc-page-title">Grant Access to plain</h1>');
  expect(other).not.toContain('kc-oauth-client-info');
});
