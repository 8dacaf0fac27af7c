import { exchange, formAction, pageError, REDIRECT } from './browser-client';
import { Browser, type BrokerWorld, brokerWorld, codeOf, providerLink, type Step, stepOf, viaProvider } from './broker-world';

/**
 * The browser flow's `organization` authenticator as Keycloak 26's OrganizationAuthenticator: the
 * select-organization page for plain `scope=organization` asked by a member of several (the token
 * then maps the one picked, refreshed too), `organization:<alias>`, `login_hint` skipping the
 * identity-first page, a managed member sent to the home provider unless the user has a password,
 * an unknown user of an organization's domain told so, a disabled user refused, and the execution's
 * requiresUserMembership.
 */
type Api = BrokerWorld['api'];
let w: BrokerWorld;
const ids: Record<string, string> = {};
const idOf = (location: unknown) => String(location).split('/').pop() as string;
const payload = (jwt: unknown) => JSON.parse(Buffer.from(String(jwt).split('.')[1], 'base64url').toString());

async function org(api: Api, name: string, alias: string, domain: string): Promise<string> {
  const created = await api.post('/admin/realms/rp/organizations', { name, alias, domains: [{ name: domain }] }).expect(201);
  return idOf(created.headers.location);
}

async function user(api: Api, username: string, email: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post('/admin/realms/rp/users', {
    username,
    email,
    enabled: true,
    firstName: username,
    lastName: 'X',
    ...extra,
  });
  expect(created.status).toBe(201);
  return idOf(created.headers.location);
}

const join = (api: Api, orgId: string, userId: string) =>
  api.post(`/admin/realms/rp/organizations/${orgId}/members`, JSON.stringify(userId)).set('Content-Type', 'application/json').expect(201);

/** The identity-first page of a new login, and the step after posting `username` to it. */
async function identityFirst(b: Browser, username: string, params: Record<string, string> = {}): Promise<Step> {
  const first = await stepOf(await b.fetch(w.authUrl(params)));
  expect(first.status).toBe(200);
  expect(first.html).not.toContain('id="password"');
  return stepOf(await b.post(formAction(first.html), { username }));
}

async function organizationExecution(): Promise<{ id: string }> {
  const execs = (await w.api.get('/admin/realms/rp/authentication/flows/browser/executions').expect(200)).body;
  return execs.find((e: { providerId?: string }) => e.providerId === 'organization');
}

beforeAll(async () => {
  w = await brokerWorld({ organizationsEnabled: true });
  ids.ext = await org(w.api, 'Ext Corp', 'ext-corp', 'ext.example');
  ids.acme = await org(w.api, 'Acme', 'acme', 'acme.example');
  ids.beta = await org(w.api, 'Beta', 'beta', 'beta.example');
  await w.api
    .post(`/admin/realms/rp/organizations/${ids.ext}/identity-providers`, '"ext"')
    .set('Content-Type', 'application/json')
    .expect(204);
  const rep = (await w.api.get('/admin/realms/rp/identity-provider/instances/ext').expect(200)).body;
  await w.api
    .put('/admin/realms/rp/identity-provider/instances/ext', {
      ...rep,
      config: { ...w.idpConfig, loginHint: 'true', 'kc.org.domain': 'ext.example', 'kc.org.broker.redirect.mode.email-matches': 'true' },
    })
    .expect(204);
  // alice (password `pw`) is a member of Acme and Beta.
  await join(w.api, ids.acme, w.userId);
  await join(w.api, ids.beta, w.userId);
}, 60_000);
afterAll(() => w.ts.close());

