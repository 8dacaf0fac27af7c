import { randomUUID } from 'node:crypto';
import { jwtVerify } from 'jose';
import { realmKeys } from '../../../src/auth/realm-keys';
import { createdId, realmAdmin, realmIdOf } from '../../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../../helpers/server';
import { type ReceivedMail, type TestSmtp, startSmtp } from '../../helpers/smtp';

/**
 * execute-actions-email and send-verify-email (reference §4.14) through a real SMTP listener: the
 * mail arrives, its link carries an action token signed with the realm's active HS512 key (Keycloak's
 * action tokens are TokenCategory.INTERNAL: DefaultTokenManager#signatureAlgorithm, HS512), and every
 * check answers with Keycloak's message in Keycloak's order.
 */
let ts: TestServer;
let api: AdminApi;
let smtp: TestSmtp;
const R = 'mail';
const U = `/admin/realms/${R}/users`;
const ids: Record<string, string> = {};

const smtpSettings = () => ({
  host: '127.0.0.1',
  port: String(smtp.port),
  from: 'noreply@idserver.test',
  fromDisplayName: 'ID Server',
  replyTo: 'help@idserver.test',
  envelopeFrom: 'bounces@idserver.test',
});

const createUser = async (body: Record<string, unknown>) => createdId(await api.post(U, body), String(body.username));

async function addClient(clientId: string, settings: Record<string, unknown>, enabled = true): Promise<void> {
  await ts.db.models.Client.create({ id: randomUUID(), realmId: await realmIdOf(api, R), clientId, enabled, settings });
}

const linkOf = (mail: ReceivedMail) => {
  const m = /(http:\/\/localhost:8080\/realms\/mail\/login-actions\/action-token\?\S+)/.exec(mail.text);
  if (!m) throw new Error(`no link in ${mail.text}`);
  return new URL(m[1]);
};

/** The token verified with the realm's active HS512 key, the one `GET /keys` names. */
async function verifyToken(token: string) {
  const kid = (await api.get(`/admin/realms/${R}/keys`).expect(200)).body.active.HS512;
  const key = (await realmKeys(ts.db, { id: await realmIdOf(api, R) })).find((k) => k.kid === kid);
  const { payload, protectedHeader } = await jwtVerify(token, key?.secret as Uint8Array, { issuer: `http://localhost:8080/realms/${R}` });
  expect(protectedHeader).toEqual({ alg: 'HS512', typ: 'JWT', kid });
  return { payload, protectedHeader };
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  smtp = await startSmtp();
  expect((await api.post('/admin/realms', { realm: R, enabled: true, smtpServer: smtpSettings() })).status).toBe(201);
  ids.alice = await createUser({ username: 'alice', email: 'alice@example.com', enabled: true });
  ids.bob = await createUser({ username: 'bob', email: 'bob@example.com', enabled: false });
  ids.carl = await createUser({ username: 'carl', enabled: true });
  await addClient('webapp', {
    rootUrl: 'https://app.example.com',
    redirectUris: ['https://app.example.com/cb/*', '/relative/*', 'https://exact.example.com/done'],
  });
  await addClient('off', { redirectUris: ['*'] }, false);
});
afterAll(async () => {
  await smtp.close();
  await ts.close();
});
beforeEach(() => {
  smtp.messages.length = 0;
});

