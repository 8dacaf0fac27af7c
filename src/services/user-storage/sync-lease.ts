import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { QueryTypes } from 'sequelize';
import type { Db } from '../../db';

/**
 * A lease on a provider's sync, held in `user_storage_sync_lease` (migration 0034): what Keycloak's
 * cluster-wide task lock (ClusterProvider#executeIfNotExecuted) does for its periodic and manual
 * LDAP syncs, so that of many nodes on one database only one syncs a provider at a time. A lease
 * ends after `ttlMs` even if its node died; the holder releases it when its sync ends.
 */
export const NODE_ID = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** Takes the provider's lease for this node: false when another node holds one that has not ended. */
export async function acquireSyncLease(db: Db, componentId: string, ttlMs: number): Promise<boolean> {
  const now = Date.now();
  const q = db.sequelize;
  try {
    return await db.transaction(async () => {
      const lock = db.vendor === 'sqlite' ? '' : ' FOR UPDATE';
      const rows = await q.query<{ holder: string; expires_at: number | string }>(
        `SELECT holder, expires_at FROM user_storage_sync_lease WHERE component_id = :id${lock}`,
        { type: QueryTypes.SELECT, replacements: { id: componentId } },
      );
      const row = rows[0];
      if (row && row.holder !== NODE_ID && Number(row.expires_at) > now) return false;
      const replacements = { id: componentId, holder: NODE_ID, until: now + ttlMs };
      if (row)
        await q.query('UPDATE user_storage_sync_lease SET holder = :holder, expires_at = :until WHERE component_id = :id', {
          replacements,
        });
      else
        await q.query('INSERT INTO user_storage_sync_lease (component_id, holder, expires_at) VALUES (:id, :holder, :until)', {
          replacements,
        });
      return true;
    });
  } catch {
    // Another node inserted the row first (the primary key): it holds the lease.
    return false;
  }
}

/** Ends this node's lease on the provider (a no-op when it holds none). */
export async function releaseSyncLease(db: Db, componentId: string): Promise<void> {
  await db.sequelize.query('UPDATE user_storage_sync_lease SET expires_at = 0 WHERE component_id = :id AND holder = :holder', {
    replacements: { id: componentId, holder: NODE_ID },
  });
}
