import { type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { RealmKey } from './keys';

/**
 * Signatures this node has already checked (issue 12). An admin dashboard sends the same access token
 * with every request for its whole lifetime, and checking its RS256 signature again each time was ~5 %
 * of a warm admin read. A token text seen before carries the very signature that was verified, so the
 * check is not repeated while the realm's key set is the one it was verified against: an entry is
 * stamped with the realm's id and cache version (ADR 23; adding, disabling or removing a key component
 * raises the version, on any node), and a token whose realm has moved on is verified again.
 *
 * Only the signature check is remembered. Expiry and not-before are checked on every use against the
 * current time, as jose checks them, and everything the bearer statement checks (session, user,
 * client, not-before policy) is read afresh by the caller. Failed verifications are not kept.
 */
const verified = new LRUCache<string, { realmId: string; version: number | undefined; claims: JWTPayload }>({ max: 2_000 });

/** The token's claims if its signature verifies with one of `keys` (tried in order), else undefined. */
export async function signedClaims(
  token: string,
  alg: string,
  keys: readonly RealmKey[],
  realm: { id: string; cacheVersion?: number },
): Promise<JWTPayload | undefined> {
  const hit = verified.get(token);
  if (hit && hit.realmId === realm.id && hit.version === realm.cacheVersion && hit.version !== undefined) {
    return current(hit.claims) ? hit.claims : undefined;
  }
  for (const k of keys) {
    try {
      const { payload } = await jwtVerify(token, (k.publicKey ?? k.secret) as Uint8Array, { algorithms: [alg] });
      verified.set(token, { realmId: realm.id, version: realm.cacheVersion, claims: Object.freeze(payload) });
      return payload;
    } catch {
      /* try the next key */
    }
  }
  return undefined;
}

/** jose's time checks (no clock tolerance): not expired (`exp` later than now) and not before `nbf`. */
function current(claims: JWTPayload): boolean {
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp === 'number' && claims.exp <= now) return false;
  if (typeof claims.nbf === 'number' && claims.nbf > now) return false;
  return true;
}

/** Forgets every remembered signature (tests). */
export function forgetVerifiedTokens(): void {
  verified.clear();
}
