import { QueryTypes } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import { isUniqueViolation } from '../../core/db-errors';
import type { Db } from '../../db';
import { fastSelect } from '../../db/fast-select';

/**
 * The revoked-token store (table `revoked_token`, migration 0018): the ids of access tokens revoked
 * through POST .../revoke, each kept until the token would have expired (Keycloak's single-use store
 * entry `{jti}.revoked`, lifespan `max(exp - now + 1, 10)` seconds). Rows are in the database, so a
 * token revoked through one node is refused by every node. Expired rows are purged on each revocation.
 */

/** How long a revocation is kept: until the token's expiry (+1 s), at least 10 seconds (Keycloak's rule). */
export function revocationLifespan(exp: number | undefined, now = nowSeconds()): number {
  return Math.max((exp ?? now) - now + 1, 10);
}

/** Records that the token with this id is revoked until `exp` (seconds); revoking it twice is fine. */
export async function revokeTokenId(db: Db, jti: string, exp: number | undefined): Promise<void> {
  const now = nowSeconds();
  const expiresAt = now + revocationLifespan(exp, now);
  await db.sequelize
    .query('INSERT INTO revoked_token (id, expires_at) VALUES (:id, :expiresAt)', {
      replacements: { id: jti, expiresAt },
      type: QueryTypes.INSERT,
    })
    .catch((e) => {
      if (!isUniqueViolation(e)) throw e;
    });
  await purgeRevokedTokens(db, now);
}

/** True when the token with this id was revoked and its revocation has not expired (one primary-key read). */
export async function isTokenRevoked(db: Db, jti: string | undefined): Promise<boolean> {
  if (!jti) return false;
  const rows = await fastSelect<{ n: number }>(db.sequelize, 'SELECT 1 AS n FROM revoked_token WHERE id = :id AND expires_at >= :now', {
    id: jti,
    now: nowSeconds(),
  });
  return rows.length > 0;
}

/** Removes the revocations that outlived their token (index `ix_revoked_token_expiry`). */
export async function purgeRevokedTokens(db: Db, now = nowSeconds()): Promise<void> {
  await db.sequelize.query('DELETE FROM revoked_token WHERE expires_at < :now', { replacements: { now }, type: QueryTypes.DELETE });
}
