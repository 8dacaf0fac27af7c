import { Op } from 'sequelize';
import type { AdminEventInput } from '../../core/admin-events';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { forbidden, notFound } from '../../core/errors';
import { type MappingsRep, type RoleRep, toMappingsRepresentation } from '../../representations/role';
import { recordAdminEvent } from '../../core/admin-events';
import { batchLoad } from '../../loaders/batch';
import { invalidate } from '../../loaders/invalidate';
import { type ScopeOwner, requireOwnerAccess } from './scope-owner';
import { findClient } from '../clients/clients';
import type { RequestContext } from '../../core/context';
import { expandComposites } from '../../core/effective-roles';
import { canMapClientScope, lockLinkedRoles, roleReps } from '../roles/role-access';

/**
 * Scope mappings of clients and client scopes — the seed's `{scopeOwner}/{id}/scope-mappings`
 * family, one implementation parameterised by the owner (config reference §5.1). `clientUuid`
 * undefined means the realm-role endpoints (`scope-mappings/realm...`), otherwise
 * `scope-mappings/clients/{uuid}...`. The owner needs view (reads) or manage (writes): a client's
 * view / manage (ClientResource), a client scope's by the roles; each role written needs
 * RolePermissions#canMapClientScope (role-access.ts: roles, fine-grained permissions, escalation guard).
 */
export interface ScopeRoleRep {
  id?: unknown;
  name?: unknown;
  [k: string]: unknown;
}

interface Target {
  owner: ScopeOwner;
  /** The role container: the realm, or the client whose roles are mapped. */
  containerId: string;
  container?: ClientModel;
}

/**
 * The owner's check (ScopeMappedResource's view / manage check): a client's view / manage
 * (ClientResource: requireView / requireManage(client), fine-grained permissions included); a client
 * scope's by the roles (ClientPermissions#canManage(clientScope)).
 */
const requireScopeOwner = requireOwnerAccess;

async function prepare(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid: string | undefined,
  access: 'view' | 'manage',
): Promise<Target> {
  await requireScopeOwner(ctx, realm, owner, access);
  if (clientUuid === undefined) return { owner, containerId: realm.id };
  const container = await findClient(ctx, realm, clientUuid);
  if (!container) throw notFound('Could not find client');
  return { owner, containerId: container.id, container };
}

const directIds = (ctx: RequestContext, o: ScopeOwner) => ctx.loaders.scopeRoleIdsByOwner.load(o.id);

/** Roles of one container among the given ids, ordered by name. */
async function rolesIn(ctx: RequestContext, containerId: string, ids: Iterable<string>): Promise<RoleModel[]> {
  const set = new Set(ids);
  if (!set.size) return [];
  return (await ctx.loaders.rolesByContainer.load(containerId)).filter((r) => set.has(r.id));
}

const eventOf = (t: Target): Pick<AdminEventInput, 'resourceType' | 'resourcePath'> => ({
  resourceType: t.container ? 'CLIENT_SCOPE_MAPPING' : 'REALM_SCOPE_MAPPING',
  resourcePath: `${t.owner.path}/scope-mappings/${t.container ? `clients/${t.container.id}` : 'realm'}`,
});

/** GET /{scopeOwner}/{id}/scope-mappings: direct realm and client scope mappings (MappingsRepresentation). */
export async function getScopeMappings(ctx: RequestContext, realm: RealmModel, owner: ScopeOwner): Promise<MappingsRep> {
  await requireScopeOwner(ctx, realm, owner, 'view');
  const ids = await directIds(ctx, owner);
  const roles = (await ctx.loaders.roleById.loadMany(ids))
    .filter((r): r is RoleModel => !!r && !(r instanceof Error))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const clientIds = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const clients = (await ctx.loaders.clientById.loadMany(clientIds)).filter((c): c is ClientModel => !!c && !(c instanceof Error));
  clients.sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  const reps = await roleReps(ctx, roles);
  const repOf = new Map(roles.map((r, i) => [r.id, reps[i]]));
  const pick = (list: RoleModel[]) => list.map((r) => repOf.get(r.id) as RoleRep);
  return toMappingsRepresentation(
    pick(roles.filter((r) => !r.clientId)),
    clients.map((client) => ({ client, roles: pick(roles.filter((r) => r.clientId === client.id)) })),
  );
}

/** GET .../scope-mappings/realm, .../clients/{client}: roles of the container directly in scope. */
export async function listScopeMappedRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid?: string,
): Promise<RoleRep[]> {
  const t = await prepare(ctx, realm, owner, clientUuid, 'view');
  return roleReps(ctx, await rolesIn(ctx, t.containerId, await directIds(ctx, t.owner)));
}

/** GET .../realm/available, .../clients/{client}/available: roles not directly in scope that the caller may map. */
export async function listAvailableScopeRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid?: string,
): Promise<RoleRep[]> {
  const t = await prepare(ctx, realm, owner, clientUuid, 'view');
  const direct = new Set(await directIds(ctx, t.owner));
  const allowed: RoleModel[] = [];
  for (const r of await ctx.loaders.rolesByContainer.load(t.containerId)) {
    if (!direct.has(r.id) && (await canMapClientScope(ctx, realm, r))) allowed.push(r);
  }
  return roleReps(ctx, allowed);
}

