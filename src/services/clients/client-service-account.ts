import { randomUUID } from 'node:crypto';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorB, errorC } from '../../core/errors';
import { deleteUserRows } from '../../core/cascade';
import { invalidate } from '../../loaders/invalidate';
import { requireClientAccess } from './clients';
import { linkScopeByName, unlinkScopeByName } from '../client-scopes/client-scope-links';
import type { RequestContext } from '../../core/context';
import { renderUsers } from '../users/users';
import type { UserRep } from '../../representations/user';

/**
 * Service accounts of clients (config reference §1.8, core §4.17): the user
 * `service-account-<clientId>` (lower-cased, enabled, realm default role and default groups,
 * linked by `serviceAccountClientLink`) and the `service_account` default scope.
 */
export const serviceAccountUsername = (clientId: string) => `service-account-${clientId}`.toLowerCase();

/** Creates the service-account user if missing and links the `service_account` scope. Inside a transaction. */
export async function ensureServiceAccount(
  ctx: RequestContext,
  realm: RealmModel,
  client: { id: string; clientId: string },
): Promise<string> {
  const m = ctx.db.models;
  await linkScopeByName(ctx, realm, client.id, 'service_account');
  const existing = await m.User.findOne({ where: { serviceAccountClientLink: client.id }, attributes: ['id'] });
  if (existing) return existing.id;
  const username = serviceAccountUsername(client.clientId);
  if (await m.User.findOne({ where: { realmId: realm.id, username }, attributes: ['id'] })) {
    throw errorB(409, 'conflict', 'Duplicate resource error');
  }
  const id = randomUUID();
  await m.User.create({
    id,
    realmId: realm.id,
    username,
    email: null,
    emailConstraint: id,
    enabled: true,
    emailVerified: false,
    createdTimestamp: Date.now(),
    serviceAccountClientLink: client.id,
    notBefore: 0,
  });
  const defaultRoleId = realm.settings.defaultRoleId as string | undefined;
  if (defaultRoleId) await m.UserRoleMapping.create({ userId: id, roleId: defaultRoleId });
  const groups = await m.RealmDefaultGroup.findAll({ where: { realmId: realm.id }, attributes: ['groupId'] });
  if (groups.length) await m.UserGroupMembership.bulkCreate(groups.map((g) => ({ userId: id, groupId: g.groupId })));
  invalidate.client(ctx.loaders, client.id);
  return id;
}

/** Deletes the service-account user of a client (and its data), if any. Inside a transaction. */
export async function deleteServiceAccountUser(ctx: RequestContext, clientUuid: string): Promise<void> {
  const m = ctx.db.models;
  const user = await m.User.findOne({ where: { serviceAccountClientLink: clientUuid }, attributes: ['id'] });
  if (!user) return;
  await deleteUserRows(ctx, user.id);
  invalidate.user(ctx.loaders, user.id);
  invalidate.client(ctx.loaders, clientUuid);
}

/** Disables service accounts: user deleted, `service_account` scope unlinked. Inside a transaction. */
export async function removeServiceAccount(ctx: RequestContext, realm: RealmModel, clientUuid: string): Promise<void> {
  await deleteServiceAccountUser(ctx, clientUuid);
  await unlinkScopeByName(ctx, realm, clientUuid, 'service_account');
}

/** Renames the service-account user after a clientId change. Inside a transaction. */
export async function renameServiceAccount(ctx: RequestContext, clientUuid: string, newClientId: string): Promise<void> {
  await ctx.db.models.User.update({ username: serviceAccountUsername(newClientId) }, { where: { serviceAccountClientLink: clientUuid } });
  invalidate.client(ctx.loaders, clientUuid);
}

/** GET /clients/{id}/service-account-user: the UserRepresentation; 400 when service accounts are off. */
export async function getServiceAccountUser(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<UserRep> {
  await requireClientAccess(ctx, realm, client, 'view');
  return serviceAccountUserOf(ctx, realm, client);
}

/** The service-account user of a visible client, created on the fly when the flag is on but the user is missing. */
export async function serviceAccountUserOf(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<UserRep> {
  if (!client.serviceAccountsEnabled) throw errorC(400, `Service account not enabled for the client '${client.clientId}'`);
  let user = await ctx.loaders.serviceAccountByClient.load(client.id);
  if (!user) {
    await ctx.db.transaction(() => ensureServiceAccount(ctx, realm, client));
    user = await ctx.loaders.serviceAccountByClient.load(client.id);
  }
  if (!user) throw errorC(400, `Service account not enabled for the client '${client.clientId}'`);
  const [rep] = await renderUsers(ctx, realm, [user], { mode: 'member' });
  return rep;
}
