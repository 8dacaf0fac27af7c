import { ConfigError, loadConfig } from '../../../src/config';
import { EVENT_LISTENER_DEFAULTS, eventListenerConfigFromValues } from '../../../src/config/event-listener-options';
import { configureLogging, loggingConfigFromValues, setConsoleStream, shutdownLogging } from '../../../src/logging';
import { installEventListeners } from '../../../src/services/events/listeners';
import { realmIdOf } from '../../helpers/fixtures';
import { startTestServer, type TestServer } from '../../helpers/server';
import { type SessionFixture, sessionFixture } from '../../helpers/sessions';
import { Capture, eventually, type GelfListener, udpGelfListener } from '../../logging/helpers';

/**
 * The `jboss-logging` event listener: the user and admin events of a realm that names it become lines
 * of category org.keycloak.events in Keycloak's key="value" format (success at DEBUG, errors at WARN by
 * default), through the ordinary logging handlers, whether or not the realm stores events.
 */
let ts: TestServer;
let f: SessionFixture;
let realmId: string;
let masterId: string;
const R = 'evlog';
const A = `/admin/realms/${R}`;
const WRONG = 'Wr0ng-pa55-never-logged';

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['alice', 'bob']);
  realmId = await realmIdOf(f.admin, R);
  masterId = await realmIdOf(f.admin, 'master');
});
afterEach(() => {
  installEventListeners();
  setConsoleStream(undefined);
  configureLogging({ root: 'error', categories: {} });
});
afterAll(() => ts.close());

/** Console output of the given logging option values, in the format `LEVEL [category] message`. */
function capture(values: Record<string, unknown>): Capture {
  const c = new Capture();
  setConsoleStream(c);
  configureLogging(loggingConfigFromValues({ 'log-console-format': '%p [%c] %s%n', ...values }));
  return c;
}
const eventLines = (c: Capture) => c.lines().filter((l) => l.includes('[org.keycloak.events]'));

