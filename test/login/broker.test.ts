import { decodeJwt } from 'jose';
import { exchange, formAction, pageError } from './browser-client';
import { Browser, type BrokerWorld, brokeredLogin, brokerWorld, codeOf, providerLink, stepOf } from './broker-world';

/**
 * Identity brokering over HTTP (issue 14): realm `rp` logs users in through realm `ext` of the same
 * running server, an OpenID Connect provider reached by its real endpoints (authorization with PKCE
 * and nonce, code exchange with the client secret, ID token signature by the provider's JWKS,
 * userinfo). The first login creates the account and links it; later ones find it.
 */
let w: BrokerWorld;

const events = async (type: string) =>
  (await w.api.get(`/admin/realms/rp/events?type=${type}&max=100`).expect(200)).body as Array<Record<string, unknown>>;
const userNamed = async (username: string) =>
  ((await w.api.get(`/admin/realms/rp/users?username=${username}&exact=true`).expect(200)).body as Array<Record<string, unknown>>)[0];

beforeAll(async () => {
  w = await brokerWorld();
  // Attributes outside the user profile (set by the mappers) are visible to the admin.
  const profile = (await w.api.get('/admin/realms/rp/users/profile').expect(200)).body;
  await w.api.put('/admin/realms/rp/users/profile', { ...profile, unmanagedAttributePolicy: 'ENABLED' }).expect(200);
  // The application's tokens carry the session's identity_provider note.
  const app = (await w.api.get('/admin/realms/rp/clients?clientId=app').expect(200)).body[0];
  await w.api
    .post(`/admin/realms/rp/clients/${app.id}/protocol-mappers/models`, {
      name: 'idp',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-usersessionmodel-note-mapper',
      config: { 'user.session.note': 'identity_provider', 'claim.name': 'idp', 'jsonType.label': 'String', 'access.token.claim': 'true' },
    })
    .expect(201);
  await w.api.post('/admin/realms/rp/roles', { name: 'engineer' }).expect(201);
  await w.api.post('/admin/realms/rp/roles', { name: 'brokered' }).expect(201);
  const mappers = [
    { name: 'role', identityProviderMapper: 'oidc-hardcoded-role-idp-mapper', config: { role: 'brokered', syncMode: 'INHERIT' } },
    {
      name: 'origin',
      identityProviderMapper: 'hardcoded-attribute-idp-mapper',
      config: { attribute: 'origin', 'attribute.value': 'ext', syncMode: 'INHERIT' },
    },
    {
      name: 'dept',
      identityProviderMapper: 'oidc-user-attribute-idp-mapper',
      config: { claim: 'dept', 'user.attribute': 'department', syncMode: 'FORCE' },
    },
    {
      name: 'engineers',
      identityProviderMapper: 'oidc-role-idp-mapper',
      config: { claim: 'dept', 'claim.value': 'eng', role: 'engineer', syncMode: 'FORCE' },
    },
  ];
  for (const m of mappers) {
    await w.api.post('/admin/realms/rp/identity-provider/instances/ext/mappers', { ...m, identityProviderAlias: 'ext' }).expect(201);
  }
}, 60_000);
afterAll(() => w.ts.close());

test('the login page links the provider; the link sends the login to its authorization endpoint with state, nonce and PKCE', async () => {
  const b = new Browser();
  const html = await (await b.fetch(w.authUrl())).text();
  const link = providerLink(html, 'ext') as string;
  expect(html).toContain('>External</a>');
  expect(link).toMatch(/\/realms\/rp\/broker\/ext\/login\?client_id=app&tab_id=[^&]+&session_code=/);
  const res = await b.fetch(new URL(link, w.base).toString());
  expect(res.status).toBe(302);
  const to = new URL(res.headers.get('location') as string);
  expect(`${to.origin}${to.pathname}`).toBe(w.idpConfig.authorizationUrl);
  expect(Object.fromEntries(to.searchParams)).toMatchObject({
    client_id: 'broker-client',
    response_type: 'code',
    scope: 'openid profile email',
    redirect_uri: `${w.base}/realms/rp/broker/ext/endpoint`,
    code_challenge_method: 'S256',
  });
  expect(to.searchParams.get('nonce')).toBeTruthy();
  expect(to.searchParams.get('state')).toContain('.app');
});