describe('select-organization', () => {
  test('scope=organization, a member of two: the page lists both; the one picked is the token claim, refreshed too', async () => {
    const b = new Browser();
    const select = await identityFirst(b, 'alice', { scope: 'openid organization' });
    expect(select.status).toBe(200);
    expect(select.html).toContain('Select an organization to proceed:');
    expect(select.html).toContain('id="organization-acme" name="kc.org" value="acme"');
    expect(select.html).toContain('id="organization-beta" name="kc.org" value="beta"');
    const password = await stepOf(await b.post(formAction(select.html), { 'kc.org': 'beta' }));
    expect(password.html).toContain('id="password"');
    expect(password.html).toContain('value="alice"');
    const done = await stepOf(await b.post(formAction(password.html), { username: 'alice', password: 'pw' }));
    const tokens = await exchange(w, codeOf(done));
    expect(tokens.status).toBe(200);
    expect(payload(tokens.body.access_token).organization).toEqual(['beta']);
    expect(payload(tokens.body.id_token).organization).toEqual(['beta']);
    const refreshed = await fetch(w.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: String(tokens.body.refresh_token) }),
    });
    expect(payload(((await refreshed.json()) as Record<string, unknown>).access_token).organization).toEqual(['beta']);
  });

  test('another login picks the other one; a login of the same SSO session without the scope maps none', async () => {
    const b = new Browser();
    const select = await identityFirst(b, 'alice', { scope: 'openid organization' });
    const password = await stepOf(await b.post(formAction(select.html), { 'kc.org': 'acme' }));
    const done = await stepOf(await b.post(formAction(password.html), { username: 'alice', password: 'pw' }));
    expect(payload((await exchange(w, codeOf(done))).body.access_token).organization).toEqual(['acme']);
    // The same SSO session, a login without the organization scope: no claim.
    const sso = await stepOf(await b.fetch(w.authUrl()));
    expect(sso.location?.startsWith(REDIRECT)).toBe(true);
    expect(payload((await exchange(w, codeOf(sso))).body.access_token).organization).toBeUndefined();
  });

  test('signed in already (SSO cookie): plain organization asks again which one, then ends without a password', async () => {
    const b = new Browser();
    const select = await identityFirst(b, 'alice', { scope: 'openid organization' });
    const password = await stepOf(await b.post(formAction(select.html), { 'kc.org': 'beta' }));
    const first = await stepOf(await b.post(formAction(password.html), { username: 'alice', password: 'pw' }));
    const sid = payload((await exchange(w, codeOf(first))).body.access_token).sid;
    expect(sid).toEqual(expect.any(String));
    const again = await stepOf(await b.fetch(w.authUrl({ scope: 'openid organization' })));
    expect(again.status).toBe(200);
    expect(again.html).toContain('id="organization-acme"');
    const done = await stepOf(await b.post(formAction(again.html), { 'kc.org': 'acme' }));
    const tokens = await exchange(w, codeOf(done));
    expect(payload(tokens.body.access_token).organization).toEqual(['acme']);
    // The same SSO session, now mapping the organization picked last.
    expect(payload(tokens.body.access_token).sid).toBe(sid);
    // organization:<alias> with the cookie: no page at all.
    const scoped = await stepOf(await b.fetch(w.authUrl({ scope: 'openid organization:beta' })));
    expect(payload((await exchange(w, codeOf(scoped))).body.access_token).organization).toEqual(['beta']);
  });

  test('scope=organization:<alias> picks no page: that organization is the claim', async () => {
    const b = new Browser();
    const password = await identityFirst(b, 'alice', { scope: 'openid organization:acme' });
    expect(password.html).toContain('id="password"');
    const done = await stepOf(await b.post(formAction(password.html), { username: 'alice', password: 'pw' }));
    expect(payload((await exchange(w, codeOf(done))).body.access_token).organization).toEqual(['acme']);
  });

  test('organization:<alias> of no enabled organization is an invalid scope', async () => {
    const res = await new Browser().fetch(w.authUrl({ scope: 'openid organization:nope' }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location') as string).searchParams.get('error')).toBe('invalid_scope');
  });

  test('a member of one organization gets no page', async () => {
    const carl = await user(w.api, 'carl', 'carl@example.org', { credentials: [{ type: 'password', value: 'pw', temporary: false }] });
    await join(w.api, ids.acme, carl);
    const b = new Browser();
    const password = await identityFirst(b, 'carl', { scope: 'openid organization' });
    expect(password.html).toContain('id="password"');
    const done = await stepOf(await b.post(formAction(password.html), { username: 'carl', password: 'pw' }));
    expect(payload((await exchange(w, codeOf(done))).body.access_token).organization).toEqual(['acme']);
  });
});

