// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';
import { ConfigError, loadConfig, resolveDatabase } from '../../src/config';
import { cliArgs } from '../helpers/cli';

/**
 * Start-up tells the truth (issue 11, item 1): a taken port, a database URL of the wrong kind or one
 * that cannot be reached, missing bootstrap credentials: each stops `idserver start` with a non-zero
 * exit code and a message naming the option, before anything is written. The CLI runs from the sources.
 */
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, cliArgs(args), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    timeout: 60000,
  });
const START = ['start', '--hostname=https://id.example.com', '--log-level=error'];
const CREDENTIALS = { IDSERVER_BOOTSTRAP_ADMIN_USERNAME: 'admin', IDSERVER_BOOTSTRAP_ADMIN_PASSWORD: 'secret' };
const tmpDb = () => join(mkdtempSync(join(tmpdir(), 'idserver-startup-')), 'db.sqlite');

async function realmCount(file: string): Promise<number> {
  const s = new Sequelize({ dialect: 'sqlite', storage: file, logging: false });
  try {
    const [rows] = await s.query('SELECT COUNT(*) AS n FROM realm');
    return Number((rows as Array<{ n: number }>)[0].n);
  } finally {
    await s.close();
  }
}

describe('idserver start', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  test('a port in use stops start-up with exit code 1, naming the option, before the database is created', () => {
    const file = tmpDb();
    const r = run([...START, '--http-host=127.0.0.1', `--http-port=${port}`, `--db-url=${file}`], CREDENTIALS);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use: choose another with --http-port`);
    expect(existsSync(file)).toBe(false);
  });

  test('a database URL of the wrong kind is exit code 2 naming --db-url', () => {
    const pg = run([...START, '--db=mariadb', '--db-url=postgres://127.0.0.1:5432/x']);
    expect(pg.status).toBe(2);
    expect(pg.stderr).toContain("Invalid value for option '--db-url': --db=mariadb needs a URL such as mysql://host:3306/database");
    const mixed = run([...START, '--db=sqlite', '--db-url=mysql://127.0.0.1:3306/x']);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain("Invalid value for option '--db-url': mysql:// is not a SQLite file");
  });

  test('without --db the kind follows the URL: a mysql:// URL is MariaDB, and one nobody answers fails naming it', () => {
    const r = run([...START, '--http-port=0', '--db-url=mysql://idserver:hunter2@127.0.0.1:1/none'], CREDENTIALS);
    expect(r.status).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('Cannot open the database of --db=mariadb --db-url=mysql://idserver:***@127.0.0.1:1/none');
    expect(out).not.toContain('hunter2');
    expect(existsSync('mysql:')).toBe(false); // it once became a SQLite file named "mysql:"
  });

  test('start without bootstrap credentials on an empty database leaves no master realm behind', async () => {
    const file = tmpDb();
    const r = run([...START, '--http-port=0', `--db-url=${file}`]);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain('IDSERVER_BOOTSTRAP_ADMIN_USERNAME');
    expect(await realmCount(file)).toBe(0);
  });
});

describe('resolveDatabase', () => {
  const load = (args: string[]) => {
    const cfg = loadConfig({ mode: 'start', args, env: {}, confFile: '/nonexistent' });
    resolveDatabase(cfg);
    return cfg;
  };
  test('the kind follows the scheme when --db is not given; an explicit --db is kept', () => {
    expect(load(['--db-url=mysql://h:3306/d']).db).toBe('mariadb');
    expect(load(['--db-url=mariadb://h:3306/d']).db).toBe('mariadb');
    expect(load(['--db-url=data/x.sqlite']).db).toBe('sqlite');
    expect(load(['--db=mysql', '--db-url=mysql://h:3306/d']).db).toBe('mysql');
    expect(() => load(['--db=mysql', '--db-url=h:3306/d'])).toThrow(ConfigError);
  });
});
