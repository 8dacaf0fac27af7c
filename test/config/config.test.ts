// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, helpText, loadConfig } from '../../src/config';
import { parseLogLevel } from '../../src/logging';
import { cliArgs } from '../helpers/cli';

const confFile = (text: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'idserver-conf-'));
  const p = join(dir, 'idserver.conf');
  writeFileSync(p, text);
  return p;
};

describe('configuration', () => {
  test('defaults', () => {
    const c = loadConfig({ mode: 'start', env: {}, confFile: '/nonexistent' });
    expect(c).toMatchObject({ httpHost: '0.0.0.0', httpPort: 8080, db: 'sqlite', dbPoolMax: 10, logLevel: 'info' });
    expect(c.bootstrapAdminUsername).toBeUndefined();
  });

  test('start-dev falls back to admin/admin for the bootstrap admin', () => {
    const c = loadConfig({ mode: 'start-dev', env: {}, confFile: '/nonexistent' });
    expect(c.bootstrapAdminUsername).toBe('admin');
    expect(c.bootstrapAdminPassword).toBe('admin');
  });

  test('precedence: command line > environment > file > default', () => {
    const file = confFile('http-port=7001\ndb-pool-max=3\n# a comment\nhttp-host=127.0.0.2\n');
    const env = { IDSERVER_HTTP_PORT: '7002', IDSERVER_DB_POOL_MAX: '4' };
    const c = loadConfig({ mode: 'start', env, confFile: file, args: ['--http-port=7003'] });
    expect(c.httpPort).toBe(7003);
    expect(c.sources['http-port']).toBe('cli');
    expect(c.dbPoolMax).toBe(4);
    expect(c.sources['db-pool-max']).toBe('env');
    expect(c.httpHost).toBe('127.0.0.2');
    expect(c.sources['http-host']).toBe('file');
  });

  test.each([
    [['--http-port=abc'], /--http-port/],
    [['--http-port=70000'], /--http-port.*between 0 and 65535/],
    [['--db=postgres'], /--db.*sqlite, mysql, mariadb/],
    [['--db-pool-max=0'], /--db-pool-max/],
    [['--no-such-option=1'], /Unknown option: --no-such-option/],
  ])('bad value %j stops with a message naming the option', (args, message) => {
    expect(() => loadConfig({ mode: 'start', env: {}, confFile: '/nonexistent', args })).toThrow(ConfigError);
    expect(() => loadConfig({ mode: 'start', env: {}, confFile: '/nonexistent', args })).toThrow(message);
  });

  test('a bad environment value names the variable', () => {
    expect(() => loadConfig({ mode: 'start', env: { IDSERVER_DB: 'oracle' }, confFile: '/nonexistent' })).toThrow(/IDSERVER_DB/);
  });

  test('a bad file key is reported', () => {
    expect(() => loadConfig({ mode: 'start', env: {}, confFile: confFile('nonsense=1\n') })).toThrow(/Unknown option in .*: nonsense/);
  });

  test('--help lists every option with its variable and default', () => {
    const text = helpText('start');
    for (const o of ['http-host', 'http-port', 'db', 'db-url', 'db-username', 'db-password', 'db-pool-max', 'log-level']) {
      expect(text).toContain(`--${o}=<value>`);
      expect(text).toContain(`IDSERVER_${o.toUpperCase().replace(/-/g, '_')}`);
    }
    expect(text).toContain('(default: 8080)');
    expect(text).toContain('(default: sqlite)');
  });

  test('log levels: case-insensitive, last root wins, categories', () => {
    expect(parseLogLevel('INFO,idserver.db:Debug,warn')).toEqual({ root: 'warn', categories: { 'idserver.db': 'debug' } });
    expect(() => parseLogLevel('loud')).toThrow(/unknown level 'loud'/);
  });
});

// Runs the CLI from the sources (bin/idserver runs the same main(), from dist/ when built).
describe('the idserver command', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, cliArgs(args), {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      encoding: 'utf8',
      timeout: 60000,
    });

  test('--help prints the options and exits 0', () => {
    const r = run(['start', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--db-pool-max=<value>');
  });

  test('a bad option value stops start-up with exit code 2 and names the option', () => {
    const r = run(['start-dev', '--http-port=notaport']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("'--http-port'");
  });

  test('start refuses to create an admin without bootstrap credentials', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idserver-cli-'));
    const r = run([
      'start',
      '--hostname=https://id.example.com',
      `--db-url=${join(dir, 'db.sqlite')}`,
      '--http-port=0',
      '--log-level=error',
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain('IDSERVER_BOOTSTRAP_ADMIN_USERNAME');
  });
});
