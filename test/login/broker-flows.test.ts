import { startSmtp } from '../helpers/smtp';
import { exchange, formAction, pageError } from './browser-client';
import { Browser, type BrokerWorld, brokeredLogin, brokerWorld, codeOf, stepOf, viaProvider } from './broker-world';

/**
 * Identity brokering configured through the admin API: the identity-provider-redirector's
 * defaultProvider, a provider's own first broker login flow (idp-auto-link) and post broker login
 * flow, storeToken with client_secret_basic, and Keycloak 26's organization identity-first login that
 * sends an e-mail of an organization's domain to that organization's provider.
 */
type Api = BrokerWorld['api'];

async function extUser(api: Api, username: string, email: string): Promise<void> {
  await api
    .post('/admin/realms/ext/users', {
      username,
      enabled: true,
      email,
      firstName: username,
      lastName: 'Ext',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    })
    .expect(201);
}

/** A top-level flow of `rp` with these executions (provider, requirement), in order. */
async function makeFlow(api: Api, alias: string, executions: Array<[string, string, Record<string, string>?]>): Promise<void> {
  const base = '/admin/realms/rp/authentication/flows';
  await api.post(base, { alias, providerId: 'basic-flow', topLevel: true, builtIn: false, description: alias }).expect(201);
  for (const [provider] of executions)
    await api.post(`${base}/${encodeURIComponent(alias)}/executions/execution`, { provider }).expect(201);
  const rows = (await api.get(`${base}/${encodeURIComponent(alias)}/executions`).expect(200)).body;
  for (const [i, [, requirement, config]] of executions.entries()) {
    await api.put(`${base}/${encodeURIComponent(alias)}/executions`, { ...rows[i], requirement }).expect(204);
    if (config)
      await api.post(`/admin/realms/rp/authentication/executions/${rows[i].id}/config`, { alias: `${alias}-${i}`, config }).expect(201);
  }
}

async function updateIdp(w: BrokerWorld, change: Record<string, unknown>, config: Record<string, string> = {}): Promise<void> {
  const rep = (await w.api.get('/admin/realms/rp/identity-provider/instances/ext').expect(200)).body;
  await w.api
    .put('/admin/realms/rp/identity-provider/instances/ext', { ...rep, ...change, config: { ...w.idpConfig, ...config } })
    .expect(204);
}

