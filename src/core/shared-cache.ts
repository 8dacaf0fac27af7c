import { LRUCache } from 'lru-cache';
import { wroteInScope } from '../db/write-watch';
import { memo, type RequestContext } from './context';

/**
 * What one node keeps between requests (ADR 23), each entry stamped with the cache versions it was
 * computed under. The database raises a realm's or a user's version in the transaction of every write
 * that changes what is cached about them (migration 0013's triggers); an admin request reads the
 * versions it needs in its bearer statement (`ctx.versions`), so an entry is used only while the
 * database still holds the version it was stamped with: a write committed through any node is seen
 * by the next request on every node, and no time-to-live is involved.
 *
 * Entries are shared between requests: callers treat what they get as read-only.
 */
const entries = new LRUCache<string, { stamp: string; value: unknown }>({ max: 20_000 });

/** A realm's version as read in this request, or undefined (not read, or the request has written since). */
export function realmVersion(ctx: RequestContext, realmId: string): number | undefined {
  return ctx.versions?.realms.get(realmId);
}

/**
 * Adopts the cache version a realm was read with (the realm loader reads it in the same statement):
 * a realm named in a GraphQL argument rather than in the path was not in the bearer statement. A
 * version read after this request's own writes is current, so it may stamp what is computed next.
 */
export function noteRealmVersion(ctx: RequestContext, realm: { id: string; getDataValue?(key: string): unknown }): void {
  if (!ctx.versions || ctx.versions.realms.has(realm.id)) return;
  const v = realm.getDataValue?.('cacheVersion');
  if (v !== null && v !== undefined) ctx.versions.realms.set(realm.id, Number(v));
}

/** A user's version as read in this request, or undefined. */
export function userVersion(ctx: RequestContext, userId: string): number | undefined {
  return ctx.versions?.users.get(userId);
}

/**
 * Memoised for the request (as `memo`) and across requests while `stamp` holds: `stamp` is built from
 * the versions this request read; undefined (a version not read) computes without the shared cache.
 * Once the request has written, the versions it read are stale, and it computes afresh.
 */
export function sharedMemo<T>(ctx: RequestContext, key: string, stamp: string | undefined, compute: () => Promise<T>): Promise<T> {
  return memo(ctx, key, () => sharedValue(key, stamp, compute));
}

/**
 * The shared entry of `sharedMemo` without a request's memo, for code that runs before a request's
 * context exists (the bearer check): `stamp` built from versions just read from the database.
 */
export async function sharedValue<T>(
  key: string,
  stamp: string | undefined,
  compute: () => Promise<T>,
  keep: (value: T) => boolean = () => true,
): Promise<T> {
  if (stamp === undefined || wroteInScope()) return compute();
  const hit = entries.get(key);
  if (hit && hit.stamp === stamp) return hit.value as T;
  const value = await compute();
  // `keep` false: a value the stamp does not cover (a group found missing: a group's insert raises no version).
  if (keep(value)) entries.set(key, { stamp, value });
  return value;
}

/** The stamp of something that depends on one realm only. */
export function realmStamp(ctx: RequestContext, realmId: string): string | undefined {
  const v = realmVersion(ctx, realmId);
  return v === undefined ? undefined : `r${v}`;
}

/** Freezes a value all the way down, so that a request sharing it cannot change it for the others (it throws instead). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Forgets every shared entry (tests that rewrite the database behind the server's back). */
export function clearSharedCache(): void {
  entries.clear();
}
