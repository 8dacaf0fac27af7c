import { ValueTooLongError, dbErrorKind } from '../db/errors';
import { invalidate } from '../loaders/invalidate';
import type { RequestContext } from './context';
import { type HttpError, errorB } from './errors';

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
  if (kind === 'unique' && meaning.unique) return meaning.unique(err);
  if (kind === 'foreign-key' && meaning.foreignKey) return meaning.foreignKey(err);
  return err;
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
