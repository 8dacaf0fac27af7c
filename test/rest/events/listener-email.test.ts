import { createServer, type Server, type Socket } from 'node:net';
import { EVENT_LISTENER_DEFAULTS } from '../../../src/config/event-listener-options';
import { recordEvent } from '../../../src/core/user-events';
import type { RealmModel } from '../../../src/db/models/realm';
import { configureLogging, setConsoleStream } from '../../../src/logging';
import { emailEventTypes } from '../../../src/services/events/email-listener';
import { installEventListeners } from '../../../src/services/events/listeners';
import { createUser, realmIdOf } from '../../helpers/fixtures';
import { startTestServer, type TestServer } from '../../helpers/server';
import { type SessionFixture, sessionFixture } from '../../helpers/sessions';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';
import { Capture, eventually } from '../../logging/helpers';

/**
 * The `email` event listener through a real SMTP listener: the user an event is about gets a mail
 * for LOGIN_ERROR, UPDATE_PASSWORD, ... when the address is verified; an admin's reset-password
 * sends none (an admin event); a mail server that does not answer delays no response.
 */
let ts: TestServer;
let f: SessionFixture;
let smtp: TestSmtp;
let realmId: string;
const R = 'evmail';
const A = `/admin/realms/${R}`;
const WRONG = 'Wr0ng-pa55-not-in-mails';
const ids: Record<string, string> = {};

const smtpAt = (port: number) => ({ smtpServer: { host: '127.0.0.1', port: String(port), from: 'noreply@idserver.test' } });

beforeAll(async () => {
  ts = await startTestServer();
  smtp = await startSmtp();
  f = await sessionFixture(ts, R, [], smtpAt(smtp.port));
  realmId = await realmIdOf(f.admin, R);
  ids.alice = await createUser(ts, R, 'alice', { password: 'alice-pw', emailVerified: true, defaultRoles: true });
  ids.bob = await createUser(ts, R, 'bob', { password: 'bob-pw', emailVerified: false, defaultRoles: true });
  ids.carol = await createUser(ts, R, 'carol', { password: 'carol-pw', email: null, defaultRoles: true });
  expect((await f.admin.put(`${A}/events/config`, { eventsListeners: ['jboss-logging', 'email'] })).status).toBe(204);
});
afterEach(() => installEventListeners());
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

/** Waits a little, then checks that no further mail arrived. */
async function noNewMail(before: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  expect(smtp.messages.length).toBe(before);
}

const realm = async () => (await ts.db.models.Realm.findByPk(realmId)) as RealmModel;

