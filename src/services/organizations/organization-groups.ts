import { randomUUID } from 'node:crypto';
import { Op, literal, type WhereOptions } from 'sequelize';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { badRequest, errorA, errorC, type HttpError, notFound } from '../../core/errors';
import { isEmptyPage, pageOf, sqlPage } from '../../core/paging';
import type { GroupModel } from '../../db/models/group';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import { batchLoad } from '../../loaders/batch';
import { invalidate } from '../../loaders/invalidate';
import type { GroupRep } from '../../representations/group';
import { ancestorIds } from '../groups/group-paths';
import { groupRepresentations, groupsByIds, nameCondition, parseSearchQuery } from '../groups/group-queries';
import { type GroupBody, groupInput } from '../groups/groups';
import { type MemberRep, memberRepresentations, userInRealm } from './organization-members';
import { removeGroupRows } from './organization-rows';

/**
 * Groups of an organization (Keycloak 26.7's OrganizationGroupsResource and OrganizationGroupResource,
 * ADR 39): rows of `keycloak_group` carrying the organization's id. A top-level one has the organization's
 * id as parent, so names are unique among siblings by the same unique index as the realm's groups, and
 * the realm's `/groups` never lists them. The caller passed the organization's checks (manage-realm,
 * organizations enabled, organization found) before any of these.
 */

export interface OrgGroupQuery {
  search?: string;
  q?: string;
  exact?: boolean;
  first?: number;
  max?: number;
}

/**
 * Representations as 26.7 gives them: in a listing the path runs through the organization's internal
 * group, named by the organization's id (`/{orgId}/a/b`); `get` and `children` answer an empty path
 * (26.7's "todo path").
 */
async function reps(
  ctx: RequestContext,
  realm: RealmModel,
  groups: GroupModel[],
  brief: boolean,
  path: 'listed' | 'empty',
): Promise<GroupRep[]> {
  const out = await groupRepresentations(ctx, realm, groups, { brief });
  groups.forEach((g, i) => {
    out[i].path = path === 'empty' ? '' : `/${g.organizationId}${out[i].path}`;
  });
  return out;
}

/** `/organizations/{id}/groups/{groupId}`: 404 `Group does not exist`, 400 when another organization's or a realm group. */
export async function resolveOrganizationGroup(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  id: string,
): Promise<GroupModel> {
  const group = id ? await ctx.loaders.groupById.load(id) : null;
  if (!group || group.realmId !== realm.id) throw errorA(404, 'Group does not exist');
  if (group.organizationId !== org.id) throw badRequest('Group does not belong to the organization');
  return group;
}

/** GET /organizations/{id}/groups: top-level groups, or by name (`search`, `exact`) or attributes (`q`), by name; brief. */
export async function listOrganizationGroups(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  query: OrgGroupQuery = {},
): Promise<GroupRep[]> {
  const page = pageOf(query);
  if (isEmptyPage(page)) return [];
  const m = ctx.db.models;
  const base = { realmId: realm.id, organizationId: org.id };
  let groups: GroupModel[];
  if (query.q !== undefined) {
    const attrs = parseSearchQuery(query.q);
    const rows = await m.Group.findAll({ where: base, order: [['name', 'ASC']] });
    const hits = rows.filter((g) => Object.entries(attrs).every(([k, v]) => (g.attributes[k] ?? []).includes(v)));
    groups = hits.slice(page.offset, page.limit === undefined ? undefined : page.offset + page.limit);
  } else if (query.search !== undefined) {
    const cond: WhereOptions[] = nameCondition(query.search.trim(), query.exact);
    groups = await m.Group.findAll({ where: { ...base, [Op.and]: cond }, order: [['name', 'ASC']], ...sqlPage(page) });
  } else {
    // Top-level groups: the organizations of one tick (GraphQL `Organization.groups` of a list) in one statement.
    const name = `org-top-groups:${realm.id}:${JSON.stringify(page)}`;
    groups = await batchLoad(
      ctx.memo,
      name,
      async (orgIds: readonly string[]) => {
        const ids = [...new Set(orgIds)];
        const rows = await m.Group.findAll({ where: { realmId: realm.id, organizationId: ids, parentId: ids }, order: [['name', 'ASC']] });
        const end = page.limit === undefined ? undefined : page.offset + page.limit;
        return orgIds.map((id) => rows.filter((r) => r.parentId === id).slice(page.offset, end));
      },
      org.id,
    );
  }
  return reps(ctx, realm, groups, true, 'listed');
}

/** GET /organizations/{id}/groups/{groupId}: the brief representation (empty path, as 26.7). */
export async function getOrganizationGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<GroupRep> {
  return (await reps(ctx, realm, [group], true, 'empty'))[0];
}

