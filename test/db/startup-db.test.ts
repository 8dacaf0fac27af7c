import { openDb } from '../../src/db';
import { spawn } from 'node:child_process';
import { createConnection } from 'mysql2/promise';
import { freshDbOptions } from '../helpers/server';
import { cliArgs } from '../helpers/cli';

/**
 * Two nodes starting at once on one empty MariaDB database (issue 11, item 1): the migration lock lets
 * one migrate while the other waits, so both start and every migration ran exactly once. On SQLite (one
 * process's file) there is nothing to race; the test still opens the file twice in turn.
 */
test('two nodes migrating one empty database at once both start, each migration recorded once', async () => {
  const { opts, cleanup } = await freshDbOptions();
  try {
    const [a, b] = opts.vendor === 'sqlite' ? [await openDb(opts), await openDb(opts)] : await Promise.all([openDb(opts), openDb(opts)]);
    try {
      const [rows] = await a.sequelize.query('SELECT name FROM schema_migrations');
      const names = (rows as Array<{ name: string }>).map((r) => r.name);
      expect(names.length).toBeGreaterThan(10);
      expect(new Set(names).size).toBe(names.length);
      expect(await b.models.Realm.count()).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  } finally {
    await cleanup();
  }
}, 120_000);

const onMariaDb = process.env.IDSERVER_TEST_DB_URL ? test : test.skip;

onMariaDb(
  'a MariaDB database whose collation compares case-insensitively is refused before anything is written',
  async () => {
    const url = new URL(process.env.IDSERVER_TEST_DB_URL as string);
    const name = `idserver_ci_${process.pid}`;
    const admin = await createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username) || 'root',
    });
    try {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
      url.pathname = `/${name}`;
      await expect(openDb({ vendor: 'mariadb', url: url.toString() })).rejects.toThrow(
        `The database ${name} given by --db-url cannot be used: its default collation is utf8mb4_general_ci (utf8mb4), which compares names case-insensitively`,
      );
      const [tables] = await admin.query(`SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`, [name]);
      expect(Number((tables as Array<{ n: number }>)[0].n)).toBe(0);
      // The same database made binary is accepted, and again at the next start (its migration table,
      // made by umzug with the server's default collation, holds only file names).
      await admin.query(`ALTER DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      await (await openDb({ vendor: 'mariadb', url: url.toString() })).close();
      await (await openDb({ vendor: 'mariadb', url: url.toString() })).close();
      // A table that compares case-insensitively (made by hand, or by an old server) is refused too.
      await admin.query(`ALTER TABLE \`${name}\`.role DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
      await expect(openDb({ vendor: 'mariadb', url: url.toString() })).rejects.toThrow(
        'its tables role (utf8mb4_general_ci) compare text case-insensitively',
      );
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    }
  },
  120_000,
);

// Several nodes share a MariaDB/MySQL database; a SQLite file belongs to one process.
onMariaDb(
  'two nodes starting at once on one empty database both come up, with one master realm and one admin',
  async () => {
    const { opts, cleanup } = await freshDbOptions();
    const spawnNode = () =>
      spawn(
        process.execPath,
        cliArgs([
          'start',
          '--hostname=http://localhost:8080',
          '--http-host=127.0.0.1',
          '--http-port=0',
          `--db=${opts.vendor}`,
          `--db-url=${opts.url}`,
          '--log-level=info',
        ]),
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            IDSERVER_BOOTSTRAP_ADMIN_USERNAME: 'admin',
            IDSERVER_BOOTSTRAP_ADMIN_PASSWORD: 'pw',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    const nodes = [spawnNode(), spawnNode()];
    try {
      const up = nodes.map(
        (p) =>
          new Promise<string>((resolve, reject) => {
            let out = '';
            const seen = (c: Buffer) => {
              out += c.toString();
              const m = /idserver listening on (\S+)/.exec(out);
              if (m) resolve(m[1]);
            };
            p.stdout?.on('data', seen);
            p.stderr?.on('data', seen);
            p.once('exit', (code) => reject(new Error(`node exited ${code}: ${out}`)));
          }),
      );
      const urls = await Promise.all(up);
      expect(urls).toHaveLength(2);
      const db = await openDb(opts);
      try {
        expect(await db.models.Realm.count({ where: { name: 'master' } })).toBe(1);
        const master = await db.models.Realm.findOne({ where: { name: 'master' } });
        expect(await db.models.User.count({ where: { realmId: master?.id, username: 'admin' } })).toBe(1);
      } finally {
        await db.close();
      }
    } finally {
      for (const p of nodes) p.kill('SIGKILL');
      await cleanup();
    }
  },
  120_000,
);