describe('PUT /users/{id}/execute-actions-email', () => {
  test('sends the mail with a signed action token of the given lifespan', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await api
      .put(
        `${U}/${ids.alice}/execute-actions-email?client_id=webapp&redirect_uri=${encodeURIComponent('https://app.example.com/cb/x')}&lifespan=600`,
      )
      .send(['UPDATE_PASSWORD', 'VERIFY_EMAIL']);
    expect(res.status).toBe(204);
    const [mail] = await smtp.waitFor(1);
    expect(mail.recipients).toEqual(['alice@example.com']);
    expect(mail.envelopeFrom).toBe('bounces@idserver.test');
    expect(mail.headers.from).toBe('ID Server <noreply@idserver.test>');
    expect(mail.headers['reply-to']).toBe('help@idserver.test');
    expect(mail.subject).toBe('Update Your Account');
    expect(mail.text).toContain('Update Password, Verify Email');
    expect(mail.text).toContain('This link will expire within 10 minutes.');
    const link = linkOf(mail);
    expect(link.searchParams.get('client_id')).toBe('webapp');
    const { payload, protectedHeader } = await verifyToken(link.searchParams.get('key') as string);
    expect(protectedHeader.alg).toBe('HS512');
    expect(payload).toMatchObject({
      typ: 'execute-actions',
      sub: ids.alice,
      azp: 'webapp',
      rqac: ['UPDATE_PASSWORD', 'VERIFY_EMAIL'],
      reduri: 'https://app.example.com/cb/x',
      eml: 'alice@example.com',
    });
    expect(payload.exp).toBeGreaterThanOrEqual(before + 600);
    expect(payload.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 600);
    // the required actions are carried by the token, not added to the user
    expect((await api.get(`${U}/${ids.alice}`)).body.requiredActions).toEqual([]);
  });

  test('defaults: the account client and actionTokenGeneratedByAdminLifespan (12 hours)', async () => {
    expect((await api.put(`${U}/${ids.alice}/execute-actions-email`).send(['UPDATE_PROFILE'])).status).toBe(204);
    const [mail] = await smtp.waitFor(1);
    expect(mail.text).toContain('This link will expire within 12 hours.');
    const link = linkOf(mail);
    expect(link.searchParams.get('client_id')).toBe('account');
    const { payload } = await verifyToken(link.searchParams.get('key') as string);
    expect(Number(payload.exp) - Number(payload.iat)).toBe(43200);
    expect(payload.azp).toBe('account');
    expect(payload.reduri).toBeUndefined();
  });

  test('relative redirect URIs resolve against rootUrl; exact ones match exactly', async () => {
    const put = (uri: string) =>
      api.put(`${U}/${ids.alice}/execute-actions-email?client_id=webapp&redirect_uri=${encodeURIComponent(uri)}`).send([]);
    expect((await put('https://app.example.com/relative/page')).status).toBe(204);
    expect((await put('https://exact.example.com/done')).status).toBe(204);
    expect((await put('https://exact.example.com/done/more')).body).toEqual({ errorMessage: 'Invalid redirect uri.' });
    expect((await put('https://evil.example.com/cb/x')).body).toEqual({ errorMessage: 'Invalid redirect uri.' });
  });

  test("every check, in Keycloak's order, with its message", async () => {
    const put = (id: string, q: string, body: unknown = ['UPDATE_PASSWORD']) =>
      api.put(`${U}/${id}/execute-actions-email${q}`).send(body as object);
    const cases: Array<[string, string, unknown, string]> = [
      [ids.carl, '?client_id=nope', ['NOPE'], 'User email missing'],
      [ids.bob, '?client_id=nope', ['NOPE'], 'User is disabled'],
      [ids.alice, '?redirect_uri=https://app.example.com/cb/x', ['NOPE'], 'Client id missing'],
      [ids.alice, '?client_id=nope', ['NOPE'], "Client doesn't exist"],
      [ids.alice, '?client_id=off', ['NOPE'], 'Client is not enabled'],
      [ids.alice, '?client_id=webapp&redirect_uri=https://other.example.com/', ['NOPE'], 'Invalid redirect uri.'],
      [ids.alice, '?client_id=webapp', ['NOPE'], 'Provided invalid required actions'],
      [ids.alice, '', ['UPDATE_PASSWORD', 'update_password'], 'Provided invalid required actions'],
    ];
    for (const [id, q, body, message] of cases) {
      const res = await put(id, q, body);
      expect({ q, status: res.status, body: res.body }).toEqual({ q, status: 400, body: { errorMessage: message } });
    }
    expect(smtp.messages).toHaveLength(0);
  });

  test('unknown user → 404; malformed body → 400; caller without manage-users → 403', async () => {
    expect((await api.put(`${U}/${randomUUID()}/execute-actions-email`).send([])).body).toEqual({ error: 'User not found' });
    const bad = await api.put(`${U}/${ids.alice}/execute-actions-email`).set('Content-Type', 'application/json').send('{"a":1}');
    expect(bad.status).toBe(400);
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-users']);
    expect((await viewer.put(`${U}/${ids.alice}/execute-actions-email`).send([])).status).toBe(403);
    expect((await viewer.put(`${U}/${ids.alice}/send-verify-email`)).status).toBe(403);
  });
});

