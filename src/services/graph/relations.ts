import { requireCap } from '../../auth/permissions';
import type { GroupModel } from '../../db/models/group';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserModel } from '../../db/models/user';
import type { RequestContext } from '../../core/context';
import { groupRepresentations, type GroupRep } from '../groups/group-queries';
import { locateRole, roleReps } from '../roles/role-access';
import { renderUsers } from '../users/users';

/**
 * Relations for graph traversal — the nested fields of the GraphQL front (user → groups, user or
 * group → effective roles, group → subgroups, members, parent, role → composites). Each reads
 * through the per-request loaders, so the same relation of N parents costs a bounded number of
 * statements whatever N, applies the permission rule of the REST endpoint it mirrors, and builds
 * representations with the shared batched builders.
 */

export interface Page {
  first?: number;
  max?: number;
}

type Rep = Record<string, unknown>;

const present = <T>(values: Array<T | null | Error>): T[] =>
  values.filter((v): v is T => v !== null && v !== undefined && !(v instanceof Error));
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Slices a page out of a list (first 0 and max absent or negative = all). */
function slice<T>(list: T[], page: Page): T[] {
  const first = page.first !== undefined && page.first > 0 ? page.first : 0;
  if (page.max === 0) return [];
  return page.max !== undefined && page.max > 0 ? list.slice(first, first + page.max) : list.slice(first);
}

/** User → groups: direct groups by name, brief by default (mirrors GET users/{id}/groups). */
export async function userGroups(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
  q: Page & { search?: string; brief?: boolean } = {},
): Promise<GroupRep[]> {
  await requireCap(ctx, realm, 'viewUsers');
  const ids = await ctx.loaders.groupIdsByUser.load(userId);
  const search = q.search?.toLowerCase();
  const groups = present(await ctx.loaders.groupById.loadMany(ids))
    .filter((g) => g.realmId === realm.id && (!search || g.name.toLowerCase().includes(search)))
    .sort(byName);
  return groupRepresentations(ctx, realm, slice(groups, q), { brief: q.brief ?? true });
}

/**
 * User or group → effective roles: realm and client roles, composites expanded, inherited from
 * groups and their parents; realm roles first, then client roles, each by name (mirrors the
 * role-mappings `.../composite` endpoints over every container).
 */
export async function effectiveRoles(
  ctx: RequestContext,
  realm: RealmModel,
  type: 'users' | 'groups',
  id: string,
  brief = true,
): Promise<Rep[]> {
  await requireCap(ctx, realm, 'viewUsers');
  const ids = type === 'users' ? await ctx.loaders.effectiveRoleIdsByUser.load(id) : await ctx.loaders.effectiveRoleIdsByGroup.load(id);
  const roles = present(await ctx.loaders.roleById.loadMany([...ids])).filter((r) => r.realmId === realm.id);
  const order = (r: RoleModel) => (r.clientId ? 1 : 0);
  roles.sort((a, b) => order(a) - order(b) || byName(a, b));
  return roleReps(ctx, roles, brief);
}

/** Group → subgroups: direct children by name, full representations (mirrors GET groups/{id}/children). */
export async function subGroups(
  ctx: RequestContext,
  realm: RealmModel,
  groupId: string,
  q: Page & { brief?: boolean } = {},
): Promise<GroupRep[]> {
  await requireCap(ctx, realm, 'viewUsers');
  const children = await ctx.loaders.childrenByGroup.load(groupId);
  return groupRepresentations(ctx, realm, slice(children, q), { brief: q.brief ?? false, subGroupCount: true, access: true });
}

/** Group → parent group, or null for a top-level group (full representation, as GET groups/{id}). */
export async function parentGroup(ctx: RequestContext, realm: RealmModel, group: Rep): Promise<GroupRep | null> {
  const parentId = typeof group.parentId === 'string' && group.parentId !== TOP_LEVEL ? group.parentId : undefined;
  if (!parentId) return null;
  await requireCap(ctx, realm, 'viewUsers');
  const parent = await ctx.loaders.groupById.load(parentId);
  if (!parent) return null;
  const [rep] = await groupRepresentations(ctx, realm, [parent as GroupModel], { brief: false, subGroupCount: true, access: true });
  return rep;
}

/** Group → members: direct members by username, first 0 / max 100 by default (mirrors GET groups/{id}/members). */
export async function groupMembers(
  ctx: RequestContext,
  realm: RealmModel,
  groupId: string,
  q: Page & { brief?: boolean } = {},
): Promise<Rep[]> {
  await requireCap(ctx, realm, 'viewUsers');
  const first = q.first !== undefined && q.first > 0 ? q.first : 0;
  const max = q.max ?? 100;
  if (max === 0) return [];
  const ids = await ctx.loaders.memberIdsPageByGroup.load({ id: groupId, first, max: max < 0 ? -1 : max });
  const users = present(await ctx.loaders.userById.loadMany(ids)) as UserModel[];
  return renderUsers(ctx, realm, users, { mode: q.brief ? 'member' : 'full' });
}

/** Role → composites: direct children by name, brief (mirrors GET roles-by-id/{id}/composites). */
export async function roleComposites(ctx: RequestContext, realm: RealmModel, roleId: string): Promise<Rep[]> {
  await locateRole(ctx, realm, { id: roleId }, 'view');
  const childIds = await ctx.loaders.childIdsByRole.load(roleId);
  const roles = present(await ctx.loaders.roleById.loadMany(childIds)).sort(byName);
  return roleReps(ctx, roles);
}
