import { LRUCache } from 'lru-cache';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { deepFreeze } from '../../core/shared-cache';
import { fastRows } from '../../loaders';

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
const caches = new WeakMap<Db, Kept>();

/** A client read by the token endpoint with the version its realm had then. */
export type VersionedClient = ClientModel & { realmVersion?: number };

/** The stamp of what depends on the client's realm, or undefined (not read with a version: compute afresh). */
export function clientStamp(client: ClientModel): string | undefined {
  const v = (client as VersionedClient).realmVersion;
  return v === undefined || v < 0 ? undefined : `${client.realmId}:${v}`;
}

type Kept = LRUCache<string, { stamp: string; value: unknown }>;

/** `compute()`, kept in `caches` (per database, at most `max` entries) under `stamp` (undefined: not kept). */
async function kept<T>(caches: WeakMap<Db, Kept>, max: number, db: Db, key: string, stamp: string | undefined, compute: () => Promise<T>) {
  if (stamp === undefined) return compute();
  let cache = caches.get(db);
  if (!cache) {
    cache = new LRUCache({ max });
    caches.set(db, cache);
  }
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.value as T;
  const value = await compute();
  cache.set(key, { stamp, value: frozen(value) });
  return value;
}

/** `compute()`, kept for later requests under `stamp` (undefined: not kept). */
export function keptForRealm<T>(db: Db, key: string, stamp: string | undefined, compute: () => Promise<T>): Promise<T> {
  return kept(caches, 5_000, db, key, stamp, compute);
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

/**
 * What a token computes from one user's role mappings and group memberships (effective roles, the
 * groups and their ancestors) is kept too, stamped with the client's realm version and the user's
 * own counter (user_cache_version, raised by the database on that user's role mappings and group
 * memberships; ADR 23). The user's row and attributes are read by every request: only what both
 * counters cover is kept. A separate LRU, so that many users do not push clients' configurations out.
 */
const userCaches = new WeakMap<Db, Kept>();

/** A user read with its cache version: `USER_VERSION` as an extra column of the read (fastRows). */
export type VersionedUser = UserModel & { cacheVersion?: number };

/** The extra column of a user read that carries its cache version (`fastRows(..., USER_VERSION)`). */
export const USER_VERSION = { cacheVersion: '(SELECT v.version FROM user_cache_version v WHERE v.user_id = t.id)' };

/** A user read with `USER_VERSION`, carrying it as a property (undefined when the row has none). */
export function versionedUser<T extends UserModel>(user: T): T & VersionedUser {
  const v = (user as { dataValues?: Record<string, unknown> }).dataValues?.cacheVersion;
  const version = v === null || v === undefined ? undefined : Number(v);
  Object.defineProperty(user, 'cacheVersion', { value: version, enumerable: false, configurable: true });
  return user as T & VersionedUser;
}

/** A user by id with its cache version (one kept statement), or null. */
export async function userWithVersion(db: Db, id: string): Promise<VersionedUser | null> {
  const [row] = await fastRows<UserModel>(db, db.models.User, 't.id = :id', { id }, '', USER_VERSION);
  return row ? versionedUser(row) : null;
}

/** The stamp of what depends on the user and the client's realm, or undefined (compute afresh). */
export function userStamp(client: ClientModel, user: UserModel): string | undefined {
  const realm = clientStamp(client);
  const v = (user as VersionedUser).cacheVersion;
  return realm === undefined || v === undefined || !Number.isFinite(v) ? undefined : `${realm}|${user.id}:${v}`;
}

/** `compute()`, kept under `stamp` (a `userStamp`) for later requests about the same user. */
export function keptForUser<T>(db: Db, key: string, stamp: string | undefined, compute: () => Promise<T>): Promise<T> {
  return kept(userCaches, 20_000, db, key, stamp, compute);
}

/**
 * The realm's client of this clientId, or null: one kept statement, or none while the realm's version
 * (read with the realm, `realmWithVersion`) is the one the client's row was kept under. The client
 * carries that version, so what is computed from it (its scopes, mappers) is kept under it too.
 */
export function clientByClientId(db: Db, realm: RealmModel, clientId: string): Promise<ClientModel | null> {
  return keptClient(db, realm, `client:${realm.id}:${clientId}`, 't.realm_id = :realm AND t.client_id = :key', clientId);
}

/** The realm's client of this (internal) id, or null, kept as `clientByClientId` is (a login's client, by its authentication session). */
export function clientOfRealmById(db: Db, realm: RealmModel, id: string): Promise<ClientModel | null> {
  return keptClient(db, realm, `client-id:${realm.id}:${id}`, 't.realm_id = :realm AND t.id = :key', id);
}

async function keptClient(db: Db, realm: RealmModel, cacheKey: string, where: string, key: string): Promise<ClientModel | null> {
  const version = (realm as RealmModel & { cacheVersion?: number }).cacheVersion;
  const stamp = version === undefined || version < 0 ? undefined : `${realm.id}:${version}`;
  const values = await keptForRealm(db, cacheKey, stamp, async () => {
    const [row] = await fastRows<ClientModel>(db, db.models.Client, where, { realm: realm.id, key });
    return row ? { ...row.dataValues } : null;
  });
  if (!values) return null;
  // A model of the request's own over the kept column values (JSON columns are text there).
  const client = db.models.Client.build({ ...values }, { raw: true, isNewRecord: false }) as VersionedClient;
  if (stamp !== undefined) client.realmVersion = version;
  return client;
}
