import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type Client, createClient } from 'graphql-ws';
import request from 'supertest';
import WebSocket from 'ws';
import type { DbOptions } from '../../src/db';
import { createdId, expectStatus, grantClientRoles } from '../helpers/fixtures';
import { type AdminApi, freshDbOptions } from '../helpers/server';
import type { Json } from './gql';
import { cliArgs } from '../helpers/cli';

/**
 * GraphQL subscriptions (graphql-ws) across a cluster: two idserver processes on one database (a
 * SQLite file, or the MariaDB database of IDSERVER_TEST_DB_URL). Subscribers talk to node A; every
 * login and admin change goes through node B, so what A's subscribers receive can only come from
 * the database.
 */
jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const R = 'live';

interface Node {
  url: string;
  managementUrl?: string;
  proc: ChildProcess;
  output: string;
}

/** Starts `idserver start-dev` from the sources on a free port; resolves once it listens. */
function startNode(db: DbOptions, metrics: boolean): Promise<Node> {
  const args = ['start-dev', '--http-host=127.0.0.1', '--http-port=0'];
  args.push(`--db=${db.vendor}`, `--db-url=${db.url}`, '--log-level=info');
  if (metrics) args.push('--metrics-enabled=true', '--http-management-port=0');
  const proc = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const node: Node = { url: '', proc, output: '' };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start:\n${node.output}`)), 90_000);
    const read = (chunk: Buffer) => {
      node.output += chunk.toString();
      node.url ||= /idserver listening on (\S+)/.exec(node.output)?.[1] ?? '';
      node.managementUrl ||= /Management interface listening on (\S+)/.exec(node.output)?.[1];
      if (node.url && (!metrics || node.managementUrl)) {
        clearTimeout(timer);
        resolve(node);
      }
    };
    proc.stdout?.on('data', read);
    proc.stderr?.on('data', read);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node exited with ${code}:\n${node.output}`));
    });
  });
}

function stopNode(node: Node | undefined): Promise<void> {
  if (!node || node.proc.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    node.proc.once('exit', () => resolve());
    node.proc.kill('SIGTERM');
  });
}

