import { Op } from 'sequelize';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { ImportConflict, importUser, refreshUser } from './imported-users';
import { LDAP_ID, type LdapUser } from './ldap-mapping';
import { type Provider, searchUsers, usersChangedSince } from './ldap-store';
import { syncMapperFromDirectory } from './mapper-sync';
import { acquireSyncLease, releaseSyncLease } from './sync-lease';
import { emptyResult, type SyncResult, withStatus } from './sync-result';

/**
 * The user sync of an LDAP provider (LDAPStorageProviderFactory#sync / #syncSince): the mappers'
 * data first, then every directory user (or those created or modified since the last sync)
 * imported or refreshed, each in its own transaction; Keycloak's counts (a linked user counts as
 * updated, a username or UUID held by another user as failed). The time of the sync is stored as
 * the provider's `lastSync`. A provider already syncing, here or on another node, answers `ignored`.
 */
const log = getLogger('idserver.services.user-storage.sync');

const running = new Set<string>();

/** Local users of a batch: by username and by LDAP_ID (two statements per batch). */
async function localsOf(db: Db, realm: RealmModel, batch: LdapUser[]) {
  const byName = new Map<string, UserModel>();
  for (const u of await db.models.User.findAll({ where: { realmId: realm.id, username: { [Op.in]: batch.map((b) => b.username) } } }))
    byName.set(u.username, u);
  const links = await db.models.UserAttribute.findAll({ where: { name: LDAP_ID, value: { [Op.in]: batch.map((b) => b.uuid) } } });
  const ids = [...new Set(links.map((l) => l.userId))];
  const linked = ids.length ? await db.models.User.findAll({ where: { realmId: realm.id, id: { [Op.in]: ids } } }) : [];
  const byId = new Map(linked.map((u) => [u.id, u]));
  const byUuid = new Map<string, { user: UserModel; uuid: string }>();
  for (const l of links) {
    const u = byId.get(l.userId);
    if (u) byUuid.set(l.value, { user: u, uuid: l.value });
  }
  const uuidOf = new Map(links.map((l) => [l.userId, l.value]));
  return { byName, byUuid, uuidOf };
}

async function importBatch(db: Db, realm: RealmModel, p: Provider, batch: LdapUser[], r: ReturnType<typeof emptyResult>): Promise<void> {
  const { byName, byUuid, uuidOf } = await localsOf(db, realm, batch);
  for (const entry of batch) {
    const current = byUuid.get(entry.uuid)?.user ?? byName.get(entry.username);
    try {
      if (!current) {
        await db.transaction(() => importUser(db, realm, p, entry));
        r.added++;
      } else if (current.federationLink === p.cfg.id && uuidOf.get(current.id) === entry.uuid) {
        await db.transaction(() => refreshUser(db, p, current, entry));
        r.updated++;
      } else {
        log.warn(
          `User with ID '${entry.uuid}' is not updated during sync as he already exists in Keycloak database but is not linked to federation provider '${p.cfg.name}'`,
        );
        r.failed++;
      }
    } catch (e) {
      log.error(`Failed during import user from LDAP: ${e instanceof ImportConflict ? e.message : (e as Error).message}`);
      r.failed++;
    }
  }
}

/** Stores the provider's `lastSync` (seconds), keeping the rest of its config as it is now. */
async function markSynced(db: Db, p: Provider, at: number): Promise<void> {
  await db.transaction(async () => {
    const c = await db.models.Component.findByPk(p.cfg.id);
    if (!c) return;
    await db.models.Component.update({ config: { ...c.config, lastSync: [String(at)] } }, { where: { id: c.id } });
  });
}

/** How long a node's hold on a provider's sync lasts if it never releases it (it died mid-sync). */
const LEASE_MS = 15 * 60_000;

const ignored = () => withStatus({ ...emptyResult(), ignored: true });

/**
 * Full or changed-users sync of one provider; rejects when the directory does not answer. Ignored
 * (Keycloak's answer) when a sync of the provider runs already, on this node or another (the lease);
 * `periodic`: also when another node synced it since its config was read.
 */
export async function syncUsers(
  db: Db,
  realm: RealmModel,
  p: Provider,
  changedOnly: boolean,
  opts: { periodic?: boolean } = {},
): Promise<SyncResult> {
  if (!p.cfg.enabled || !p.cfg.importEnabled || running.has(p.cfg.id)) return ignored();
  running.add(p.cfg.id);
  try {
    if (!(await acquireSyncLease(db, p.cfg.id, LEASE_MS))) return ignored();
    try {
      if (opts.periodic) {
        const fresh = await db.models.Component.findByPk(p.cfg.id, { attributes: ['config'] });
        if (Number(fresh?.config?.lastSync?.[0] ?? 0) > p.cfg.lastSync) return ignored();
      }
      return await syncHeld(db, realm, p, changedOnly);
    } finally {
      await releaseSyncLease(db, p.cfg.id);
    }
  } finally {
    running.delete(p.cfg.id);
  }
}

async function syncHeld(db: Db, realm: RealmModel, p: Provider, changedOnly: boolean): Promise<SyncResult> {
  const started = Math.floor(Date.now() / 1000);
  log.info(
    `Sync ${changedOnly ? 'changed' : 'all'} users from LDAP to local store: realm: ${realm.id}, federation provider: ${p.cfg.name}`,
  );
  const users = changedOnly ? await usersChangedSince(p, p.cfg.lastSync * 1000) : await searchUsers(p, '', 0);
  const r = emptyResult();
  for (let i = 0; i < users.length; i += p.cfg.batchSize) await importBatch(db, realm, p, users.slice(i, i + p.cfg.batchSize), r);
  // Keycloak syncs the mappers first and copies memberships as it imports each user; here the
  // memberships of the users just imported come with the mappers' sync, after them.
  for (const m of p.mappers) await syncMapperFromDirectory(db, realm, p, m);
  await markSynced(db, p, started);
  const out = withStatus(r);
  log.info(`Sync ${changedOnly ? 'changed' : 'all'} users finished: ${out.status}`);
  return out;
}
