import { recreateMariaDb } from './common';
/**
 * What the process benchmarks (bench/startup.ts, bench/hashing.ts) share: idserver started as its own
 * process the way `npm start` runs it (`node bin/idserver start-dev`, the compiled build when
 * `npm run build` made one), a free port, a database to start it on, and the child's resident memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');

/** Whether bin/idserver will run the compiled build (dist/) rather than ts-node. */
export const compiled = () => existsSync(join(ROOT, 'dist', 'src', 'cli.js'));

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The `--db`/`--db-url` options of the benchmark's database: IDSERVER_BENCH_DB_URL (MariaDB), else a SQLite file. */
export function dbArgs(sqliteFile: string): { args: string[]; label: string } {
  const url = process.env.IDSERVER_BENCH_DB_URL;
  if (url) return { args: ['--db=mariadb', `--db-url=${url}`], label: 'MariaDB' };
  return { args: ['--db=sqlite', `--db-url=${sqliteFile}`], label: 'SQLite' };
}

/** Drops and creates the MariaDB database of IDSERVER_BENCH_DB_URL (utf8mb4_bin); nothing for SQLite. */
export async function freshMariaDb(): Promise<void> {
  const raw = process.env.IDSERVER_BENCH_DB_URL;
  if (!raw) return;
  const url = new URL(raw);
  const name = url.pathname.replace(/^\//, '');
  if (!/^\w+$/.test(name)) throw new Error(`IDSERVER_BENCH_DB_URL needs a plain database name, not '${name}'`);
  await recreateMariaDb(url, name);
}

export interface Started {
  child: ChildProcess;
  base: string;
  management: string;
  /** Milliseconds from spawn to the first 200 of /health/ready. */
  readyMs: number;
  /** CPU time the child had used by then (all its threads), in ms: less sensitive to a busy machine than readyMs. */
  readyCpuMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns `node bin/idserver start-dev` with health on the management port and waits for
 * `/health/ready` to answer 200 (polled every 5 ms). `env` is added to the child's environment.
 */
export async function startIdserver(extraArgs: string[], env: Record<string, string> = {}): Promise<Started> {
  const [port, mport] = [await freePort(), await freePort()];
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'idserver'),
      'start-dev',
      '--http-host=127.0.0.1',
      `--http-port=${port}`,
      `--http-management-port=${mport}`,
      '--health-enabled=true',
      '--log-level=warn',
      ...extraArgs,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } },
  );
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  const management = `http://127.0.0.1:${mport}`;
  for (;;) {
    if (exited !== undefined) throw new Error(`idserver exited (${exited}) before it was ready:\n${err}`);
    const ok = await fetch(`${management}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  const readyCpuMs = cpuMs(child.pid as number);
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    management,
    readyMs,
    readyCpuMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited !== undefined) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** User + system CPU time of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
