import { fastSelect } from '../../db/fast-select';
import { canGroups, requireManageGroupMembership, requireManageMembership, requireViewMembers, requireViewUser } from '../../auth/fgap';
import { requireCap } from '../../auth/permissions';
import type { GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { type OperationType, recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { isEmptyPage, pageOf } from '../../core/paging';
import { batchLoad } from '../../loaders/batch';
import { invalidate } from '../../loaders/invalidate';
import type { UserRep } from '../../representations/user';
import { pathOf } from './group-paths';
import { findGroup, groupRepresentations, groupsByIds } from './group-queries';
import type { GroupRep } from '../../representations/group';
import { renderUsers } from '../users/users';
import { federatedMembershipAdd, federatedMembershipRemove } from '../user-storage/membership-writes';
import { adoptHardcodedRows } from '../user-storage/hardcoded-mappers';
import { isTransient, refuseTransientWrite, transientMemberships } from '../user-storage/transient-users';

/**
 * Group membership (reference §4.11, §5.7, §5.9): members of a group, groups of a user, joining and
 * leaving, and the realm's default groups.
 */

/** The group's full representation for an admin event, computed only when the realm stores details. */
async function eventGroupRep(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<GroupRep | undefined> {
  const s = realm.settings;
  if (!(s.adminEventsEnabled === true && s.adminEventsDetailsEnabled === true)) return undefined;
  return (await groupRepresentations(ctx, realm, [group], { brief: false }))[0];
}

/** GROUP_MEMBERSHIP event `users/{id}/groups/{gid}` with details `username` and `email` (Appendix D). */
function membershipEvent(
  ctx: RequestContext,
  realm: RealmModel,
  user: { id: string; username: string; email: string | null },
  group: GroupModel,
  operationType: OperationType,
  representation: GroupRep | undefined,
) {
  const details: Record<string, string> = { username: user.username };
  if (user.email) details.email = user.email;
  return recordAdminEvent(ctx, realm, {
    operationType,
    resourceType: 'GROUP_MEMBERSHIP',
    resourcePath: `users/${user.id}/groups/${group.id}`,
    representation,
    details,
  });
}

/**
 * GET /{realm}/groups/{id}/members, and GraphQL `Group.members`: direct members by username, first 0,
 * max 100, full by default. One statement per page for any number of groups.
 */
export async function listMembers(
  ctx: RequestContext,
  realm: RealmModel,
  group: GroupModel,
  query: { first?: number; max?: number; briefRepresentation?: boolean } = {},
): Promise<UserRep[]> {
  await requireViewMembers(ctx, realm, group.id);
  const page = pageOf(query, { defaultMax: 100 });
  if (isEmptyPage(page)) return [];
  const ids = await ctx.loaders.memberIdsPageByGroup.load({ id: group.id, ...page });
  const users = (await ctx.loaders.userById.loadMany(ids)).filter(
    (u): u is UserModel => !!u && !(u instanceof Error) && u.realmId === realm.id,
  );
  return renderUsers(ctx, realm, users, { mode: query.briefRepresentation ? 'member' : 'full' });
}

/**
 * GET /{realm}/users/{id}/groups, and GraphQL `User.groups`: the user's direct realm groups (no organization groups) by name, brief
 * by default, no access map. One statement per page for any number of users. The page keeps only the
 * groups the caller may view (Keycloak 26 filters it by GroupPermissions#canView after paging).
 */
export async function listUserGroups(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  query: { search?: string; first?: number; max?: number; briefRepresentation?: boolean } = {},
): Promise<GroupRep[]> {
  await requireViewUser(ctx, realm, user.id);
  const page = pageOf(query);
  if (isEmptyPage(page)) return [];
  const groups = isTransient(user)
    ? await transientUserGroups(ctx, realm, user, page, query.search)
    : await groupsByIds(ctx, realm, await ctx.loaders.groupIdsPageByUser.load({ id: user.id, ...page, search: query.search }));
  const viewable = await canGroups(
    ctx,
    realm,
    groups.map((g) => g.id),
    'view',
  );
  return groupRepresentations(
    ctx,
    realm,
    groups.filter((_, i) => viewable[i]),
    { brief: query.briefRepresentation ?? true },
  );
}

/**
 * GET /{realm}/users/{id}/groups/count: `{count}` of the user's direct groups (name filter optional),
 * organization groups included (as Keycloak counts them, while the listing leaves them out; ADR 39).
 * The users of one request tick are counted together (GraphQL `User.groupCount` of a list).
 */
export async function countUserGroups(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  search?: string,
): Promise<{ count: number }> {
  await requireViewUser(ctx, realm, user.id);
  if (isTransient(user)) return { count: (await transientUserGroups(ctx, realm, user, { offset: 0 }, search)).length };
  const name = `user-group-count:${realm.id}:${JSON.stringify(search ?? null)}`;
  const count = await batchLoad(ctx.memo, name, (ids: readonly string[]) => countGroupsOfUsers(ctx, realm, ids, search), user.id);
  return { count };
}

/** Direct groups of many users of a realm, counted per user (name filter as `nameCondition`): one `GROUP BY` statement. */
export async function countGroupsOfUsers(
  ctx: RequestContext,
  realm: RealmModel,
  userIds: readonly string[],
  search?: string,
): Promise<number[]> {
  const filter = search === undefined ? '' : ' AND INSTR(LOWER(g.name), LOWER(:search)) > 0';
  const rows = await fastSelect<{ parent: string; n: number | string }>(
    ctx.db.sequelize,
    `SELECT m.user_id AS parent, COUNT(*) AS n FROM user_group_membership m JOIN keycloak_group g ON g.id = m.group_id
     WHERE m.user_id IN (:ids) AND g.realm_id = :realm${filter} GROUP BY m.user_id`,
    { ids: [...new Set(userIds)], realm: realm.id, search: search ?? null },
  );
  const counts = new Map(rows.map((r) => [r.parent, Number(r.n)]));
  return userIds.map((id) => counts.get(id) ?? 0);
}

/** A transient federated user's groups (its mappers' LDAP groups, ADR 46), by name, searched and paged as the stored ones. */
async function transientUserGroups(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  page: { offset: number; limit?: number },
  search?: string,
): Promise<GroupModel[]> {
  const all = await groupsByIds(ctx, realm, (await transientMemberships(ctx.db, user)).groupIds);
  const term = search?.toLowerCase();
  const found = all.filter((g) => !term || g.name.toLowerCase().includes(term)).sort((a, b) => a.name.localeCompare(b.name));
  return found.slice(page.offset, page.limit === undefined ? undefined : page.offset + page.limit);
}

/** PUT /{realm}/users/{id}/groups/{groupId}: joins the group (idempotent); unknown group → 404 `Group not found`. */
export async function joinGroup(ctx: RequestContext, realm: RealmModel, user: UserModel, groupId: string): Promise<void> {
  await requireManageGroupMembership(ctx, realm, user.id);
  const group = await findGroup(ctx, realm, groupId, 'Group not found');
  await requireManageMembership(ctx, realm, group.id);
  const representation = await eventGroupRep(ctx, realm, group);
  refuseTransientWrite(user, `group mapping for group ${group.name}`);
  await federatedMembershipAdd(ctx, realm, user, { kind: 'group', group });
  await ctx.db.transaction(async () => {
    await ctx.db.models.UserGroupMembership.bulkCreate([{ userId: user.id, groupId: group.id }], { ignoreDuplicates: true });
    await adoptHardcodedRows(ctx.db, user, { groupId: group.id });
    await membershipEvent(ctx, realm, user, group, 'CREATE', representation);
  });
  invalidate.membership(ctx.loaders, user.id, group.id);
}

/** DELETE /{realm}/users/{id}/groups/{groupId}: leaves the group (204 even when not a member). */
export async function leaveGroup(ctx: RequestContext, realm: RealmModel, user: UserModel, groupId: string): Promise<void> {
  await requireManageGroupMembership(ctx, realm, user.id);
  const group = await findGroup(ctx, realm, groupId, 'Group not found');
  await requireManageMembership(ctx, realm, group.id);
  const representation = await eventGroupRep(ctx, realm, group);
  refuseTransientWrite(user, `group mapping for group ${group.name}`);
  await federatedMembershipRemove(ctx, realm, user, { kind: 'group', group });
  await ctx.db.transaction(async () => {
    await ctx.db.models.UserGroupMembership.destroy({ where: { userId: user.id, groupId: group.id } });
    await membershipEvent(ctx, realm, user, group, 'DELETE', representation);
  });
  invalidate.membership(ctx.loaders, user.id, group.id);
}

/** GET /{realm}/default-groups: brief representations of the realm's default groups, by path. */
export async function listDefaultGroups(ctx: RequestContext, realm: RealmModel): Promise<GroupRep[]> {
  await requireCap(ctx, realm, 'viewRealm');
  const rows = await ctx.db.models.RealmDefaultGroup.findAll({ where: { realmId: realm.id } });
  const groups = (await Promise.all(rows.map((r) => ctx.loaders.groupById.load(r.groupId)))).filter(
    (g): g is GroupModel => g !== null && g.realmId === realm.id,
  );
  const paths = await Promise.all(groups.map((g) => pathOf(ctx, g)));
  const sorted = groups.map((g, i) => ({ g, p: paths[i] })).sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return groupRepresentations(
    ctx,
    realm,
    sorted.map((x) => x.g),
    { brief: true },
  );
}

/** PUT /{realm}/default-groups/{groupId}: adds a default group (idempotent); unknown → 404 `Group not found`. */
export async function addDefaultGroup(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const group = await findGroup(ctx, realm, groupId, 'Group not found');
  await ctx.db.transaction(async () => {
    await ctx.db.models.RealmDefaultGroup.bulkCreate([{ realmId: realm.id, groupId: group.id }], { ignoreDuplicates: true });
    await recordAdminEvent(ctx, realm, { operationType: 'CREATE', resourceType: 'GROUP', resourcePath: `default-groups/${group.id}` });
  });
}

/** DELETE /{realm}/default-groups/{groupId}: removes a default group; unknown → 404 `Group not found`. */
export async function removeDefaultGroup(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const group = await findGroup(ctx, realm, groupId, 'Group not found');
  await ctx.db.transaction(async () => {
    await ctx.db.models.RealmDefaultGroup.destroy({ where: { realmId: realm.id, groupId: group.id } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'GROUP', resourcePath: `default-groups/${group.id}` });
  });
}
