import 'reflect-metadata';
import type { Server } from 'node:http';
import express, { type Express, type Request } from 'express';
import { adminRouter } from '../rest';
import { errorHandler } from '../rest/http';
import { mountGraphql } from '../resolvers';
import { openDb, type Db, type DbOptions } from './db';
import { getLogger } from './logging';
import { oidcRouter } from './oidc/router';
import { startEventExpiration } from './services/events/events';
import { bootstrap, type BootstrapOptions } from './services/realms/realms';

const log = getLogger('idserver.server');
const httpLog = getLogger('idserver.http');

export interface AppOptions {
  /** Fixed public base URL (issuer, Location headers); derived from each request when unset. */
  hostname?: string;
}

/** Builds the express app over an open database: OIDC endpoints, admin REST, GraphQL, health. */
export async function createApp(db: Db, opts: AppOptions = {}): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const baseUrlOf = (req: Request) => (opts.hostname ? opts.hostname.replace(/\/+$/, '') : `${req.protocol}://${req.get('host')}`);

  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      if (httpLog.isInfoEnabled()) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        httpLog.info(`${req.method} ${req.originalUrl.split('?')[0]} ${res.statusCode} ${ms.toFixed(1)}ms`);
      }
    });
    next();
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'UP' });
  });
  app.use('/realms', oidcRouter(db, baseUrlOf));
  app.use('/admin', adminRouter(db, baseUrlOf));
  await mountGraphql(app, db, baseUrlOf);
  app.use((_req, res) => {
    res.status(404).json({ error: 'Unable to find matching target resource method' });
  });
  app.use(errorHandler(log));
  return app;
}

export interface StartOptions extends AppOptions {
  db: DbOptions;
  host: string;
  port: number;
  bootstrap: BootstrapOptions;
}

export interface RunningServer {
  app: Express;
  db: Db;
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Opens the database, migrates, bootstraps the master realm and admin, and listens. */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const db = await openDb(opts.db);
  const boot = await bootstrap(db, opts.bootstrap);
  if (opts.bootstrap.mode === 'start-dev' && boot.createdAdmin && opts.bootstrap.password === 'admin') {
    log.warn(
      `Created the bootstrap admin '${boot.createdAdmin}' with the development default password: change it, and do not use start-dev in production`,
    );
  }
  const app = await createApp(db, opts);
  // Expired events are purged in small batches every 15 minutes (the timer never keeps the process alive).
  const stopExpiration = startEventExpiration(db);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(opts.port, opts.host, () => resolve(s));
    s.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const url = `http://${opts.host === '0.0.0.0' ? 'localhost' : opts.host}:${port}`;
  log.info(`idserver listening on ${url} (database: ${opts.db.vendor})`);
  return {
    app,
    db,
    server,
    url,
    close: async () => {
      stopExpiration();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
