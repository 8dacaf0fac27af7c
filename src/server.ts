import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import express, { type Express, type Request } from 'express';
import { mountGraphql } from '../resolvers';
import type * as Subscriptions from '../resolvers/subscriptions';
import type { Duplex } from 'node:stream';
import { adminRouter } from '../rest';
import { errorHandler } from '../rest/http';
import { serveOpenApi } from '../rest/openapi';
import type { EventListenerConfig } from './config/event-listener-options';
import type { GraphqlLimits } from './config/graphql-options';
import { REQUEST_ID_HEADER, requestIdFrom } from './core/server-errors';
import { type Db, type DbOptions, openDb } from './db';
import { getLogger } from './logging';
import { collectRuntimeMetrics, httpRequests, registry, watchPool } from './metrics';
import { RouteTemplates, uriLabel } from './metrics/route-templates';
import { loginRouter } from './oidc/login-router';
import type { X509LookupConfig } from './config/x509-options';
import type { CibaConfig } from './config/ciba-options';
import { oidcRouter } from './oidc/router';
import { themeResourcesRouter } from './oidc/theme-resources-router';
import { startEventExpiration } from './services/events/events';
import { startPeriodicSync } from './services/user-storage/periodic-sync';
import { installEventListeners } from './services/events/listeners';
import { type BootstrapOptions, bootstrap } from './services/realms/realms';

const log = getLogger('idserver.server');
const httpLog = getLogger('idserver.http');

export interface AppOptions {
  /** Fixed public base URL (issuer, Location headers); derived from each request when unset. */
  hostname?: string;
  /** Limits of the GraphQL gateway (defaults: GRAPHQL_DEFAULTS). */
  graphql?: GraphqlLimits;
  /** Serve the GraphiQL page at /graphql to browsers (option `graphql-ui`; on in start-dev). */
  graphqlUi?: boolean;
  /** Options of the realms' event listeners (`--spi-events-listener-*`; defaults: Keycloak's). */
  eventListeners?: EventListenerConfig;
  /** How a reverse proxy forwards TLS client certificates (`--spi-x509cert-lookup-*`; default: not trusted). */
  x509?: X509LookupConfig;
  /** The CIBA authentication channel (`--spi-ciba-auth-channel-...-http-authentication-channel-uri`; unset: no CIBA). */
  ciba?: CibaConfig;
}

/**
 * Builds the express app over an open database: OIDC endpoints, admin REST, GraphQL, health. The
 * GraphQL schema is built on the app's first GraphQL request (ADR 27).
 */
export async function createApp(db: Db, opts: AppOptions = {}): Promise<Express> {
  installEventListeners(opts.eventListeners);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // Keycloak's admin API sends no ETag; express would hash every GET body to make one.
  app.set('etag', false);
  const baseUrlOf = (req: Request) => (opts.hostname ? opts.hostname.replace(/\/+$/, '') : `${req.protocol}://${req.get('host')}`);

  // Every response names its request (the client's sane X-Request-Id, else a new one): logs carry it too.
  app.use((req, res, next) => {
    const id = requestIdFrom(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    // Nor does it answer conditional requests: express would turn `If-None-Match: *` into a bodiless 304.
    if (req.headers['if-none-match'] !== undefined) delete req.headers['if-none-match'];
    if (req.headers['if-modified-since'] !== undefined) delete req.headers['if-modified-since'];
    next();
  });
  // Route templates of the routers below, for requests answered before their route ran (a parent's 404).
  const templates = new RouteTemplates();
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const uri = uriLabel(templates, req, res.locals.routeTemplate, res.statusCode);
      httpRequests.observe({ method: req.method, uri, status: String(res.statusCode) }, seconds);
      if (httpLog.isInfoEnabled()) {
        httpLog.info(`${req.method} ${req.originalUrl.split('?')[0]} ${res.statusCode} ${(seconds * 1000).toFixed(1)}ms`);
      }
    });
    next();
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'UP' });
  });
  // The OpenAPI document of the REST facade: documentation, so unauthenticated (README, "OpenAPI").
  app.get('/openapi.json', serveOpenApi);
  const oidc = oidcRouter(db, baseUrlOf, { x509: opts.x509, ciba: opts.ciba });
  const login = loginRouter(db, baseUrlOf);
  const admin = adminRouter(db, baseUrlOf);
  const resources = themeResourcesRouter(db);
  templates.add('/realms', oidc).add('/realms', login).add('/admin', admin).add('/resources', resources);
  app.use('/realms', oidc);
  app.use('/realms', login);
  app.use('/admin', admin);
  app.use('/resources', resources);
  mountGraphql(app, db, baseUrlOf, opts.graphql, { ui: opts.graphqlUi === true });
  app.use((_req, res) => {
    res.status(404).json({ error: 'Unable to find matching target resource method' });
  });
  // An error raised before its route ran (a parent resolver) is logged with the route's template too.
  app.use((err: unknown, req: Request, res: express.Response, next: express.NextFunction) => {
    const captured = res.locals.routeTemplate as string | undefined;
    if (captured === undefined || captured.endsWith('/*')) {
      res.locals.routeTemplate = templates.match(req.method, req.originalUrl.split('?')[0]) ?? captured;
    }
    next(err);
  });
  app.use(errorHandler(log));
  return app;
}

