import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { contextFromRequest } from '../src/auth/bearer';
import { watchWrites } from '../src/db/write-watch';
import { corsForToken, preflight } from '../src/auth/cors';
import { GRAPHQL_DEFAULTS, type GraphqlLimits } from '../src/config/graphql-options';
import type { RequestContext } from '../src/core/context';
import type { Db } from '../src/db';
import { faultLogPlugin, formatError } from './errors';
import { graphiql } from './graphiql';
import { limitRules, limitsPlugin, withLimits } from './limits';
import { gatewaySchema } from './schema';

/**
 * Mounts the GraphQL gateway at /graphql. Every request needs a valid admin bearer token: the
 * same actor extraction as the REST front runs as express middleware before Apollo (401
 * `{"error":"HTTP 401 Unauthorized"}` otherwise), and the request's GraphQL context is the same
 * RequestContext the REST front builds, with fresh per-request loaders. Queries are checked
 * against the limits (resolvers/limits.ts) before they run. CORS as Keycloak's admin API: a
 * preflight is answered without authentication, a request from a browser origin gets CORS headers
 * when its token allows that origin.
 */
export async function mountGraphql(
  app: Express,
  db: Db,
  baseUrlOf: (req: Request) => string,
  limits: GraphqlLimits = GRAPHQL_DEFAULTS,
  opts: { ui?: boolean } = {},
): Promise<void> {
  const server = new ApolloServer<RequestContext>({
    schema: withLimits(await gatewaySchema(), limits),
    formatError,
    includeStacktraceInErrorResponses: false,
    // The server's own shutdown drains requests (src/server.ts); Apollo's signal handler would re-send
    // SIGTERM and end the process ~100 ms later, cutting requests in flight.
    stopOnTerminationSignals: false,
    // Apollo's own switch is static; the limits plugin decides per caller (admins by default).
    introspection: limits.introspection !== 'none',
    // Automatic persisted queries would let anyone register documents: off.
    persistedQueries: false,
    parseOptions: { maxTokens: limits.maxTokens },
    validationRules: limitRules(limits),
    // No cache-control hints are declared, and Apollo's cache-control plugin (installed unless disabled)
    // would hook every resolved field, which makes Apollo wrap every resolver of the schema.
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled(), limitsPlugin(limits), faultLogPlugin],
  });
  await server.start();
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
    expressMiddleware(server, { context: async ({ res }) => res.locals.ctx as RequestContext }),
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
