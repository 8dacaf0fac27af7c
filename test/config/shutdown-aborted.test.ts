import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { createConnection } from 'mysql2/promise';
import { Sequelize } from 'sequelize';
import { configureLogging } from '../../src/logging';
import { startServer } from '../../src/server';
import { startChildServer } from '../helpers/child-server';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * SIGTERM right after a client cut its connections while its requests still ran. A request whose
 * client went away is still in flight until its handler has finished: the stop waits for it (bounded by
 * --shutdown-timeout), and only then closes the pool. Before, the client's disconnect counted as "done",
 * the pool closed under the running handlers ("ConnectionManager.getConnection was called after the
 * connection manager was closed", SQLITE_MISUSE) and the process could crash.
 */

interface Sent {
  req: ClientRequest;
  answer: Promise<{ status: number } | { error: string }>;
}

/** One request on its own connection; the answer (or the client-side error once it is aborted). */
function send(url: string, method: string, path: string, body: string, headers: Record<string, string>): Sent {
  const req = httpRequest(`${url}${path}`, { method, agent: false, headers: { ...headers, Connection: 'close' } });
  const answer = new Promise<{ status: number } | { error: string }>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', () => resolve({ error: 'aborted' }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
  req.end(body);
  return { req, answer };
}

/** Rows of `sql` read directly (the server is gone). */
async function readRows<T>(vendor: string, url: string, sql: string): Promise<T[]> {
  if (vendor === 'sqlite') {
    const s = new Sequelize({ dialect: 'sqlite', storage: url, logging: false });
    try {
      return (await s.query(sql))[0] as T[];
    } finally {
      await s.close();
    }
  }
  const c = await createConnection(url);
  try {
    return (await c.query(sql))[0] as T[];
  } finally {
    await c.end();
  }
}

/** The stored users, each with its number of password credentials (read directly: the server is gone). */
async function storedUsers(vendor: string, url: string): Promise<Map<string, number>> {
  const sql = `SELECT u.username AS username, COUNT(c.id) AS n FROM user_entity u LEFT JOIN credential c ON c.user_id = u.id AND c.type = 'password' GROUP BY u.username`;
  const rows = await readRows<{ username: string; n: number | string }>(vendor, url, sql);
  return new Map(rows.map((r) => [r.username, Number(r.n)]));
}

describe('SIGTERM right after the client aborted its slow requests', () => {
  let proc: ChildProcess | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await cleanup?.();
  });

  test('the stop waits for the running handlers, then closes the pool: exit 0, no error, acknowledged writes stored', async () => {
    const fresh = await freshDbOptions();
    cleanup = fresh.cleanup;
    const { vendor, url: dbUrl } = fresh.opts as { vendor: string; url: string };
    const child = await startChildServer([
      'start-dev',
      '--http-host=127.0.0.1',
      '--http-port=0',
      `--db=${vendor}`,
      `--db-url=${dbUrl}`,
      '--shutdown-timeout=60',
    ]);
    proc = child.proc;
    const { url, exited } = child;

    const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN }).toString();
    const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const tokenAnswer = httpRequest(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      agent: false,
      headers: formHeaders,
    });
    const tok = await new Promise<string>((resolve, reject) => {
      tokenAnswer.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve(JSON.parse(text).access_token as string));
      });
      tokenAnswer.on('error', reject);
      tokenAnswer.end(form);
    });
    const headers = { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' };
    const newUser = (username: string) =>
      JSON.stringify({ username, enabled: true, credentials: [{ type: 'password', value: 'pw', temporary: false }] });

    // Writes acknowledged before the abort.
    const before = await Promise.all(
      Array.from({ length: 5 }, (_, i) => send(url, 'POST', '/admin/realms/master/users', newUser(`ack-${i}`), headers).answer),
    );
    expect(before).toEqual(Array.from({ length: 5 }, () => ({ status: 201 })));

    // A batch of slow requests (password grants and writes with a password: each hashes one): they queue
    // for the hash slots, so most handlers are still running when the client gives up on all of them.
    const batch: Array<{ name: string; sent: Sent }> = [];
    for (let i = 0; i < 60; i++)
      batch.push({ name: `grant-${i}`, sent: send(url, 'POST', '/realms/master/protocol/openid-connect/token', form, formHeaders) });
    for (let i = 0; i < 20; i++) {
      batch.push({ name: `batch-${i}`, sent: send(url, 'POST', '/admin/realms/master/users', newUser(`batch-${i}`), headers) });
    }
    // The first answer shows the server is working through the batch: the client then aborts every
    // connection and the process is told to stop at once.
    await Promise.race(batch.map((b) => b.sent.answer));
    for (const b of batch) b.sent.req.destroy();
    const signalled = Date.now();
    proc.kill('SIGTERM');
    const answers = await Promise.all(batch.map(async (b) => ({ name: b.name, answer: await b.sent.answer })));

    expect(await exited).toBe(0);
    // The handlers finished well within --shutdown-timeout=60: the stop waited for them, not for the deadline.
    expect(Date.now() - signalled).toBeLessThan(30_000);
    expect(child.output()).not.toContain('Shutdown timeout');
    expect(child.output()).toContain('Stopped');
    expect(child.output()).not.toMatch(/connection manager was closed|SQLITE_MISUSE|Database is closed|unhandled|uncaught/i);
    // Nothing failed on the server: no error or fatal line (a handler cut off by the closed pool logs one).
    expect(
      child
        .output()
        .split('\n')
        .filter((l) => /\b(ERROR|FATAL)\b/.test(l)),
    ).toEqual([]);
    // The abort really cut requests that were still running.
    expect(answers.filter((a) => 'error' in a.answer).length).toBeGreaterThan(0);

    // Every acknowledged write is stored, with its password; a write of the batch is whole or absent.
    const acknowledged = [
      ...before.map((_, i) => `ack-${i}`),
      ...answers.filter((a) => a.name.startsWith('batch-') && 'status' in a.answer && a.answer.status === 201).map((a) => a.name),
    ];
    const stored = await storedUsers(vendor, dbUrl);
    for (const name of acknowledged) expect([name, stored.get(name)]).toEqual([name, 1]);
    for (const [name, passwords] of stored) if (name.startsWith('batch-')) expect([name, passwords]).toEqual([name, 1]);
  }, 120_000);
});

describe('database work still running when the last request is answered', () => {
  test('a transaction a handler left running commits before the pool closes', async () => {
    configureLogging({ root: 'error', categories: {} });
    const fresh = await freshDbOptions();
    try {
      const server = await startServer({
        db: fresh.opts,
        host: '127.0.0.1',
        port: 0,
        bootstrap: { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password },
      });
      const { db } = server;
      const realm = await db.models.Realm.findOne({ where: { name: 'master' } });
      // As an unawaited purge or event write: a transaction that is not tied to any request in flight.
      const late = db.transaction(async () => {
        await new Promise((r) => setTimeout(r, 500));
        await db.models.RealmLocalization.create({ id: randomUUID(), realmId: realm?.id, locale: 'en', key: 'late', value: 'stored' });
      });
      await new Promise((r) => setTimeout(r, 50));
      await server.close({ timeoutMs: 20_000 });
      await expect(late).resolves.toBeUndefined();
      const rows = await readRows<{ value: string }>(
        fresh.opts.vendor,
        fresh.opts.url as string,
        "SELECT value FROM realm_localization WHERE message_key = 'late'",
      );
      expect(rows.map((r) => r.value)).toEqual(['stored']);
    } finally {
      await fresh.cleanup();
    }
  }, 60_000);
});
