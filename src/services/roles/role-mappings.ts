import { Op } from 'sequelize';
import type { AdminEventInput } from '../../core/admin-events';
import { requireViewUser } from '../../auth/fgap';
import { canGroup, canMapRolesOfUser } from '../../auth/fgap-roles';
import type { ClientModel } from '../../db/models/client';
import type { GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserModel } from '../../db/models/user';
import { forbidden, notFound } from '../../core/errors';
import { type MappingsRep, type RoleRep, toMappingsRepresentation } from '../../representations/role';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { invalidate } from '../../loaders/invalidate';
import { findClient } from '../clients/clients';
import { findGroup } from '../groups/group-queries';
import { resolveUser } from '../users/users';
import { federatedMembershipAdd, federatedMembershipRemove } from '../user-storage/membership-writes';
import { adoptHardcodedRows } from '../user-storage/hardcoded-mappers';
import { canMapRole, lockLinkedRoles, requireMapRoles, roleReps } from './role-access';
import { isTransient, refuseTransientWrite, transientEffectiveRoleIds, userRoleIds } from '../user-storage/transient-users';

/**
 * Role mappings of users and groups — the seed's `{owner}/{id}/role-mappings` family, one
 * implementation parameterised by the owner type (reference §6.4–6.5). `clientUuid` undefined
 * means the realm-role endpoints (`role-mappings/realm...`), otherwise `role-mappings/clients/{uuid}...`.
 */
export type MappingOwnerType = 'users' | 'groups';

/** The `{owner}/{id}` of role mappings, resolved once per request by the front (REST: `userOf` / `groupOf`). */
export type MappingOwner = { type: 'users'; model: UserModel } | { type: 'groups'; model: GroupModel };

export const userMappingOwner = (user: UserModel): MappingOwner => ({ type: 'users', model: user });
export const groupMappingOwner = (group: GroupModel): MappingOwner => ({ type: 'groups', model: group });

/** Resolves `{owner}/{id}`: unknown user → 404 `User not found` (403 when the caller cannot query users); unknown group → 404. */
export async function resolveMappingOwner(
  ctx: RequestContext,
  realm: RealmModel,
  type: MappingOwnerType,
  id: string,
): Promise<MappingOwner> {
  return type === 'users' ? userMappingOwner(await resolveUser(ctx, realm, id)) : groupMappingOwner(await findGroup(ctx, realm, id));
}

/**
 * The owner's check (RoleMapperResource's view / manage check): a user's mappings need view of the user
 * (UserPermissions#requireView(user)) or map-roles of the user (#requireMapRoles(user)); a group's need
 * view or manage of the group. Roles first, then the fine-grained permissions (src/auth/fgap-roles.ts).
 */
async function requireOwner(ctx: RequestContext, realm: RealmModel, owner: MappingOwner, access: 'view' | 'manage'): Promise<void> {
  if (owner.type === 'users') {
    if (access === 'view') return requireViewUser(ctx, realm, owner.model.id);
    if (!(await canMapRolesOfUser(ctx, realm, owner.model.id))) throw forbidden();
    return;
  }
  if (!(await canGroup(ctx, realm, owner.model.id, access))) throw forbidden();
}

/** Container (realm or client; unknown client → 404 `Client not found`) and the owner's check, after the owner. */
async function prepare(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid: string | undefined,
  access: 'view' | 'manage',
) {
  let client: ClientModel | undefined;
  if (clientUuid !== undefined) {
    client = (await findClient(ctx, realm, clientUuid)) ?? undefined;
    if (!client) throw notFound('Client not found');
  }
  await requireOwner(ctx, realm, owner, access);
  return { containerId: client ? client.id : realm.id };
}

const directRoleIds = (ctx: RequestContext, o: MappingOwner) =>
  o.type === 'users' ? userRoleIds(ctx, o.model) : ctx.loaders.roleIdsByGroup.load(o.model.id);
const effectiveRoleIds = (ctx: RequestContext, o: MappingOwner) => {
  if (o.type === 'users' && isTransient(o.model)) return transientEffectiveRoleIds(ctx.db, o.model);
  return o.type === 'users' ? ctx.loaders.effectiveRoleIdsByUser.load(o.model.id) : ctx.loaders.effectiveRoleIdsByGroup.load(o.model.id);
};

/** After a mapping write: the owner's direct mappings and every effective set (members and subgroups inherit). */
function clearOwner(ctx: RequestContext, o: MappingOwner): void {
  invalidate.roleMappings(ctx.loaders, o.type === 'users' ? { userIds: [o.model.id] } : { groupIds: [o.model.id] });
  ctx.memo.clear();
}

