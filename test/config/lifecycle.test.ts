import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';
import { configureLogging } from '../../src/logging';
import { type RunningServer, startServer } from '../../src/server';
import { startChildServer } from '../helpers/child-server';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * Health and graceful shutdown (issue 11, items 2 and 3): the management interface answers Keycloak's
 * health endpoints; a stop turns readiness DOWN, takes no new connections, lets the requests in flight
 * finish with a real answer, and only then closes the pool. Under SIGTERM every acknowledged write is
 * stored and the process exits 0.
 */

/** One request on its own connection (no keep-alive pool), so a refused connection means "not accepted". */
function send(
  url: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, agent: false, headers: { ...headers, Connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('health and a graceful stop', () => {
  let server: RunningServer;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    configureLogging({ root: 'error', categories: {} });
    const fresh = await freshDbOptions();
    cleanup = fresh.cleanup;
    server = await startServer({
      db: fresh.opts,
      host: '127.0.0.1',
      port: 0,
      management: { port: 0, health: true, metrics: false },
      bootstrap: { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password },
    });
  }, 60_000);
  afterAll(() => cleanup());

  test('live, ready and health answer UP on the management port only; metrics stay off', async () => {
    const m = server.managementUrl as string;
    expect(await send(m, 'GET', '/health/live')).toEqual({ status: 200, text: JSON.stringify({ status: 'UP', checks: [] }) });
    const ready = await send(m, 'GET', '/health/ready');
    expect([ready.status, JSON.parse(ready.text)]).toEqual([
      200,
      { status: 'UP', checks: [{ name: 'Database connections health check', status: 'UP' }] },
    ]);
    expect((await send(m, 'GET', '/health')).status).toBe(200);
    expect((await send(m, 'GET', '/metrics')).status).toBe(404);
    expect((await send(server.url, 'GET', '/health/ready')).status).toBe(404);
  });

  test('a stop waits for the request in flight, which gets its answer; readiness is DOWN meanwhile; new connections are refused', async () => {
    const port = new URL(server.url).port;
    // A request whose body has not arrived yet: the handler is running (reading it) when the stop begins.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (c) => {
      answer += c.toString();
    });
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      'POST /admin/realms/master/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n',
    );
    await new Promise((r) => setTimeout(r, 200));

    const stopped = server.close({ timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 200));
    const ready = await send(server.managementUrl as string, 'GET', '/health/ready');
    expect([ready.status, JSON.parse(ready.text).status]).toEqual([503, 'DOWN']);
    await expect(send(server.url, 'GET', '/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    socket.write('{}');
    await ended;
    await stopped;
    // The request in flight got its real answer (no token: 401), not a reset.
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });
});

describe('SIGTERM during a batch of writes', () => {
  let proc: ChildProcess | undefined;
  afterAll(() => {
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  });

  test('every acknowledged write is stored, nothing is cut off mid-answer, and the exit code is 0', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'idserver-sigterm-')), 'db.sqlite');
    const child = await startChildServer(['start-dev', '--http-host=127.0.0.1', '--http-port=0', `--db-url=${file}`]);
    proc = child.proc;
    const { url, exited } = child;

    const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN }).toString();
    const tok = JSON.parse(
      (
        await send(url, 'POST', '/realms/master/protocol/openid-connect/token', form, {
          'Content-Type': 'application/x-www-form-urlencoded',
        })
      ).text,
    ).access_token as string;

    const headers = { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' };
    const results: Array<{ username: string; status?: number; error?: string }> = [];
    const writes: Array<Promise<void>> = [];
    let signalled = false;
    for (let i = 0; i < 40; i++) {
      const username = `term-${i}`;
      writes.push(
        send(url, 'POST', '/admin/realms/master/users', JSON.stringify({ username, enabled: true }), headers).then(
          (r) => {
            results.push({ username, status: r.status });
            if (!signalled) {
              signalled = true;
              proc?.kill('SIGTERM'); // as soon as the first write is acknowledged, the rest in flight or not yet sent
            }
          },
          (e: NodeJS.ErrnoException) => {
            results.push({ username, error: e.code });
          },
        ),
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(writes);
    expect(await exited).toBe(0);

    const acknowledged = results.filter((r) => r.status === 201).map((r) => r.username);
    expect(acknowledged.length).toBeGreaterThan(0);
    // A write either got its answer, or its connection was not taken: refused once the listener is
    // closed, or reset by the kernel if it was still queued in the listen backlog at that moment.
    for (const r of results) {
      expect([r.username, r.status ?? r.error]).toEqual([
        r.username,
        r.status === 201 ? 201 : expect.stringMatching(/^ECONN(REFUSED|RESET)$/),
      ]);
    }
    // Exactly the acknowledged writes are stored: none was done and then cut off before its answer.
    // Read from the file: the server is gone.
    const s = new Sequelize({ dialect: 'sqlite', storage: file, logging: false });
    try {
      const [rows] = await s.query("SELECT username FROM user_entity WHERE username LIKE 'term-%'");
      const stored = (rows as Array<{ username: string }>).map((r) => r.username);
      expect(stored.sort()).toEqual(acknowledged.sort());
    } finally {
      await s.close();
    }
  }, 120_000);
});
