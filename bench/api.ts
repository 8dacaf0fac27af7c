/**
 * Load benchmark of the admin API: requests per second and latency for the hot read paths, on
 * SQLite (default) or MariaDB (IDSERVER_BENCH_DB_URL=mysql://root@127.0.0.1:3306/test). Seeds a
 * realm with USERS users (default 1000) in groups with roles, then drives each endpoint with
 * autocannon for DURATION seconds (default 5) from this process over loopback, and prints the
 * figures beside bench/baseline.json.
 *
 *   npm run bench                 # run and compare
 *   npm run bench -- --save       # also record the figures as the new baseline
 *   BENCH_CASE=role-mappings npm run bench   # only the cases whose name contains the text
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDb } from '../src/db';
import { configureLogging } from '../src/logging';
import { createApp } from '../src/server';
import { systemContext } from '../src/core/context';
import { bootstrap } from '../src/services/realms/realms';
import { createRealm } from '../src/services/import-export/create-realm';
import { ADMIN_PASSWORD_FORM, adminAuthHeader } from './common';

const USERS = Number(process.env.USERS ?? 1000);
const DURATION = Number(process.env.DURATION ?? 5);
const BASELINE = join(__dirname, 'baseline.json');

async function seed(db: Awaited<ReturnType<typeof openDb>>) {
  const ctx = systemContext(db);
  const realm = await createRealm(ctx, { realm: 'bench', enabled: true });
  const m = db.models;
  const roles = Array.from({ length: 10 }, (_, i) => ({
    id: randomUUID(),
    realmId: realm.id,
    clientId: null,
    containerId: realm.id,
    name: `role-${i}`,
    attributes: {},
  }));
  await m.Role.bulkCreate(roles);
  await m.CompositeRole.bulkCreate(roles.slice(1).map((r, i) => ({ compositeId: roles[i].id, childId: r.id })));
  const groups = Array.from({ length: 20 }, (_, i) => ({
    id: randomUUID(),
    realmId: realm.id,
    parentId: ' ',
    name: `group-${i}`,
    attributes: {},
  }));
  await m.Group.bulkCreate(groups);
  await m.GroupRoleMapping.bulkCreate(groups.map((g, i) => ({ groupId: g.id, roleId: roles[i % 10].id })));
  const users = Array.from({ length: USERS }, (_, i) => {
    const id = randomUUID();
    return {
      id,
      realmId: realm.id,
      username: `user${String(i).padStart(5, '0')}`,
      email: `user${i}@example.com`,
      emailConstraint: `user${i}@example.com`,
      firstName: 'First',
      lastName: `Last${i}`,
      enabled: true,
      emailVerified: false,
      createdTimestamp: Date.now(),
      notBefore: 0,
    };
  });
  for (let i = 0; i < users.length; i += 500) await m.User.bulkCreate(users.slice(i, i + 500));
  await m.UserGroupMembership.bulkCreate(users.map((u, i) => ({ userId: u.id, groupId: groups[i % 20].id })));
  await m.UserRoleMapping.bulkCreate(users.map((u, i) => ({ userId: u.id, roleId: roles[i % 10].id })));
  return { userId: users[Math.floor(USERS / 2)].id };
}

async function main() {
  configureLogging({ root: 'error', categories: {} });
  const dir = mkdtempSync(join(tmpdir(), 'idserver-bench-'));
  const url = process.env.IDSERVER_BENCH_DB_URL;
  const db = await openDb(url ? { vendor: 'mariadb', url } : { vendor: 'sqlite', url: join(dir, 'bench.sqlite') });
  if (url) {
    await db.sequelize.getQueryInterface().dropAllTables();
    await db.close();
  }
  const live = url ? await openDb({ vendor: 'mariadb', url }) : db;
  await bootstrap(live, { mode: 'start-dev', username: 'admin', password: 'admin' });
  const { userId } = await seed(live);
  const app = await createApp(live);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('finish', () => inFlight--);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = await adminAuthHeader(base);
  const gql = JSON.stringify({
    query: '{ realm(name: "bench") { users(max: 100) { username groups { name } effectiveRoles { name } } } }',
  });

  const cases: Array<{ name: string; opts: autocannon.Options }> = [
    { name: 'GET /users?max=100', opts: { url: `${base}/admin/realms/bench/users?max=100`, headers: auth } },
    { name: 'GET /users?search=user00*', opts: { url: `${base}/admin/realms/bench/users?search=user00`, headers: auth } },
    { name: 'GET /users/{id}', opts: { url: `${base}/admin/realms/bench/users/${userId}`, headers: auth } },
    {
      name: 'GET /users/{id}/role-mappings/realm/composite',
      opts: { url: `${base}/admin/realms/bench/users/${userId}/role-mappings/realm/composite`, headers: auth },
    },
    { name: 'GET /groups', opts: { url: `${base}/admin/realms/bench/groups`, headers: auth } },
    {
      name: 'POST /graphql users+groups+roles',
      opts: { url: `${base}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: gql },
    },
    {
      name: 'POST token (password grant)',
      opts: {
        url: `${base}/realms/master/protocol/openid-connect/token`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: ADMIN_PASSWORD_FORM,
      },
    },
  ];
  const baseline: Record<string, { rps: number; p99: number }> = existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : {};
  const results: Record<string, { rps: number; p99: number }> = {};
  console.log(`idserver admin API benchmark: ${url ? 'MariaDB' : 'SQLite'}, ${USERS} users, ${DURATION}s per case, 10 connections`);
  console.log(
    `${'case'.padEnd(48)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(8)}   ${'baseline req/s'.padStart(14)} ${'p99 ms'.padStart(8)}`,
  );
  for (const c of cases.filter((k) => !process.env.BENCH_CASE || k.name.includes(process.env.BENCH_CASE))) {
    const r = await autocannon({ ...c.opts, connections: 10, duration: DURATION });
    const non2xx = r.non2xx + r.errors;
    results[c.name] = { rps: Math.round(r.requests.average), p99: r.latency.p99 };
    const b = baseline[c.name];
    const line = `${c.name.padEnd(48)} ${String(results[c.name].rps).padStart(8)} ${String(r.latency.p99).padStart(8)}   ${String(b?.rps ?? '-').padStart(14)} ${String(b?.p99 ?? '-').padStart(8)}`;
    console.log(non2xx ? `${line}   (${non2xx} failed responses)` : line);
  }
  if (process.argv.includes('--save')) writeFileSync(BASELINE, `${JSON.stringify({ ...baseline, ...results }, null, 2)}\n`);
  // Let in-flight requests finish (their handlers outlive autocannon's sockets) before the database goes away.
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await live.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
