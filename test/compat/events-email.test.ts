import { randomUUID } from 'node:crypto';
import { createUser, realmIdOf } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, type KcAdminClientClass, masterAdminClient } from '../helpers/admin-client';
import { type TestSmtp, startSmtp } from '../helpers/smtp';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives the events, e-mail and SMTP
 * endpoints over HTTP, with a real SMTP listener receiving the mails.
 */

let ts: TestServer;
let smtp: TestSmtp;
let baseUrl: string;
let Client: KcAdminClientClass;
let kc: KcAdminClient;
const R = 'compat-ev';

beforeAll(async () => {
  ts = await startTestServer();
  smtp = await startSmtp();
  ({ kc, baseUrl, Client } = await masterAdminClient(ts));
  await kc.realms.create({ realm: R, enabled: true, smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'kc@idserver.test' } });
});
afterAll(async () => {
  await smtp.close();
  await ts.close();
});

describe('admin client: events and e-mail', () => {
  test('getConfigEvents / updateConfigEvents', async () => {
    const initial = await kc.realms.getConfigEvents({ realm: R });
    expect(initial).toMatchObject({ eventsEnabled: false, eventsListeners: ['jboss-logging'], adminEventsEnabled: false });
    await kc.realms.updateConfigEvents(
      { realm: R },
      { eventsEnabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true, enabledEventTypes: ['LOGIN', 'LOGOUT'] },
    );
    expect(await kc.realms.getConfigEvents({ realm: R })).toMatchObject({
      eventsEnabled: true,
      adminEventsEnabled: true,
      enabledEventTypes: ['LOGIN', 'LOGOUT'],
    });
    await expect(kc.realms.updateConfigEvents({ realm: R }, { eventsListeners: ['nope'] })).rejects.toThrow('Unknown event listener');
  });

  test('users.executeActionsEmail and users.sendVerifyEmail deliver mails', async () => {
    kc.setConfig({ realmName: R });
    const { id } = await kc.users.create({ username: 'mailee', email: 'mailee@example.com', enabled: true });
    await kc.users.executeActionsEmail({ id, actions: ['UPDATE_PASSWORD'], lifespan: 900, clientId: 'account' });
    await kc.users.sendVerifyEmail({ id });
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => [m.recipients[0], m.subject])).toEqual([
      ['mailee@example.com', 'Update Your Account'],
      ['mailee@example.com', 'Verify email'],
    ]);
    expect(mails[0].text).toContain('This link will expire within 15 minutes.');
    await expect(kc.users.executeActionsEmail({ id, actions: ['NOPE'] })).rejects.toThrow('Provided invalid required actions');
    await expect(kc.users.sendVerifyEmail({ id, clientId: 'ghost' })).rejects.toThrow("Client doesn't exist");
    kc.setConfig({ realmName: 'master' });
  });

  test('realms.findAdminEvents with filters', async () => {
    // Its own realm and events: an update of the realm, a user created, two actions on the user.
    const realm = `${R}-admin`;
    await kc.realms.create({ realm, enabled: true });
    await kc.realms.updateConfigEvents({ realm }, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });
    kc.setConfig({ realmName: realm });
    const { id } = await kc.users.create({ username: 'acted-on', enabled: true });
    await kc.users.logout({ id });
    await kc.users.logout({ id });
    kc.setConfig({ realmName: 'master' });
    const all = await kc.realms.findAdminEvents({ realm });
    expect(all.map((e) => [e.operationType, e.resourceType])).toEqual([
      ['ACTION', 'USER'],
      ['ACTION', 'USER'],
      ['CREATE', 'USER'],
      ['UPDATE', 'REALM'],
    ]);
    const creates = await kc.realms.findAdminEvents({ realm, operationTypes: 'CREATE', resourceTypes: 'USER', max: 10 });
    expect(creates).toHaveLength(1);
    expect(creates[0].resourcePath).toMatch(/^users\//);
    expect(await kc.realms.findAdminEvents({ realm, first: 1, max: 1 })).toHaveLength(1);
  });

  test('realms.findEvents with filters, clearEvents, clearAdminEvents', async () => {
    const realmId = await realmIdOf(await ts.api(), R);
    const now = Date.now();
    // Seeded into the table: no endpoint records a user event with a chosen time, client, user and address.
    await ts.db.models.Event.bulkCreate([
      { id: randomUUID(), realmId, time: now - 3, type: 'LOGIN', clientId: 'web', userId: 'u1', ipAddress: '10.1.1.1', details: {} },
      { id: randomUUID(), realmId, time: now - 2, type: 'LOGOUT', clientId: 'web', userId: 'u1', ipAddress: '10.1.1.1', details: {} },
      {
        id: randomUUID(),
        realmId,
        time: now - 1,
        type: 'LOGIN_ERROR',
        clientId: 'cli',
        userId: 'u2',
        ipAddress: '10.1.1.2',
        error: 'invalid_user_credentials',
        details: {},
      },
    ]);
    expect((await kc.realms.findEvents({ realm: R })).map((e) => e.type)).toEqual(['LOGIN_ERROR', 'LOGOUT', 'LOGIN']);
    expect((await kc.realms.findEvents({ realm: R, type: ['LOGIN', 'LOGOUT'] })).map((e) => e.type)).toEqual(['LOGOUT', 'LOGIN']);
    expect((await kc.realms.findEvents({ realm: R, client: 'cli' })).map((e) => e.type)).toEqual(['LOGIN_ERROR']);
    expect((await kc.realms.findEvents({ realm: R, user: 'u1', max: 1 })).map((e) => e.type)).toEqual(['LOGOUT']);
    const d = new Date(now);
    const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(await kc.realms.findEvents({ realm: R, dateFrom: today, ipAddress: '10.1.1.2' })).toHaveLength(1);
    await kc.realms.clearEvents({ realm: R });
    expect(await kc.realms.findEvents({ realm: R })).toEqual([]);
    await kc.realms.clearAdminEvents({ realm: R });
    expect(await kc.realms.findAdminEvents({ realm: R })).toEqual([]);
  });

  test('realms.testSMTPConnection', async () => {
    await createUser(ts, R, 'smtpadmin', { roles: ['manage-realm'], password: 'pw' });
    const local = new Client({ baseUrl, realmName: R });
    await local.auth({ username: 'smtpadmin', password: 'pw', grantType: 'password', clientId: 'admin-cli' });
    smtp.messages.length = 0;
    await local.realms.testSMTPConnection({ realm: R }, { host: '127.0.0.1', port: String(smtp.port), from: 'kc@idserver.test' });
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({ recipients: ['smtpadmin@example.org'], subject: '[KEYCLOAK] - SMTP test message' });
    await expect(kc.realms.testSMTPConnection({ realm: R }, { host: '127.0.0.1' })).rejects.toThrow('Failed to send email');
  });
});