describe('the email listener', () => {
  test('LOGIN_ERROR mails the user (verified address), with the time and the address it came from; never the password', async () => {
    await f.login('alice', { password: WRONG });
    const [mail] = await smtp.waitFor(1);
    expect(mail.recipients).toEqual(['alice@example.org']);
    expect(mail.envelopeFrom).toBe('noreply@idserver.test');
    expect(mail.subject).toBe('Failed sign-in to your account');
    expect(mail.text).toMatch(
      /^Someone tried to sign in to your account on \w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT from (127\.0\.0\.1|::1|::ffff:127\.0\.0\.1) /,
    );
    expect(mail.raw).not.toContain(WRONG);
  });

  test('no mail: unverified or missing address, unknown user, a successful LOGIN, an admin reset-password', async () => {
    const before = smtp.messages.length;
    await f.login('bob', { password: WRONG });
    await f.login('carol', { password: WRONG });
    await f.login('nobody', { password: WRONG });
    expect((await f.login('alice')).status).toBe(200);
    // Keycloak: the admin's reset-password is an admin event (ACTION on users/{id}/reset-password), not the user's UPDATE_PASSWORD.
    expect(
      (await f.admin.put(`${A}/users/${ids.alice}/reset-password`, { type: 'password', value: 'alice-pw', temporary: false })).status,
    ).toBe(204);
    await noNewMail(before);
  });

  test('UPDATE_PASSWORD and REMOVE_CREDENTIAL user events mail the user', async () => {
    const before = smtp.messages.length;
    await recordEvent(ts.db, await realm(), { type: 'UPDATE_PASSWORD', userId: ids.alice, clientId: 'account', ipAddress: '10.1.2.3' });
    let mails = await smtp.waitFor(before + 1);
    expect(mails[before].subject).toBe('Your password was changed');
    expect(mails[before].text).toContain('from 10.1.2.3.');
    await recordEvent(ts.db, await realm(), {
      type: 'REMOVE_CREDENTIAL',
      userId: ids.alice,
      ipAddress: '10.1.2.3',
      details: { credential_type: 'otp' },
    });
    mails = await smtp.waitFor(before + 2);
    expect(mails[before + 1].subject).toBe('A way to sign in was removed');
    expect(mails[before + 1].text).toContain('The credential "otp" of your account was removed');
  });

  test("the realm's localization texts replace the built-in ones", async () => {
    await f.admin.put(A, { internationalizationEnabled: true, supportedLocales: ['en', 'de'], defaultLocale: 'de' });
    const put = await f.admin
      .put(`${A}/localization/de/eventLoginErrorSubject`, 'Fehlgeschlagene Anmeldung')
      .set('content-type', 'text/plain');
    expect(put.status).toBe(204);
    const before = smtp.messages.length;
    await f.login('alice', { password: WRONG });
    const mails = await smtp.waitFor(before + 1);
    expect(mails[before].subject).toBe('Fehlgeschlagene Anmeldung');
    expect(mails[before].text).toMatch(/^Someone tried to sign in/);
    await f.admin.put(A, { internationalizationEnabled: false });
  });

  test('a realm without the email listener sends nothing; exclude-events takes a type out', async () => {
    let before = smtp.messages.length;
    await f.admin.put(`${A}/events/config`, { eventsListeners: ['jboss-logging'] });
    await f.login('alice', { password: WRONG });
    await noNewMail(before);
    await f.admin.put(`${A}/events/config`, { eventsListeners: ['jboss-logging', 'email'] });

    installEventListeners({ ...EVENT_LISTENER_DEFAULTS, email: { excludeEvents: ['LOGIN_ERROR'] } });
    before = smtp.messages.length;
    await f.login('alice', { password: WRONG });
    await noNewMail(before);
  });

  test('include-events and exclude-events: the default set, a chosen set, unknown names refused', () => {
    expect([...emailEventTypes({ excludeEvents: [] })].sort()).toEqual(
      ['LOGIN_ERROR', 'REMOVE_CREDENTIAL', 'REMOVE_TOTP', 'UPDATE_CREDENTIAL', 'UPDATE_PASSWORD', 'UPDATE_TOTP'].sort(),
    );
    expect([
      ...emailEventTypes({ includeEvents: ['USER_DISABLED_BY_TEMPORARY_LOCKOUT', 'LOGIN_ERROR'], excludeEvents: ['LOGIN_ERROR'] }),
    ]).toEqual(['USER_DISABLED_BY_TEMPORARY_LOCKOUT']);
    expect(() => emailEventTypes({ includeEvents: ['LOGIN_EROR'], excludeEvents: [] })).toThrow(
      "Invalid value for option '--spi-events-listener-email-include-events': unknown event type LOGIN_EROR",
    );
  });
});

describe('a mail server that fails', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never greets: the SMTP client waits for its greeting timeout.
    silent = createServer((s) => {
      sockets.push(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
    setConsoleStream(undefined);
    configureLogging({ root: 'error', categories: {} });
  });

  test('a server that does not answer delays no response', async () => {
    const port = (silent.address() as { port: number }).port;
    expect((await f.admin.put(A, smtpAt(port))).status).toBe(204);
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await f.login('alice', { password: WRONG });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body.error).toBe('invalid_grant');
      expect(Date.now() - started).toBeLessThan(2000);
    }
    await eventually(() => sockets.length === 3);
  });

  test('a refused connection is logged, without the SMTP password, and the request answers as usual', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const smtpPassword = 'Smtp-pa55-never-logged';
    const settings = { smtpServer: { ...smtpAt(port).smtpServer, auth: 'true', user: 'mailer', password: smtpPassword } };
    expect((await f.admin.put(A, settings)).status).toBe(204);
    const c = new Capture();
    setConsoleStream(c);
    configureLogging({ root: 'error', categories: {} });
    const res = await f.login('alice', { password: WRONG });
    expect(res.body.error).toBe('invalid_grant');
    await eventually(() => c.text.includes('Failed to send the LOGIN_ERROR event mail'));
    expect(c.text).toContain(`ERROR [idserver.services.events.email-listener]`);
    expect(c.text).toContain(ids.alice);
    expect(c.text).not.toContain(smtpPassword);
    // The server still answers.
    expect((await f.login('alice')).status).toBe(200);
  });
});
