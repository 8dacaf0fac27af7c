// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { type Cli, eventually, type GelfListener, runCli, udpGelfListener } from './helpers';

/**
 * The real server, started through src/cli.ts in a child process, with its logging options: every
 * handler receives the `idserver.http` request lines; secrets never reach any handler.
 */
jest.setTimeout(90_000);

const PASSWORD = 'Pa55-w0rd-never-logged-7f3a';
const tmp = () => mkdtempSync(join(tmpdir(), 'idserver-logsrv-'));

async function token(url: string, password = PASSWORD): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function adminRequests(url: string): Promise<string> {
  const { access_token } = await token(url);
  const auth = { authorization: `Bearer ${access_token}` };
  expect((await fetch(`${url}/admin/realms`, { headers: auth })).status).toBe(200);
  expect((await fetch(`${url}/admin/realms/master/users?max=5`, { headers: auth })).status).toBe(200);
  expect((await fetch(`${url}/admin/realms/nope`, { headers: auth })).status).toBe(404);
  return access_token;
}

describe('the server with its logging options', () => {
  let gelf: GelfListener;
  let cli: Cli | undefined;
  beforeAll(async () => {
    gelf = await udpGelfListener();
  });
  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
  });
  afterAll(() => gelf.close());

  test('defaults (npm start): console handler, INFO, the default format', async () => {
    const d = tmp();
    cli = runCli(['start-dev', '--http-port=0', `--db-url=${join(d, 'db.sqlite')}`, `--bootstrap-admin-password=${PASSWORD}`], {
      IDSERVER_CONFIG_FILE: join(d, 'none.conf'),
    });
    const url = await cli.url;
    await adminRequests(url);
    await eventually(() => (cli as Cli).stdout().includes('[idserver.http]'));
    expect(cli.stdout()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO {2}\[idserver\.server\] \(main\) idserver listening on http/m);
    expect(cli.stdout()).toMatch(/INFO {2}\[idserver\.http\] \(main\) GET \/admin\/realms 200 /);
    expect(cli.stdout()).not.toContain('DEBUG');
    expect(existsSync(join(d, 'data'))).toBe(false);
  });

  test('idserver.db at DEBUG logs the SQL statements', async () => {
    const d = tmp();
    cli = runCli(
      [
        'start-dev',
        '--http-port=0',
        `--db-url=${join(d, 'db.sqlite')}`,
        `--bootstrap-admin-password=${PASSWORD}`,
        '--log-level=info,idserver.db:debug',
      ],
      { IDSERVER_CONFIG_FILE: join(d, 'none.conf') },
    );
    const url = await cli.url;
    await adminRequests(url);
    await eventually(() => (cli as Cli).stdout().includes('[idserver.http]'));
    expect(cli.stdout()).toMatch(/DEBUG \[idserver\.db\] \(main\) Executing \(default\): SELECT /);
  });

  test('INFO with console, file and gelf on: an idserver.http line arrives in each handler', async () => {
    const d = tmp();
    const file = join(d, 'log', 'idserver.log');
    cli = runCli([
      'start-dev',
      '--http-port=0',
      `--db-url=${join(d, 'db.sqlite')}`,
      '--log=console,file,gelf',
      `--log-file=${file}`,
      `--log-gelf-port=${gelf.port}`,
      '--log-gelf-host=127.0.0.1',
      `--bootstrap-admin-password=${PASSWORD}`,
    ]);
    const url = await cli.url;
    await adminRequests(url);
    await eventually(() => (cli as Cli).stdout().includes('GET /admin/realms/nope 404'));
    await eventually(() => existsSync(file) && readFileSync(file, 'utf8').includes('GET /admin/realms/nope 404'));
    const m = await gelf.waitFor(
      (x) => x._LoggerName === 'idserver.http' && String(x.short_message).startsWith('GET /admin/realms/nope 404'),
    );
    expect(m).toMatchObject({ version: '1.1', level: 6, facility: 'idserver', _SourceClassName: 'idserver.http' });
    expect(readFileSync(file, 'utf8')).toMatch(/INFO {2}\[idserver\.http\] \(main\) GET \/admin\/realms 200/);
  });

  test('JSON console output, and an unwritable log directory: server runs, one error, no file', async () => {
    const d = tmp();
    writeFileSync(join(d, 'blocker'), 'not a directory');
    const file = join(d, 'blocker', 'log', 'idserver.log');
    cli = runCli(
      [
        'start-dev',
        '--http-port=0',
        `--db-url=${join(d, 'db.sqlite')}`,
        '--log=console,file',
        `--log-file=${file}`,
        `--bootstrap-admin-password=${PASSWORD}`,
      ],
      {
        IDSERVER_LOG_CONSOLE_OUTPUT: 'json',
      },
    );
    const url = await cli.url;
    await adminRequests(url);
    await eventually(() => (cli as Cli).stdout().includes('idserver.http'));
    const records = cli
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records.find((r) => r.loggerName === 'idserver.http' && r.message.startsWith('GET /admin/realms 200'))).toMatchObject({
      level: 'INFO',
    });
    expect(cli.stderr().match(/Cannot write the log file/g)).toHaveLength(1);
    expect(existsSync(file)).toBe(false);
  });

  test('at DEBUG on every handler, a token request never logs the password or the tokens', async () => {
    const d = tmp();
    const file = join(d, 'debug.log');
    const before = gelf.messages.length;
    cli = runCli([
      'start-dev',
      '--http-port=0',
      `--db-url=${join(d, 'db.sqlite')}`,
      '--log-level=DEBUG',
      '--log=console,file,gelf',
      `--log-file=${file}`,
      `--log-gelf-port=${gelf.port}`,
      '--log-gelf-host=127.0.0.1',
      `--bootstrap-admin-password=${PASSWORD}`,
    ]);
    const url = await cli.url;
    const t = await token(url);
    const access = await adminRequests(url);
    await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'wrong-Pa55-guess-91' }),
    });
    await eventually(() => (cli as Cli).stdout().includes('GET /admin/realms/nope 404'));
    await gelf.waitFor((x) => String(x.short_message).startsWith('GET /admin/realms/nope 404'));
    await cli.stop();
    const gelfText = JSON.stringify(gelf.messages.slice(before));
    const all = [cli.stdout(), cli.stderr(), readFileSync(file, 'utf8'), gelfText].join('\n');
    expect(all).toContain('DEBUG [idserver.db]');
    expect(all).toContain('POST /realms/master/protocol/openid-connect/token');
    for (const secret of [PASSWORD, 'wrong-Pa55-guess-91', t.access_token, t.refresh_token, access, t.access_token.split('.')[2]]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('bad logging options stop start-up with exit code 2', () => {
  test.each([
    [['--log=console,syslog'], {}, /'--log'.*unknown handler 'syslog'; allowed: console, file, gelf/],
    [
      ['--log-level=info,idserver.db:loud'],
      {},
      /'--log-level'.*unknown level 'loud'; allowed: FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, OFF/,
    ],
    [['--log-gelf-level=chatty'], {}, /'--log-gelf-level'.*unknown level 'chatty'/],
    [['--log-console-output=xml'], {}, /'--log-console-output'.*default, json/],
    [['--log-console-format=%d %q'], {}, /'--log-console-format'.*unknown format symbol '%q'/],
    [['--log-file-format=%d{yyyy-QQ}'], {}, /'--log-file-format'.*unknown date pattern letter 'Q'/],
    [['--log-gelf-port=abc'], {}, /'--log-gelf-port'.*integer/],
    [['--log-gelf-host=tcp:'], {}, /'--log-gelf-host'.*host name/],
    [['--log-console-color=yes'], {}, /'--log-console-color'.*true or false/],
    [['--log-gelf-include-location=1'], {}, /'--log-gelf-include-location'.*true or false/],
    [[], { IDSERVER_LOG_GELF_MAX_MESSAGE_SIZE: '10' }, /IDSERVER_LOG_GELF_MAX_MESSAGE_SIZE.*between 64 and 65507/],
  ])('loadConfig rejects case %#', (args, env, message) => {
    expect(() => loadConfig({ mode: 'start-dev', args, env, confFile: '/nonexistent' })).toThrow(ConfigError);
    expect(() => loadConfig({ mode: 'start-dev', args, env, confFile: '/nonexistent' })).toThrow(message);
  });

  test('the command exits with 2 and names the option and what is allowed', async () => {
    const d = tmp();
    const cli = runCli(['start-dev', '--http-port=0', `--db-url=${join(d, 'db.sqlite')}`, '--log=console,syslog']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/'--log'.*unknown handler 'syslog'; allowed: console, file, gelf/);
  });

  test('a bad value in conf/idserver.conf names the key and the file', async () => {
    const d = tmp();
    writeFileSync(join(d, 'idserver.conf'), 'log-gelf-timestamp-format=yyyy-QQ\n');
    const cli = runCli(['start-dev', '--http-port=0', `--db-url=${join(d, 'db.sqlite')}`], {
      IDSERVER_CONFIG_FILE: join(d, 'idserver.conf'),
    });
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(
      /'--log-gelf-timestamp-format' \(log-gelf-timestamp-format in .*idserver\.conf\): unknown date pattern letter 'Q'/,
    );
  });
});