describe('user events', () => {
  test('default levels: a LOGIN_ERROR at WARN, a LOGIN (DEBUG) not at INFO; logged although the realm stores no events', async () => {
    const c = capture({ 'log-level': 'info' });
    expect((await f.login('alice')).status).toBe(200);
    expect((await f.login('alice', { password: WRONG })).status).toBeGreaterThanOrEqual(400);
    await eventually(() => eventLines(c).length > 0);
    const lines = eventLines(c);
    expect(lines).toHaveLength(1);
    const ip = /ipAddress="([^"]+)"/.exec(lines[0])?.[1] as string;
    expect(ip).toMatch(/127\.0\.0\.1|::1/);
    expect(lines[0]).toBe(
      `WARN [org.keycloak.events] type="LOGIN_ERROR", realmId="${realmId}", realmName="${R}", clientId="admin-cli", ` +
        `userId="${f.users.alice}", ipAddress="${ip}", error="invalid_user_credentials", auth_method="openid-connect", ` +
        'grant_type="password", client_auth_method="client-secret", username="alice"',
    );
    expect(await ts.db.models.Event.count({ where: { realmId } })).toBe(0);
  });

  test('org.keycloak.events:debug shows the LOGIN with its session and details; no password in any line', async () => {
    const c = capture({ 'log-level': 'info,org.keycloak.events:debug' });
    const t = await f.login('bob');
    await f.login('bob', { password: WRONG });
    await f.login('nobody', { password: WRONG });
    await eventually(() => eventLines(c).length === 3);
    const [login, bad, unknown] = eventLines(c);
    expect(login).toMatch(
      new RegExp(
        `^DEBUG \\[org\\.keycloak\\.events\\] type="LOGIN", realmId="${realmId}", realmName="${R}", clientId="admin-cli", ` +
          `userId="${f.users.bob}", sessionId="${t.body.session_state}", ipAddress="[^"]+", auth_method="openid-connect", `,
      ),
    );
    expect(login).toContain(`username="bob"`);
    expect(login).toContain(`grant_type="password"`);
    expect(bad).toMatch(/^WARN .*type="LOGIN_ERROR".*error="invalid_user_credentials"/);
    expect(unknown).toMatch(/^WARN .*type="LOGIN_ERROR", .*userId="null", .*error="user_not_found", .*username="nobody"/);
    for (const secret of [WRONG, 'bob-pw', t.body.access_token, t.body.refresh_token]) expect(c.text).not.toContain(secret);
  });

  test('category levels filter them: org.keycloak:error hides the WARN lines; a realm without jboss-logging logs nothing', async () => {
    let c = capture({ 'log-level': 'debug,org.keycloak:error' });
    await f.login('alice', { password: WRONG });
    await f.login('alice');
    await new Promise((r) => setTimeout(r, 100));
    expect(eventLines(c)).toEqual([]);

    expect((await f.admin.put(`${A}/events/config`, { eventsListeners: ['email'] })).status).toBe(204);
    c = capture({ 'log-level': 'info,org.keycloak.events:debug' });
    await f.login('alice', { password: WRONG });
    await new Promise((r) => setTimeout(r, 100));
    expect(eventLines(c)).toEqual([]);
    expect((await f.admin.put(`${A}/events/config`, { eventsListeners: ['jboss-logging'] })).status).toBe(204);
    await f.login('alice', { password: WRONG });
    await eventually(() => eventLines(c).some((l) => l.includes('type="LOGIN_ERROR"')));
  });

  test('JSON console output carries the lines', async () => {
    const c = capture({ 'log-level': 'info,org.keycloak.events:debug', 'log-console-output': 'json' });
    await f.login('alice');
    await f.login('alice', { password: WRONG });
    await eventually(() => c.lines().filter((l) => l.includes('org.keycloak.events')).length === 2);
    const records = c
      .lines()
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.loggerName === 'org.keycloak.events');
    expect(records.map((r) => r.level)).toEqual(['DEBUG', 'WARN']);
    expect(records[0].message).toMatch(/^type="LOGIN", realmId="[^"]+", realmName="evlog", /);
    expect(records[1].message).toMatch(/^type="LOGIN_ERROR", .*error="invalid_user_credentials"/);
  });

  test('GELF carries them (UDP)', async () => {
    const udp: GelfListener = await udpGelfListener();
    try {
      configureLogging(
        loggingConfigFromValues({ log: ['gelf'], 'log-level': 'info', 'log-gelf-host': '127.0.0.1', 'log-gelf-port': udp.port }),
      );
      await f.login('bob', { password: WRONG });
      const m = await udp.waitFor((g) => g._LoggerName === 'org.keycloak.events');
      expect(m.short_message).toMatch(/^type="LOGIN_ERROR", realmId="[^"]+", realmName="evlog", .*username="bob"/);
      expect(m.level).toBe(4);
      expect(JSON.stringify(udp.messages)).not.toContain(WRONG);
    } finally {
      await shutdownLogging();
      await udp.close();
    }
  });

  test('options: success-level, error-level, quotes', async () => {
    installEventListeners({
      ...EVENT_LISTENER_DEFAULTS,
      jbossLogging: { ...EVENT_LISTENER_DEFAULTS.jbossLogging, successLevel: 'info', errorLevel: 'error', quotes: "'" },
    });
    let c = capture({ 'log-level': 'info' });
    await f.login('alice');
    await f.login('alice', { password: WRONG });
    await eventually(() => eventLines(c).length === 2);
    expect(eventLines(c)[0]).toMatch(/^INFO \[org\.keycloak\.events\] type='LOGIN', realmId='/);
    expect(eventLines(c)[1]).toMatch(/^ERROR \[org\.keycloak\.events\] type='LOGIN_ERROR', .*error='invalid_user_credentials'/);

    installEventListeners({ ...EVENT_LISTENER_DEFAULTS, jbossLogging: { ...EVENT_LISTENER_DEFAULTS.jbossLogging, quotes: null } });
    c = capture({ 'log-level': 'info' });
    await f.login('alice', { password: WRONG });
    await eventually(() => eventLines(c).length === 1);
    expect(eventLines(c)[0]).toContain(`type=LOGIN_ERROR, realmId=${realmId}, realmName=${R}, clientId=admin-cli,`);
  });

  test('sanitizing: a line break or a quote in a value neither breaks the line nor ends the value', async () => {
    const c = capture({ 'log-level': 'info' });
    await f.login('eve\r\nWARN [org.keycloak.events] type="LOGIN"', { password: WRONG });
    await eventually(() => eventLines(c).length === 1);
    for (const line of c.lines()) expect(line).toMatch(/^(INFO|WARN) \[(idserver\.http|org\.keycloak\.events)\] /);
    expect(eventLines(c)[0]).toMatch(/, username="eve {2}WARN \[org\.keycloak\.events\] type=\\"LOGIN\\""$/);

    installEventListeners({ ...EVENT_LISTENER_DEFAULTS, jbossLogging: { ...EVENT_LISTENER_DEFAULTS.jbossLogging, sanitize: false } });
    const raw = capture({ 'log-level': 'info' });
    await f.login('eve\nsecond', { password: WRONG });
    await eventually(() => raw.text.includes('second'));
    expect(raw.text).toContain('username="eve\nsecond"');
  });
});

