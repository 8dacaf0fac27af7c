import type { Db } from '../../db';
import { getLogger } from '../../logging';
import { USER_STORAGE_TYPE } from '../components/config';
import { ldapConfigOf } from './ldap-config';
import { closeLdapPools, ldapErrorCode } from './ldap-connection';
import { providerOf } from './ldap-store';
import { syncUsers } from './sync';

/**
 * The periodic sync of LDAP providers (Keycloak's `fullSyncPeriod` and `changedSyncPeriod`, in
 * seconds; -1 or 0 off): a timer that never keeps the process alive looks at the providers every
 * tick (one statement) and runs the sync that is due, a full one before a changed-users one. The
 * provider's `lastSync` (kept in its config by every sync, from any node) is where a period is
 * counted from, so a node that starts does not sync again what another synced just before; the
 * sync's lease (sync-lease.ts) makes one node of many sync a provider at a time.
 */
const log = getLogger('idserver.services.user-storage.sync');

/** Starts the periodic sync; the function returned stops it and closes pooled LDAP connections. */
export function startPeriodicSync(db: Db, tickMs = 15_000): () => Promise<void> {
  const lastFull = new Map<string, number>();
  let busy: Promise<void> | undefined;
  const tick = async () => {
    const rows = await db.models.Component.findAll({ where: { providerType: USER_STORAGE_TYPE, providerId: 'ldap' } });
    const now = Date.now() / 1000;
    for (const c of rows) {
      const cfg = ldapConfigOf(c);
      if (!cfg.enabled || !cfg.importEnabled) continue;
      const full = lastFull.get(c.id) ?? cfg.lastSync;
      const fullDue = cfg.fullSyncPeriod > 0 && now - full >= cfg.fullSyncPeriod;
      const changedDue = cfg.changedSyncPeriod > 0 && now - cfg.lastSync >= cfg.changedSyncPeriod;
      if (!fullDue && !changedDue) continue;
      const realm = await db.models.Realm.findByPk(c.realmId);
      if (!realm) continue;
      try {
        const r = await syncUsers(db, realm, await providerOf(db, c), !fullDue, { periodic: true });
        if (r.ignored) continue;
        if (fullDue) lastFull.set(c.id, now);
        log.debug(`Periodic ${fullDue ? 'full' : 'changed-users'} sync of LDAP provider ${cfg.name}: ${r.status}`);
      } catch (e) {
        log.warn(`Periodic sync of LDAP provider ${cfg.name} failed: ${ldapErrorCode(e)}`);
      }
    }
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = tick()
      .catch((e) => log.warn(`Periodic LDAP sync: ${(e as Error).message}`))
      .finally(() => {
        busy = undefined;
      });
  }, tickMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await busy;
    await closeLdapPools();
  };
}
