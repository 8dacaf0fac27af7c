import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { contextFromRequest } from '../src/auth/bearer';
import type { Db } from '../src/db';
import type { RequestContext } from '../src/core/context';
import { formatError } from './errors';
import { gatewaySchema } from './schema';

/**
 * Mounts the GraphQL gateway at /graphql. Every request needs a valid admin bearer token: the
 * same actor extraction as the REST front runs as express middleware before Apollo (401
 * `{"error":"HTTP 401 Unauthorized"}` otherwise), and the request's GraphQL context is the same
 * RequestContext the REST front builds, with fresh per-request loaders.
 */
export async function mountGraphql(app: Express, db: Db, baseUrlOf: (req: Request) => string): Promise<void> {
  const server = new ApolloServer<RequestContext>({
    schema: await gatewaySchema(),
    formatError,
    includeStacktraceInErrorResponses: false,
    // Every request is authenticated, so tools holding an admin token may introspect.
    introspection: true,
    plugins: [ApolloServerPluginLandingPageDisabled()],
  });
  await server.start();
  app.use(
    '/graphql',
    authenticate(db, baseUrlOf),
    express.json({ limit: '10mb' }),
    badJson,
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