describe('admin events', () => {
  test('an admin write is logged (caller realm, client and user; resource), never its password; representation only when asked and stored', async () => {
    const c = capture({ 'log-level': 'info,org.keycloak.events:debug' });
    const res = await f.admin.post(`${A}/users`, {
      username: 'carol',
      enabled: true,
      credentials: [{ type: 'password', value: 'Car0l-secret-pw', temporary: false }],
    });
    expect(res.status).toBe(201);
    const id = res.headers.location.split('/').pop();
    await eventually(() => eventLines(c).some((l) => l.includes('operationType="CREATE"')));
    const line = eventLines(c).find((l) => l.includes('operationType="CREATE"')) as string;
    expect(line).toMatch(
      new RegExp(
        `^DEBUG \\[org\\.keycloak\\.events\\] operationType="CREATE", realmId="${masterId}", realmName="master", clientId="[0-9a-f-]{36}", ` +
          `userId="[0-9a-f-]{36}", ipAddress="[^"]+", resourceType="USER", resourcePath="users/${id}"$`,
      ),
    );
    expect(await ts.db.models.AdminEvent.count({ where: { realmId } })).toBe(0);

    // The option alone adds nothing while the realm stores no admin event details.
    installEventListeners({
      ...EVENT_LISTENER_DEFAULTS,
      jbossLogging: { ...EVENT_LISTENER_DEFAULTS.jbossLogging, includeRepresentation: true },
    });
    await f.admin.put(`${A}/users/${id}`, { firstName: 'Carol' });
    expect((await f.admin.put(`${A}/events/config`, { adminEventsDetailsEnabled: true })).status).toBe(204);
    await f.admin.post(`${A}/users`, {
      username: 'dave',
      enabled: true,
      credentials: [{ type: 'password', value: 'Dav3-secret-pw', temporary: false }],
    });
    await f.admin.put(`/admin/realms/${R}/users/${id}/reset-password`, { type: 'password', value: 'Car0l-new-secret', temporary: false });
    await eventually(() => eventLines(c).some((l) => l.includes('reset-password')));
    const update = eventLines(c).find((l) => l.includes('operationType="UPDATE"') && l.includes(`users/${id}"`)) as string;
    expect(update).not.toContain('representation=');
    const dave = eventLines(c).find((l) => l.includes('dave')) as string;
    expect(dave).toMatch(/resourceType="USER", .*representation="\{\\"username\\":\\"dave\\"/);
    for (const secret of ['Car0l-secret-pw', 'Dav3-secret-pw', 'Car0l-new-secret']) expect(c.text).not.toContain(secret);
    await f.admin.put(`${A}/events/config`, { adminEventsDetailsEnabled: false });
  });
});

describe('options', () => {
  test('--spi-events-listener-jboss-logging-* on the command line, in the environment and in the file', () => {
    const cfg = loadConfig({
      mode: 'start',
      args: ['--spi-events-listener-jboss-logging-success-level=INFO', '--spi-events-listener-jboss-logging-quotes=none'],
      env: { IDSERVER_SPI_EVENTS_LISTENER_JBOSS_LOGGING_INCLUDE_REPRESENTATION: 'true', IDSERVER_CONFIG_FILE: '/nonexistent.conf' },
    });
    expect(eventListenerConfigFromValues(cfg.values).jbossLogging).toEqual({
      successLevel: 'info',
      errorLevel: 'warn',
      sanitize: true,
      quotes: null,
      includeRepresentation: true,
    });
    expect(eventListenerConfigFromValues(loadConfig({ mode: 'start', env: { IDSERVER_CONFIG_FILE: '/nonexistent.conf' } }).values)).toEqual(
      EVENT_LISTENER_DEFAULTS,
    );
    expect(() =>
      loadConfig({
        mode: 'start',
        args: ['--spi-events-listener-jboss-logging-error-level=loud'],
        env: { IDSERVER_CONFIG_FILE: '/nonexistent.conf' },
      }),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig({
        mode: 'start',
        args: ['--spi-events-listener-jboss-logging-quotes=<<'],
        env: { IDSERVER_CONFIG_FILE: '/nonexistent.conf' },
      }),
    ).toThrow(/one character/);
  });

  test('the listener ids of events/config are the ones server info lists', async () => {
    const info = await f.admin.get('/admin/serverinfo');
    expect(Object.keys(info.body.providers.eventsListener.providers).sort()).toEqual(['email', 'jboss-logging']);
    const bad = await f.admin.put(`${A}/events/config`, { eventsListeners: ['jboss-logging', 'nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Unknown event listener' });
    const cfg = await f.admin.get(`${A}/events/config`);
    expect(cfg.body.eventsListeners).toEqual(['jboss-logging']);
  });
});
