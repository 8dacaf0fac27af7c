import { recreateMariaDb } from './common';
/**
 * `idserver export` and `idserver import` at scale: seeds a realm of USERS users (default 100000)
 * with bulk SQL (bench/seed.ts, plus one pbkdf2 password credential per user), runs
 * `idserver export --dir` on it and `idserver import --dir` of the result into an empty database,
 * each as a child process as an operator runs them, and prints wall time, users/s and the peak
 * resident memory of each child (its own `process.resourceUsage().maxRSS`, read at exit; the
 * /proc VmHWM polled meanwhile as a cross-check).
 *
 *   npm run bench:export-import                                   # SQLite, 100000 users
 *   USERS=20000 npm run bench:export-import
 *   HEAP_MB=128 npm run bench:export-import                      # children's V8 heap capped at 128 MB
 *   IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/bench npm run bench:export-import
 *
 * On MariaDB the source database's tables are dropped and recreated; the import goes into
 * `<database>_import` on the same server (created with utf8mb4_bin, its tables dropped first).
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../src/db';
import { BENCH_REALM, seed } from './seed';

const USERS = Number(process.env.USERS ?? 100000);
const ROOT = join(__dirname, '..');
/** HEAP_MB caps the children's V8 heap: a run that passes under a small cap shows memory does not grow with USERS. */
const HEAP = process.env.HEAP_MB ? [`--max-old-space-size=${process.env.HEAP_MB}`] : [];

interface Run {
  seconds: number;
  maxRssMb: number;
  hwmMb: number;
  stderr: string;
}

/** Runs `idserver <args>` with the RSS reporter preloaded; polls /proc/<pid>/status for VmHWM meanwhile. */
function idserver(args: string[]): Promise<Run> {
  const started = process.hrtime.bigint();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IDSERVER_')));
  const child = spawn(
    process.execPath,
    [...HEAP, '-r', 'ts-node/register/transpile-only', '-r', join(__dirname, 'max-rss.cjs'), 'src/cli.ts', ...args, '--log-level=warn'],
    { cwd: ROOT, env: { ...env, NODE_ENV: 'production' }, stdio: ['ignore', 'inherit', 'pipe'] },
  );
  let stderr = '';
  let hwm = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) hwm = Math.max(hwm, Number(m[1]));
    } catch {
      // gone already
    }
  }, 100);
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(d);
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`idserver ${args[0]} exited with ${code}`));
      const rss = Number(/maxRSS (\d+)/.exec(stderr)?.[1] ?? 0);
      resolve({ seconds, maxRssMb: rss / 1024, hwmMb: hwm / 1024, stderr });
    }),
  );
}

/** One pbkdf2-sha512 password credential per user of the realm (stored hashes: what an export carries). */
async function addCredentials(vendor: 'sqlite' | 'mariadb', url: string): Promise<void> {
  const db = await openDb({ vendor, url });
  try {
    const [rows] = (await db.sequelize.query(
      `SELECT u.id FROM user_entity u JOIN realm r ON r.id = u.realm_id WHERE r.name = ${db.sequelize.escape(BENCH_REALM)}`,
    )) as [Array<{ id: string }>, unknown];
    const salt = randomBytes(16).toString('base64');
    const value = pbkdf2Sync('bench', salt, 1000, 64, 'sha512').toString('base64');
    const secret = db.sequelize.escape(JSON.stringify({ value, salt, additionalParameters: {} }));
    const data = db.sequelize.escape(JSON.stringify({ hashIterations: 1000, algorithm: 'pbkdf2-sha512', additionalParameters: {} }));
    const now = Date.now();
    for (let i = 0; i < rows.length; i += 500) {
      const values = rows
        .slice(i, i + 500)
        .map(
          (r) => `(${db.sequelize.escape(randomUUID())}, ${db.sequelize.escape(r.id)}, 'password', NULL, ${secret}, ${data}, 10, ${now})`,
        )
        .join(', ');
      await db.sequelize.query(
        `INSERT INTO credential (id, user_id, type, user_label, secret_data, credential_data, priority, created_date) VALUES ${values}`,
      );
    }
  } finally {
    await db.close();
  }
}

async function usersOf(vendor: 'sqlite' | 'mariadb', url: string): Promise<number> {
  const db = await openDb({ vendor, url });
  try {
    const [[{ n }]] = (await db.sequelize.query(
      `SELECT COUNT(*) AS n FROM user_entity u JOIN realm r ON r.id = u.realm_id WHERE r.name = ${db.sequelize.escape(BENCH_REALM)}`,
    )) as [Array<{ n: number }>, unknown];
    return Number(n);
  } finally {
    await db.close();
  }
}

/** An empty target database: a SQLite file, or `<database>_import` next to the MariaDB source. */
async function emptyTarget(vendor: 'sqlite' | 'mariadb', source: string, dir: string): Promise<string> {
  if (vendor === 'sqlite') return join(dir, 'import.sqlite');
  const url = new URL(source);
  const name = `${url.pathname.slice(1)}_import`;
  await recreateMariaDb(url, name);
  url.pathname = `/${name}`;
  return url.toString();
}

async function main(): Promise<void> {
  process.stderr.write(`Seeding ${USERS} users ...\n`);
  const seeded = await seed(USERS);
  await addCredentials(seeded.vendor, seeded.url);
  const work = mkdtempSync(join(tmpdir(), 'idserver-bench-exim-'));
  try {
    const out = join(work, 'export');
    const dbArgs = (url: string) => [`--db=${seeded.vendor}`, `--db-url=${url}`];
    const exported = await idserver(['export', `--dir=${out}`, '--users-per-file=1000', ...dbArgs(seeded.url)]);
    const target = await emptyTarget(seeded.vendor, seeded.url, work);
    const imported = await idserver(['import', `--dir=${out}`, ...dbArgs(target)]);
    const [before, after] = [await usersOf(seeded.vendor, seeded.url), await usersOf(seeded.vendor, target)];
    if (before !== after) throw new Error(`imported ${after} users of realm ${BENCH_REALM}, exported ${before}`);
    // The realm's own time, as the command reports it: the wall time less start-up (ts-node, migrations) and master.
    const realmSeconds = (r: Run) =>
      Number(new RegExp(`realm '${BENCH_REALM}': \\d+ users in ([\\d.]+) s`).exec(r.stderr)?.[1] ?? Number.NaN);
    const row = (what: string, r: Run) =>
      `${what.padEnd(8)} ${r.seconds.toFixed(1).padStart(6)} s ${String(Math.round(USERS / r.seconds)).padStart(7)} users/s  ` +
      `${realmSeconds(r).toFixed(1).padStart(6)} s ${String(Math.round(USERS / realmSeconds(r))).padStart(7)} users/s  ` +
      `${r.maxRssMb.toFixed(0).padStart(5)} MB (VmHWM ${r.hwmMb.toFixed(0)} MB)`;
    process.stdout.write(
      [
        `${seeded.vendor}, ${USERS} users (+ 2: a login user and a service account), node ${process.version}${HEAP.length ? `, ${HEAP[0]}` : ''}`,
        `command      wall time               realm '${BENCH_REALM}' alone     peak RSS`,
        row('export', exported),
        row('import', imported),
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (seeded.dir) rmSync(seeded.dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
