/** SynchronizationResultRepresentation of Keycloak: what a user or mapper sync did. */
export interface SyncResult {
  ignored: boolean;
  added: number;
  updated: number;
  removed: number;
  failed: number;
  status: string;
}

/** SynchronizationResult#getStatus. */
export function withStatus(r: Omit<SyncResult, 'status'>): SyncResult {
  if (r.ignored) return { ...r, status: "Synchronization ignored as it's already in progress" };
  let status = `${r.added} imported users, ${r.updated} updated users`;
  if (r.removed > 0) status += `, ${r.removed} removed users`;
  if (r.failed !== 0) status += `, ${r.failed} users failed sync! See server log for more details`;
  return { ...r, status };
}

/** A result with nothing counted. */
export const emptyResult = () => ({ ignored: false, added: 0, updated: 0, removed: 0, failed: 0 });
