/**
 * idserver against its own limit, in one run: seeds a fresh database (bench/seed.ts), builds idserver
 * and starts it as `npm start` runs it (compiled: `bin/idserver start-dev`) and the bare baseline (bench/bare-server.ts: express 5 + the same driver,
 * no ORM) as two child processes on it, and drives each case from this process with autocannon,
 * alternating idserver, baseline, idserver, baseline (DURATION seconds each) so both share the
 * machine's noise. Prints req/s of each, their ratio and p50/p99 latency, and the CPU time each server
 * spent per request (user + system, from /proc): on a shared, noisy machine a server that is descheduled
 * serves fewer requests per second but not more CPU per request, so the CPU ratio (baseline ÷ idserver)
 * is the steadier measure of the work idserver adds. A last line measures issue 12's GraphQL target on
 * idserver alone: the page of users × groups × roles against the 201 REST calls for the same data.
 *
 *   npm run bench:compare                              # SQLite, USERS=2000, DURATION=5
 *   USERS=500 DURATION=2 npm run bench:compare -- --case=token
 *   IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/bench npm run bench:compare
 *   PROFILE_DIR=/tmp/prof npm run bench:compare -- --case='users/{id}'   # and a CPU profile of idserver
 *
 * On MariaDB the database must exist with COLLATE utf8mb4_bin (idserver's preflight); its tables are
 * dropped and recreated. CONNECTIONS (default 10) sets autocannon's connections.
 */
import { type ChildProcess, execSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ADMIN_PASSWORD_FORM, startChild } from './common';
import { cpuMs } from './process';
import { BENCH_REALM, LOGIN_PASSWORD, LOGIN_USER, SVC_CLIENT, SVC_SECRET, seed } from './seed';

