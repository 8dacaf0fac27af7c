/**
 * Typed errors thrown by services and rendered once per front (REST: rest/errors.ts, GraphQL: formatError).
 * The body is Keycloak's exact error JSON for the situation; the status is the HTTP status.
 */
export type ErrorBody = Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(String(body.errorMessage ?? body.error_description ?? body.error ?? `HTTP ${status}`));
  }
}

/** Shape C: `{"error": msg}` (lookups and framework errors). */
export const errorC = (status: number, error: string) => new HttpError(status, { error });
/** Shape A: `{"errorMessage": msg}` (business rules). */
export const errorA = (status: number, errorMessage: string, extra: ErrorBody = {}) => new HttpError(status, { errorMessage, ...extra });
/** Shape B: `{"error": code, "error_description": text}` (OAuth style). */
export const errorB = (status: number, error: string, description: string) =>
  new HttpError(status, { error, error_description: description });

export const notFound = (msg: string) => errorC(404, msg);
export const conflict = (msg: string) => errorA(409, msg);
export const badRequest = (msg: string) => errorA(400, msg);
export const unauthorized = () => errorC(401, 'HTTP 401 Unauthorized');
export const forbidden = () => errorC(403, 'HTTP 403 Forbidden');
export const cannotParse = (kind: 'syntax' | 'mapping' = 'syntax') =>
  errorB(400, kind === 'syntax' ? 'invalid_request' : 'unknown_error', 'Cannot parse the JSON');
export const serverError = () => errorB(500, 'unknown_error', 'For more on this error consult the server log.');
