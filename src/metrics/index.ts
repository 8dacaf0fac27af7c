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
