import { LRUCache } from 'lru-cache';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import { deepFreeze } from '../../core/shared-cache';

/**
 * A client's token configuration as one node keeps it between token requests (ADR 23): the client
 * row by clientId, its scope links and scopes, its protocol mappers, the roles its scope allows and
 * the clientIds of role claims. Every entry is stamped with the version of the client's realm read at
 * the start of the request (`realmWithVersion`, the token endpoint's first statement). The database
 * raises that version in the transaction of every write to clients, roles, composites, client scopes,
 * scope links, protocol mappers and scope mappings (migrations 0013 and 0028), so an entry is used
 * only while none of them changed, on this node or any other; no time-to-live.
 *
 * Stamp before compute: the version was read before the entry was computed, so a write in between
 * leaves an entry newer than its stamp (a miss later), never an older one used as current.
 *
 * Entries are shared between requests: model instances are kept with their values frozen, so a
 * request that tried to change one would throw instead of changing it for the others. Kept per
 * database (several test servers share one process).
 */
const caches = new WeakMap<Db, LRUCache<string, { stamp: string; value: unknown }>>();

/** A client read by the token endpoint with the version its realm had then. */
export type VersionedClient = ClientModel & { realmVersion?: number };

/** The stamp of what depends on the client's realm, or undefined (not read with a version: compute afresh). */
export function clientStamp(client: ClientModel): string | undefined {
  const v = (client as VersionedClient).realmVersion;
  return v === undefined || v < 0 ? undefined : `${client.realmId}:${v}`;
}

/** `compute()`, kept for later requests under `stamp` (undefined: not kept). */
export async function keptForRealm<T>(db: Db, key: string, stamp: string | undefined, compute: () => Promise<T>): Promise<T> {
  if (stamp === undefined) return compute();
  let cache = caches.get(db);
  if (!cache) {
    cache = new LRUCache({ max: 5_000 });
    caches.set(db, cache);
  }
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.value as T;
  const value = await compute();
  cache.set(key, { stamp, value: frozen(value) });
  return value;
}

/** Freezes the values of model instances, and the arrays and plain objects holding them (sets and maps are left as they are: read them only). */
function frozen<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (const v of value) frozen(v);
    return Object.freeze(value) as T;
  }
  const dataValues = (value as { dataValues?: object }).dataValues;
  if (dataValues) {
    deepFreeze(dataValues);
    return value;
  }
  if (value instanceof Set || value instanceof Map) return value;
  for (const v of Object.values(value)) frozen(v);
  return Object.freeze(value);
}