test('first login: account created from the ID token, linked, mappers applied, e-mail trusted, REGISTER and LOGIN events, session note', async () => {
  const b = new Browser();
  const first = await b.fetch(w.authUrl());
  const html = await first.text();
  expect(providerLink(html, 'ext')).toBeDefined();
  const done = await brokeredLogin(w, b);
  const tokens = await exchange(w, codeOf(done));
  expect(tokens.status).toBe(200);
  const access = decodeJwt(tokens.body.access_token as string);
  expect(access).toMatchObject({ preferred_username: 'bob', email: 'bob@ext.example', idp: 'ext' });

  const bob = await userNamed('bob');
  expect(bob).toMatchObject({ email: 'bob@ext.example', firstName: 'Bob', lastName: 'Builder', emailVerified: true });
  expect((bob.attributes as Record<string, string[]>).origin).toEqual(['ext']);
  expect((bob.attributes as Record<string, string[]>).department).toEqual(['eng']);
  const links = (await w.api.get(`/admin/realms/rp/users/${bob.id}/federated-identity`).expect(200)).body;
  const extBob = (await w.api.get('/admin/realms/ext/users?username=bob&exact=true').expect(200)).body[0];
  expect(links).toEqual([{ identityProvider: 'ext', userId: extBob.id, userName: 'bob' }]);
  const roles = (await w.api.get(`/admin/realms/rp/users/${bob.id}/role-mappings/realm`).expect(200)).body.map(
    (r: { name: string }) => r.name,
  );
  expect(roles).toEqual(expect.arrayContaining(['brokered', 'engineer']));

  const register = (await events('REGISTER')).find((e) => e.userId === bob.id);
  expect(register?.details).toMatchObject({
    register_method: 'broker',
    identity_provider: 'ext',
    identity_provider_identity: 'bob',
    email: 'bob@ext.example',
  });
  const login = (await events('LOGIN')).find((e) => e.userId === bob.id);
  expect(login?.details).toMatchObject({ identity_provider: 'ext', identity_provider_identity: 'bob', username: 'bob' });

  // A later login (the provider's SSO answers at once) finds the linked account: no second REGISTER.
  b.forget('rp');
  const again = await brokeredLogin(w, b);
  expect((await exchange(w, codeOf(again))).status).toBe(200);
  expect((await events('REGISTER')).filter((e) => e.userId === bob.id)).toHaveLength(1);
  expect((await events('LOGIN')).filter((e) => e.userId === bob.id).length).toBeGreaterThanOrEqual(2);
});

test('sync modes: FORCE mappers follow the claims on each login, IMPORT ones only set on the first', async () => {
  const b = new Browser();
  await brokeredLogin(w, b);
  const bob = await userNamed('bob');
  // The admin changes what the import set; the provider's claim changes.
  await w.api.put(`/admin/realms/rp/users/${bob.id}`, { ...bob, attributes: { origin: ['changed'], department: ['eng'] } }).expect(204);
  const client = (await w.api.get('/admin/realms/ext/clients?clientId=broker-client').expect(200)).body[0];
  const dept = client.protocolMappers.find((m: { name: string }) => m.name === 'dept');
  await w.api
    .put(`/admin/realms/ext/clients/${client.id}/protocol-mappers/models/${dept.id}`, {
      ...dept,
      config: { ...dept.config, 'claim.value': 'ops' },
    })
    .expect(204);
  const done = await brokeredLogin(w, new Browser());
  expect((await exchange(w, codeOf(done))).status).toBe(200);
  const after = await userNamed('bob');
  expect((after.attributes as Record<string, string[]>).department).toEqual(['ops']);
  expect((after.attributes as Record<string, string[]>).origin).toEqual(['changed']);
  const roles = (await w.api.get(`/admin/realms/rp/users/${bob.id}/role-mappings/realm`).expect(200)).body.map(
    (r: { name: string }) => r.name,
  );
  expect(roles).toContain('brokered');
  expect(roles).not.toContain('engineer');
  await w.api.put(`/admin/realms/ext/clients/${client.id}/protocol-mappers/models/${dept.id}`, dept).expect(204);
});

