import { STATUS_CODES } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../src/core/context';
import { BUSY_RETRY_AFTER_SECONDS, mapDbError } from '../src/core/db-errors';
import { cannotParse, errorC, HttpError } from '../src/core/errors';
import { badText, checkJsonValue, hasBadText } from '../src/core/input-text';
import { isServerFault, logServerFault, requestIdOf, routeTemplate } from '../src/core/server-errors';
import type { RealmModel } from '../src/db/models/realm';
import { validateRepresentation, validateRepresentationArray } from '../src/representations/schema';

/**
 * Shared plumbing of the REST adapters: async handlers, the request context and realm set by the
 * admin middleware, lazy JSON body parsing with Keycloak's error bodies, query parameters with
 * JAX-RS conversion rules, and Keycloak's 201/204 conventions.
 */
export const route =
  (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler =>
  (req, res, next) => {
    // Only here, inside the matched route, is the template known (metrics and error logs use it).
    res.locals.routeTemplate = routeTemplate(req);
    fn(req, res).catch((e) => failed(req, res, next, e));
  };

/** Like `route`, but continues to the next handler when the function resolves. */
export const middleware =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).then(
      () => next(),
      (e) => failed(req, res, next, e),
    );
  };

/**
 * Passes a handler's error on, noting the route template first: only here, inside the router that
 * matched, are the mount path and parameters known (express restores them on the way out).
 */
export function failed(req: Request, res: Response, next: NextFunction, err: unknown): void {
  if (res.locals.routeTemplate === undefined) res.locals.routeTemplate = routeTemplate(req);
  next(err);
}

export function ctxOf(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

export function realmOf(res: Response): RealmModel {
  return res.locals.realm as RealmModel;
}

/**
 * A value resolved once per request and kept in `res.locals` (the parent of a sub-resource: a user,
 * a client, a group ...), so every handler and middleware of the request shares the one lookup.
 */
export function once<T>(res: Response, key: string, resolve: () => Promise<T>): Promise<T> {
  if (!res.locals.parents) res.locals.parents = new Map<string, Promise<unknown>>();
  const memo = res.locals.parents as Map<string, Promise<unknown>>;
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = resolve();
    memo.set(key, p);
  }
  return p;
}

/** Raw request body text ('' when none). */
export function rawBody(req: Request): string {
  const b = req.body as unknown;
  if (Buffer.isBuffer(b)) return b.toString('utf8');
  if (typeof b === 'string') return b;
  return '';
}

/**
 * A text body (a localization value, a credential label, a client description): NUL is refused as
 * in JSON bodies and paths (SQLite cut the statement there: a 500).
 */
export function textBody(req: Request): string {
  const text = rawBody(req);
  if (hasBadText(text)) throw badText();
  return text;
}

/** Keycloak's 415 for a body whose Content-Type the endpoint does not consume (measured). */
export const contentTypeMismatch = () => errorC(415, 'The content-type header value did not match the value in @Consumes');

/** A JSON body needs a JSON Content-Type: another type is Keycloak's 415, none at all too. */
function requireJsonType(req: Request): void {
  const ct = req.headers['content-type'];
  if (!ct) throw errorC(415, 'HTTP 415 Unsupported Media Type');
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(ct)) throw contentTypeMismatch();
}

/** Parses the JSON body (undefined when empty); malformed JSON → 400 invalid_request. */
export function parseJson(req: Request): unknown {
  const raw = rawBody(req);
  if (!raw.trim()) return undefined;
  requireJsonType(req);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw cannotParse('syntax');
  }
  const bad = checkJsonValue(value);
  if (bad) throw bad;
  return value;
}

/** The parsed JSON body; an empty body or `null` is Keycloak's 400. */
export function requiredJson(req: Request): unknown {
  const body = parseJson(req);
  if (body === undefined || body === null) throw errorC(400, 'HTTP 400 Bad Request');
  return body;
}

/** A JSON object body validated against a representation; an empty body → `onEmpty` (default 400). */
export function jsonBody<T = Record<string, unknown>>(req: Request, representation: string, onEmpty?: () => T): T {
  const body = onEmpty ? parseJson(req) : requiredJson(req);
  if (body === undefined || body === null) return (onEmpty as () => T)();
  return validateRepresentation<T>(representation, body, rawBody(req));
}

