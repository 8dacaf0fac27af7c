import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { contextFromRequest } from '../src/auth/bearer';
import { watchWrites } from '../src/db/write-watch';
import { corsForToken, preflight } from '../src/auth/cors';
import { GRAPHQL_DEFAULTS, type GraphqlLimits } from '../src/config/graphql-options';
import type { Db } from '../src/db';
import type * as Gateway from './gateway';
import { graphiql } from './graphiql';

/**
 * Mounts the GraphQL gateway at /graphql. Every request needs a valid admin bearer token: the
 * same actor extraction as the REST front runs as express middleware before Apollo (401
 * `{"error":"HTTP 401 Unauthorized"}` otherwise), and the request's GraphQL context is the same
 * RequestContext the REST front builds, with fresh per-request loaders. Queries are checked
 * against the limits (resolvers/limits.ts) before they run. CORS as Keycloak's admin API: a
 * preflight is answered without authentication, a request from a browser origin gets CORS headers
 * when its token allows that origin.
 */
export function mountGraphql(
  app: Express,
  db: Db,
  baseUrlOf: (req: Request) => string,
  limits: GraphqlLimits = GRAPHQL_DEFAULTS,
  opts: { ui?: boolean } = {},
): void {
  // Built on the first authenticated request, with its modules (ADR 27): a server that is never asked a
  // GraphQL question (a REST-only tool's, most test servers) never pays for the schema, and start-up
  // does not wait for it.
  let handler: Promise<RequestHandler> | undefined;
  let built: RequestHandler | undefined; // once ready, called without a promise hop per request
  const ready = () => {
    handler ??= Promise.resolve()
      .then(() => (require('./gateway') as typeof Gateway).gatewayHandler(limits))
      .then((h) => {
        built = h;
        return h;
      })
      .catch((e: unknown) => {
        handler = undefined; // a later request tries again
        throw e;
      });
    return handler;
  };
  app.options('/graphql', preflight('GET, POST', 'Apollo-Require-Preflight'));
  // The GraphiQL page (option graphql-ui): static, before authentication; browsers' GETs only.
  if (opts.ui) app.use('/graphql', graphiql());
  app.use(
    '/graphql',
    authenticate(db, baseUrlOf),
    corsForToken,
    express.json({ limit: '10mb' }),
    badJson,
    // Reads after a write in this operation go past the shared caches (ADR 23); set after body parsing,
    // whose stream callbacks would leave the scope.
    (_req: Request, _res: Response, next: NextFunction) => watchWrites(next),
    (req: Request, res: Response, next: NextFunction) => {
      if (built) built(req, res, next);
      else ready().then((serve) => serve(req, res, next), next);
    },
  );
}

/** Bearer authentication before Apollo: 401 `{"error":"HTTP 401 Unauthorized"}` (the REST body) or the request's context. */
function authenticate(db: Db, baseUrlOf: (req: Request) => string): RequestHandler {
  return (req, res, next) => {
    contextFromRequest(db, req, baseUrlOf(req), 'idserver.graphql').then((ctx) => {
      res.locals.ctx = ctx;
      next();
    }, next);
  };
}

/** A body that is not JSON is a GraphQL-shaped 400, as Apollo answers other malformed requests. */
function badJson(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  const e = err as { type?: string } | undefined;
  if (e?.type !== 'entity.parse.failed') {
    next(err);
    return;
  }
  res
    .status(400)
    .json({ errors: [{ message: 'Malformed JSON request body', extensions: { code: 'BAD_REQUEST', http: { status: 400 } } }] });
}