test('an existing account with the e-mail: "already exists" page, link after re-authentication with its password', async () => {
  await w.api
    .post('/admin/realms/ext/users', {
      username: 'alice-ext',
      enabled: true,
      email: 'alice@example.org',
      firstName: 'Alice',
      lastName: 'External',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    })
    .expect(201);
  const b = new Browser();
  const confirm = await brokeredLogin(w, b, { username: 'alice-ext' });
  expect(confirm.status).toBe(200);
  expect(confirm.html).toContain('User with email alice@example.org already exists. How do you want to continue?');
  const reauth = await stepOf(await b.post(formAction(confirm.html), { submitAction: 'linkAccount' }));
  expect(reauth.status).toBe(200);
  expect(reauth.html).toContain('Authenticate to link your account with ext');
  const wrong = await stepOf(await b.post(formAction(reauth.html), { password: 'nope' }));
  expect(pageError(wrong.html)).toBe('Invalid username or password.');
  const done = await stepOf(await b.post(formAction(wrong.html), { password: 'pw' }));
  expect((await exchange(w, codeOf(done))).status).toBe(200);
  const links = (await w.api.get(`/admin/realms/rp/users/${w.userId}/federated-identity`).expect(200)).body;
  expect(links).toEqual([expect.objectContaining({ identityProvider: 'ext', userName: 'alice-ext' })]);
  const link = (await events('FEDERATED_IDENTITY_LINK')).find((e) => e.userId === w.userId);
  expect(link?.details).toMatchObject({ identity_provider: 'ext', identity_provider_identity: 'alice-ext' });
  expect(await userNamed('alice-ext')).toBeUndefined();
});

test('review profile "on": the brokered profile is shown and may be corrected before the account is created', async () => {
  await w.api
    .post('/admin/realms/ext/users', {
      username: 'carol',
      enabled: true,
      email: 'carol@ext.example',
      firstName: 'Carol',
      lastName: 'Cook',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    })
    .expect(201);
  const execs = (await w.api.get('/admin/realms/rp/authentication/flows/first%20broker%20login/executions').expect(200)).body;
  const review = execs.find((e: { providerId?: string }) => e.providerId === 'idp-review-profile');
  const config = (await w.api.get(`/admin/realms/rp/authentication/config/${review.authenticationConfig}`).expect(200)).body;
  await w.api
    .put(`/admin/realms/rp/authentication/config/${config.id}`, { ...config, config: { 'update.profile.on.first.login': 'on' } })
    .expect(204);
  const b = new Browser();
  const page = await brokeredLogin(w, b, { username: 'carol' });
  expect(page.status).toBe(200);
  expect(page.html).toContain('Update Account Information');
  expect(page.html).toContain('value="carol@ext.example"');
  const invalid = await stepOf(
    await b.post(formAction(page.html), { username: 'carol', email: 'carol@ext.example', firstName: 'Carol', lastName: '' }),
  );
  expect(invalid.status).toBe(400);
  expect(invalid.html).toContain('Please specify last name.');
  const done = await stepOf(
    await b.post(formAction(invalid.html), { username: 'carol', email: 'carol@elsewhere.example', firstName: 'Carol', lastName: 'Cooper' }),
  );
  expect((await exchange(w, codeOf(done))).status).toBe(200);
  // The address was changed on review: trustEmail does not vouch for it.
  expect(await userNamed('carol')).toMatchObject({ email: 'carol@elsewhere.example', lastName: 'Cooper', emailVerified: false });
  await w.api.put(`/admin/realms/rp/authentication/config/${config.id}`, config).expect(204);
});