describe('flows of a provider', () => {
  let w: BrokerWorld;
  const user = async (username: string) =>
    (await w.api.get(`/admin/realms/rp/users?username=${username}&exact=true`).expect(200)).body[0] as Record<string, unknown> | undefined;
  const links = async (id: string) => (await w.api.get(`/admin/realms/rp/users/${id}/federated-identity`).expect(200)).body;

  beforeAll(async () => {
    w = await brokerWorld();
  }, 60_000);
  afterAll(() => w.ts.close());

  test("the provider's first broker login flow with idp-auto-link links the account with the same e-mail without asking", async () => {
    await makeFlow(w.api, 'auto link', [
      ['idp-create-user-if-unique', 'ALTERNATIVE'],
      ['idp-auto-link', 'ALTERNATIVE'],
    ]);
    await updateIdp(w, { firstBrokerLoginFlowAlias: 'auto link' });
    await extUser(w.api, 'alice-at-ext', 'alice@example.org');
    const done = await brokeredLogin(w, new Browser(), { username: 'alice-at-ext' });
    expect((await exchange(w, codeOf(done))).status).toBe(200);
    expect(await links(w.userId)).toEqual([expect.objectContaining({ identityProvider: 'ext', userName: 'alice-at-ext' })]);
    await updateIdp(w, { firstBrokerLoginFlowAlias: null });
  });

  test('the default flow with a REQUIRED idp-create-user-if-unique stops on an existing account: "already exists", IDENTITY_PROVIDER_FIRST_LOGIN_ERROR', async () => {
    await makeFlow(w.api, 'unique only', [['idp-create-user-if-unique', 'REQUIRED']]);
    await updateIdp(w, { firstBrokerLoginFlowAlias: 'unique only' });
    await w.api.post('/admin/realms/rp/users', { username: 'erin', enabled: true, email: 'erin@example.org' }).expect(201);
    await extUser(w.api, 'erin-ext', 'erin@example.org');
    const refused = await brokeredLogin(w, new Browser(), { username: 'erin-ext' });
    expect(refused.status).toBe(409);
    expect(pageError(refused.html)).toBe(
      'User with email erin@example.org already exists. Please login to account management to link the account.',
    );
    const errors = (await w.api.get('/admin/realms/rp/events?type=IDENTITY_PROVIDER_FIRST_LOGIN_ERROR').expect(200)).body;
    expect(errors[0]).toMatchObject({
      error: 'federated_identity_account_exists',
      details: { identity_provider: 'ext', existing_email: 'erin@example.org' },
    });
    await updateIdp(w, { firstBrokerLoginFlowAlias: null });
  });

  test('a post broker login flow runs after every brokered login: its deny-access stops the login, the link stays', async () => {
    await makeFlow(w.api, 'after idp', [['deny-access-authenticator', 'REQUIRED', { denyErrorMessage: 'No brokered logins today' }]]);
    await updateIdp(w, { postBrokerLoginFlowAlias: 'after idp' });
    await extUser(w.api, 'frank', 'frank@ext.example');
    const denied = await brokeredLogin(w, new Browser(), { username: 'frank' });
    expect(denied.status).toBe(401);
    expect(pageError(denied.html)).toBe('No brokered logins today');
    const frank = await user('frank');
    expect(await links(frank?.id as string)).toHaveLength(1);
    await updateIdp(w, { postBrokerLoginFlowAlias: null });
    expect((await exchange(w, codeOf(await brokeredLogin(w, new Browser(), { username: 'frank' })))).status).toBe(200);
  });

  test('storeToken keeps the token response on the link; client_secret_basic authenticates the code exchange', async () => {
    await updateIdp(w, { storeToken: true }, { clientAuthMethod: 'client_secret_basic' });
    await extUser(w.api, 'gina', 'gina@ext.example');
    expect((await exchange(w, codeOf(await brokeredLogin(w, new Browser(), { username: 'gina' })))).status).toBe(200);
    const gina = await user('gina');
    // The admin API never shows a stored token: read the row.
    const row = await w.ts.db.models.FederatedIdentity.findOne({ where: { userId: gina?.id as string } });
    expect(JSON.parse(row?.token as string)).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    await updateIdp(w, { storeToken: false });
  });

  test('identity-provider-redirector with defaultProvider sends every login to the provider', async () => {
    const execs = (await w.api.get('/admin/realms/rp/authentication/flows/browser/executions').expect(200)).body;
    const redirector = execs.find((e: { providerId?: string }) => e.providerId === 'identity-provider-redirector');
    const created = await w.api
      .post(`/admin/realms/rp/authentication/executions/${redirector.id}/config`, { alias: 'to-ext', config: { defaultProvider: 'ext' } })
      .expect(201);
    const b = new Browser();
    const res = await b.fetch(w.authUrl());
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain(w.idpConfig.authorizationUrl);
    const done = await viaProvider(w, b, res.headers.get('location') as string);
    expect((await exchange(w, codeOf(done))).status).toBe(200);
    await w.api.delete(`/admin/realms/rp/authentication/config/${String(created.headers.location).split('/').pop()}`).expect(204);
    expect((await new Browser().fetch(w.authUrl())).status).toBe(200);
  });

  test('idp-email-verification: a mailed link confirms the link in the browser of the login (SEND_IDENTITY_PROVIDER_LINK, IDENTITY_PROVIDER_LINK_ACCOUNT)', async () => {
    const smtp = await startSmtp();
    try {
      await w.api
        .put('/admin/realms/rp', { smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' } })
        .expect(204);
      await w.api
        .post('/admin/realms/rp/users', { username: 'hank', enabled: true, email: 'hank@example.org', firstName: 'Hank', lastName: 'Hill' })
        .expect(201);
      await extUser(w.api, 'hank-ext', 'hank@example.org');
      const b = new Browser();
      const confirm = await brokeredLogin(w, b, { username: 'hank-ext' });
      const sent = await stepOf(await b.post(formAction(confirm.html), { submitAction: 'linkAccount' }));
      expect(sent.status).toBe(200);
      expect(sent.html).toContain('An email with instructions to link ext account hank-ext with your rp account has been sent to you.');
      const [mail] = await smtp.waitFor(1);
      expect(mail.recipients).toContain('hank@example.org');
      const link = (/https?:\/\/\S+action-token\S+/.exec(mail.text) as RegExpExecArray)[0];
      // In another browser the link does not link anything.
      expect((await new Browser().fetch(link)).status).toBe(400);
      const done = await stepOf(await b.follow(await b.fetch(link)));
      expect((await exchange(w, codeOf(done))).status).toBe(200);
      const hank = (await w.api.get('/admin/realms/rp/users?username=hank&exact=true').expect(200)).body[0];
      expect(await links(hank.id)).toEqual([expect.objectContaining({ identityProvider: 'ext', userName: 'hank-ext' })]);
      const linked = (await w.api.get('/admin/realms/rp/events?type=IDENTITY_PROVIDER_LINK_ACCOUNT').expect(200)).body;
      expect(linked[0]).toMatchObject({ userId: hank.id, details: { identity_provider: 'ext', identity_provider_identity: 'hank-ext' } });
      expect((await w.api.get('/admin/realms/rp/events?type=SEND_IDENTITY_PROVIDER_LINK').expect(200)).body).toHaveLength(1);
      expect((await b.fetch(link)).status).toBe(400);
    } finally {
      await w.api.put('/admin/realms/rp', { smtpServer: {} }).expect(204);
      await smtp.close();
    }
  });
});

describe('organizations: identity-first login redirects an e-mail of the domain to its provider', () => {
  let w: BrokerWorld;
  let orgId: string;

  beforeAll(async () => {
    w = await brokerWorld({ organizationsEnabled: true });
    const org = await w.api
      .post('/admin/realms/rp/organizations', { name: 'Ext Corp', alias: 'ext-corp', domains: [{ name: 'ext.example' }] })
      .expect(201);
    orgId = String(org.headers.location).split('/').pop() as string;
    await w.api
      .post(`/admin/realms/rp/organizations/${orgId}/identity-providers`, '"ext"')
      .set('Content-Type', 'application/json')
      .expect(204);
    await updateIdp(w, {}, { 'kc.org.domain': 'ext.example', 'kc.org.broker.redirect.mode.email-matches': 'true' });
  }, 60_000);
  afterAll(() => w.ts.close());

  test('bob@ext.example goes to the provider and becomes a managed member; alice gets the password form', async () => {
    const b = new Browser();
    const first = await stepOf(await b.fetch(w.authUrl()));
    expect(first.status).toBe(200);
    expect(first.html).not.toContain('id="password"');
    // The provider is the organization's: not listed on the page.
    expect(first.html).not.toContain('social-ext');
    const sent = await b.post(formAction(first.html), { username: 'bob@ext.example' });
    expect(sent.status).toBe(302);
    const to = new URL(sent.headers.get('location') as string);
    expect(to.href).toContain(w.idpConfig.authorizationUrl);
    const done = await viaProvider(w, b, to.href);
    expect((await exchange(w, codeOf(done))).status).toBe(200);
    const members = (await w.api.get(`/admin/realms/rp/organizations/${orgId}/members`).expect(200)).body;
    expect(members).toEqual([expect.objectContaining({ username: 'bob', membershipType: 'MANAGED' })]);

    const other = new Browser();
    const page = await stepOf(await other.fetch(w.authUrl()));
    const password = await stepOf(await other.post(formAction(page.html), { username: 'alice' }));
    expect(password.status).toBe(200);
    expect(password.html).toContain('id="password"');
    const signedIn = await stepOf(await other.post(formAction(password.html), { username: 'alice', password: 'pw' }));
    expect((await exchange(w, codeOf(signedIn))).status).toBe(200);
  });
});
