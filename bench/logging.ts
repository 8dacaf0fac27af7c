/**
 * Cost of logging on request throughput: the same admin request driven with autocannon against a real
 * server (SQLite) with logging off, then at INFO with each handler (console to /dev/null, file, GELF
 * UDP to a local listener, GELF TCP) and with all three, side by side in one run. Each request logs one
 * `idserver.http` line at INFO.
 *
 *   npm run bench:logging                 # DURATION=3 seconds per case, 10 connections
 *   DURATION=10 npm run bench:logging
 */
import 'reflect-metadata';
import { createSocket } from 'node:dgram';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDb } from '../src/db';
import { configureLogging, loggingConfigFromValues, setConsoleStream, shutdownLogging } from '../src/logging';
import { createApp } from '../src/server';
import { bootstrap } from '../src/services/realms/realms';
import { adminAuthHeader } from './common';

const DURATION = Number(process.env.DURATION ?? 3);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'idserver-bench-log-'));
  configureLogging({ root: 'off', categories: {} });
  const db = await openDb({ vendor: 'sqlite', url: join(dir, 'bench.sqlite') });
  await bootstrap(db, { mode: 'start-dev', username: 'admin', password: 'admin' });
  const app = await createApp(db);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Local GELF listeners that receive and discard.
  const udp = createSocket('udp4');
  let udpBytes = 0;
  udp.on('message', (m) => {
    udpBytes += m.length;
  });
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  let tcpBytes = 0;
  const tcp = createServer((s) => s.on('data', (d) => (tcpBytes += d.length)));
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
  const gelf = (proto: string, port: number) => ({ 'log-gelf-host': `${proto}127.0.0.1`, 'log-gelf-port': port });
  const devNull = createWriteStream('/dev/null');
  setConsoleStream(devNull);

  const headers = await adminAuthHeader(base);
  const target = { url: `${base}/admin/realms/master/users?max=10`, headers };

  const udpPort = udp.address().port;
  const tcpPort = (tcp.address() as AddressInfo).port;
  const file = join(dir, 'log', 'idserver.log');
  const cases: Array<{ name: string; values?: Record<string, unknown> }> = [
    { name: 'logging off (--log-level=off)' },
    { name: 'INFO, console (default format) > /dev/null', values: { log: ['console'] } },
    { name: 'INFO, console json > /dev/null', values: { log: ['console'], 'log-console-output': 'json' } },
    { name: 'INFO, file', values: { log: ['file'], 'log-file': file } },
    { name: 'INFO, gelf udp (local listener)', values: { log: ['gelf'], ...gelf('', udpPort) } },
    { name: 'INFO, gelf tcp (local listener)', values: { log: ['gelf'], ...gelf('tcp:', tcpPort) } },
    { name: 'INFO, console + file + gelf udp', values: { log: ['console', 'file', 'gelf'], 'log-file': file, ...gelf('', udpPort) } },
  ];
  console.log(`idserver logging benchmark: GET /admin/realms/master/users?max=10, ${DURATION}s per case, 10 connections`);
  console.log(`${'case'.padEnd(44)} ${'req/s'.padStart(8)} ${'vs off'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
  let off = 0;
  for (const c of cases) {
    configureLogging(c.values ? loggingConfigFromValues({ 'log-level': 'info', ...c.values }) : { root: 'off', categories: {} });
    await autocannon({ ...target, connections: 10, duration: 1 }); // warm-up
    const r = await autocannon({ ...target, connections: 10, duration: DURATION });
    const rps = Math.round(r.requests.average);
    if (!c.values) off = rps;
    const rel = off ? `${((rps / off) * 100).toFixed(0)}%` : '-';
    const failed = r.non2xx + r.errors;
    const line = `${c.name.padEnd(44)} ${String(rps).padStart(8)} ${rel.padStart(8)} ${String(r.latency.p50).padStart(7)} ${String(r.latency.p99).padStart(7)}`;
    console.log(failed ? `${line}   (${failed} failed responses)` : line);
    await shutdownLogging();
  }
  console.log(`(GELF bytes received: udp ${udpBytes}, tcp ${tcpBytes})`);
  server.close();
  udp.close();
  tcp.close();
  devNull.end();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