/** GET /organizations/{id}/groups/{groupId}/children: direct subgroups by name, brief, `first` 0, `max` 10. */
export async function listOrganizationGroupChildren(
  ctx: RequestContext,
  realm: RealmModel,
  group: GroupModel,
  query: { search?: string; exact?: boolean; first?: number; max?: number } = {},
): Promise<GroupRep[]> {
  const page = pageOf(query, { defaultMax: 10 });
  if (isEmptyPage(page)) return [];
  const cond = nameCondition(query.search, query.exact);
  const children = await ctx.db.models.Group.findAll({
    where: { realmId: realm.id, parentId: group.id, [Op.and]: cond },
    order: [['name', 'ASC']],
    ...sqlPage(page),
  });
  return reps(ctx, realm, children, true, 'empty');
}

export interface OrgGroupWrite {
  /** 201 (created) or 204 (an existing group moved). */
  created: boolean;
  id: string;
  /** The child's full representation (children POST only). */
  representation?: GroupRep;
}

/** Inserts a group of the organization under `parentId` (the organization's id for a top-level one). */
async function insertOrgGroup(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  parent: GroupModel | null,
  rep: GroupBody,
  resourcePath: string,
  exists: () => HttpError,
): Promise<GroupModel> {
  const input = groupInput(rep);
  const m = ctx.db.models;
  const group = await write(ctx, { unique: exists }, async () => {
    // Lock the parent so a concurrent delete of its subtree cannot leave the new child orphaned.
    if (parent && !(await m.Group.findByPk(parent.id, { attributes: ['id'], lock: true }))) throw errorA(404, 'Group does not exist');
    const row = await m.Group.create({
      id: randomUUID(),
      realmId: realm.id,
      organizationId: org.id,
      parentId: parent ? parent.id : org.id,
      name: input.name,
      description: input.description,
      attributes: input.attributes ?? {},
    });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'ORGANIZATION_GROUP',
      resourcePath,
      representation: { ...rep, id: row.id },
    });
    return row;
  });
  invalidate.group(ctx.loaders, group.id, parent?.id);
  return group;
}

/**
 * POST /organizations/{id}/groups: a new top-level group of the organization (201, Location, no body).
 * 26.7 adds no existing group this way: an `id` naming an existing group is 409; a duplicate name is 409.
 */
export async function createOrganizationGroup(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  rep: GroupBody,
  resourcePath: string,
): Promise<string> {
  if (rep.id !== undefined && rep.id !== null) {
    const other = await ctx.loaders.groupById.load(String(rep.id));
    if (other && other.realmId === realm.id) throw errorA(409, 'Group with the given id already exists');
  }
  groupInput(rep);
  const group = await insertOrgGroup(ctx, realm, org, null, rep, resourcePath, () =>
    errorA(409, 'Group with the given name already exists.'),
  );
  return group.id;
}

/**
 * POST /organizations/{id}/groups/{groupId}/children: creates a subgroup (201) or, with `id`, moves one of
 * the organization's groups under this one (204); the child's full representation either way.
 */
export async function addOrganizationSubGroup(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  parent: GroupModel,
  rep: GroupBody,
  resourcePath: string,
): Promise<OrgGroupWrite> {
  groupInput(rep);
  const exists = () => errorA(409, 'Sibling group with the given name already exists');
  if (rep.id === undefined || rep.id === null) {
    const group = await insertOrgGroup(ctx, realm, org, parent, rep, resourcePath, exists);
    return { created: true, id: group.id, representation: (await reps(ctx, realm, [group], false, 'listed'))[0] };
  }
  const child = await ctx.loaders.groupById.load(String(rep.id));
  if (!child || child.realmId !== realm.id) throw notFound('Could not find child by id');
  if (!child.organizationId) throw badRequest('Can only move organization groups');
  if (child.organizationId !== org.id) throw badRequest('Group does not belong to this organization');
  if (child.parentId !== parent.id) {
    await write(ctx, { unique: exists }, async () => {
      if ((await ancestorIds(ctx, parent.id)).includes(child.id))
        throw badRequest('Cannot move a group under itself or one of its subgroups');
      await ctx.db.models.Group.update({ parentId: parent.id }, { where: { id: child.id } });
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'ORGANIZATION_GROUP',
        resourcePath,
        representation: rep,
      });
    });
    invalidate.groups(ctx.loaders);
  }
  const moved = (await groupsByIds(ctx, realm, [child.id]))[0] ?? child;
  return { created: false, id: child.id, representation: (await reps(ctx, realm, [moved], false, 'listed'))[0] };
}

/** PUT /organizations/{id}/groups/{groupId}: name, description (always set), attributes (replaced when given). */
export async function updateOrganizationGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel, rep: GroupBody): Promise<void> {
  const input = groupInput(rep);
  if (rep.id !== undefined && rep.id !== null && rep.id !== group.id) throw badRequest('Invalid group id');
  await write(ctx, { unique: () => errorA(409, 'Sibling group with the given name already exists.') }, async () => {
    const fresh = await ctx.db.models.Group.findByPk(group.id, { lock: true });
    if (!fresh) throw errorA(404, 'Group does not exist');
    fresh.name = input.name;
    fresh.description = input.description;
    if (input.attributes) fresh.attributes = input.attributes;
    await fresh.save();
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'ORGANIZATION_GROUP',
      resourcePath: `organizations/${group.organizationId}/groups/${group.id}`,
      representation: rep,
    });
  });
  invalidate.group(ctx.loaders, group.id, group.parentId);
}

