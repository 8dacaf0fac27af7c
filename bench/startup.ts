/**
 * Start-up and idle memory of issue 12: `node bin/idserver start-dev` (what `npm start` runs, on the
 * compiled build) spawned on an existing database, timed from spawn to the first 200 of
 * `/health/ready` on the management port, and its resident memory once idle.
 *
 *   npm run bench:startup                                                            # SQLite
 *   IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/bench_startup npm run bench:startup   # MariaDB
 *   RUNS=10 IDLE=5 SETTLE=0 npm run bench:startup
 *
 * The first start (empty database: migrations and bootstrap) is reported apart; RUNS starts follow on
 * the database it left. Idle RSS is read IDLE seconds (default 5) after ready, and again SETTLE
 * seconds (default 30; 0 skips) after ready, once V8's memory reducer has run its idle collection.
 * Exit code 1 when the median start-up or the idle RSS misses its target.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiled, dbArgs, freshMariaDb, median, rssMb, sleep, startIdserver } from './process';

const RUNS = Number(process.env.RUNS ?? 5);
const IDLE = Number(process.env.IDLE ?? 5);
const SETTLE = Number(process.env.SETTLE ?? 30);
const TARGET_READY_MS = 1500;
const TARGET_RSS_MB = 150;

async function main() {
  if (!compiled())
    console.warn('No compiled build (dist/): bin/idserver runs ts-node. Run `npm run build` first to measure what `npm start` runs.');
  const dir = mkdtempSync(join(tmpdir(), 'idserver-startup-'));
  const db = dbArgs(join(dir, 'startup.sqlite'));
  await freshMariaDb();
  try {
    const first = await startIdserver(db.args);
    await first.stop();
    const times: number[] = [];
    const cpu: number[] = [];
    let idle = Number.NaN;
    let settled = Number.NaN;
    for (let i = 0; i < RUNS; i++) {
      const s = await startIdserver(db.args);
      times.push(s.readyMs);
      cpu.push(s.readyCpuMs);
      if (i === RUNS - 1) {
        await sleep(IDLE * 1000);
        idle = rssMb(s.child.pid as number);
        if (SETTLE > IDLE) {
          await sleep((SETTLE - IDLE) * 1000);
          settled = rssMb(s.child.pid as number);
        }
      }
      await s.stop();
    }
    const ready = median(times);
    const row = (what: string, value: string, target: string, ok: boolean | undefined) =>
      console.log(`${what.padEnd(44)} ${value.padStart(10)} ${target.padStart(10)}  ${ok === undefined ? '' : ok ? 'met' : 'MISSED'}`);
    console.log(`idserver start-up (${db.label}, ${compiled() ? 'compiled build' : 'ts-node'}, ${RUNS} starts on an existing database)`);
    row('', 'measured', 'target', undefined);
    row('first start, empty database', `${first.readyMs.toFixed(0)} ms`, '', undefined);
    row('spawn → /health/ready 200, median', `${ready.toFixed(0)} ms`, `< ${TARGET_READY_MS} ms`, ready < TARGET_READY_MS);
    row('spawn → /health/ready 200, slowest', `${Math.max(...times).toFixed(0)} ms`, '', undefined);
    row('CPU time used by then, median', `${median(cpu).toFixed(0)} ms`, '', undefined);
    row(`RSS idle ${IDLE} s after ready`, `${idle.toFixed(0)} MB`, `< ${TARGET_RSS_MB} MB`, idle < TARGET_RSS_MB);
    if (!Number.isNaN(settled))
      row(`RSS idle ${SETTLE} s after ready`, `${settled.toFixed(0)} MB`, `< ${TARGET_RSS_MB} MB`, settled < TARGET_RSS_MB);
    if (!(ready < TARGET_READY_MS && idle < TARGET_RSS_MB)) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
