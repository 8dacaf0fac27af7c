import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import type { GraphqlLimits } from '../src/config/graphql-options';
import type { RequestContext } from '../src/core/context';
import { faultLogPlugin, formatError } from './errors';
import { limitRules, limitsPlugin, withLimits } from './limits';
import { gatewaySchema } from './schema';

/**
 * The started Apollo server over the gateway schema with its limits, as an express handler whose
 * GraphQL context is the request's RequestContext (set by the authentication before it). Loaded and
 * built on first use (resolvers/index.ts): the schema build is most of a start-up's CPU.
 */
export async function gatewayHandler(limits: GraphqlLimits): Promise<RequestHandler> {
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
  return expressMiddleware(server, { context: async ({ res }) => res.locals.ctx as RequestContext });
}
