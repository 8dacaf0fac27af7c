import { inTransaction } from '../db';
import { dbErrorKind, ValueTooLongError } from '../db/errors';
import { invalidate } from '../loaders/invalidate';
import type { RequestContext } from './context';
import { conflict, errorB, type HttpError, notFound } from './errors';

export { isForeignKeyViolation, isRetryable, isUniqueViolation } from '../db/errors';

/**
 * Database errors become Keycloak's errors here and nowhere else. A service says which Keycloak
 * error a violated constraint means (`409 Role with name X already exists`, ...); this module
 * recognises the violation on either database. Deadlocks and lock timeouts never reach it: the
 * outermost `db.transaction` runs the transaction again (src/db/index.ts).
 */
export interface DbErrorMeaning {
  /** A unique index refused the write: the duplicate's Keycloak error. */
  unique?: (err: unknown) => HttpError;
  /** A foreign key refused the write (the parent row went meanwhile). */
  foreignKey?: (err: unknown) => HttpError;
}

/** The Keycloak error a database error means, or the error itself when it means nothing listed. */
export function mapDbError(err: unknown, meaning: DbErrorMeaning = {}): unknown {
  const kind = dbErrorKind(err);
  // A value longer than its column is bad input, whatever the write: 400, nothing written.
  if (kind === 'too-long') {
    const what = err instanceof ValueTooLongError ? `${err.column} is longer than ${err.max} characters` : 'A value is too long';
    return errorB(400, 'invalid_request', what);
  }
  // A lost lock race the outermost transaction's retries did not win (or a statement outside any
  // transaction that waited out the busy timeout): the database is overloaded, not the request wrong.
  // Inside a transaction it stays as it is, so the outermost one can still run again.
  if ((kind === 'busy' || kind === 'deadlock' || kind === 'lock-timeout') && !inTransaction()) return databaseBusy();
  if (kind === 'unique' && meaning.unique) return meaning.unique(err);
  if (kind === 'foreign-key') return meaning.foreignKey ? meaning.foreignKey(err) : parentGone(err);
  return err;
}

/** Seconds a client is asked to wait (`Retry-After`) after a 503 for a busy database. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** 503 for a database that stayed locked: OAuth's `temporarily_unavailable`, and `Retry-After` (rest/http.ts). */
export const databaseBusy = () => errorB(503, 'temporarily_unavailable', 'The database is busy; retry the request shortly.');

/** Keycloak's not-found message for each parent table a foreign key names (ADR 21). */
const NOT_FOUND: Record<string, string> = {
  realm: 'Realm not found.',
  user_entity: 'User not found',
  keycloak_group: 'Could not find group by id',
  role: 'Role not found',
  client: 'Could not find client',
  client_scope: 'Could not find client scope',
  identity_provider: 'Could not find identity provider',
};

/**
 * A foreign key refused a write no service gave a meaning for: a parent row was deleted while the
 * request ran (the only way, since every service resolves its parents first), so the answer is the
 * parent's 404. MariaDB names the parent table; SQLite does not, and gets Keycloak's generic 404.
 * A refused delete (a row still referenced) is a 409; the schema has no such rule today.
 */
function parentGone(err: unknown): HttpError {
  const e = err as { reltype?: string; table?: string };
  if (e.reltype === 'parent') return conflict('The resource is still referenced');
  return notFound(NOT_FOUND[e.table ?? ''] ?? 'HTTP 404 Not Found');
}

/** Runs `fn` and rethrows a database error as the Keycloak error it means. */
export async function mappingDbErrors<T>(meaning: DbErrorMeaning, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mapDbError(e, meaning);
  }
}

/**
 * One write: `fn` in a transaction (joining the caller's, or retried as a whole on deadlock when it
 * is the outermost), with database errors mapped to their Keycloak meaning.
 */
export function write<T>(ctx: RequestContext, meaning: DbErrorMeaning, fn: () => Promise<T>): Promise<T> {
  let runs = 0;
  return mappingDbErrors(meaning, () =>
    ctx.db.transaction(() => {
      // Run again after a lost lock race: what the rolled-back attempt cached (rows it wrote, answers
      // it memoised) is forgotten, or the rerun could trust a row that no longer exists and skip a write.
      if (runs++) {
        invalidate.everything(ctx.loaders);
        ctx.memo.clear();
      }
      return fn();
    }),
  );
}
