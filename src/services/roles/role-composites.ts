import { Op, col, fn, literal, where as sqlWhere } from 'sequelize';
import type { AdminEventInput } from '../../core/admin-events';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { notFound } from '../../core/errors';
import { isEmptyPage, pageOf, slicePage, sqlPage } from '../../core/paging';
import { invalidate } from '../../loaders/invalidate';
import type { RoleRep } from '../../representations/role';
import { recordAdminEvent, roleResourcePath, roleResourceType } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { findClient } from '../clients/clients';
import { locateRole, lockLinkedRoles, requireMapComposites, roleReps, type RoleLocator } from './role-access';

/**
 * Composite roles: the direct children of a role (reference §6.2–6.3), for `{roleOwner}/{name}`
 * and `roles-by-id/{id}` alike. Adding a child needs manage of the parent's container and
 * RolePermissions#canMapComposite on the child (role-access.ts: roles, fine-grained permissions, the
 * escalation guard).
 */

export interface CompositeQuery {
  search?: string;
  first?: number;
  max?: number;
}

const byName = (a: RoleModel, b: RoleModel) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Direct children of a role, optionally limited to one container, searched and paged; ordered by
 * name. Without a search they come from the per-request loaders, so the children of N roles cost
 * the same statements as those of one.
 */
async function children(ctx: RequestContext, parent: RoleModel, containerId?: string, q: CompositeQuery = {}): Promise<RoleModel[]> {
  const page = pageOf(q);
  if (isEmptyPage(page)) return [];
  const search = q.search?.trim();
  if (search) {
    const sub = literal(`(SELECT child_id FROM composite_role WHERE composite_id = ${ctx.db.sequelize.escape(parent.id)})`);
    return ctx.db.models.Role.findAll({
      where: {
        id: { [Op.in]: sub },
        ...(containerId ? { containerId } : {}),
        [Op.and]: [sqlWhere(fn('LOWER', col('name')), { [Op.like]: `%${search.toLowerCase()}%` })],
      },
      order: [['name', 'ASC']],
      ...sqlPage(page),
    });
  }
  const ids = await ctx.loaders.childIdsByRole.load(parent.id);
  const roles = (await ctx.loaders.roleById.loadMany(ids)).filter(
    (r): r is RoleModel => !!r && !(r instanceof Error) && (!containerId || r.containerId === containerId),
  );
  return slicePage(roles.sort(byName), page);
}

/**
 * GET {roleOwner}/{name}/composites, GET roles-by-id/{id}/composites?search&first&max, and GraphQL
 * `Role.composites`: direct children (brief).
 */
export async function getComposites(ctx: RequestContext, realm: RealmModel, loc: RoleLocator, q: CompositeQuery = {}): Promise<RoleRep[]> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  return roleReps(ctx, await children(ctx, role, undefined, q));
}

/** GET .../composites/realm: direct realm-role children (brief). */
export async function getRealmComposites(ctx: RequestContext, realm: RealmModel, loc: RoleLocator): Promise<RoleRep[]> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  return roleReps(ctx, await children(ctx, role, realm.id));
}

/** GET .../composites/clients/{clientUuid}: direct children that are roles of that client; unknown client → 404. */
export async function getClientComposites(
  ctx: RequestContext,
  realm: RealmModel,
  loc: RoleLocator,
  clientUuid: string,
): Promise<RoleRep[]> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  const client = await findClient(ctx, realm, clientUuid);
  if (!client) throw notFound('Could not find client');
  return roleReps(ctx, await children(ctx, role, client.id));
}

/** Roles named by `id` in a composites body; missing or unknown id → 404 `Could not find composite role`. */
async function rolesByIds(ctx: RequestContext, realm: RealmModel, reps: Array<{ id?: unknown }>): Promise<RoleModel[]> {
  const out: RoleModel[] = [];
  for (const rep of reps) {
    const role = typeof rep.id === 'string' ? await ctx.loaders.roleById.load(rep.id) : null;
    if (!role || role.realmId !== realm.id) throw notFound('Could not find composite role');
    out.push(role);
  }
  return out;
}

/** The admin event of a composites change: the parent role's type, `<role path>/composites`, the role array. */
const compositesEvent = (operationType: 'CREATE' | 'DELETE', role: RoleModel, loc: RoleLocator, reps: unknown[]): AdminEventInput => ({
  operationType,
  resourceType: roleResourceType(role),
  resourcePath: `${roleResourcePath(loc)}/composites`,
  representation: reps,
});

/** POST {roleOwner}/{name}/composites, POST roles-by-id/{id}/composites: adds children by id (idempotent). */
export async function addComposites(
  ctx: RequestContext,
  realm: RealmModel,
  loc: RoleLocator,
  reps: Array<{ id?: unknown }> = [],
): Promise<void> {
  const { role } = await locateRole(ctx, realm, loc, 'manage');
  const roles = await rolesByIds(ctx, realm, reps);
  await requireMapComposites(ctx, realm, roles, role);
  if (!roles.length) return;
  const ids = [...new Set(roles.map((r) => r.id))];
  await ctx.db.transaction(async () => {
    // The parent as well: a composite row of a deleted parent would be an orphan too.
    await lockLinkedRoles(ctx, [role.id], 'id' in loc ? 'Could not find role with id' : 'Could not find role');
    await lockLinkedRoles(ctx, ids, 'Could not find composite role');
    await ctx.db.models.CompositeRole.bulkCreate(
      ids.map((childId) => ({ compositeId: role.id, childId })),
      { ignoreDuplicates: true },
    );
    await recordAdminEvent(ctx, realm, compositesEvent('CREATE', role, loc, reps));
  });
  invalidate.roleMappings(ctx.loaders, { compositeIds: [role.id] });
}

/** DELETE {roleOwner}/{name}/composites, DELETE roles-by-id/{id}/composites: removes children by id. */
export async function removeComposites(
  ctx: RequestContext,
  realm: RealmModel,
  loc: RoleLocator,
  reps: Array<{ id?: unknown }> = [],
): Promise<void> {
  const { role } = await locateRole(ctx, realm, loc, 'manage');
  const roles = await rolesByIds(ctx, realm, reps);
  if (!roles.length) return;
  await ctx.db.transaction(async () => {
    await ctx.db.models.CompositeRole.destroy({ where: { compositeId: role.id, childId: { [Op.in]: roles.map((r) => r.id) } } });
    await recordAdminEvent(ctx, realm, compositesEvent('DELETE', role, loc, reps));
  });
  invalidate.roleMappings(ctx.loaders, { compositeIds: [role.id] });
}
