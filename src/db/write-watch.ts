import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Which requests have written. A request runs in a scope of its own (`watchWrites`); every statement
 * that changes rows marks the scope it runs in. Shared caches (ADR 23) are stamped with cache versions
 * read when the request began: once the request has written, those versions are older than what it
 * wrote, so from then on it reads past the shared caches (`wroteInScope`).
 */
const scope = new AsyncLocalStorage<{ wrote: boolean }>();

const WRITE_TYPES = new Set<string>([
  QueryTypes.INSERT,
  QueryTypes.UPDATE,
  QueryTypes.BULKUPDATE,
  QueryTypes.BULKDELETE,
  QueryTypes.DELETE,
  QueryTypes.UPSERT,
]);
const WRITE_SQL = /^\s*(insert|update|delete|replace)\b/i;

/** Runs `fn` (and everything it starts) in a fresh write scope. */
export function watchWrites<T>(fn: () => T): T {
  return scope.run({ wrote: false }, fn);
}

/** True when the current scope wrote, or when there is no scope (nothing says it did not). */
export function wroteInScope(): boolean {
  return scope.getStore()?.wrote ?? true;
}

/** Marks the current scope on every statement that writes (the one query method every model call goes through). */
export function watchStatements(sequelize: Sequelize): void {
  const query = sequelize.query.bind(sequelize) as (sql: unknown, options?: { type?: string }) => Promise<unknown>;
  (sequelize as unknown as { query: typeof query }).query = (sql, options) => {
    const store = scope.getStore();
    if (store && !store.wrote) {
      const text = typeof sql === 'string' ? sql : String((sql as { query?: string })?.query ?? '');
      if ((options?.type && WRITE_TYPES.has(options.type)) || WRITE_SQL.test(text)) store.wrote = true;
    }
    return query(sql, options);
  };
}
