/**
 * The scale case of issue 12: a realm of USERS users (default 1,000,000) and GROUPS groups (default
 * 10,000) seeded with bulk SQL (bench/seed.ts), idserver started on it as its own process, and each
 * admin query below timed one request at a time (SAMPLES after a warm-up): p50/p99 against its target.
 *
 *   npm run bench:scale                                   # SQLite
 *   IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/bench npm run bench:scale   # MariaDB (utf8mb4_bin)
 *   USERS=100000 SAMPLES=20 npm run bench:scale -- --case=search
 *   KEEP=1 npm run bench:scale -- --case=none          # seed only, keep the SQLite file
 *
 * Not part of `npm test`. Exit code 1 when a p50 misses its target (the "whole tree" and count
 * targets are compared with p50 too).
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { ADMIN_PASSWORD_FORM, startChild } from './common';
import { BENCH_REALM, seed, seedPhases } from './seed';

const USERS = Number(process.env.USERS ?? 1_000_000);
const GROUPS = Number(process.env.GROUPS ?? 10_000);
const SAMPLES = Number(process.env.SAMPLES ?? 40);
const filter = process.argv.find((a) => a.startsWith('--case='))?.slice('--case='.length);

interface Case {
  name: string;
  path: string;
  /** p50 target in ms. */
  target: number;
  /** Expected number of entries (array length or the number itself), checked once. */
  expect?: (body: unknown) => boolean;
}

const n = (i: number) => `user${String(i).padStart(7, '0')}`;

function cases(groupId: string): Case[] {
  const u = `/admin/realms/${BENCH_REALM}/users`;
  const g = `/admin/realms/${BENCH_REALM}/groups`;
  const len = (k: number) => (b: unknown) => Array.isArray(b) && b.length === k;
  const mid = Math.floor(USERS / 2);
  return [
    { name: 'users first page (max=20)', path: `${u}?first=0&max=20&briefRepresentation=true`, target: 10, expect: len(20) },
    { name: 'users first page (max=100)', path: `${u}?first=0&max=100`, target: 10, expect: len(100) },
    { name: 'username exact', path: `${u}?username=${n(mid)}&exact=true`, target: 10, expect: len(1) },
    { name: 'search prefix user05*', path: `${u}?search=user05*&first=0&max=20`, target: 30, expect: len(20) },
    { name: 'search prefix (no match)', path: `${u}?search=nobody*&first=0&max=20`, target: 30, expect: len(0) },
    { name: 'search infix *ser05*', path: `${u}?search=*ser05*&first=0&max=20`, target: 100, expect: len(20) },
    { name: 'search infix *9999* (sparse)', path: `${u}?search=*99999*&first=0&max=20`, target: 100 },
    { name: 'email= (substring)', path: `${u}?email=${n(mid).slice(2)}@ex&first=0&max=20`, target: 100, expect: len(1) },
    { name: 'users count', path: `${u}/count`, target: 50, expect: (b) => b === USERS + 2 },
    { name: 'users count search', path: `${u}/count?search=user05*`, target: 50 },
    { name: 'users offset half', path: `${u}?first=${mid}&max=100`, target: 100, expect: len(100) },
    { name: 'groups first page (max=10)', path: `${g}?first=0&max=10`, target: 100, expect: len(10) },
    { name: 'groups all top-level', path: `${g}`, target: 100 },
    { name: 'groups children', path: `${g}/${groupId}/children?first=0&max=100`, target: 100, expect: len(9) },
    { name: 'groups search (one)', path: `${g}?search=group-0777-3`, target: 100, expect: len(1) },
    { name: 'groups count', path: `${g}/count`, target: 100 },
    { name: 'groups whole tree (search all)', path: `${g}?search=group&max=${GROUPS}`, target: 500 },
  ];
}

async function groupNamed(base: string, headers: Record<string, string>, name: string): Promise<string> {
  const r = await fetch(`${base}/admin/realms/${BENCH_REALM}/groups?search=${name}&exact=true`, { headers });
  return ((await r.json()) as Array<{ id: string }>)[0].id;
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** The database to measure: freshly seeded, or (SEEDED=path of a kept SQLite file, or SEEDED=1 with IDSERVER_BENCH_DB_URL) as a previous run left it. */
async function database(): Promise<{ vendor: 'sqlite' | 'mariadb'; url: string; dir?: string; groupId?: string }> {
  const kept = process.env.SEEDED;
  if (kept) {
    const maria = process.env.IDSERVER_BENCH_DB_URL;
    return maria ? { vendor: 'mariadb', url: maria } : { vendor: 'sqlite', url: kept };
  }
  const t0 = Date.now();
  const s = await seed(USERS, { scale: { groups: GROUPS } });
  const seconds = (Date.now() - t0) / 1000;
  const phases = Object.entries(seedPhases).map(([k, v]) => `${k} ${v.toFixed(1)}s`);
  console.log(`seeded ${USERS} users and ${GROUPS} groups on ${s.vendor} in ${seconds.toFixed(1)}s (${phases.join(', ')})`);
  return s;
}

async function main() {
  const s = await database();
  let child: ChildProcess | undefined;
  let missed = 0;
  try {
    const db = s.vendor === 'sqlite' ? ['--db=sqlite', `--db-url=${s.url}`] : ['--db=mariadb', `--db-url=${s.url}`];
    const server = await startChild('idserver', [
      'src/cli.ts',
      'start-dev',
      '--http-port=0',
      '--log-level=warn,idserver.server:info',
      ...db,
    ]);
    child = server.child;
    // Master realm access tokens live 60 seconds: a fresh one per case, and every 30 s within one.
    const auth = async () => {
      const res = await fetch(`${server.base}/realms/master/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: ADMIN_PASSWORD_FORM,
      });
      return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
    };
    const groupId = s.groupId ?? (await groupNamed(server.base, await auth(), 'group-0007'));
    console.log(`${'case'.padEnd(34)} | p50 ms | p99 ms | target p50`);
    for (const c of cases(groupId).filter((k) => !filter || k.name.toLowerCase().includes(filter.toLowerCase()))) {
      const times: number[] = [];
      let headers = await auth();
      let issued = Date.now();
      let note = '';
      for (let i = 0; i < SAMPLES + 3; i++) {
        if (Date.now() - issued > 30_000) {
          // A slow case outlives the token: a new one, outside the timing.
          headers = await auth();
          issued = Date.now();
        }
        const t = performance.now();
        const r = await fetch(`${server.base}${c.path}`, { headers });
        const body = await r.json();
        const ms = performance.now() - t;
        if (!note && (r.status !== 200 || (c.expect && !c.expect(body)))) {
          note = ` (unexpected, request ${i + 1}: ${r.status} ${JSON.stringify(body).slice(0, 80)})`;
        }
        if (i >= 3) times.push(ms);
      }
      times.sort((a, b) => a - b);
      const p50 = pct(times, 50);
      const ok = p50 < c.target;
      if (!ok || note) missed++;
      console.log(
        `${c.name.padEnd(34)} | ${p50.toFixed(1).padStart(6)} | ${pct(times, 99).toFixed(1).padStart(6)} | < ${c.target} ${ok ? 'ok' : 'MISSED'}${note}`,
      );
    }
  } finally {
    if (child) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child?.once('exit', r));
    }
    if (s.dir && !process.env.KEEP) rmSync(s.dir, { recursive: true, force: true });
    else if (s.dir) console.log(`kept ${s.url}`);
  }
  if (missed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