const byName = (a: RoleModel, b: RoleModel) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The roles among the given ids, of one container (all containers when undefined), ordered by
 * name; read through the per-request loader, so the roles of N owners cost one statement.
 */
async function rolesIn(ctx: RequestContext, containerId: string | undefined, ids: Iterable<string>): Promise<RoleModel[]> {
  const list = [...ids];
  if (!list.length) return [];
  const roles = (await ctx.loaders.rolesByIds.load(list)).filter(
    (r): r is RoleModel => !!r && !(r instanceof Error) && (containerId === undefined || r.containerId === containerId),
  );
  return roles.sort(byName);
}

/** GET {owner}/{id}/role-mappings: direct realm and client mappings (MappingsRepresentation). */
export async function getRoleMappings(ctx: RequestContext, realm: RealmModel, owner: MappingOwner): Promise<MappingsRep> {
  await prepare(ctx, realm, owner, undefined, 'view');
  const ids = await directRoleIds(ctx, owner);
  const roles = (await ctx.loaders.roleById.loadMany(ids)).filter((r): r is RoleModel => !!r && !(r instanceof Error)).sort(byName);
  const realmRoles = roles.filter((r) => !r.clientId);
  const clientIds = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const clients = (await ctx.loaders.clientById.loadMany(clientIds)).filter((c): c is ClientModel => !!c && !(c instanceof Error));
  clients.sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  const reps = await roleReps(ctx, roles);
  const repOf = new Map(roles.map((r, i) => [r.id, reps[i]]));
  return toMappingsRepresentation(
    realmRoles.map((r) => repOf.get(r.id) as RoleRep),
    clients.map((client) => ({
      client,
      roles: roles.filter((r) => r.clientId === client.id).map((r) => repOf.get(r.id) as RoleRep),
    })),
  );
}

/** GET {owner}/{id}/role-mappings/realm, .../clients/{uuid}: direct mappings of the container (brief). */
export async function listMappedRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid?: string,
): Promise<RoleRep[]> {
  const { containerId } = await prepare(ctx, realm, owner, clientUuid, 'view');
  return roleReps(ctx, await rolesIn(ctx, containerId, await directRoleIds(ctx, owner)));
}

/**
 * The owner's direct mappings of one container after the caller changed them (GraphQL's mapping
 * mutations answer with them): the write's own checks stood, so no view check is asked. A caller
 * granted map-roles on users without view of this user (fine-grained permissions) gets the answer to
 * the write he was allowed to make, not a 403 after it committed.
 */
export async function writtenMappings(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid?: string,
): Promise<RoleRep[]> {
  const client = clientUuid === undefined ? undefined : await findClient(ctx, realm, clientUuid);
  return roleReps(ctx, await rolesIn(ctx, client ? client.id : realm.id, await directRoleIds(ctx, owner)));
}

/** GET .../realm/composite, .../clients/{uuid}/composite: effective roles (composites, groups, parent groups). */
export async function listEffectiveRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid?: string,
  brief = true,
): Promise<RoleRep[]> {
  const { containerId } = await prepare(ctx, realm, owner, clientUuid, 'view');
  return roleReps(ctx, await rolesIn(ctx, containerId, await effectiveRoleIds(ctx, owner)), brief);
}

/**
 * GraphQL `User.effectiveRoles`, `Group.effectiveRoles`: the `.../composite` endpoints over every
 * container at once — effective realm roles first, then client roles, each by name.
 */
export async function listAllEffectiveRoles(ctx: RequestContext, realm: RealmModel, owner: MappingOwner, brief = true): Promise<RoleRep[]> {
  await prepare(ctx, realm, owner, undefined, 'view');
  const roles = (await rolesIn(ctx, undefined, await effectiveRoleIds(ctx, owner))).filter((r) => r.realmId === realm.id);
  const clientLast = (r: RoleModel) => (r.clientId ? 1 : 0);
  return roleReps(
    ctx,
    roles.sort((a, b) => clientLast(a) - clientLast(b) || byName(a, b)),
    brief,
  );
}

/** GET .../realm/available, .../clients/{uuid}/available: roles the caller may map that are not directly mapped. */
export async function listAvailableRoles(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid?: string,
): Promise<RoleRep[]> {
  const { containerId } = await prepare(ctx, realm, owner, clientUuid, 'view');
  const direct = new Set(await directRoleIds(ctx, owner));
  const candidates = (await ctx.loaders.rolesByContainer.load(containerId)).filter((r) => !direct.has(r.id));
  const allowed: RoleModel[] = [];
  for (const r of candidates) if (await canMapRole(ctx, realm, r)) allowed.push(r);
  return roleReps(ctx, allowed);
}

