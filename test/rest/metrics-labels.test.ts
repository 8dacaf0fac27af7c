import { configureLogging } from '../../src/logging';
import { type RunningServer, startServer } from '../../src/server';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * `http_server_requests_seconds` labels every request with the template of the route it addressed,
 * also when a parent resolver (the realm, the user, the client ...) answers before that route's
 * handler runs: never the parent's template with `/*`, never a raw id.
 */
let server: RunningServer;
let cleanup: () => Promise<void>;
let auth: { headers: { Authorization: string } };
const UNKNOWN = '0d2a4c55-9f3e-4a57-8f57-6a1f0c4b9e11';

beforeAll(async () => {
  configureLogging({ root: 'error', categories: {} });
  const fresh = await freshDbOptions();
  cleanup = fresh.cleanup;
  server = await startServer({
    db: fresh.opts,
    host: '127.0.0.1',
    port: 0,
    management: { port: 0 },
    bootstrap: { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password },
  });
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN });
  const tok = (await (await fetch(`${server.url}/realms/master/protocol/openid-connect/token`, { method: 'POST', body: form })).json()) as {
    access_token: string;
  };
  auth = { headers: { Authorization: `Bearer ${tok.access_token}` } };
}, 60_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

/** The request count of one label set, read from the management port's /metrics. */
async function count(method: string, uri: string, status: number): Promise<number> {
  const text = await (await fetch(`${server.managementUrl}/metrics`)).text();
  const line = `http_server_requests_seconds_count{method="${method}",uri="${uri}",status="${status}"} `;
  const found = text.split('\n').find((l) => l.startsWith(line));
  return found ? Number(found.slice(line.length)) : 0;
}

/** Sends the request and returns by how much the count of the expected label set grew. */
async function labelled(path: string, expected: { uri: string; status: number; method?: string; headers?: Record<string, string> }) {
  const method = expected.method ?? 'GET';
  const before = await count(method, expected.uri, expected.status);
  const res = await fetch(`${server.url}${path}`, { method, headers: expected.headers ?? auth.headers });
  expect(res.status).toBe(expected.status);
  await res.arrayBuffer();
  return (await count(method, expected.uri, expected.status)) - before;
}

it("a 404 from the user's resolver is labelled with the full route template", async () => {
  expect(
    await labelled(`/admin/realms/master/users/${UNKNOWN}/groups`, { uri: '/admin/realms/:realm/users/:userId/groups', status: 404 }),
  ).toBe(1);
  expect(await labelled(`/admin/realms/master/users/${UNKNOWN}`, { uri: '/admin/realms/:realm/users/:id', status: 404 })).toBe(1);
  expect(
    await labelled(`/admin/realms/master/users/${UNKNOWN}/reset-password`, {
      method: 'PUT',
      uri: '/admin/realms/:realm/users/:userId/reset-password',
      status: 404,
    }),
  ).toBe(1);
  expect(
    await labelled(`/admin/realms/master/users/${UNKNOWN}/role-mappings/realm/composite`, {
      uri: '/admin/realms/:realm/users/:ownerId/role-mappings/realm/composite',
      status: 404,
    }),
  ).toBe(1);
});

it("a 404 from the realm's resolver and a 401 before any resolver are labelled with the route's template", async () => {
  expect(await labelled('/admin/realms/no-such-realm/groups', { uri: '/admin/realms/:realm/groups', status: 404 })).toBe(1);
  expect(await labelled(`/admin/realms/master/users/${UNKNOWN}`, { uri: '/admin/realms/:realm/users/:id', status: 401, headers: {} })).toBe(
    1,
  );
});

it('a path of no route keeps a bounded label, and no label holds a raw id or realm name', async () => {
  const res = await fetch(`${server.url}/admin/realms/master/users/${UNKNOWN}/no-such-part`, auth);
  expect(res.status).toBe(404);
  const text = await (await fetch(`${server.managementUrl}/metrics`)).text();
  expect(text).toMatch(/uri="\/admin\/realms\/:realm\/users\/:id\/\*",status="404"/);
  expect(text).not.toContain(UNKNOWN);
  expect(text).not.toContain('no-such-realm');
});