async function tokenFor(node: Node, realm: string, username: string, password: string): Promise<string> {
  const res = await request(node.url)
    .post(`/realms/${realm}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });
  return expectStatus(res, 200, `login of ${username}`).body.access_token as string;
}

function apiOf(node: Node, token: string): AdminApi {
  const auth = (t: request.Test, body?: unknown) => {
    t.set('Authorization', `Bearer ${token}`);
    return body === undefined ? t : t.send(body as object);
  };
  return {
    get: (path) => auth(request(node.url).get(path)),
    post: (path, body) => auth(request(node.url).post(path), body),
    put: (path, body) => auth(request(node.url).put(path), body),
    delete: (path, body) => auth(request(node.url).delete(path), body),
  };
}

/** A password login through `node` (a LOGIN event, or LOGIN_ERROR for a wrong password). */
async function login(node: Node, username: string, password: string): Promise<number> {
  const res = await request(node.url)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });
  return res.status;
}

async function createUser(api: AdminApi, username: string, roles: string[] = []): Promise<string> {
  const id = createdId(
    await api.post(`/admin/realms/${R}/users`, {
      username,
      enabled: true,
      email: `${username}@example.org`,
      firstName: 'F',
      lastName: 'L',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    }),
    `creating ${username}`,
  );
  if (roles.length) await grantClientRoles(api, R, id, 'realm-management', roles);
  return id;
}

/** What a subscription received so far. */
class Feed {
  readonly items: Json[] = [];
  readonly errors: Json[] = [];
  /** The close event when the connection itself was refused or closed. */
  closed: { code: number; reason: string } | undefined;
  completed = false;
  readonly unsubscribe: () => void;

  constructor(client: Client, query: string, variables: Json = {}) {
    this.unsubscribe = client.subscribe<Json>(
      { query, variables },
      {
        next: (r) => {
          if (r.errors) this.errors.push(...(r.errors as unknown as Json[]));
          if (r.data) this.items.push(Object.values(r.data)[0] as Json);
        },
        error: (e) => {
          const ev = e as { code?: number; reason?: string };
          if (typeof ev.code === 'number') this.closed = { code: ev.code, reason: String(ev.reason) };
          else if (Array.isArray(e)) this.errors.push(...(e as Json[]));
          else this.errors.push({ message: String(e) });
        },
        complete: () => {
          this.completed = true;
        },
      },
    );
  }

  /** Waits until `pred` holds (15 s at most). */
  async until(what: string, pred: (f: Feed) => boolean): Promise<void> {
    const started = Date.now();
    while (!pred(this)) {
      if (Date.now() - started > 15_000) {
        throw new Error(
          `timed out waiting for ${what}: ${JSON.stringify({ items: this.items, errors: this.errors, closed: this.closed })}`,
        );
      }
      await sleep(25);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const EVENT_FIELDS = 'id time type realmId clientId userId ipAddress error details';
const EVENTS = `subscription($realm: String!, $filter: EventFilter) { events(realm: $realm, filter: $filter) { ${EVENT_FIELDS} } }`;
const ADMIN_EVENTS = `subscription($realm: String!, $filter: AdminEventFilter) {
  adminEvents(realm: $realm, filter: $filter) { id time operationType resourceType resourcePath representation authDetails { realmId userId } }
}`;

let db: { opts: DbOptions; cleanup: () => Promise<void> };
let a: Node;
let b: Node;
let adminA: string;
let apiB: AdminApi;
let aliceId: string;
const clients: Client[] = [];

/** A graphql-ws client of node A; closed after each test. */
function clientOfA(connectionParams: Json = { Authorization: `Bearer ${adminA}` }): Client {
  const client = createClient({
    url: `${a.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}

/** A Prometheus sample of node A, 0 when absent. */
async function metric(name: string, kind: string): Promise<number> {
  const text = (await request(a.managementUrl as string).get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{kind="${kind}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function metricBecomes(name: string, kind: string, value: number): Promise<void> {
  const started = Date.now();
  while ((await metric(name, kind)) !== value) {
    if (Date.now() - started > 15_000) throw new Error(`${name}{kind="${kind}"} stayed at ${await metric(name, kind)}, not ${value}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  db = await freshDbOptions();
  // A first: it migrates and bootstraps the shared database; B joins it.
  a = await startNode(db.opts, true);
  b = await startNode(db.opts, false);
  // Tokens that outlive a slow run (master's default is 60 s).
  const first = apiOf(b, await tokenFor(b, 'master', 'admin', 'admin'));
  expectStatus(await first.put('/admin/realms/master', { accessTokenLifespan: 3600 }), 204, 'token lifespan');
  adminA = await tokenFor(a, 'master', 'admin', 'admin');
  apiB = apiOf(b, await tokenFor(b, 'master', 'admin', 'admin'));
  expectStatus(await apiB.post('/admin/realms', { realm: R, enabled: true }), 201, 'creating the realm');
  expectStatus(await apiB.put(`/admin/realms/${R}/events/config`, { eventsEnabled: true, adminEventsEnabled: true }), 204, 'events on');
  aliceId = await createUser(apiB, 'alice');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

afterAll(async () => {
  await Promise.all([stopNode(a), stopNode(b)]);
  await db?.cleanup();
});

test('a subscriber on node A receives the logins made through node B, each once', async () => {
  const feed = new Feed(clientOfA(), EVENTS, { realm: R, filter: { dateFrom: String(Date.now()), user: aliceId } });
  expect(await login(b, 'alice', 'pw')).toBe(200);
  await feed.until('the first login', (f) => f.items.length === 1);
  // The stored events (dateFrom) are behind it now: the next one can only come from polling the table.
  expect(await login(b, 'alice', 'pw')).toBe(200);
  await feed.until('the second login', (f) => f.items.length === 2);
  await sleep(800);
  expect(feed.errors).toEqual([]);
  expect(feed.items).toHaveLength(2);
  expect(new Set(feed.items.map((e) => e.id)).size).toBe(2);
  for (const e of feed.items) expect(e).toMatchObject({ type: 'LOGIN', userId: aliceId, clientId: 'admin-cli' });
  // The same events the events query lists.
  const listed = expectStatus(await apiB.get(`/admin/realms/${R}/events?user=${aliceId}&type=LOGIN`), 200, 'events').body as Json[];
  for (const e of feed.items) expect(listed.map((l) => l.id)).toContain(e.id);
});

test('the type filter: only failed logins', async () => {
  const feed = new Feed(clientOfA(), EVENTS, { realm: R, filter: { dateFrom: String(Date.now()), types: ['LOGIN_ERROR'] } });
  expect(await login(b, 'alice', 'pw')).toBe(200);
  expect(await login(b, 'alice', 'wrong')).not.toBe(200);
  // Events arrive in the order they were stored: had the LOGIN matched, it would be here first.
  await feed.until('the failed login', (f) => f.items.length >= 1);
  expect(feed.items).toEqual([expect.objectContaining({ type: 'LOGIN_ERROR', userId: aliceId, error: 'invalid_user_credentials' })]);
});

test('an admin change made through node B reaches node A; the resource type filter applies', async () => {
  const feed = new Feed(clientOfA(), ADMIN_EVENTS, { realm: R, filter: { dateFrom: String(Date.now()), resourceTypes: ['GROUP'] } });
  expectStatus(await apiB.post(`/admin/realms/${R}/roles`, { name: 'not-a-group' }), 201, 'role');
  const g1 = createdId(await apiB.post(`/admin/realms/${R}/groups`, { name: 'first' }), 'group');
  await feed.until('the first group', (f) => f.items.length === 1);
  const g2 = createdId(await apiB.post(`/admin/realms/${R}/groups`, { name: 'second' }), 'group');
  await feed.until('the second group', (f) => f.items.length === 2);
  expect(feed.items).toEqual([
    expect.objectContaining({ operationType: 'CREATE', resourceType: 'GROUP', resourcePath: `groups/${g1}` }),
    expect.objectContaining({ operationType: 'CREATE', resourceType: 'GROUP', resourcePath: `groups/${g2}` }),
  ]);
  expect(feed.items[0].authDetails.userId).toEqual(expect.any(String));
});

test('without dateFrom, only events stored after subscribing arrive', async () => {
  expect(await login(b, 'alice', 'pw')).toBe(200);
  const [before] = expectStatus(await apiB.get(`/admin/realms/${R}/events?user=${aliceId}&max=1`), 200, 'events').body as Json[];
  await metricBecomes('idserver_event_feed_subscribers', 'events', 0);
  const feed = new Feed(clientOfA(), EVENTS, { realm: R, filter: { user: aliceId } });
  await metricBecomes('idserver_event_feed_subscribers', 'events', 1);
  expect(await login(b, 'alice', 'pw')).toBe(200);
  await feed.until('the new login', (f) => f.items.length === 1);
  await sleep(800);
  expect(feed.items).toHaveLength(1);
  expect(feed.items[0].id).not.toBe(before.id);
});

test('dateFrom and dateTo: the stored events of that time, oldest first, then the subscription completes', async () => {
  const from = Date.now();
  expect(await login(b, 'alice', 'pw')).toBe(200);
  expect(await login(b, 'alice', 'wrong')).not.toBe(200);
  const to = Date.now();
  await sleep(5);
  expect(await login(b, 'alice', 'pw')).toBe(200);
  const feed = new Feed(clientOfA(), EVENTS, { realm: R, filter: { dateFrom: String(from), dateTo: String(to), user: aliceId } });
  await feed.until('the end of the subscription', (f) => f.completed);
  expect(feed.errors).toEqual([]);
  expect(feed.items.map((e) => e.type)).toEqual(['LOGIN', 'LOGIN_ERROR']);
  expect(feed.items[0].time).toBeLessThanOrEqual(feed.items[1].time);
});

test('a caller without view-events cannot subscribe; one with it can', async () => {
  await createUser(apiB, 'userviewer', ['view-users']);
  await createUser(apiB, 'eventviewer', ['view-events']);
  const denied = new Feed(clientOfA({ token: await tokenFor(a, R, 'userviewer', 'pw') }), EVENTS, { realm: R });
  await denied.until('the refusal', (f) => f.errors.length > 0);
  expect(denied.errors[0]).toMatchObject({ message: 'HTTP 403 Forbidden', extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
  expect(denied.items).toEqual([]);

  const viewer = new Feed(clientOfA({ Authorization: `Bearer ${await tokenFor(a, R, 'eventviewer', 'pw')}` }), EVENTS, {
    realm: R,
    filter: { dateFrom: String(Date.now()), user: aliceId },
  });
  expect(await login(b, 'alice', 'pw')).toBe(200);
  await viewer.until('the login', (f) => f.items.length === 1);
  expect(viewer.errors).toEqual([]);
});

test('a connection without a valid token is closed with 4401', async () => {
  const none = new Feed(clientOfA({}), EVENTS, { realm: R });
  await none.until('the close', (f) => f.closed !== undefined);
  expect(none.closed?.code).toBe(4401);
  const bad = new Feed(clientOfA({ Authorization: 'Bearer not.a.token' }), EVENTS, { realm: R });
  await bad.until('the close', (f) => f.closed !== undefined);
  expect(bad.closed?.code).toBe(4401);
});

test('a WebSocket upgrade of any other path is refused with 400', async () => {
  const ws = new WebSocket(`${a.url.replace(/^http/, 'ws').replace(/\/$/, '')}/admin/realms`);
  const status = await new Promise<number | undefined>((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
    ws.on('open', () => resolve(101));
    ws.on('error', () => resolve(undefined));
  });
  ws.terminate();
  expect(status).toBe(400);
});

test("a browser origin the token does not allow is closed with 4403; the server's own origin is not", async () => {
  const fromOrigin = (origin: string) =>
    class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { origin });
      }
    };
  const connect = (origin: string) => {
    const client = createClient({
      url: `${a.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: fromOrigin(origin),
      connectionParams: { Authorization: `Bearer ${adminA}` },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  };
  const foreign = new Feed(connect('https://elsewhere.example'), EVENTS, { realm: R });
  await foreign.until('the close', (f) => f.closed !== undefined);
  expect(foreign.closed?.code).toBe(4403);

  const own = new Feed(connect(a.url), EVENTS, { realm: R, filter: { dateFrom: String(Date.now()), user: aliceId } });
  expect(await login(b, 'alice', 'pw')).toBe(200);
  await own.until('the login', (f) => f.items.length === 1);
  expect(own.closed).toBeUndefined();
});

test('bad filters and unknown realms are refused like the event queries refuse them', async () => {
  const unknown = new Feed(clientOfA(), EVENTS, { realm: 'no-such-realm' });
  await unknown.until('the refusal', (f) => f.errors.length > 0);
  expect(unknown.errors[0]).toMatchObject({ message: 'Realm not found.', extensions: { code: 'NOT_FOUND' } });
  const badDate = new Feed(clientOfA(), EVENTS, { realm: R, filter: { dateFrom: 'yesterday' } });
  await badDate.until('the refusal', (f) => f.errors.length > 0);
  expect(badDate.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  expect(badDate.errors[0].message).toContain("Invalid value for 'dateFrom'");
});

test('only subscriptions are served over WebSocket, and subscriptions only there', async () => {
  const query = new Feed(clientOfA(), '{ serverInfo { systemInfo { version } } }');
  await query.until('the refusal', (f) => f.errors.length > 0);
  expect(query.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
  expect(query.errors[0].message).toContain('Only subscriptions');

  const overHttp = await request(a.url)
    .post('/graphql')
    .set('Authorization', `Bearer ${adminA}`)
    .send({ query: EVENTS, variables: { realm: R } });
  expect(overHttp.body.errors?.[0]?.message).toContain('served over WebSocket');
});

test('unsubscribing stops the poller of the realm', async () => {
  await metricBecomes('idserver_event_feed_pollers', 'adminEvents', 0);
  const feed = new Feed(clientOfA(), ADMIN_EVENTS, { realm: R });
  await metricBecomes('idserver_event_feed_pollers', 'adminEvents', 1);
  const second = new Feed(clientOfA(), ADMIN_EVENTS, { realm: R, filter: { operationTypes: ['DELETE'] } });
  await metricBecomes('idserver_event_feed_subscribers', 'adminEvents', 2);
  // One poller per realm, however many subscribers.
  expect(await metric('idserver_event_feed_pollers', 'adminEvents')).toBe(1);
  feed.unsubscribe();
  await metricBecomes('idserver_event_feed_subscribers', 'adminEvents', 1);
  expect(await metric('idserver_event_feed_pollers', 'adminEvents')).toBe(1);
  second.unsubscribe();
  await metricBecomes('idserver_event_feed_pollers', 'adminEvents', 0);
  expect(await metric('idserver_event_feed_subscribers', 'adminEvents')).toBe(0);
});