describe('login_hint, home providers, unknown and disabled users', () => {
  test('login_hint skips the identity-first page: a known user gets the password form, an e-mail of the domain its provider', async () => {
    const page = await stepOf(await new Browser().fetch(w.authUrl({ login_hint: 'alice' })));
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="password"');
    expect(page.html).toContain('value="alice"');
    const sent = await new Browser().fetch(w.authUrl({ login_hint: 'bob@ext.example' }));
    expect(sent.status).toBe(302);
    const to = new URL(sent.headers.get('location') as string);
    expect(to.href).toContain(w.idpConfig.authorizationUrl);
    expect(to.searchParams.get('login_hint')).toBe('bob@ext.example');
  });

  test('a managed member goes to the home provider by username; once the user has a password, no more', async () => {
    // bob signs in through Ext Corp's provider: a managed member linked to `ext`.
    const b = new Browser();
    const sent = await identityFirst(b, 'bob@ext.example');
    expect((await exchange(w, codeOf(await viaProvider(w, b, sent.location as string)))).status).toBe(200);
    const bob = (await w.api.get('/admin/realms/rp/users?username=bob&exact=true').expect(200)).body[0];
    // An e-mail of no organization's domain: only the home provider can send him to `ext`.
    await w.api.put(`/admin/realms/rp/users/${bob.id}`, { ...bob, email: 'bob@elsewhere.example' }).expect(204);
    const home = await identityFirst(new Browser(), 'bob');
    expect(home.status).toBe(302);
    const to = new URL(home.location as string);
    expect(to.href).toContain(w.idpConfig.authorizationUrl);
    expect(to.searchParams.get('login_hint')).toBe('bob@elsewhere.example');

    // With a password, neither the home provider nor the e-mail's domain redirects: the user picks how to sign in.
    await w.api.put(`/admin/realms/rp/users/${bob.id}`, { ...bob, email: 'bob@ext.example' }).expect(204);
    await w.api.put(`/admin/realms/rp/users/${bob.id}/reset-password`, { type: 'password', value: 'pw2', temporary: false }).expect(204);
    for (const name of ['bob', 'bob@ext.example']) {
      const password = await identityFirst(new Browser(), name);
      expect(password.status).toBe(200);
      expect(password.html).toContain('id="password"');
    }
  });

  test("an unknown e-mail of an organization's domain: the identity-first page again, saying so", async () => {
    const again = await identityFirst(new Browser(), 'nobody@acme.example');
    expect(again.status).toBe(200);
    expect(again.html).not.toContain('id="password"');
    expect(pageError(again.html)).toBe("Your email domain matches the Acme organization but you don't have an account yet.");
    // An unknown name of no domain goes on to the password form, as before.
    expect((await identityFirst(new Browser(), 'nobody')).html).toContain('id="password"');
  });

  test("in an organization's login (organization:<alias>) an unknown user is offered its public providers, and no registration", async () => {
    await w.api.put('/admin/realms/rp', { registrationAllowed: true }).expect(204);
    try {
      const plain = await stepOf(await new Browser().fetch(w.authUrl()));
      expect(providerLink(plain.html, 'ext')).toBeUndefined();
      expect(plain.html).toContain('id="kc-register-link"');
      const b = new Browser();
      const scoped = await stepOf(await b.fetch(w.authUrl({ scope: 'openid organization:ext-corp' })));
      expect(scoped.status).toBe(200);
      expect(scoped.html).not.toContain('id="kc-register-link"');
      const link = providerLink(scoped.html, 'ext') as string;
      expect(link).toContain('/broker/ext/login');
      // An unknown name without a domain: the same page again.
      const again = await stepOf(await b.post(formAction(scoped.html), { username: 'stranger' }));
      expect(again.status).toBe(200);
      expect(pageError(again.html)).toBeUndefined();
      expect(providerLink(again.html, 'ext')).toBeDefined();
    } finally {
      await w.api.put('/admin/realms/rp', { registrationAllowed: false }).expect(204);
    }
  });

  test('a blank username: the identity-first page with "Invalid username."', async () => {
    const again = await identityFirst(new Browser(), '  ');
    expect(again.status).toBe(200);
    expect(pageError(again.html)).toBe('Invalid username.');
  });

  test('a disabled user of an organization: the login stops, LOGIN_ERROR user_not_found', async () => {
    await user(w.api, 'dora', 'dora@acme.example', { enabled: false });
    const stopped = await identityFirst(new Browser(), 'dora');
    expect(stopped.status).toBe(400);
    expect(pageError(stopped.html)).toBe('Invalid username or password.');
    const errors = (await w.api.get('/admin/realms/rp/events?type=LOGIN_ERROR').expect(200)).body;
    expect(errors[0]).toMatchObject({ error: 'user_not_found' });
  });
});

describe('requiresUserMembership', () => {
  test('a user outside the organization of organization:<alias>, or of any organization, stops at a 403 page', async () => {
    const exec = await organizationExecution();
    const created = await w.api
      .post(`/admin/realms/rp/authentication/executions/${exec.id}/config`, {
        alias: 'members-only',
        config: { requiresUserMembership: 'true' },
      })
      .expect(201);
    try {
      const outside = await identityFirst(new Browser(), 'alice', { scope: 'openid organization:ext-corp' });
      expect(outside.status).toBe(403);
      expect(pageError(outside.html)).toBe('User is not a member of the organization Ext Corp');
      await user(w.api, 'erin', 'erin@example.org');
      const none = await identityFirst(new Browser(), 'erin');
      expect(none.status).toBe(403);
      expect(pageError(none.html)).toBe('User is not a member of any organization');
      // A member goes on.
      expect((await identityFirst(new Browser(), 'alice', { scope: 'openid organization:acme' })).html).toContain('id="password"');
    } finally {
      await w.api.delete(`/admin/realms/rp/authentication/config/${idOf(created.headers.location)}`).expect(204);
    }
  });
});
