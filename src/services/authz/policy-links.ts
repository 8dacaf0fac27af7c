import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import type { AuthzPolicyModel, AuthzResourceModel } from '../../db/models/authorization';
import type { AuthzTarget } from './access';

/**
 * Reads and deletes across policies and what they name, shared by the resource, scope and policy
 * services: Keycloak's cascades (a deleted policy leaves the permissions applying it; one left with
 * no policy at all goes too) and the "which policies apply to this resource" query.
 */

interface LinkTable {
  findAll(o: object): Promise<object[]>;
}

/**
 * The rows of `target` that a link table names for one owner, ordered by name: `where` picks the
 * owner's link rows, `column` is the link column holding the target's id (two statements, one when
 * there is no link).
 */
export async function linkedRows<T>(link: LinkTable, where: Record<string, string>, column: string, target: LinkTable): Promise<T[]> {
  const links = await link.findAll({ where, attributes: [column] });
  if (!links.length) return [];
  const ids = [...new Set(links.map((l) => String((l as Record<string, unknown>)[column])))];
  return (await target.findAll({ where: { id: { [Op.in]: ids } }, order: [['name', 'ASC']] })) as T[];
}

/**
 * Deletes policies and, as Keycloak does, every permission (or aggregate) that applied only them.
 * Link rows go with them (foreign keys). Inside the caller's transaction.
 */
export async function deletePolicyRows(ctx: RequestContext, t: AuthzTarget, ids: string[]): Promise<void> {
  const m = ctx.db.models;
  const gone = new Set<string>();
  let next = [...new Set(ids)];
  while (next.length) {
    for (const id of next) gone.add(id);
    const dependents = await m.AuthzAssociatedPolicy.findAll({ where: { associatedPolicyId: { [Op.in]: next } } });
    const candidates = [...new Set(dependents.map((d) => d.policyId))].filter((id) => !gone.has(id));
    if (!candidates.length) break;
    const remaining = await m.AuthzAssociatedPolicy.findAll({ where: { policyId: { [Op.in]: candidates } } });
    next = candidates.filter((id) => remaining.every((r) => r.policyId !== id || gone.has(r.associatedPolicyId)));
  }
  if (gone.size) await m.AuthzPolicy.destroy({ where: { id: { [Op.in]: [...gone] }, resourceServerId: t.rs.id } });
}

/** Policies by id, ordered by name. */
export async function policiesById(ctx: RequestContext, ids: string[]): Promise<AuthzPolicyModel[]> {
  if (!ids.length) return [];
  return ctx.db.models.AuthzPolicy.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, order: [['name', 'ASC']] });
}

/**
 * Every policy that applies to a resource (Keycloak's resource `permissions`): those naming it, those
 * for its type (and for the resource server's resources of that type), and scope permissions on its
 * scopes that name it or name no resource at all.
 */
export async function policiesOfResources(
  ctx: RequestContext,
  t: AuthzTarget,
  r: AuthzResourceModel,
  scopeIds: string[],
): Promise<AuthzPolicyModel[]> {
  const m = ctx.db.models;
  const ids = new Set<string>();
  const resourceIds = [r.id];
  if (r.type != null) {
    const typed = await m.AuthzPolicy.findAll({ where: { resourceServerId: t.rs.id, type: 'resource' } });
    for (const p of typed) if (p.config.defaultResourceType === r.type) ids.add(p.id);
    const sameType = await m.AuthzResource.findAll({
      where: { resourceServerId: t.rs.id, owner: t.rs.id, type: r.type },
      attributes: ['id'],
    });
    resourceIds.push(...sameType.map((x) => x.id));
  }
  for (const l of await m.AuthzResourcePolicy.findAll({ where: { resourceId: { [Op.in]: resourceIds } } })) ids.add(l.policyId);
  if (scopeIds.length) {
    const scoped = await m.AuthzScopePolicy.findAll({ where: { scopeId: { [Op.in]: scopeIds } } });
    const candidates = [...new Set(scoped.map((l) => l.policyId))];
    if (candidates.length) {
      const named = await m.AuthzResourcePolicy.findAll({ where: { policyId: { [Op.in]: candidates } } });
      for (const p of candidates) {
        const own = named.filter((l) => l.policyId === p);
        if (!own.length || own.some((l) => l.resourceId === r.id)) ids.add(p);
      }
    }
  }
  return policiesById(ctx, [...ids]);
}
