import { Op } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { badRequest, notFound } from '../../core/errors';
import type { RealmModel } from '../../db/models/realm';
import { deleteClientScope } from '../client-scopes/client-scopes';
import { deleteClient } from '../clients/client-writes';
import { findClient } from '../clients/clients';
import { joinGroup } from '../groups/group-membership';
import { findGroup } from '../groups/group-queries';
import { removeGroup } from '../groups/groups';
import { addRoleMappingsTo, userMappingOwner } from '../roles/role-mappings';
import { deleteRole } from '../roles/roles';
import { createUser, deleteUser, resolveUser, updateUser } from '../users/users';
import { hashPasswordsAhead } from '../users/users-input';
import { type BulkMode, type BulkResult, checkBulkSize, runBulk } from './bulk';

/**
 * The bulk writes of the GraphQL front (issue 9, item 4), each item through the service function of
 * its single write (`POST /users`, `PUT /users/{id}`, `PUT /users/{id}/groups/{groupId}`,
 * `POST /users/{id}/role-mappings/...`, the DELETEs), so rules and admin events are the same. A
 * caller who may not make the single write at all (manage-users for users, groups and their
 * memberships and mappings; manage-clients for client scopes) is refused as a whole with 403
 * before anything runs; the rest is checked item by item, as the single write checks it.
 */

type UserBody = Record<string, unknown>;

const givenId = (rep: UserBody) => (typeof rep.id === 'string' && rep.id ? rep.id : null);

/** POST /users for each representation: `CREATED` with the new id. */
export async function bulkCreateUsers(
  ctx: RequestContext,
  realm: RealmModel,
  reps: readonly UserBody[],
  mode: BulkMode,
): Promise<BulkResult> {
  checkBulkSize(reps.length);
  await requireCap(ctx, realm, 'manageUsers');
  await hashPasswordsAhead(realm, reps);
  return runBulk(ctx, reps, mode, async (rep) => ({ id: await createUser(ctx, realm, rep), status: 'CREATED' }));
}

/** PUT /users/{id} for each representation, the user named by its `id`: `UPDATED`. */
export async function bulkUpdateUsers(
  ctx: RequestContext,
  realm: RealmModel,
  reps: readonly UserBody[],
  mode: BulkMode,
): Promise<BulkResult> {
  checkBulkSize(reps.length);
  await requireCap(ctx, realm, 'manageUsers');
  return runBulk(
    ctx,
    reps,
    mode,
    async (rep) => {
      const id = givenId(rep);
      if (!id) throw badRequest('The user to update is missing: give its id.');
      await updateUser(ctx, realm, await resolveUser(ctx, realm, id), rep);
      return { id, status: 'UPDATED' };
    },
    givenId,
  );
}

/**
 * PUT /users/{id}/groups/{groupId} for each user: `CREATED`, or `UNCHANGED` for a user who already
 * was a member (the admin event is recorded all the same, as for the single write). An unknown group
 * is a 404 for the whole request.
 */
export async function addGroupMembers(
  ctx: RequestContext,
  realm: RealmModel,
  groupId: string,
  userIds: readonly string[],
  mode: BulkMode,
): Promise<BulkResult> {
  checkBulkSize(userIds.length);
  await requireCap(ctx, realm, 'manageUsers');
  const group = await findGroup(ctx, realm, groupId, 'Group not found');
  return runBulk(
    ctx,
    userIds,
    mode,
    async (id) => {
      const user = await resolveUser(ctx, realm, id);
      const before = await ctx.loaders.groupIdsByUser.load(user.id);
      await joinGroup(ctx, realm, user, group.id);
      return { id, status: before.includes(group.id) ? 'UNCHANGED' : 'CREATED' };
    },
    (id) => id,
  );
}

/**
 * POST /users/{id}/role-mappings/realm (no `clientUuid`) or .../clients/{clientUuid} for each user,
 * with the roles named: `CREATED`, or `UNCHANGED` for a user who already held every one of them
 * directly. An unknown client or role name is a 404 for the whole request.
 */
export async function assignRoles(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string | undefined,
  userIds: readonly string[],
  roleNames: readonly string[],
  mode: BulkMode,
): Promise<BulkResult> {
  checkBulkSize(userIds.length);
  await requireCap(ctx, realm, 'manageUsers');
  let containerId = realm.id;
  if (clientUuid !== undefined) {
    const client = await findClient(ctx, realm, clientUuid);
    if (!client) throw notFound('Client not found');
    containerId = client.id;
  }
  const names = [...new Set(roleNames)];
  const roles = names.length ? await ctx.db.models.Role.findAll({ where: { containerId, name: { [Op.in]: names } } }) : [];
  for (const name of names) if (!roles.some((r) => r.name === name)) throw notFound(`Role not found: ${name}`);
  const reps = roles.map((r) => ({ id: r.id, name: r.name }));
  return runBulk(
    ctx,
    userIds,
    mode,
    async (id) => {
      const user = await resolveUser(ctx, realm, id);
      const held = new Set(await ctx.loaders.roleIdsByUser.load(user.id));
      await addRoleMappingsTo(ctx, realm, userMappingOwner(user), clientUuid, reps);
      return { id, status: reps.every((r) => held.has(r.id)) ? 'UNCHANGED' : 'CREATED' };
    },
    (id) => id,
  );
}

/** What `bulkDelete` deletes. */
export type BulkDeleteKind = 'USER' | 'GROUP' | 'ROLE' | 'CLIENT' | 'CLIENT_SCOPE';
export const BULK_DELETE_KINDS: readonly BulkDeleteKind[] = ['USER', 'GROUP', 'ROLE', 'CLIENT', 'CLIENT_SCOPE'];

/** The single DELETE of each kind: `/users/{id}`, `/groups/{id}`, `/roles-by-id/{id}`, `/clients/{id}`, `/client-scopes/{id}`. */
const DELETES: Record<BulkDeleteKind, (ctx: RequestContext, realm: RealmModel, id: string) => Promise<void>> = {
  USER: async (ctx, realm, id) => deleteUser(ctx, realm, await resolveUser(ctx, realm, id)),
  GROUP: async (ctx, realm, id) => removeGroup(ctx, realm, await findGroup(ctx, realm, id)),
  ROLE: (ctx, realm, id) => deleteRole(ctx, realm, { id }),
  CLIENT: (ctx, realm, id) => deleteClient(ctx, realm, id),
  CLIENT_SCOPE: (ctx, realm, id) => deleteClientScope(ctx, realm, id),
};

/** The right every single DELETE of a kind needs, checked once up front (roles and clients are checked per item). */
const DELETE_RIGHT: Partial<Record<BulkDeleteKind, 'manageUsers' | 'manageClients'>> = {
  USER: 'manageUsers',
  GROUP: 'manageUsers',
  CLIENT_SCOPE: 'manageClients',
};

/** The DELETE of each id, all of one kind: `DELETED`. */
export async function bulkDelete(
  ctx: RequestContext,
  realm: RealmModel,
  kind: BulkDeleteKind,
  ids: readonly string[],
  mode: BulkMode,
): Promise<BulkResult> {
  checkBulkSize(ids.length);
  const right = DELETE_RIGHT[kind];
  if (right) await requireCap(ctx, realm, right);
  const del = DELETES[kind];
  return runBulk(
    ctx,
    ids,
    mode,
    async (id) => {
      await del(ctx, realm, id);
      return { id, status: 'DELETED' };
    },
    (id) => id,
  );
}