export interface StartOptions extends AppOptions {
  db: DbOptions;
  host: string;
  port: number;
  bootstrap: BootstrapOptions;
  /** The management interface (Prometheus metrics at /metrics, health at /health/*); not started when absent. */
  management?: { port: number; metrics?: boolean; health?: boolean };
}

export interface RunningServer {
  app: Express;
  db: Db;
  server: Server;
  url: string;
  /** Base URL of the management interface, when it runs. */
  managementUrl?: string;
  /**
   * Graceful stop: readiness turns DOWN, the listener takes no new connections, requests in flight
   * finish (a request whose client went away counts until its handler has answered; connections still
   * busy after `timeoutMs` are closed), then subscriptions and the management interface close, and the
   * database pool closes once no transaction or statement uses it (or at the same deadline).
   */
  close(opts?: { timeoutMs?: number }): Promise<void>;
}

/** Opens the database, migrates, bootstraps the master realm and admin, and listens. */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  // The port first: a port in use stops start-up before the database is opened, migrated or written.
  const server = await listen(opts.port, opts.host, '--http-port');
  let db: Db;
  try {
    db = await openDb(opts.db);
  } catch (e) {
    server.close();
    throw new Error(`Cannot open the database of --db=${opts.db.vendor} --db-url=${redactedUrl(opts.db.url)}: ${(e as Error).message}`);
  }
  let app: Express;
  try {
    const boot = await bootstrap(db, opts.bootstrap);
    if (opts.bootstrap.mode === 'start-dev' && boot.createdAdmin && opts.bootstrap.password === 'admin') {
      log.warn(
        `Created the bootstrap admin '${boot.createdAdmin}' with the development default password: change it, and do not use start-dev in production`,
      );
    }
    app = await createApp(db, opts);
  } catch (e) {
    server.close();
    await db.close();
    throw e;
  }
  // Expired events are purged in small batches every 15 minutes (the timer never keeps the process alive).
  const stopExpiration = startEventExpiration(db);
  // LDAP providers with a fullSyncPeriod or changedSyncPeriod are synced by a timer of their own.
  const stopLdapSync = startPeriodicSync(db);
  // Requests in flight, so that a graceful stop can wait for them. A request counts until its handler has
  // answered (`res.end`) and the response is done with ('close'). A client that goes away first closes the
  // response while the handler still runs (and may still write): the request counts on until the answer.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  watchPool((db.sequelize.connectionManager as unknown as { pool?: Parameters<typeof watchPool>[0] }).pool);
  server.on('request', (req, res) => {
    inFlight++;
    let answered = false;
    let closed = false;
    let settled = false;
    const settle = () => {
      if (settled || !answered || !closed) return;
      settled = true;
      inFlight--;
      if (inFlight === 0) drained?.();
    };
    const end = res.end;
    res.end = function (this: typeof res, ...args: unknown[]) {
      try {
        return (end as (...a: unknown[]) => typeof res).apply(this, args);
      } finally {
        answered = true;
        settle();
      }
    } as typeof res.end;
    res.once('close', () => {
      closed = true;
      settle();
    });
    app(req, res);
  });
  let stopping = false;
  // GraphQL subscriptions (graphql-ws) share the listener: WebSocket upgrades of /graphql. Like the
  // HTTP gateway, the subscription server (and the schema) is built on the first upgrade.
  let subscriptions: Promise<Subscriptions.SubscriptionServer> | undefined;
  const subscriptionServer = () => {
    subscriptions ??= (require('../resolvers/subscriptions') as typeof Subscriptions)
      .subscriptionServer(db, { hostname: opts.hostname, limits: opts.graphql })
      .catch((e: unknown) => {
        subscriptions = undefined;
        throw e;
      });
    return subscriptions;
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((req.url ?? '').split('?')[0] !== '/graphql') {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    subscriptionServer().then(
      (s) => s.handleUpgrade(req, socket, head),
      (e: unknown) => {
        log.error(`GraphQL subscriptions unavailable: ${(e as Error).message}`);
        socket.destroy();
      },
    );
  });
  const url = urlOf(server, opts.host);
  log.info(`idserver listening on ${url} (database: ${opts.db.vendor})`);
  setTimeout(collectStartupGarbage, 200).unref();
  let management: Server | undefined;
  let managementUrl: string | undefined;
  if (opts.management) {
    management = await listen(opts.management.port, opts.host, '--http-management-port');
    management.on('request', managementApp({ ...opts.management, db, stopping: () => stopping }));
    managementUrl = urlOf(management, opts.host);
    const served = [opts.management.metrics !== false ? 'metrics at /metrics' : '', opts.management.health ? 'health at /health' : '']
      .filter(Boolean)
      .join(', ');
    log.info(`Management interface listening on ${managementUrl} (${served})`);
  }
  return {
    app,
    db,
    server,
    url,
    managementUrl,
    close: async ({ timeoutMs = 30_000 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      stopping = true;
      stopExpiration();
      const ldapStopped = stopLdapSync();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => {
            drained = resolve;
          }),
          new Promise<void>((resolve) => {
            timer = setTimeout(() => {
              log.warn(`Shutdown timeout: closing ${inFlight} request(s) still in flight`);
              resolve();
            }, timeoutMs);
          }),
        ]);
        clearTimeout(timer);
      }
      // Keep-alive connections idle now (or past the deadline) are closed; the listener then ends.
      server.closeAllConnections();
      await closed;
      if (subscriptions) await (await subscriptions.catch(() => undefined))?.close();
      if (management) await new Promise<void>((resolve) => management.close(() => resolve()));
      // Database work a handler left running after its answer (an unawaited purge) ends before the pool closes.
      await ldapStopped;
      while (databaseBusy(db) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      if (databaseBusy(db)) log.warn('Shutdown timeout: closing the database pool while it is still in use');
      await db.close(deadline);
    },
  };
}

