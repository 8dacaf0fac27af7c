import type { Transaction } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { isRetryable } from '../../core/db-errors';
import { HttpError, badRequest, serverError } from '../../core/errors';
import { createLoaders } from '../../loaders';

/**
 * Bulk writes (issue 9, item 4): many single writes in one transaction, each item through the same
 * service function as its single write, so validation, uniqueness, permission checks and admin
 * events are those of the single write. The caller chooses what a failing item does:
 *
 * - `ATOMIC` (all or nothing): the first failing item rolls the whole batch back. That item reports
 *   its error, the items before it `ROLLED_BACK`, the items after it `NOT_ATTEMPTED`; nothing is
 *   written, no admin event recorded.
 * - `PER_ITEM`: each item runs in a savepoint of the one transaction; a failing item is rolled back
 *   to its savepoint (its rows and its admin event go with it) and reports its error, the others
 *   are committed together at the end.
 *
 * A lost lock race (deadlock, lock timeout, SQLite busy) is never an item's failure: the database
 * rolled back the whole transaction, so it is run again as a whole (`db.transaction`).
 */
export type BulkMode = 'ATOMIC' | 'PER_ITEM';
export const BULK_MODES: readonly BulkMode[] = ['ATOMIC', 'PER_ITEM'];

/** What happened to one item. */
export type BulkStatus = 'CREATED' | 'UPDATED' | 'DELETED' | 'UNCHANGED' | 'FAILED' | 'ROLLED_BACK' | 'NOT_ATTEMPTED';
export const BULK_STATUSES: readonly BulkStatus[] = [
  'CREATED',
  'UPDATED',
  'DELETED',
  'UNCHANGED',
  'FAILED',
  'ROLLED_BACK',
  'NOT_ATTEMPTED',
];

/** Most items one bulk write takes. */
export const BULK_MAX_ITEMS = 1000;

export interface BulkItemResult {
  /** Position of the item in the request (0-based). */
  index: number;
  /** The object the item wrote: the new id of a created object, the given id otherwise; null when unknown. */
  id: string | null;
  status: BulkStatus;
  /** The error of a FAILED item, as the single write would have raised it. */
  error?: HttpError;
}

export interface BulkResult {
  /** True when every item succeeded. */
  ok: boolean;
  results: BulkItemResult[];
}

/** What an item's write reports on success. */
export interface BulkItemOutcome {
  id: string | null;
  status: BulkStatus;
}

export type BulkItemWrite<T> = (item: T, index: number) => Promise<BulkItemOutcome>;

/** 400 for a batch larger than {@link BULK_MAX_ITEMS}. */
export function checkBulkSize(count: number): void {
  if (count > BULK_MAX_ITEMS) {
    throw badRequest(`A bulk write takes at most ${BULK_MAX_ITEMS} items; this one has ${count}. Split it into several requests.`);
  }
}

/** An item failed in ATOMIC mode: carried out of the transaction to roll it back. */
class ItemFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: HttpError,
  ) {
    super(error.message);
  }
}

/** The error an item reports: a service's typed error as it is; anything else is logged and reported as a 500. */
function itemError(ctx: RequestContext, index: number, e: unknown): HttpError {
  if (e instanceof HttpError) return e;
  const err = e as { stack?: string; message?: string } | undefined;
  ctx.log.error(`Bulk write item ${index} failed: ${err?.stack ?? err?.message ?? String(e)}`);
  return serverError();
}

/**
 * After a rollback the request's caches may hold rows that no longer exist (or miss rows that came
 * back): forget them all, so later reads of the request see the database as it is.
 */
function forgetCaches(ctx: RequestContext): void {
  ctx.loaders = createLoaders(ctx.db);
  ctx.memo.clear();
}

/**
 * Runs `write` for every item in one transaction, in order, in the chosen mode (see the module
 * comment). `idOf` names the object an item is about before it runs (an update's or delete's id),
 * for the items that fail or are rolled back; a create has none.
 */
export async function runBulk<T>(
  ctx: RequestContext,
  items: readonly T[],
  mode: BulkMode,
  write: BulkItemWrite<T>,
  idOf: (item: T) => string | null | undefined = () => null,
): Promise<BulkResult> {
  checkBulkSize(items.length);
  if (!items.length) return { ok: true, results: [] };
  const knownId = (item: T) => idOf(item) ?? null;
  return mode === 'PER_ITEM' ? perItem(ctx, items, write, knownId) : atomic(ctx, items, write, knownId);
}

async function atomic<T>(
  ctx: RequestContext,
  items: readonly T[],
  write: BulkItemWrite<T>,
  idOf: (item: T) => string | null,
): Promise<BulkResult> {
  let done: BulkItemOutcome[] = [];
  let attempts = 0;
  try {
    await ctx.db.transaction(async () => {
      if (attempts++) forgetCaches(ctx); // run again after a lost lock race
      done = [];
      for (let i = 0; i < items.length; i++) {
        try {
          done.push(await write(items[i], i));
        } catch (e) {
          if (isRetryable(e)) throw e;
          throw new ItemFailed(i, itemError(ctx, i, e));
        }
      }
    });
    return { ok: true, results: done.map((o, index) => ({ index, ...o })) };
  } catch (e) {
    if (!(e instanceof ItemFailed)) throw e;
    forgetCaches(ctx);
    const results = items.map((item, index): BulkItemResult => {
      if (index < e.index) return { index, id: idOf(item), status: 'ROLLED_BACK' };
      if (index === e.index) return { index, id: idOf(item), status: 'FAILED', error: e.error };
      return { index, id: idOf(item), status: 'NOT_ATTEMPTED' };
    });
    return { ok: false, results };
  }
}

async function perItem<T>(
  ctx: RequestContext,
  items: readonly T[],
  write: BulkItemWrite<T>,
  idOf: (item: T) => string | null,
): Promise<BulkResult> {
  let attempts = 0;
  return ctx.db.transaction(async (outer: Transaction) => {
    if (attempts++) forgetCaches(ctx); // run again after a lost lock race
    const results: BulkItemResult[] = [];
    for (let i = 0; i < items.length; i++) {
      try {
        // A savepoint inside the batch's transaction; the item's own `db.transaction` joins it.
        const o = await ctx.db.sequelize.transaction({ transaction: outer }, () => write(items[i], i));
        results.push({ index: i, ...o });
      } catch (e) {
        if (isRetryable(e)) throw e;
        forgetCaches(ctx);
        results.push({ index: i, id: idOf(items[i]), status: 'FAILED', error: itemError(ctx, i, e) });
      }
    }
    return { ok: results.every((r) => r.status !== 'FAILED'), results };
  });
}
