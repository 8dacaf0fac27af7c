/**
 * Password hashing of issue 12: Keycloak's argon2id parameters, off the event loop. Measures
 *
 * - the time of one argon2id hash with the realm default parameters (in this process, one at a time);
 * - password grants/s against idserver (its own process, `node bin/idserver start-dev`) with CONNECTIONS
 *   concurrent clients, beside the ceiling `cores ÷ hash time` (target ≥ 90 %);
 * - the p99 of a cheap admin read (`GET /admin/realms/master/users/{id}`, RATE requests/s from one
 *   client) alone, and while password grants saturate the cores (target: at most 2× the p99 alone).
 *
 *   npm run bench:hashing                                                          # SQLite
 *   IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/bench_hashing npm run bench:hashing  # MariaDB
 *   UV_THREADPOOL_SIZE=4 DURATION=10 npm run bench:hashing        # the child's environment is passed on
 *
 * Exit code 1 when a target is missed.
 */
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { hashPassword } from '../src/auth/passwords';
import { ADMIN_PASSWORD_FORM, adminAuthHeader } from './common';
import { compiled, dbArgs, freshMariaDb, median, startIdserver } from './process';

const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const RATE = Number(process.env.RATE ?? 50);
const CORES = availableParallelism();

async function hashTimeMs(): Promise<number> {
  for (let i = 0; i < 3; i++) await hashPassword('warm-up password');
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = process.hrtime.bigint();
    await hashPassword(`password ${i}`);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

function grants(base: string): Promise<autocannon.Result> {
  return autocannon({
    url: `${base}/realms/master/protocol/openid-connect/token`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: ADMIN_PASSWORD_FORM,
    connections: CONNECTIONS,
    duration: DURATION,
  });
}

function adminReads(url: string, auth: Record<string, string>): Promise<autocannon.Result> {
  return autocannon({ url, headers: auth, connections: 1, overallRate: RATE, duration: DURATION });
}

const failed = (r: autocannon.Result) => r.non2xx + r.errors + r.timeouts;

async function main() {
  if (!compiled()) console.warn('No compiled build (dist/): bin/idserver runs ts-node. Run `npm run build` first.');
  const hashMs = await hashTimeMs();
  const dir = mkdtempSync(join(tmpdir(), 'idserver-hashing-'));
  const db = dbArgs(join(dir, 'hashing.sqlite'));
  await freshMariaDb();
  const server = await startIdserver(db.args);
  try {
    const auth = await adminAuthHeader(server.base);
    const [admin] = (await (
      await fetch(`${server.base}/admin/realms/master/users?username=admin&exact=true`, { headers: auth })
    ).json()) as Array<{
      id: string;
    }>;
    const userUrl = `${server.base}/admin/realms/master/users/${admin.id}`;
    // Warm-up: code paths, caches and the pool.
    await autocannon({ url: userUrl, headers: auth, connections: 2, duration: 2 });
    await autocannon({
      url: `${server.base}/realms/master/protocol/openid-connect/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: ADMIN_PASSWORD_FORM,
      connections: CONNECTIONS,
      duration: 2,
    });
    const alone = await adminReads(userUrl, auth);
    const grantsAlone = await grants(server.base);
    const [loaded, grantsLoaded] = await Promise.all([adminReads(userUrl, auth), grants(server.base)]);

    const ceiling = (CORES * 1000) / hashMs;
    const rate = grantsAlone.requests.average;
    const p99Ratio = loaded.latency.p99 / Math.max(alone.latency.p99, 1);
    const env = process.env.UV_THREADPOOL_SIZE ? `, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE}` : '';
    console.log(`Password hashing (${db.label}, ${CORES} cores${env}, ${DURATION}s per case, grants from ${CONNECTIONS} connections)`);
    const row = (what: string, value: string, target = '', ok?: boolean) =>
      console.log(`${what.padEnd(52)} ${value.padStart(12)} ${target.padStart(14)}  ${ok === undefined ? '' : ok ? 'met' : 'MISSED'}`);
    row('argon2id hash (7168 KiB, 5 iterations, p=1), median', `${hashMs.toFixed(1)} ms`);
    row('ceiling: cores ÷ hash time', `${ceiling.toFixed(0)} /s`);
    row('password grants', `${rate.toFixed(0)} /s`, `≥ ${(0.9 * ceiling).toFixed(0)} /s`, rate >= 0.9 * ceiling);
    row('  share of the ceiling', `${((100 * rate) / ceiling).toFixed(0)} %`, '≥ 90 %');
    row('  p50 / p99 latency', `${grantsAlone.latency.p50} / ${grantsAlone.latency.p99} ms`);
    row(`admin GET /users/{id} at ${RATE}/s alone, p50 / p99`, `${alone.latency.p50} / ${alone.latency.p99} ms`);
    row('  the same while grants saturate, p50 / p99', `${loaded.latency.p50} / ${loaded.latency.p99} ms`);
    row('  p99 ratio', `${p99Ratio.toFixed(2)}×`, '≤ 2×', p99Ratio <= 2);
    row('  grants meanwhile', `${grantsLoaded.requests.average.toFixed(0)} /s`);
    const bad = failed(alone) + failed(grantsAlone) + failed(loaded) + failed(grantsLoaded);
    if (bad) console.log(`(${bad} failed responses)`);
    if (rate < 0.9 * ceiling || p99Ratio > 2 || bad) process.exitCode = 1;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