/**
 * True while the database is in use: a pool connection borrowed or awaited (MariaDB/MySQL), or a
 * transaction open (SQLite, where each transaction has its own connection until it ends).
 */
function databaseBusy(db: Db): boolean {
  const cm = db.sequelize.connectionManager as unknown as {
    pool?: { using: number; waiting: number };
    connections?: Record<string, unknown>;
  };
  if (db.vendor !== 'sqlite') return (cm.pool?.using ?? 0) + (cm.pool?.waiting ?? 0) > 0;
  // In memory, every connection is the one kept under key 1, never released.
  if ((db.sequelize as unknown as { options: { storage?: string } }).options.storage === ':memory:') return false;
  return Object.keys(cm.connections ?? {}).some((k) => k !== 'default');
}

/**
 * One full collection shortly after start-up: loading the modules and building the GraphQL schema leave
 * tens of megabytes of garbage that V8 would otherwise keep (and keep its young generation grown for)
 * until its memory reducer runs, half a minute later (issue 12: idle RSS).
 */
function collectStartupGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A database URL as it may be shown: without a password. */
function redactedUrl(url: string | undefined): string {
  if (!url) return '(default)';
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * A listening HTTP server without a handler yet (requests wait until one is attached). A port that is
 * taken or not ours to bind is an error naming the option.
 */
function listen(port: number, host: string, option: string): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => {
      const why =
        e.code === 'EADDRINUSE'
          ? 'is already in use'
          : e.code === 'EACCES'
            ? 'may not be bound by this user'
            : `cannot be bound (${e.message})`;
      reject(new Error(`Port ${port} on ${host} ${why}: choose another with ${option}`));
    });
    s.listen(port, host, () => resolve(s));
  });
}

function urlOf(server: Server, host: string): string {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
}

/**
 * The management interface: Prometheus metrics (runtime and idserver's own) at /metrics, and
 * Keycloak's health endpoints: `/health/live` (the process serves), `/health/ready` (the database
 * answers and the server is not stopping; 503 otherwise), `/health` (both).
 */
function managementApp(opts: { metrics?: boolean; health?: boolean; db: Db; stopping: () => boolean }): Express {
  const app = express();
  app.disable('x-powered-by');
  if (opts.metrics !== false) {
    collectRuntimeMetrics();
    app.get('/metrics', (_req, res, next) => {
      registry.metrics().then((text) => res.type(registry.contentType).send(text), next);
    });
  }
  if (opts.health) {
    const ready = async () => {
      if (opts.stopping()) return { name: 'Shutdown', status: 'DOWN' as const, data: { reason: 'stopping' } };
      try {
        await opts.db.sequelize.query('SELECT 1');
        return { name: 'Database connections health check', status: 'UP' as const };
      } catch (e) {
        return { name: 'Database connections health check', status: 'DOWN' as const, data: { reason: (e as Error).message } };
      }
    };
    const answer = (res: express.Response, checks: Array<{ status: 'UP' | 'DOWN' }>) => {
      const status = checks.every((c) => c.status === 'UP') ? 'UP' : 'DOWN';
      res.status(status === 'UP' ? 200 : 503).json({ status, checks });
    };
    app.get('/health/live', (_req, res) => answer(res, []));
    app.get(['/health/ready', '/health'], (_req, res, next) => {
      ready().then((check) => answer(res, [check]), next);
    });
  }
  app.use((_req, res) => {
    res.status(404).json({ error: 'Unable to find matching target resource method' });
  });
  return app;
}