describe('PUT /users/{id}/send-verify-email', () => {
  test('sends a verification link (verify-email token)', async () => {
    const res = await api.put(
      `${U}/${ids.alice}/send-verify-email?client_id=webapp&redirect_uri=${encodeURIComponent('https://app.example.com/cb/v')}&lifespan=120`,
    );
    expect(res.status).toBe(204);
    const [mail] = await smtp.waitFor(1);
    expect(mail.recipients).toEqual(['alice@example.com']);
    expect(mail.subject).toBe('Verify email');
    expect(mail.text).toContain('This link will expire within 2 minutes.');
    const { payload } = await verifyToken(linkOf(mail).searchParams.get('key') as string);
    expect(payload).toMatchObject({
      typ: 'verify-email',
      sub: ids.alice,
      azp: 'webapp',
      eml: 'alice@example.com',
      reduri: 'https://app.example.com/cb/v',
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(120);
  });

  test('the same checks as execute-actions-email', async () => {
    expect((await api.put(`${U}/${ids.carl}/send-verify-email`)).body).toEqual({ errorMessage: 'User email missing' });
    expect((await api.put(`${U}/${ids.bob}/send-verify-email`)).body).toEqual({ errorMessage: 'User is disabled' });
    expect((await api.put(`${U}/${ids.alice}/send-verify-email?redirect_uri=x`)).body).toEqual({ errorMessage: 'Client id missing' });
    expect((await api.put(`${U}/${ids.alice}/send-verify-email?client_id=zz`)).body).toEqual({ errorMessage: "Client doesn't exist" });
    expect((await api.put(`${U}/${ids.alice}/send-verify-email?client_id=off`)).body).toEqual({ errorMessage: 'Client is not enabled' });
    expect((await api.put(`${U}/${ids.alice}/send-verify-email?client_id=webapp&redirect_uri=https://x.test/`)).body).toEqual({
      errorMessage: 'Invalid redirect uri.',
    });
  });
});

describe('mail failures and SMTP settings', () => {
  test('no SMTP configured / unreachable server → 500 with the mailer message, nothing crashes', async () => {
    await api.post('/admin/realms', { realm: 'nosmtp', enabled: true });
    const carol = (
      await api.post('/admin/realms/nosmtp/users', { username: 'carol', email: 'carol@example.com', enabled: true })
    ).headers.location
      .split('/')
      .pop();
    const exec = await api.put(`/admin/realms/nosmtp/users/${carol}/execute-actions-email`).send([]);
    expect(exec.status).toBe(500);
    expect(exec.body).toEqual({ errorMessage: "Failed to send execute actions email: Invalid sender address 'null'" });
    const verify = await api.put(`/admin/realms/nosmtp/users/${carol}/send-verify-email`);
    expect(verify.status).toBe(500);
    expect(verify.body).toEqual({ errorMessage: 'Failed to send verify email' });

    const closed = await startSmtp();
    const port = closed.port;
    await closed.close();
    await api.put('/admin/realms/nosmtp', { smtpServer: { host: '127.0.0.1', port: String(port), from: 'a@b.test' } });
    const down = await api.put(`/admin/realms/nosmtp/users/${carol}/execute-actions-email`).send([]);
    expect(down.status).toBe(500);
    expect(down.body.errorMessage).toMatch(/^Failed to send execute actions email: /);
  });

  test('SMTP AUTH with the stored password; the password is masked on GET realm', async () => {
    const secured = await startSmtp({ user: 'mailer', password: 's3cret' });
    try {
      await api.put(`/admin/realms/${R}`, {
        smtpServer: { ...smtpSettings(), port: String(secured.port), auth: 'true', user: 'mailer', password: 's3cret' },
      });
      const realm = (await api.get(`/admin/realms/${R}`)).body;
      expect(realm.smtpServer.password).toBe('**********');
      expect(JSON.stringify(realm)).not.toContain('s3cret');
      expect((await api.put(`${U}/${ids.alice}/send-verify-email`)).status).toBe(204);
      const [mail] = await secured.waitFor(1);
      expect(mail.authUser).toBe('mailer');
      // a PUT sending the mask back keeps the stored password
      await api.put(`/admin/realms/${R}`, { smtpServer: { ...realm.smtpServer } });
      expect((await api.put(`${U}/${ids.alice}/send-verify-email`)).status).toBe(204);
      await secured.waitFor(2);
      // a wrong password fails the send
      await api.put(`/admin/realms/${R}`, { smtpServer: { ...realm.smtpServer, password: 'wrong' } });
      expect((await api.put(`${U}/${ids.alice}/send-verify-email`)).status).toBe(500);
    } finally {
      await api.put(`/admin/realms/${R}`, { smtpServer: smtpSettings() });
      await secured.close();
    }
  });

  test('admin event ACTION for each mail (admin events enabled)', async () => {
    await api.put(`/admin/realms/${R}/events/config`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });
    expect((await api.put(`${U}/${ids.alice}/execute-actions-email`).send(['UPDATE_PASSWORD'])).status).toBe(204);
    expect((await api.put(`${U}/${ids.alice}/send-verify-email`)).status).toBe(204);
    const events = (await api.get(`/admin/realms/${R}/admin-events?operationTypes=ACTION`)).body;
    expect(events.map((e: { resourcePath: string }) => e.resourcePath)).toEqual([
      `users/${ids.alice}/send-verify-email`,
      `users/${ids.alice}/execute-actions-email`,
    ]);
    expect(events[0]).toMatchObject({ operationType: 'ACTION', resourceType: 'USER' });
  });
});

describe('POST /testSMTPConnection', () => {
  let admin: AdminApi;
  beforeAll(async () => {
    admin = await realmAdmin(ts, R, 'realmadmin', ['manage-realm']);
  });

  test("sends a test message to the caller's e-mail → 204", async () => {
    const res = await admin.post(`/admin/realms/${R}/testSMTPConnection`, smtpSettings());
    expect(res.status).toBe(204);
    const [mail] = await smtp.waitFor(1);
    expect(mail.recipients).toEqual(['realmadmin@example.org']);
    expect(mail.subject).toBe('[KEYCLOAK] - SMTP test message');
    expect(mail.text).toContain('This is a test message');
  });

  test('the deprecated form variant (config=<json>)', async () => {
    const res = await admin
      .post(`/admin/realms/${R}/testSMTPConnection`)
      .type('form')
      .send({ config: JSON.stringify(smtpSettings()) });
    expect(res.status).toBe(204);
    await smtp.waitFor(1);
  });

  test('`**********` means the stored password when host, port and user match', async () => {
    const secured = await startSmtp({ user: 'mailer', password: 'stored-pw' });
    try {
      const stored = { ...smtpSettings(), port: String(secured.port), auth: 'true', user: 'mailer', password: 'stored-pw' };
      await api.put(`/admin/realms/${R}`, { smtpServer: stored });
      expect((await admin.post(`/admin/realms/${R}/testSMTPConnection`, { ...stored, password: '**********' })).status).toBe(204);
      expect((await secured.waitFor(1))[0].authUser).toBe('mailer');
      const other = await admin.post(`/admin/realms/${R}/testSMTPConnection`, { ...stored, user: 'someone', password: '**********' });
      expect(other.status).toBe(500);
    } finally {
      await api.put(`/admin/realms/${R}`, { smtpServer: smtpSettings() });
      await secured.close();
    }
  });

  test('failures → 500 Failed to send email; permission manage-realm', async () => {
    // the master admin has no e-mail
    const noMail = await api.post(`/admin/realms/${R}/testSMTPConnection`, smtpSettings());
    expect(noMail.status).toBe(500);
    expect(noMail.body).toEqual({ errorMessage: 'Failed to send email' });
    const noFrom = await admin.post(`/admin/realms/${R}/testSMTPConnection`, { host: '127.0.0.1', port: String(smtp.port) });
    expect(noFrom.body).toEqual({ errorMessage: 'Failed to send email' });
    const viewer = await realmAdmin(ts, R, 'realmviewer', ['view-realm']);
    expect((await viewer.post(`/admin/realms/${R}/testSMTPConnection`, smtpSettings())).status).toBe(403);
    expect(smtp.messages).toHaveLength(0);
  });
});