/** Each body entry must name a role of the container by `name` with the matching `id`, else 404 `Role not found`. */
async function rolesOfBody(ctx: RequestContext, realm: RealmModel, containerId: string, reps: RoleRep[]): Promise<RoleModel[]> {
  const names = [...new Set(reps.map((r) => r.name).filter((n): n is string => typeof n === 'string'))];
  const found = names.length ? await ctx.db.models.Role.findAll({ where: { containerId, name: { [Op.in]: names } } }) : [];
  const out: RoleModel[] = [];
  for (const rep of reps) {
    const role = found.find((r) => r.name === rep.name);
    if (!role || role.id !== rep.id) throw notFound('Role not found');
    if (!(await canMapRole(ctx, realm, role))) throw forbidden();
    out.push(role);
  }
  return [...new Map(out.map((r) => [r.id, r])).values()];
}

/** REALM_ROLE_MAPPING / CLIENT_ROLE_MAPPING event at `{owner}/{id}/role-mappings/realm|clients/{uuid}` (Appendix D). */
const mappingEvent = (
  operationType: 'CREATE' | 'DELETE',
  owner: MappingOwner,
  clientUuid: string | undefined,
  roles: unknown[],
): AdminEventInput => ({
  operationType,
  resourceType: clientUuid ? 'CLIENT_ROLE_MAPPING' : 'REALM_ROLE_MAPPING',
  resourcePath: `${owner.type}/${owner.model.id}/role-mappings/${clientUuid ? `clients/${clientUuid}` : 'realm'}`,
  representation: roles,
});

/** POST {owner}/{id}/role-mappings/realm, .../clients/{uuid}: grants roles (idempotent). */
export async function addRoleMappingsTo(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid: string | undefined,
  reps: RoleRep[] = [],
): Promise<void> {
  const { containerId } = await prepare(ctx, realm, owner, clientUuid, 'manage');
  const roles = await rolesOfBody(ctx, realm, containerId, reps);
  if (!roles.length) return;
  // A transient federated user holds no mappings (ADR 46): Keycloak's RoleMapperResource answers its ReadOnlyException so.
  if (owner.type === 'users') refuseTransientWrite(owner.model, 'role mapping', 'Could not add user role mappings!');
  if (owner.type === 'users') for (const role of roles) await federatedMembershipAdd(ctx, realm, owner.model, { kind: 'role', role });
  await ctx.db.transaction(async () => {
    await lockLinkedRoles(
      ctx,
      roles.map((r) => r.id),
      'Role not found',
    );
    if (owner.type === 'users') {
      await ctx.db.models.UserRoleMapping.bulkCreate(
        roles.map((r) => ({ userId: owner.model.id, roleId: r.id })),
        { ignoreDuplicates: true },
      );
      await adoptHardcodedRows(ctx.db, owner.model, { roleIds: roles.map((r) => r.id) });
    } else {
      await ctx.db.models.GroupRoleMapping.bulkCreate(
        roles.map((r) => ({ groupId: owner.model.id, roleId: r.id })),
        { ignoreDuplicates: true },
      );
    }
    await recordAdminEvent(ctx, realm, mappingEvent('CREATE', owner, clientUuid, reps));
  });
  clearOwner(ctx, owner);
}

/** DELETE {owner}/{id}/role-mappings/realm, .../clients/{uuid}: removes the listed direct mappings, or all of the container when no body. */
export async function removeRoleMappings(
  ctx: RequestContext,
  realm: RealmModel,
  owner: MappingOwner,
  clientUuid: string | undefined,
  reps?: RoleRep[],
): Promise<void> {
  const { containerId } = await prepare(ctx, realm, owner, clientUuid, 'manage');
  let roles: RoleModel[];
  if (reps === undefined) {
    roles = await rolesIn(ctx, containerId, await directRoleIds(ctx, owner));
    await requireMapRoles(ctx, realm, roles);
  } else roles = await rolesOfBody(ctx, realm, containerId, reps);
  if (!roles.length) return;
  if (owner.type === 'users') refuseTransientWrite(owner.model, 'role mapping', 'Could not remove user role mappings!');
  if (owner.type === 'users') for (const role of roles) await federatedMembershipRemove(ctx, realm, owner.model, { kind: 'role', role });
  const roleId = { [Op.in]: roles.map((r) => r.id) };
  await ctx.db.transaction(async () => {
    if (owner.type === 'users') await ctx.db.models.UserRoleMapping.destroy({ where: { userId: owner.model.id, roleId } });
    else await ctx.db.models.GroupRoleMapping.destroy({ where: { groupId: owner.model.id, roleId } });
    await recordAdminEvent(ctx, realm, mappingEvent('DELETE', owner, clientUuid, reps ?? roles.map((r) => ({ id: r.id, name: r.name }))));
  });
  clearOwner(ctx, owner);
}
