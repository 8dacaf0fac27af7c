import { randomUUID } from 'node:crypto';
import { HttpError } from './errors';

/**
 * What makes a server error diagnosable: the request id every response carries (`X-Request-Id`),
 * the route template of the failing request, and one ERROR line per 5xx with the driver's message
 * and error codes. The line never holds the SQL text or its parameters (Sequelize inlines
 * replacement values into `.sql`, and `.parameters` are the bound values: user input, secrets), and
 * values MariaDB quotes back in its messages (`Duplicate entry '…'`) are masked.
 */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Printable ASCII without spaces, at most 128 characters: safe to echo in a header and a log line. */
const SANE_ID = /^[\x21-\x7e]{1,128}$/;

/** The client's request id when it is sane, else a fresh UUID. */
export function requestIdFrom(sent: unknown): string {
  const v = Array.isArray(sent) ? sent[0] : sent;
  return typeof v === 'string' && SANE_ID.test(v) ? v : randomUUID();
}

/** The request id the HTTP front gave the request (kept in `res.locals` by src/server.ts). */
export function requestIdOf(req: { res?: { locals?: Record<string, unknown> } }): string | undefined {
  const id = req.res?.locals?.requestId;
  return typeof id === 'string' ? id : undefined;
}

interface RoutedRequest {
  baseUrl: string;
  route?: { path?: unknown };
  params?: Record<string, unknown>;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The route template of a request inside an express handler (`/admin/realms/:realm/groups/:id`):
 * the mount path with the values of the parent routers' parameters put back as `:name`, then the
 * route's own path. Never the raw URL: no query string, no user-chosen names.
 */
export function routeTemplate(req: RoutedRequest): string {
  const own = req.route?.path === undefined ? '' : String(req.route.path);
  const ownKeys = new Set([...own.matchAll(/:(\w+)/g)].map((m) => m[1]));
  const unused = Object.entries(req.params ?? {}).filter(([k, v]) => !ownKeys.has(k) && typeof v === 'string');
  const base = req.baseUrl
    .split('/')
    .map((segment) => {
      if (!segment) return segment;
      const i = unused.findIndex(([, v]) => v === decoded(segment));
      if (i < 0) return segment;
      const [[name]] = unused.splice(i, 1);
      return `:${name}`;
    })
    .join('/');
  const path = `${base}${own === '/' ? '' : own}` || '/';
  return req.route ? path : `${path}/*`;
}

/** Whether an error is a server fault to log: anything untyped, or a typed 5xx other than 501 (a feature off). */
export function isServerFault(err: unknown): boolean {
  if (err instanceof HttpError) return err.status >= 500 && err.status !== 501;
  return true;
}

interface DriverError {
  name?: string;
  message?: string;
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  stack?: string;
  original?: DriverError;
  parent?: DriverError;
}

/** Values MariaDB quotes back in its messages (a duplicate key, an unconvertible value) are user data. */
const maskValues = (message: string) =>
  message.replace(/(Duplicate entry |value: )'(?:[^'\\]|\\.)*'/g, "$1'…'").replace(/(Incorrect \w+ value )'(?:[^'\\]|\\.)*'/g, "$1'…'");

/**
 * One line about an error: its name, the driver's message and codes (Sequelize keeps the driver's
 * error in `.original`/`.parent`), and the stack frames. Deliberately not `.sql` nor `.parameters`.
 */
export function describeServerError(err: unknown): string {
  if (!err || typeof err !== 'object') return `non-error thrown: ${typeof err}`;
  const e = err as DriverError;
  const driver = e.original ?? e.parent;
  const message = maskValues(String(driver?.message ?? e.message ?? ''));
  const codes = [
    ['sqlState', driver?.sqlState ?? e.sqlState],
    ['code', driver?.code ?? e.code],
    ['errno', driver?.errno ?? e.errno],
  ]
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${String(v)}`);
  const frames = (e.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .join('\n');
  return `${e.name ?? 'Error'}: ${message}${codes.length ? ` (${codes.join(', ')})` : ''}${frames ? `\n${frames}` : ''}`;
}

/** Where a server error happened: the method and route template, and the request id when there is one. */
export interface FaultSite {
  method: string;
  route: string;
  requestId?: string;
}

/** Logs a server fault once, at ERROR: route, request id, driver message and codes. */
export function logServerFault(log: { error: (m: string) => void }, site: FaultSite, err: unknown): void {
  log.error(`Server error on ${site.method} ${site.route} (request ${site.requestId ?? 'n/a'}): ${describeServerError(err)}`);
}