test('kc_idp_hint redirects at once; an unknown hint shows the form; hideOnLogin only unlists; a disabled or link-only provider refuses', async () => {
  const b = new Browser();
  const hinted = await b.fetch(w.authUrl({ kc_idp_hint: 'ext' }));
  expect(hinted.status).toBe(302);
  expect(hinted.headers.get('location')).toContain(w.idpConfig.authorizationUrl);
  const unknown = await b.fetch(w.authUrl({ kc_idp_hint: 'nope' }));
  expect(unknown.status).toBe(200);
  expect(await unknown.text()).toContain('id="kc-form-login"');

  const rep = (await w.api.get('/admin/realms/rp/identity-provider/instances/ext').expect(200)).body;
  // hideOnLogin: not listed, but a hint still goes to it.
  await w.api.put('/admin/realms/rp/identity-provider/instances/ext', { ...rep, hideOnLogin: true, config: w.idpConfig }).expect(204);
  expect(providerLink(await (await b.fetch(w.authUrl())).text(), 'ext')).toBeUndefined();
  expect((await b.fetch(w.authUrl({ kc_idp_hint: 'ext' }))).status).toBe(302);
  await w.api.put('/admin/realms/rp/identity-provider/instances/ext', { ...rep, config: w.idpConfig }).expect(204);
  const page = await (await b.fetch(w.authUrl())).text();
  const link = providerLink(page, 'ext') as string;
  for (const change of [{ enabled: false }, { linkOnly: true }]) {
    await w.api.put('/admin/realms/rp/identity-provider/instances/ext', { ...rep, ...change, config: w.idpConfig }).expect(204);
    expect(providerLink(await (await b.fetch(w.authUrl())).text(), 'ext')).toBeUndefined();
    const refused = await b.fetch(new URL(link, w.base).toString());
    expect(refused.status).toBe(502);
    expect(pageError(await refused.text())).toBe('Could not send authentication request to identity provider.');
    expect((await b.fetch(w.authUrl({ kc_idp_hint: 'ext' }))).status).toBe(200);
  }
  await w.api.put('/admin/realms/rp/identity-provider/instances/ext', { ...rep, config: w.idpConfig }).expect(204);
});

test('a forged state or a cancelled provider login: an error page with IDENTITY_PROVIDER_LOGIN_ERROR, or the login form again', async () => {
  const b = new Browser();
  const link = providerLink(await (await b.fetch(w.authUrl())).text(), 'ext') as string;
  const sent = new URL((await b.fetch(new URL(link, w.base).toString())).headers.get('location') as string);
  const state = sent.searchParams.get('state') as string;
  const endpoint = `${w.base}/realms/rp/broker/ext/endpoint`;
  const forged = await b.fetch(`${endpoint}?code=x&state=${encodeURIComponent(`zzz${state}`)}`);
  expect(forged.status).toBe(400);
  expect(pageError(await forged.text())).toBe('Invalid response from identity provider.');
  // An unknown provider: its callback is a 404 page, a link to it cannot send the request.
  expect((await b.fetch(`${w.base}/realms/rp/broker/nope/endpoint?code=x&state=${encodeURIComponent(state)}`)).status).toBe(404);
  expect((await b.fetch(new URL(link.replace('/broker/ext/', '/broker/nope/'), w.base).toString())).status).toBe(502);
  const missing = await b.fetch(`${endpoint}?code=x`);
  expect(missing.status).toBe(502);
  const badCode = await b.fetch(`${endpoint}?code=not-a-code&state=${encodeURIComponent(state)}`);
  expect(badCode.status).toBe(502);
  expect(pageError(await badCode.text())).toBe('Unexpected error when authenticating with identity provider');
  const errors = await events('IDENTITY_PROVIDER_LOGIN_ERROR');
  expect(errors.map((e) => e.error)).toEqual(expect.arrayContaining(['identity_provider_login_failure']));

  // A new request to the provider, then the user cancels there: the login form is shown again.
  const again = new URL((await b.fetch(new URL(link, w.base).toString())).headers.get('location') as string);
  const cancelled = await b.fetch(`${endpoint}?error=access_denied&state=${encodeURIComponent(again.searchParams.get('state') as string)}`);
  expect(cancelled.status).toBe(200);
  expect(await cancelled.text()).toContain('id="kc-form-login"');
});

test('a disabled linked account is refused with IDENTITY_PROVIDER_LOGIN_ERROR user_disabled', async () => {
  const bob = await userNamed('bob');
  await w.api.put(`/admin/realms/rp/users/${bob.id}`, { ...bob, enabled: false }).expect(204);
  const b = new Browser();
  const refused = await brokeredLogin(w, b);
  expect(refused.status).toBe(400);
  expect(pageError(refused.html)).toBe('Account is disabled, contact your administrator.');
  expect((await events('IDENTITY_PROVIDER_LOGIN_ERROR')).some((e) => e.error === 'user_disabled' && e.userId === bob.id)).toBe(true);
  await w.api.put(`/admin/realms/rp/users/${bob.id}`, { ...bob, enabled: true }).expect(204);
});
