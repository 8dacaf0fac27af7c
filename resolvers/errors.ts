import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { RequestContext } from '../src/core/context';
import { mapDbError } from '../src/core/db-errors';
import { HttpError, serverError } from '../src/core/errors';
import { type FaultSite, isServerFault, logServerFault } from '../src/core/server-errors';
import { getLogger } from '../src/logging';

const log = getLogger('idserver.graphql');

/** GraphQL error codes for the HTTP statuses the services raise. */
const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
};

export const codeOf = (status: number) => CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');

/**
 * The one error renderer of the GraphQL front. A typed service error becomes
 * `{ message, extensions: { code, http: { status }, keycloak: <Keycloak's error body> } }`, so a
 * GraphQL client sees the same status and message the REST front would send. Errors of GraphQL
 * itself (parse, validation, bad input) pass through; anything else is masked as 500.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = mapDbError(unwrapResolverError(error));
  if (original instanceof HttpError) return render(formatted, original);
  const code = formatted.extensions?.code;
  if (code && code !== 'INTERNAL_SERVER_ERROR') {
    // Apollo strips `http` from a thrown GraphQLError's extensions after using it for the status: keep it.
    const http = formatted.extensions?.http ?? (original instanceof GraphQLError ? original.extensions.http : undefined);
    return { ...formatted, extensions: { ...formatted.extensions, http: http ?? { status: 400 } } };
  }
  // Logged by `faultLogPlugin` (HTTP) or `logGraphqlFault` (WebSocket), where the request is known.
  return render(formatted, serverError());
}

/** The error behind a GraphQL error when it is a server fault (a 5xx that formatError renders), else undefined. */
function serverFaultOf(error: unknown): { fault: unknown } | undefined {
  const original = mapDbError(unwrapResolverError(error));
  if (original instanceof HttpError) return isServerFault(original) ? { fault: original } : undefined;
  const code = error instanceof GraphQLError ? error.extensions?.code : undefined;
  return code && code !== 'INTERNAL_SERVER_ERROR' ? undefined : { fault: original };
}

/** Logs a GraphQL error once at ERROR when it is a server fault, with the field path that raised it. */
export function logGraphqlFault(error: unknown, site: FaultSite): void {
  const found = serverFaultOf(error);
  if (!found) return;
  const path = error instanceof GraphQLError && error.path ? ` field ${error.path.join('.')}` : '';
  logServerFault(log, { ...site, route: `${site.route}${path}` }, found.fault);
}

/** Apollo plugin: each server fault of a request logged once, with the operation and the request id. */
export const faultLogPlugin: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue, request }) {
        const operation = request.operationName ? ` operation ${request.operationName}` : '';
        const site = { method: request.http?.method ?? 'POST', route: `/graphql${operation}`, requestId: contextValue.requestId };
        for (const error of errors) logGraphqlFault(error, site);
      },
    };
  },
};

function render(formatted: GraphQLFormattedError, err: HttpError): GraphQLFormattedError {
  return {
    message: err.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: codeOf(err.status), http: { status: err.status }, keycloak: err.body },
  };
}
