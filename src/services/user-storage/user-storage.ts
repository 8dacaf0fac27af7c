import { Op } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import { recordAdminEvent } from '../../core/admin-events';
import { deleteUserRows } from '../../core/cascade';
import type { RequestContext } from '../../core/context';
import { errorA, errorC, notFound } from '../../core/errors';
import type { ComponentModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { USER_STORAGE_TYPE } from '../components/config';
import { ldapErrorCode } from './ldap-connection';
import { mappersOf } from './ldap-mapping';
import { providerOf } from './ldap-store';
import { syncMapperFromDirectory, syncMapperToDirectory } from './mapper-sync';
import { syncUsers } from './sync';
import type { SyncResult } from './sync-result';

/**
 * `/admin/realms/{realm}/user-storage` (UserStorageProviderResource of Keycloak): a provider's
 * name, its full or changed-users sync, removing or unlinking its imported users, and the data
 * sync of one of its mappers in either direction. Reads need query-users, the rest manage-users.
 */
async function storageComponent(ctx: RequestContext, realm: RealmModel, id: string): Promise<ComponentModel> {
  const c = await ctx.db.models.Component.findOne({ where: { id, realmId: realm.id } });
  if (!c) throw notFound('Could not find component');
  if (c.providerType !== USER_STORAGE_TYPE) throw notFound('found, but not a UserStorageProvider');
  return c;
}

/** A directory that fails during a sync: 400 with Keycloak's code for it, logged without credentials. */
function directoryFailed(ctx: RequestContext, what: string, e: unknown): never {
  const code = ldapErrorCode(e);
  ctx.log.warn(`${what} failed: ${code}`);
  throw errorA(400, code === 'UnknownError' ? (e as Error).message || code : code);
}

/** GET /{realm}/user-storage/{id}/name: `{id, name}` of a user-storage provider (query-users). */
export async function storageProviderName(ctx: RequestContext, realm: RealmModel, id: string): Promise<{ id: string; name: string }> {
  await requireCap(ctx, realm, 'queryUsers');
  const c = await storageComponent(ctx, realm, id);
  return { id: c.id, name: c.name };
}

/** POST /{realm}/user-storage/{id}/sync?action=triggerFullSync|triggerChangedUsersSync: the sync's result (manage-users). */
export async function syncStorage(ctx: RequestContext, realm: RealmModel, id: string, action: string | undefined): Promise<SyncResult> {
  await requireCap(ctx, realm, 'manageUsers');
  const c = await storageComponent(ctx, realm, id);
  if (action !== 'triggerFullSync' && action !== 'triggerChangedUsersSync')
    throw errorC(400, action ? `Unknown action: ${action}` : 'Missing action');
  let result: SyncResult;
  if (c.providerId !== 'ldap')
    result = { ignored: true, added: 0, updated: 0, removed: 0, failed: 0, status: "Synchronization ignored as it's already in progress" };
  else {
    try {
      result = await syncUsers(ctx.db, realm, await providerOf(ctx.db, c), action === 'triggerChangedUsersSync');
    } catch (e) {
      directoryFailed(ctx, `Sync of provider ${c.name}`, e);
    }
  }
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'REALM',
    resourcePath: `user-storage/${id}/sync`,
    representation: { action, result },
  });
  return result;
}

/** POST /{realm}/user-storage/{id}/remove-imported-users: deletes the provider's local copies (manage-users). */
export async function removeImportedUsers(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await requireCap(ctx, realm, 'manageUsers');
  await storageComponent(ctx, realm, id);
  const users = await ctx.db.models.User.findAll({ where: { realmId: realm.id, federationLink: id }, attributes: ['id'] });
  await ctx.db.transaction(async () => {
    for (const u of users) await deleteUserRows(ctx, u.id);
  });
}

/** POST /{realm}/user-storage/{id}/unlink-users: the provider's users become local users (manage-users). */
export async function unlinkUsers(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await requireCap(ctx, realm, 'manageUsers');
  await storageComponent(ctx, realm, id);
  await ctx.db.transaction(() => ctx.db.models.User.update({ federationLink: null }, { where: { realmId: realm.id, federationLink: id } }));
}

/** POST /{realm}/user-storage/{parentId}/mappers/{id}/sync?direction=fedToKeycloak|keycloakToFed (manage-users). */
export async function syncMapper(
  ctx: RequestContext,
  realm: RealmModel,
  parentId: string,
  mapperId: string,
  direction: string | undefined,
): Promise<SyncResult> {
  await requireCap(ctx, realm, 'manageUsers');
  const parent = await ctx.db.models.Component.findOne({ where: { id: parentId, realmId: realm.id } });
  if (!parent) throw notFound('Parent model not found');
  const mapper = await ctx.db.models.Component.findOne({ where: { id: mapperId, realmId: realm.id, parentId: { [Op.ne]: realm.id } } });
  if (!mapper) throw notFound('Mapper model not found');
  if (direction !== 'fedToKeycloak' && direction !== 'keycloakToFed') throw errorC(400, `Unknown direction: ${direction}`);
  const p = await providerOf(ctx.db, parent);
  const [m] = mappersOf([mapper]);
  let result: SyncResult;
  try {
    result =
      direction === 'fedToKeycloak' ? await syncMapperFromDirectory(ctx.db, realm, p, m) : await syncMapperToDirectory(ctx.db, realm, p, m);
  } catch (e) {
    directoryFailed(ctx, `Sync of mapper ${mapper.name}`, e);
  }
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'REALM',
    resourcePath: `user-storage/${parentId}/mappers/${mapperId}/sync`,
    representation: { action: direction, result },
  });
  return result;
}
