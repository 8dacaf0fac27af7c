import { QueryTypes } from 'sequelize';
import type { Db } from '../db';
import { RealmModel } from '../db/models/realm';
import { fastRows } from '../loaders';
import { deepFreeze } from '../core/shared-cache';
import { KEY_PROVIDER_TYPE, componentKey, sortKeys, type RealmKey } from './keys';

/**
 * A realm's row and keys as one node keeps them between requests (ADR 23): each stamped with the
 * realm's cache version, which the database raises in the transaction of every write to the realm
 * row or its components (migration 0013). An entry is used only when the version read in the current
 * request equals its stamp, so a key rotated or a realm updated through another node is seen by the
 * next request here. Kept per database: several servers in one process (tests) each have their own,
 * as their realms of one name (and the same cache version) are different rows.
 */
type Kept = {
  realmRows: Map<string, { version: number; values: Record<string, unknown> }>;
  keyCache: Map<string, { version: number; keys: RealmKey[] }>;
};
const perDb = new WeakMap<Db, Kept>();
function kept(db: Db): Kept {
  let k = perDb.get(db);
  if (!k) {
    k = { realmRows: new Map(), keyCache: new Map() };
    perDb.set(db, k);
  }
  return k;
}

/** A realm model that carries the cache version it was read under (set by the bearer statement or `realmWithVersion`). */
export type VersionedRealm = RealmModel & { cacheVersion?: number };

/** The realm's current cache version (one indexed read), or -1 when it has none (gone, or the database predates it). */
export async function readRealmVersion(db: Db, realmId: string): Promise<number> {
  const [row] = await db.sequelize.query<{ version: number | string }>(
    'SELECT version FROM realm_cache_version WHERE realm_id = :realmId',
    {
      replacements: { realmId },
      type: QueryTypes.SELECT,
    },
  );
  return row ? Number(row.version) : -1;
}

/** The realm named `name` with its cache version, in one statement; null when there is none. */
export async function realmWithVersion(db: Db, name: string): Promise<VersionedRealm | null> {
  const [realm] = await fastRows<VersionedRealm>(db, db.models.Realm, 't.name = :name', { name }, '', {
    cacheVersion: '(SELECT v.version FROM realm_cache_version v WHERE v.realm_id = t.id)',
  });
  if (!realm) return null;
  const version = realm.getDataValue('cacheVersion' as 'id');
  realm.cacheVersion = version === null || version === undefined ? -1 : Number(version);
  // Known under this version: the cached model, whose settings are parsed once (the row read is the same).
  // The same name and version may belong to a realm deleted and made again: the id must match too.
  const known = realm.cacheVersion >= 0 ? cachedRealm(db, name, realm.cacheVersion) : undefined;
  if (known && known.id === realm.id) return known;
  remember(db, realm, realm.cacheVersion);
  return realm;
}

/** Keeps the realm's row for later requests, stamped with the version it was read under (read before it). */
export function remember(db: Db, realm: RealmModel, version: number): void {
  if (version < 0) return;
  const { cacheVersion: _, ...values } = realm.get({ plain: true }) as Record<string, unknown>;
  // A copy of its own, frozen all the way down: every request shares it (a write builds new settings).
  kept(db).realmRows.set(realm.name, { version, values: deepFreeze(JSON.parse(JSON.stringify(values))) });
}

/** The realm named `name` as cached under `version` (any version when not given), as a model of the request's own; undefined on a miss. */
export function cachedRealm(db: Db, name: string, version?: number): VersionedRealm | undefined {
  const hit = kept(db).realmRows.get(name);
  if (!hit || (version !== undefined && hit.version !== version)) return undefined;
  // Each request gets a model of its own over the shared, frozen values: the row's columns are copied,
  // the settings object is shared (parsing it again for every request cost ~3 % of a GET /users/{id});
  // code that changes settings assigns new ones (`realm.settings = { ...realm.settings, ... }`).
  const realm = RealmModel.build({ ...hit.values }, { isNewRecord: false, raw: true }) as VersionedRealm;
  realm.cacheVersion = hit.version;
  return realm;
}

/** The last row of realm `name` this node read, with the version it was read under (to be checked against the database's). */
export const lastKnownRealm = (db: Db, name: string): VersionedRealm | undefined => cachedRealm(db, name);

/**
 * The keys of a realm, from its key-provider components, in Keycloak's order: cached under the realm's
 * version (carried by the model when it was read with one, read here otherwise).
 */
export async function realmKeys(db: Db, realm: { id: string; cacheVersion?: number }): Promise<RealmKey[]> {
  const version = realm.cacheVersion ?? (await readRealmVersion(db, realm.id));
  const { keyCache } = kept(db);
  const hit = keyCache.get(realm.id);
  if (hit && version >= 0 && hit.version === version) return hit.keys;
  const components = await db.models.Component.findAll({
    where: { realmId: realm.id, parentId: realm.id, providerType: KEY_PROVIDER_TYPE },
  });
  const keys = sortKeys(
    components.map((c) => componentKey({ id: c.id, providerId: c.providerId, config: c.config })).filter((k): k is RealmKey => Boolean(k)),
  );
  if (version >= 0) keyCache.set(realm.id, { version, keys });
  return keys;
}

/** Forgets the realm's keys on this node (a key written in this request: its version, read before, is stale). */
export function invalidateRealmKeys(db: Db, realmId: string): void {
  kept(db).keyCache.delete(realmId);
}

/** The active key for an algorithm (highest priority ACTIVE), or undefined. */
export function activeKey(keys: RealmKey[], algorithm: string): RealmKey | undefined {
  return keys.find((k) => k.status === 'ACTIVE' && k.algorithm === algorithm);
}

/** Keys that may verify a signature: ACTIVE or PASSIVE, matching kid when given. */
export function verificationKeys(keys: RealmKey[], algorithm: string, kid?: string): RealmKey[] {
  return keys.filter((k) => k.status !== 'DISABLED' && k.algorithm === algorithm && (!kid || k.kid === kid));
}
