import { AsyncLocalStorage } from 'node:async_hooks';
import { Sequelize } from 'sequelize';

/**
 * The transaction of the running call, kept on async local storage (ADR 2): Sequelize finds it here
 * (its CLS hook), and so do the fast read paths (db/fast-select.ts), which leave a transaction's reads
 * to Sequelize.
 */
export const als = new AsyncLocalStorage<Map<string, unknown>>();
Sequelize.useCLS({
  run: (fn: (ctx: Map<string, unknown>) => unknown) => {
    const ctx = new Map<string, unknown>();
    return als.run(ctx, () => fn(ctx));
  },
  bind: <F>(fn: F) => fn,
  get: (key: string) => als.getStore()?.get(key),
  set: (key: string, value: unknown) => als.getStore()?.set(key, value),
});

/** True when the caller runs inside `db.transaction`. */
export const inTransaction = () => Boolean(als.getStore()?.get('transaction'));