const USERS = Number(process.env.USERS ?? 2000);
const DURATION = Number(process.env.DURATION ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const ROUNDS = 2;
const ROOT = join(__dirname, '..');
/** PROFILE_DIR=dir: idserver writes a V8 CPU profile there when it stops (open it in Chrome's DevTools). */
const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
const filter = process.argv.find((a) => a.startsWith('--case='))?.slice('--case='.length);

async function token(base: string, realm: string, form: string): Promise<string> {
  const res = await fetch(`${base}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (!res.ok) throw new Error(`token from ${base}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Case {
  name: string;
  opts: (base: string, auth: Record<string, string>) => autocannon.Options;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU ms of the server process per request served. */
  cpu: number;
}

function cases(userId: string, groupId: string): Case[] {
  const get = (path: string) => (base: string, auth: Record<string, string>) => ({ url: `${base}${path}`, headers: auth });
  const form = (body: string) => (base: string) => ({
    url: `${base}/realms/${BENCH_REALM}/protocol/openid-connect/token`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const gql = (query: string, variables: Record<string, unknown>) => (base: string, auth: Record<string, string>) => ({
    url: `${base}/graphql`,
    method: 'POST' as const,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const admin = `/admin/realms/${BENCH_REALM}`;
  return [
    { name: 'GET /users/{id}', opts: get(`${admin}/users/${userId}`) },
    { name: 'GET /users?max=100', opts: get(`${admin}/users?max=100`) },
    { name: 'GET /users?search=user00001', opts: get(`${admin}/users?search=user00001&max=20`) },
    { name: 'GET /groups', opts: get(`${admin}/groups`) },
    { name: 'GET /groups/{id}/children', opts: get(`${admin}/groups/${groupId}/children`) },
    { name: 'GET role-mappings/realm/composite', opts: get(`${admin}/users/${userId}/role-mappings/realm/composite`) },
    {
      name: 'token: password grant',
      opts: form(`grant_type=password&client_id=admin-cli&username=${LOGIN_USER}&password=${LOGIN_PASSWORD}`),
    },
    { name: 'token: client credentials', opts: form(`grant_type=client_credentials&client_id=${SVC_CLIENT}&client_secret=${SVC_SECRET}`) },
    {
      name: 'GraphQL user by id',
      opts: gql(
        'query($realm: String!, $id: ID!) { user(realm: $realm, id: $id) { id username firstName lastName email emailVerified attributes enabled createdTimestamp requiredActions disableableCredentialTypes } }',
        { realm: BENCH_REALM, id: userId },
      ),
    },
    {
      name: 'GraphQL 100 users×groups×roles',
      opts: gql(
        'query($realm: String!, $max: Int) { realm(name: $realm) { users(max: $max) { username groups { name } effectiveRoles { name } } } }',
        {
          realm: BENCH_REALM,
          max: 100,
        },
      ),
    },
  ];
}

async function drive(opts: autocannon.Options, pid: number): Promise<Figures> {
  const cpu0 = cpuMs(pid);
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: DURATION });
  const cpu = (cpuMs(pid) - cpu0) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors, cpu };
}

/** Rounds merged: mean req/s, and the worse round's latency percentiles (no raw histograms to merge). */
function merge(rounds: Figures[]): Figures {
  return {
    rps: rounds.reduce((s, r) => s + r.rps, 0) / rounds.length,
    p50: Math.max(...rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    failed: rounds.reduce((s, r) => s + r.failed, 0),
    cpu: rounds.reduce((s, r) => s + r.cpu, 0) / rounds.length,
  };
}

async function main() {
  const t0 = Date.now();
  const s = await seed(USERS);
  console.log(`seeded ${USERS} users on ${s.vendor} in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  const children: ChildProcess[] = [];
  try {
    const db = s.vendor === 'sqlite' ? ['--db=sqlite', `--db-url=${s.url}`] : ['--db=mariadb', `--db-url=${s.url}`];
    // Compiled, as users run it (ts-node's source maps would make every captured stack trace dear).
    execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
    const idserver = await startChild(
      'idserver',
      [...profile, 'bin/idserver', 'start-dev', '--http-port=0', '--log-level=warn,idserver.server:info', ...db],
      false,
    );
    children.push(idserver.child);
    const bare = await startChild('bare', ['bench/bare-server.ts', s.vendor, s.url]);
    children.push(bare.child);
    // One admin token from idserver serves both (the bare server verifies it against the same key),
    // fresh for every run: the master realm's access tokens live 60 seconds.
    const auth = async () => ({ authorization: `Bearer ${await token(idserver.base, 'master', ADMIN_PASSWORD_FORM)}` });
    console.log(
      `idserver vs bare baseline: ${s.vendor}, ${USERS} users, ${ROUNDS}×${DURATION}s per server and case, ${CONNECTIONS} connections`,
    );
    const cols = [
      'case'.padEnd(34),
      'idserver r/s',
      'baseline r/s',
      ' ratio',
      'idserver p50/p99',
      'baseline p50/p99',
      'CPU ms/req idserver/baseline',
      'CPU ratio',
    ];
    console.log(cols.join(' | '));
    for (const c of cases(s.userId, s.groupId).filter((k) => !filter || k.name.toLowerCase().includes(filter.toLowerCase()))) {
      const a: Figures[] = [];
      const b: Figures[] = [];
      // Warm both (caches, JIT, connections) before measuring.
      await autocannon({ ...c.opts(idserver.base, await auth()), connections: 2, amount: 20 });
      await autocannon({ ...c.opts(bare.base, await auth()), connections: 2, amount: 20 });
      for (let i = 0; i < ROUNDS; i++) {
        a.push(await drive(c.opts(idserver.base, await auth()), idserver.child.pid as number));
        b.push(await drive(c.opts(bare.base, await auth()), bare.child.pid as number));
      }
      const x = merge(a);
      const y = merge(b);
      const lat = (f: Figures) => `${f.p50}/${f.p99} ms`.padStart(16);
      const line = [
        c.name.padEnd(34),
        x.rps.toFixed(0).padStart(12),
        y.rps.toFixed(0).padStart(12),
        (y.rps ? x.rps / y.rps : 0).toFixed(2).padStart(6),
        lat(x),
        lat(y),
        `${x.cpu.toFixed(2)} / ${y.cpu.toFixed(2)}`.padStart(28),
        (x.cpu ? y.cpu / x.cpu : 0).toFixed(2).padStart(9),
      ].join(' | ');
      const failed = [x.failed ? `idserver ${x.failed} failed` : '', y.failed ? `baseline ${y.failed} failed` : '']
        .filter(Boolean)
        .join(', ');
      console.log(failed ? `${line}   (${failed})` : line);
    }
    if (!filter || 'dashboard'.includes(filter.toLowerCase())) await dashboard(idserver, auth);
  } finally {
    for (const ch of children) ch.kill('SIGTERM');
    await Promise.all(children.map((ch) => (ch.exitCode === null ? new Promise((r) => ch.once('exit', r)) : undefined)));
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  }
}

/**
 * Issue 12's GraphQL target: the page of 100 users × groups × effective roles against the REST calls a
 * dashboard makes for the same data on the same server: the user list, then each user's groups and
 * effective realm roles (201 requests; a lower bound, client roles would add more). Both driven by
 * autocannon with the same connections; a REST "page" is the 201 requests, cycled per connection.
 */
async function dashboard(idserver: { base: string; child: ChildProcess }, auth: () => Promise<Record<string, string>>) {
  const admin = `/admin/realms/${BENCH_REALM}`;
  const headers = await auth();
  const list = (await (await fetch(`${idserver.base}${admin}/users?max=100`, { headers })).json()) as Array<{ id: string }>;
  const requests = [
    { method: 'GET' as const, path: `${admin}/users?max=100` },
    ...list.flatMap((u) => [
      { method: 'GET' as const, path: `${admin}/users/${u.id}/groups` },
      { method: 'GET' as const, path: `${admin}/users/${u.id}/role-mappings/realm/composite` },
    ]),
  ];
  const page = cases('', '').find((c) => c.name.startsWith('GraphQL 100'));
  if (!page) return;
  const pid = idserver.child.pid as number;
  const g: Figures[] = [];
  const r: Figures[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    g.push(await drive(page.opts(idserver.base, await auth()), pid));
    r.push(await drive({ url: idserver.base, headers: await auth(), requests }, pid));
  }
  const gql = merge(g);
  const rest = merge(r);
  const restPages = rest.rps / requests.length;
  const restCpu = rest.cpu * requests.length;
  console.log(
    `dashboard (idserver both): GraphQL page ${gql.rps.toFixed(1)} pages/s, ${gql.cpu.toFixed(1)} ms CPU/page; ` +
      `REST ${requests.length} calls ${restPages.toFixed(1)} pages/s, ${restCpu.toFixed(1)} ms CPU/page; ` +
      `ratio ${(restPages ? gql.rps / restPages : 0).toFixed(2)} (CPU ${(gql.cpu ? restCpu / gql.cpu : 0).toFixed(2)})`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
