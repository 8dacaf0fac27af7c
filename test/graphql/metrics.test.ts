import { configureLogging } from '../../src/logging';
import { type RunningServer, startServer } from '../../src/server';
import { GRAPHQL_DEFAULTS } from '../../src/config/graphql-options';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * With `metrics-enabled`, the management interface serves Prometheus metrics, among them the cost of
 * every GraphQL operation admitted and the operations refused by a limit.
 */
let server: RunningServer;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  configureLogging({ root: 'error', categories: {} });
  const fresh = await freshDbOptions();
  cleanup = fresh.cleanup;
  server = await startServer({
    db: { ...fresh.opts, statementMetrics: true },
    host: '127.0.0.1',
    port: 0,
    management: { port: 0 },
    graphql: GRAPHQL_DEFAULTS,
    bootstrap: { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password },
  });
}, 60_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

async function graphql(query: string): Promise<Response> {
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN });
  const tok = (await (await fetch(`${server.url}/realms/master/protocol/openid-connect/token`, { method: 'POST', body: form })).json()) as {
    access_token: string;
  };
  return fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${tok.access_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query }),
  });
}

const metric = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

it('counts the cost of admitted GraphQL operations and the refused ones, on the management port only', async () => {
  expect(server.managementUrl).toBeDefined();
  expect((await graphql('{ realm(name: "master") { users(max: 10) { username } } }')).status).toBe(200);
  expect((await graphql('{ realm(name: "master") { users(max: 1000) { username } } }')).status).toBe(400);
  const res = await fetch(`${server.managementUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  expect(metric(text, 'idserver_graphql_query_cost_count')).toBe(1);
  expect(metric(text, 'idserver_graphql_query_cost_sum')).toBe(11);
  expect(metric(text, 'idserver_graphql_rejected_total{reason="page-size"}')).toBe(1);
  expect(text).toMatch(/^process_cpu_seconds_total /m);
  expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
});

it('HTTP requests by route template and status, password hashing, SQL statements and the pool are metrics', async () => {
  expect((await graphql('{ realm(name: "master") { name } }')).status).toBe(200);
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN });
  const tok = (await (await fetch(`${server.url}/realms/master/protocol/openid-connect/token`, { method: 'POST', body: form })).json()) as {
    access_token: string;
  };
  const auth = { headers: { Authorization: `Bearer ${tok.access_token}` } };
  const users = (await (await fetch(`${server.url}/admin/realms/master/users?username=admin`, auth)).json()) as Array<{ id: string }>;
  expect((await fetch(`${server.url}/admin/realms/master/users/${users[0].id}`, auth)).status).toBe(200);
  expect((await fetch(`${server.url}/admin/realms/master/users/no-such-user`, auth)).status).toBe(404);
  expect((await fetch(`${server.url}/no/such/path`)).status).toBe(404);
  const text = await (await fetch(`${server.managementUrl}/metrics`)).text();
  const count = (labels: string) => metric(text, `http_server_requests_seconds_count{${labels}}`);
  // The template, never the id: both user reads are one series per status.
  expect(count('method="GET",uri="/admin/realms/:realm/users/:id",status="200"')).toBe(1);
  // An unknown user is refused by the parent's resolver, before its route ran: still the route's template.
  expect(count('method="GET",uri="/admin/realms/:realm/users/:id",status="404"')).toBe(1);
  expect(text).not.toMatch(/uri="[^"]*\/\*"/);
  expect(count('method="POST",uri="/realms/:realm/protocol/openid-connect/token",status="200"')).toBeGreaterThanOrEqual(1);
  expect(count('method="POST",uri="/graphql",status="200"')).toBeGreaterThanOrEqual(1);
  expect(count('method="GET",uri="unmatched",status="404"')).toBeGreaterThanOrEqual(1);
  expect(text).not.toContain(users[0].id);
  expect(metric(text, 'idserver_password_hash_seconds_count{operation="verify"}')).toBeGreaterThanOrEqual(1);
  expect(metric(text, 'idserver_db_statement_seconds_count')).toBeGreaterThan(5);
  expect(metric(text, 'idserver_gelf_messages_dropped_total')).toBe(0);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  if (process.env.IDSERVER_TEST_DB_URL) expect(metric(text, 'idserver_db_pool_connections{state="max"}')).toBe(10);
});