/** DELETE /organizations/{id}/groups/{groupId}: the group and its subgroups. */
export async function deleteOrganizationGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<void> {
  await write(ctx, {}, async () => {
    await removeGroupRows(ctx, [group.id]);
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'ORGANIZATION_GROUP',
      resourcePath: `organizations/${group.organizationId}/groups/${group.id}`,
    });
  });
  invalidate.groups(ctx.loaders);
}

/** GET /organizations/{id}/groups/{groupId}/members: direct members by username with `membershipType`, `max` 100, full unless `briefRepresentation`. */
export async function listOrganizationGroupMembers(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  group: GroupModel,
  query: { first?: number; max?: number; briefRepresentation?: boolean } = {},
): Promise<MemberRep[]> {
  const page = pageOf(query, { defaultMax: 100 });
  if (isEmptyPage(page)) return [];
  const ids = await ctx.loaders.memberIdsPageByGroup.load({ id: group.id, ...page });
  const users = (await ctx.loaders.userById.loadMany(ids)).filter(
    (u): u is NonNullable<typeof u> & { realmId: string } => !!u && !(u instanceof Error) && u.realmId === realm.id,
  );
  return memberRepresentations(ctx, realm, org, users as never, query.briefRepresentation === true);
}

/** The event of a user joining or leaving an organization group (ORGANIZATION_GROUP_MEMBERSHIP). */
async function membershipEvent(
  ctx: RequestContext,
  realm: RealmModel,
  group: GroupModel,
  user: { id: string; username: string; email: string | null },
  op: 'CREATE' | 'DELETE',
) {
  const details: Record<string, string> = { username: user.username };
  if (user.email) details.email = user.email;
  await recordAdminEvent(ctx, realm, {
    operationType: op,
    resourceType: 'ORGANIZATION_GROUP_MEMBERSHIP',
    resourcePath: `organizations/${group.organizationId}/groups/${group.id}/members/${user.id}`,
    representation: (await reps(ctx, realm, [group], true, 'listed'))[0],
    details,
  });
}

/** PUT /organizations/{id}/groups/{groupId}/members/{userId}: a member of the organization joins (404, 400 not a member, 409 already in). */
export async function joinOrganizationGroup(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  group: GroupModel,
  userId: string,
): Promise<void> {
  const user = await userInRealm(ctx, realm, userId);
  if (!user) throw errorA(404, 'User does not exist');
  const m = ctx.db.models;
  if (!(await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } })))
    throw badRequest('User is not member of the organization');
  const already = () => errorA(409, 'User is already a member of the group');
  if (await m.UserGroupMembership.findOne({ where: { userId: user.id, groupId: group.id } })) throw already();
  await write(ctx, { unique: already }, async () => {
    await m.UserGroupMembership.create({ userId: user.id, groupId: group.id });
    await membershipEvent(ctx, realm, group, user, 'CREATE');
  });
  invalidate.membership(ctx.loaders, user.id, group.id);
}

/** DELETE /organizations/{id}/groups/{groupId}/members/{userId}: leaves the group (204 when not in it); unknown user → 404. */
export async function leaveOrganizationGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel, userId: string): Promise<void> {
  const user = await userInRealm(ctx, realm, userId);
  if (!user) throw errorA(404, 'User does not exist');
  await write(ctx, {}, async () => {
    const n = await ctx.db.models.UserGroupMembership.destroy({ where: { userId: user.id, groupId: group.id } });
    if (n) await membershipEvent(ctx, realm, group, user, 'DELETE');
  });
  invalidate.membership(ctx.loaders, user.id, group.id);
}

/**
 * GET /organizations/{id}/members/{userId}/groups: the organization's groups (any depth) the member is in,
 * by name; `search` on the name, `first`/`max`, brief by default. Blank id → 400; not a member → 404.
 */
export async function groupsOfOrganizationMember(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  userId: string,
  query: { search?: string; first?: number; max?: number; briefRepresentation?: boolean } = {},
): Promise<GroupRep[]> {
  if (!userId.trim()) throw errorA(400, 'id cannot be null');
  const user = await userInRealm(ctx, realm, userId);
  const m = ctx.db.models;
  if (!user || !(await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } })))
    throw errorC(404, 'HTTP 404 Not Found');
  const page = pageOf(query);
  if (isEmptyPage(page)) return [];
  const groups = await m.Group.findAll({
    where: {
      organizationId: org.id,
      [Op.and]: [
        ...nameCondition(query.search),
        literal(`id IN (SELECT group_id FROM user_group_membership WHERE user_id = ${ctx.db.sequelize.escape(user.id)})`),
      ],
    },
    order: [['name', 'ASC']],
    ...sqlPage(page),
  });
  return reps(ctx, realm, groups, query.briefRepresentation ?? true, 'listed');
}
