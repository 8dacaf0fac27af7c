import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client): Node.js runtime metrics plus idserver's own.
 * Served at `/metrics` on the management interface when `metrics-enabled=true`, as Keycloak does.
 */
export const registry = new Registry();

let defaults = false;

/** Starts collecting the Node.js runtime metrics (once per process). */
export function collectRuntimeMetrics(): void {
  if (defaults) return;
  defaults = true;
  collectDefaultMetrics({ register: registry });
}

/** Cost of each GraphQL operation admitted to run (the node-count estimate of resolvers/limits.ts). */
export const graphqlQueryCost = new Histogram({
  name: 'idserver_graphql_query_cost',
  help: 'Estimated cost (objects it may return) of each GraphQL operation admitted to run.',
  buckets: [1, 10, 100, 1_000, 10_000, 100_000],
  registers: [registry],
});

/** GraphQL operations refused before or stopped during execution, by reason. */
export const graphqlRejected = new Counter({
  name: 'idserver_graphql_rejected_total',
  help: 'GraphQL operations refused by a limit (cost, page size, introspection) or stopped by the timeout.',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Event pollers running on this node (one per realm and kind with subscribers; ADR 18). */
export const eventFeedPollers = new Gauge({
  name: 'idserver_event_feed_pollers',
  help: 'Pollers of the event tables running on this node, by kind (events, adminEvents): one per realm with subscribers.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** Open GraphQL event subscriptions on this node. */
export const eventFeedSubscribers = new Gauge({
  name: 'idserver_event_feed_subscribers',
  help: 'Open GraphQL subscriptions to events on this node, by kind (events, adminEvents).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/**
 * HTTP requests by method, route template (never the raw path: a template such as
 * `/admin/realms/:realm/users/:id`, `/graphql`, or `unmatched`) and status, with their latency.
 * Named as Quarkus (Keycloak's runtime) names it.
 */
export const httpRequests = new Histogram({
  name: 'http_server_requests_seconds',
  help: 'HTTP requests by method, route template and status, and their duration in seconds.',
  labelNames: ['method', 'uri', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Password hashing (new credentials) and verification (logins), count and time. */
export const passwordHashing = new Histogram({
  name: 'idserver_password_hash_seconds',
  help: 'Password hashing (operation hash) and verification (operation verify), and their duration in seconds.',
  labelNames: ['operation'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

/** GELF log messages that could not be sent. */
export const gelfDropped = new Counter({
  name: 'idserver_gelf_messages_dropped_total',
  help: 'GELF log messages dropped because the log server could not be reached or the queue was full.',
  registers: [registry],
});

/** SQL statements and their duration. */
export const dbStatements = new Histogram({
  name: 'idserver_db_statement_seconds',
  help: 'SQL statements run by the server and their duration in seconds.',
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  registers: [registry],
});

/** How the pool's connections are used, read when scraped (MariaDB/MySQL; SQLite has no pool). */
export const dbPool = new Gauge({
  name: 'idserver_db_pool_connections',
  help: 'Database connections of the pool by state: used (lent to a request), idle, pending (requests waiting for one), max.',
  labelNames: ['state'] as const,
  registers: [registry],
});

interface PoolLike {
  size: number;
  available: number;
  using: number;
  waiting: number;
  maxSize?: number;
}

/** Reads the pool's state on every scrape. */
export function watchPool(pool: PoolLike | undefined): void {
  if (!pool) return;
  (dbPool as unknown as { collect?: () => void }).collect = () => {
    dbPool.set({ state: 'used' }, pool.using);
    dbPool.set({ state: 'idle' }, pool.available);
    dbPool.set({ state: 'pending' }, pool.waiting);
    if (pool.maxSize !== undefined) dbPool.set({ state: 'max' }, pool.maxSize);
  };
}
