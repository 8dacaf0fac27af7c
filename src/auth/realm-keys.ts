import type { Db } from '../db';
import { KEY_PROVIDER_TYPE, componentKey, sortKeys, type RealmKey } from './keys';

/**
 * The keys of a realm, from its key-provider components, in Keycloak's order. Cached per realm for
 * a few seconds: a key rotation written by another node is seen within that time.
 */
const TTL_MS = 5000;
const cache = new Map<string, { at: number; keys: RealmKey[] }>();

export async function realmKeys(db: Db, realmId: string): Promise<RealmKey[]> {
  const hit = cache.get(realmId);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.keys;
  const components = await db.models.Component.findAll({ where: { realmId, parentId: realmId, providerType: KEY_PROVIDER_TYPE } });
  const keys = sortKeys(
    components.map((c) => componentKey({ id: c.id, providerId: c.providerId, config: c.config })).filter((k): k is RealmKey => Boolean(k)),
  );
  cache.set(realmId, { at: Date.now(), keys });
  return keys;
}

export function invalidateRealmKeys(realmId: string): void {
  cache.delete(realmId);
}

/** The active key for an algorithm (highest priority ACTIVE), or undefined. */
export function activeKey(keys: RealmKey[], algorithm: string): RealmKey | undefined {
  return keys.find((k) => k.status === 'ACTIVE' && k.algorithm === algorithm);
}

/** Keys that may verify a signature: ACTIVE or PASSIVE, matching kid when given. */
export function verificationKeys(keys: RealmKey[], algorithm: string, kid?: string): RealmKey[] {
  return keys.filter((k) => k.status !== 'DISABLED' && k.algorithm === algorithm && (!kid || k.kid === kid));
}
