import type { Db } from '../db';
import { createLoaders, type Loaders } from '../loaders';
import { getLogger, type Logger } from '../logging';

/** Who is calling: the subject of a verified admin token. */
export interface Actor {
  /** Realm that issued the token. */
  realmId: string;
  realmName: string;
  /** The user (or service-account user) behind the token. */
  userId: string;
  /** Client UUID the token was issued to (`azp`). */
  clientId: string;
  sessionId?: string;
  ipAddress?: string;
  /** Web origins the token allows (its `allowed-origins` claim); `*` allows any. */
  allowedOrigins?: string[];
  /**
   * The caller's effective role ids when they are not mapping rows (a transient federated user, ADR 46:
   * its directory gives them), set by the front that verified the token; absent for a stored user.
   */
  roleIds?: (ctx: RequestContext) => Promise<Set<string>>;
}

/**
 * What every service function receives: the database, the caller, per-request loaders, a logger
 * and the public base URL. Built once per request by both fronts; a batch script builds one with
 * `systemContext`.
 */
export interface RequestContext {
  db: Db;
  /** null for the system itself (bootstrap, CLI). */
  actor: Actor | null;
  loaders: Loaders;
  log: Logger;
  /** e.g. http://localhost:8080 — issuer and Location headers are built from it. */
  baseUrl: string;
  /** Per-request memo (permission sets per realm ...). */
  memo: Map<string, unknown>;
  /** The request's id (its `X-Request-Id` response header); absent outside HTTP requests. */
  requestId?: string;
  /** Cache versions read while verifying the caller (ADR 23, core/shared-cache.ts); absent for the system. */
  versions?: CacheVersions;
}

/** The cache versions (ADR 23) read in a request's bearer statement, by realm id and by user id. */
export interface CacheVersions {
  realms: Map<string, number>;
  users: Map<string, number>;
}

/**
 * A request's context. Its logger is a getter on the prototype, made when the request first logs
 * (`%X{requestId}` in a pattern, `mdc.requestId` in JSON output): most requests never log, and
 * log4js's getLogger costs a category lookup. On the prototype because Apollo copies the context
 * object for each operation (`Object.assign` onto the same prototype): an own getter would be called
 * by the copy, making a logger for every GraphQL request.
 */
class Context implements RequestContext {
  versions?: CacheVersions;
  /** The logger once made. */
  logger?: Logger;

  constructor(
    public db: Db,
    public actor: Actor | null,
    public loaders: Loaders,
    public baseUrl: string,
    public memo: Map<string, unknown>,
    public requestId: string | undefined,
    readonly category: string,
  ) {}

  get log(): Logger {
    if (!this.logger) {
      this.logger = getLogger(this.category);
      if (this.requestId) this.logger.addContext('requestId', this.requestId);
    }
    return this.logger;
  }
}

export function createContext(
  db: Db,
  actor: Actor | null,
  baseUrl: string,
  category = 'idserver.request',
  requestId?: string,
): RequestContext {
  return new Context(db, actor, createLoaders(db), baseUrl, new Map(), requestId, category);
}

/** A copy of a context with some fields replaced (keeps its logger; `{ ...ctx }` would drop it). */
export function derivedContext(ctx: RequestContext, changes: Partial<RequestContext>): RequestContext {
  return Object.assign(Object.create(Object.getPrototypeOf(ctx)) as RequestContext, ctx, changes);
}

/** A context with full rights, for bootstrap and batch scripts. */
export function systemContext(db: Db, baseUrl = 'http://localhost:8080'): RequestContext {
  return createContext(db, null, baseUrl, 'idserver.system');
}

/** Memoises an async computation for the lifetime of the request. */
export function memo<T>(ctx: RequestContext, key: string, compute: () => Promise<T>): Promise<T> {
  let p = ctx.memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = compute();
    ctx.memo.set(key, p);
  }
  return p;
}
