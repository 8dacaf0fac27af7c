import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { HttpError, serverError } from '../src/core/errors';
import { mapDbError } from '../src/core/db-errors';
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
 * itself (parse, validation, bad input) pass through; anything else is logged and masked as 500.
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
  const e = original as { stack?: string; message?: string } | undefined;
  log.error(`Unhandled GraphQL error: ${e?.stack ?? e?.message ?? String(original)}`);
  return render(formatted, serverError());
}

function render(formatted: GraphQLFormattedError, err: HttpError): GraphQLFormattedError {
  return {
    message: err.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: codeOf(err.status), http: { status: err.status }, keycloak: err.body },
  };
}