/**
 * GET .../realm/composite, .../clients/{client}/composite: roles effectively in scope — all of
 * them for a full-scope client (and a client's own roles), else direct mappings and their composites.
 */
export async function listEffectiveScopeRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid?: string,
  brief = true,
): Promise<RoleRep[]> {
  const t = await prepare(ctx, realm, owner, clientUuid, 'view');
  const all = await ctx.loaders.rolesByContainer.load(t.containerId);
  const c = t.owner.client;
  if (c && (c.fullScopeAllowed || c.id === t.containerId)) return roleReps(ctx, all, brief);
  const inScope = await expandedRoleIds(ctx, await directIds(ctx, t.owner));
  return roleReps(
    ctx,
    all.filter((r) => inScope.has(r.id)),
    brief,
  );
}

/**
 * The roles and all their composite descendants: the roles every owner of one request tick asks
 * for are expanded in one recursive statement (GraphQL `compositeRealmScopeMappings` of a list).
 */
async function expandedRoleIds(ctx: RequestContext, roleIds: readonly string[]): Promise<Set<string>> {
  const expand = async (ids: readonly string[]) => {
    const map = await expandComposites(ctx.db, ids);
    return ids.map((id) => map.get(id) ?? new Set<string>());
  };
  const sets = await Promise.all([...new Set(roleIds)].map((id) => batchLoad(ctx.memo, 'expand-composites', expand, id)));
  return new Set(sets.flatMap((set) => [...set]));
}

/** Body roles: realm endpoints by `id` (any role of the realm), client endpoints by `name` in that client; unknown → 404 `Role not found`. */
async function rolesOfBody(ctx: RequestContext, realm: RealmModel, t: Target, reps: ScopeRoleRep[]): Promise<RoleModel[]> {
  const out: RoleModel[] = [];
  if (t.container) {
    const names = [...new Set(reps.map((r) => r.name).filter((n): n is string => typeof n === 'string'))];
    const found = names.length ? await ctx.db.models.Role.findAll({ where: { containerId: t.containerId, name: { [Op.in]: names } } }) : [];
    for (const rep of reps) {
      const role = found.find((r) => r.name === rep.name);
      if (!role) throw notFound('Role not found');
      out.push(role);
    }
  } else {
    const roles = await ctx.loaders.roleById.loadMany(reps.map((r) => (typeof r.id === 'string' ? r.id : '')));
    for (const role of roles) {
      if (!role || role instanceof Error || role.realmId !== realm.id) throw notFound('Role not found');
      out.push(role);
    }
  }
  for (const role of out) if (!(await canMapClientScope(ctx, realm, role))) throw forbidden();
  return [...new Map(out.map((r) => [r.id, r])).values()];
}

/** POST .../scope-mappings/realm, .../clients/{client}: adds roles to the scope (idempotent). */
export async function addScopeMappingsTo(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid: string | undefined,
  reps: ScopeRoleRep[] = [],
): Promise<void> {
  const t = await prepare(ctx, realm, owner, clientUuid, 'manage');
  const roles = await rolesOfBody(ctx, realm, t, reps);
  if (!roles.length) return;
  await ctx.db.transaction(async () => {
    await lockLinkedRoles(
      ctx,
      roles.map((r) => r.id),
      'Role not found',
    );
    await ctx.db.models.ScopeMapping.bulkCreate(
      roles.map((r) => ({ ownerId: t.owner.id, roleId: r.id })),
      { ignoreDuplicates: true },
    );
    await recordAdminEvent(ctx, realm, { operationType: 'CREATE', ...eventOf(t), representation: reps });
  });
  invalidate.scopeMappings(ctx.loaders, t.owner.id);
}

/** DELETE .../scope-mappings/realm, .../clients/{client}: removes the listed roles, or all of the container when no body. */
export async function removeScopeMappings(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  clientUuid: string | undefined,
  reps?: ScopeRoleRep[],
): Promise<void> {
  const t = await prepare(ctx, realm, owner, clientUuid, 'manage');
  let roles: RoleModel[];
  if (reps === undefined) {
    // Without a body: the mapped roles the caller may map, the others stay (ScopeMappedResource).
    roles = [];
    for (const r of await rolesIn(ctx, t.containerId, await directIds(ctx, t.owner)))
      if (await canMapClientScope(ctx, realm, r)) roles.push(r);
  } else roles = await rolesOfBody(ctx, realm, t, reps);
  if (!roles.length) return;
  await ctx.db.transaction(async () => {
    await ctx.db.models.ScopeMapping.destroy({ where: { ownerId: t.owner.id, roleId: { [Op.in]: roles.map((r) => r.id) } } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', ...eventOf(t), representation: reps });
  });
  invalidate.scopeMappings(ctx.loaders, t.owner.id);
}