/** A JSON array body of a representation; empty body or `null` → undefined. */
export function arrayBody<T = Record<string, unknown>>(req: Request, representation: string): T[] | undefined {
  const body = parseJson(req);
  if (body === undefined || body === null) return undefined;
  return validateRepresentationArray<T>(representation, body, rawBody(req));
}

const badParam = () => errorC(404, 'HTTP 404 Not Found');

export function qStr(req: Request, name: string): string | undefined {
  const v = req.query[name];
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return v === undefined ? undefined : String(v);
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Integer query parameter (a Java Integer); non-numeric or out of range → 404 (JAX-RS conversion failure). */
export function qInt(req: Request, name: string): number | undefined {
  const v = qStr(req, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw badParam();
  const n = Number(v);
  if (n < INT32.min || n > INT32.max) throw badParam();
  return n;
}

/**
 * Refuses path segments and query values holding NUL or unpaired surrogates (400) before any
 * handler runs; a path that does not percent-decode is express's 400, rendered by `errorHandler`.
 */
export const rejectBadText: RequestHandler = (req, _res, next) => {
  const texts: string[] = [];
  for (const segment of req.path.split('/')) {
    try {
      texts.push(decodeURIComponent(segment));
    } catch {
      next(errorC(400, 'HTTP 400 Bad Request'));
      return;
    }
  }
  const collect = (v: unknown): void => {
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        texts.push(k);
        collect(x);
      }
    }
  };
  collect(req.query);
  next(texts.some(hasBadText) ? badText() : undefined);
};

/** Boolean query parameter: only `true` (any case) is true, as Boolean.valueOf. */
export function qBool(req: Request, name: string): boolean | undefined {
  const v = qStr(req, name);
  if (v === undefined) return undefined;
  return v.toLowerCase() === 'true';
}

/** Path of the request URL without the query string, as the client sent it. */
export function requestPath(req: Request): string {
  return req.originalUrl.split('?')[0].replace(/\/+$/, '');
}

/** 201 with `Location: <request URL>/<id>` and no body. */
export function created(req: Request, res: Response, id: string, base?: string): void {
  const ctx = ctxOf(res);
  const path = base ?? requestPath(req);
  res
    .status(201)
    .location(`${ctx.baseUrl}${path}/${encodeURIComponent(id)}`)
    .end();
}

export function noContent(res: Response): void {
  res.status(204).end();
}

export function json(res: Response, body: unknown, status = 200): void {
  res.status(status).json(body);
}

/**
 * Renders typed errors with Keycloak's bodies; anything else is a 500 with Keycloak's generic body.
 * A server fault is logged once at ERROR with its route template, request id and the driver's message.
 */
export function errorHandler(log: { error: (m: string) => void }) {
  return (thrown: unknown, req: Request, res: Response, _next: NextFunction) => {
    const err = mapDbError(thrown);
    const site = () => ({
      method: req.method,
      // Outside a routed handler (a body parser, the GraphQL front's own middleware): the path, without its query.
      route: String(res.locals.routeTemplate ?? requestPath(req).slice(0, 200)),
      requestId: requestIdOf(req),
    });
    if (err instanceof HttpError) {
      // A busy database (mapDbError's 503) is logged with the driver's error; it passes, so the client may try again.
      if (isServerFault(err)) logServerFault(log, site(), err.status === 503 ? thrown : err);
      if (err.status === 503) res.set('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      res.status(err.status).json(err.body);
      return;
    }
    const e = err as { type?: string; status?: number; message?: string; stack?: string };
    if (e?.type === 'entity.too.large') {
      res.status(413).json({ error: 'HTTP 413 Request Entity Too Large' });
      return;
    }
    // express's own client errors (a path parameter that does not percent-decode, ...).
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ error: `HTTP ${e.status} ${STATUS_CODES[e.status] ?? 'Client Error'}` });
      return;
    }
    logServerFault(log, site(), err);
    res.status(500).json({ error: 'unknown_error', error_description: 'For more on this error consult the server log.' });
  };
}
