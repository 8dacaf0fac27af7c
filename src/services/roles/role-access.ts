import { MASTER, can, hasAny, masterRealmRoles, type Capability } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { forbidden, notFound } from '../../core/errors';
import { type RoleRep, toRoleRepresentation } from '../../representations/role';
import { isMasterAdminClient, resolveClient } from '../clients/clients';
import { memo, type RequestContext } from '../../core/context';
import { batchLoad } from '../../loaders/batch';
import { Op, Transaction } from 'sequelize';
import { ALL_REALM_ROLES } from '../../keycloak/realm-defaults';

/**
 * Who may do what with roles (reference §2.6): the role container decides (realm roles: realm
 * view/manage; client roles: client list/view/configure), plus the privilege-escalation guard that
 * protects admin roles when they are mapped or added as composites. Also the `{roleOwner}` and
 * role lookups shared by roles, composites and role mappings.
 */

/** The container of roles: the realm itself, or one of its clients. */
export type RoleOwner =
  | { kind: 'realm'; realm: RealmModel; containerId: string }
  | { kind: 'client'; realm: RealmModel; client: ClientModel; containerId: string };

export type RoleAccess = 'list' | 'view' | 'manage';

/** How a request names one role: by name within an owner (`clientUuid` absent = realm role) or by id. */
export type RoleLocator = { name: string; clientUuid?: string } | { id: string };

export const realmOwner = (realm: RealmModel): RoleOwner => ({ kind: 'realm', realm, containerId: realm.id });
export const clientOwner = (realm: RealmModel, client: ClientModel): RoleOwner => ({
  kind: 'client',
  realm,
  client,
  containerId: client.id,
});

/** Resolves `{roleOwner}`: the realm, or `clients/{uuid}` (unknown → 404 `Could not find client`, or 403). */
export async function resolveRoleOwner(ctx: RequestContext, realm: RealmModel, clientUuid?: string): Promise<RoleOwner> {
  if (clientUuid === undefined) return realmOwner(realm);
  return clientOwner(realm, await resolveClient(ctx, realm, clientUuid));
}

const ACCESS: Record<RoleOwner['kind'], Record<RoleAccess, Capability>> = {
  realm: { list: 'listRealmRoles', view: 'viewRealm', manage: 'manageRealm' },
  client: { list: 'queryClients', view: 'viewClients', manage: 'manageClients' },
};

/** True when the caller may list, view or manage the roles of the owner. */
export async function canAccessRoles(ctx: RequestContext, owner: RoleOwner, access: RoleAccess): Promise<boolean> {
  // The system itself (an import of master, which brings these clients) may; no caller may.
  if (access === 'manage' && ctx.actor && owner.kind === 'client' && isMasterAdminClient(owner.realm, owner.client)) return false;
  return hasAny(ctx, owner.realm, ...can[ACCESS[owner.kind][access]]);
}

export async function requireRoleAccess(ctx: RequestContext, owner: RoleOwner, access: RoleAccess): Promise<void> {
  if (!(await canAccessRoles(ctx, owner, access))) throw forbidden();
}

/** The owner of an existing role of the realm. */
export async function ownerOfRole(ctx: RequestContext, realm: RealmModel, role: RoleModel): Promise<RoleOwner> {
  if (!role.clientId) return realmOwner(realm);
  const client = await ctx.loaders.clientById.load(role.clientId);
  if (!client) throw notFound('Could not find role with id');
  return clientOwner(realm, client);
}

/**
 * Finds one role and checks access on its container. By name: the container check comes first
 * (403), then 404 `Could not find role`. By id: 404 `Could not find role with id`, then the check.
 */
export async function locateRole(
  ctx: RequestContext,
  realm: RealmModel,
  loc: RoleLocator,
  access: RoleAccess,
): Promise<{ role: RoleModel; owner: RoleOwner }> {
  if ('id' in loc) {
    const role = await ctx.loaders.roleById.load(loc.id);
    if (!role || role.realmId !== realm.id) throw notFound('Could not find role with id');
    const owner = await ownerOfRole(ctx, realm, role);
    await requireRoleAccess(ctx, owner, access);
    return { role, owner };
  }
  const owner = await resolveRoleOwner(ctx, realm, loc.clientUuid);
  await requireRoleAccess(ctx, owner, access);
  const where = { containerId: owner.containerId, name: loc.name };
  const role =
    (await batchLoad(ctx.memo, 'roles-by-name', (keys: readonly RoleName[]) => rolesByName(ctx, keys), where)) ??
    // No exact match: the database's own comparison has the last word (MariaDB ignores trailing spaces).
    (await ctx.db.models.Role.findOne({ where }));
  if (!role) throw notFound('Could not find role');
  return { role, owner };
}

type RoleName = { containerId: string; name: string };

/** Roles by container and name (in key order, null when missing): the lookups of one request tick in one statement. */
async function rolesByName(ctx: RequestContext, keys: readonly RoleName[]): Promise<Array<RoleModel | null>> {
  const byContainer = new Map<string, Set<string>>();
  for (const k of keys) byContainer.set(k.containerId, (byContainer.get(k.containerId) ?? new Set()).add(k.name));
  const rows = await ctx.db.models.Role.findAll({
    where: { [Op.or]: [...byContainer].map(([containerId, names]) => ({ containerId, name: { [Op.in]: [...names] } })) },
  });
  const found = new Map(rows.map((r) => [`${r.containerId}\u0000${r.name}`, r]));
  return keys.map((k) => found.get(`${k.containerId}\u0000${k.name}`) ?? null);
}

/** Role representations with their `composite` flags, loaded in one batch (the roles are primed for later lookups by id). */
export async function roleReps(ctx: RequestContext, roles: RoleModel[], brief = true): Promise<RoleRep[]> {
  for (const r of roles) ctx.loaders.roleById.prime(r.id, r);
  const children = await ctx.loaders.childIdsByRoles.load(roles.map((r) => r.id));
  return roles.map((r, i) => {
    const c = children[i];
    return toRoleRepresentation(r, Array.isArray(c) && c.length > 0, brief);
  });
}

/** Role names that carry admin power (AdminRoles.ALL_ROLES). */
const ADMIN_ROLE_NAMES = new Set<string>([...ALL_REALM_ROLES, 'impersonation', 'admin', 'create-realm', 'realm-admin']);

/** For a role of the realm's own admin client: the admin roles that grant the equivalent power. */
const EQUIVALENT: Record<string, string[]> = {
  'create-client': ['manage-clients'],
  'manage-clients': ['manage-clients'],
  'view-clients': can.viewClients,
  'query-clients': can.queryClients,
  'view-realm': can.viewRealm,
  'query-realms': ['query-realms', ...can.viewRealm],
  'manage-realm': can.manageRealm,
  'view-users': can.viewUsers,
  'query-users': can.queryUsers,
  'query-groups': can.queryGroups,
  'manage-users': can.manageUsers,
  'view-events': can.viewEvents,
  'manage-events': can.manageEvents,
  'view-identity-providers': ['view-identity-providers', 'manage-identity-providers'],
  'manage-identity-providers': ['manage-identity-providers'],
  'view-authorization': ['view-authorization', 'manage-authorization'],
  'manage-authorization': ['manage-authorization'],
  impersonation: can.impersonate,
};

/** The client whose roles administer the realm: `realm-management`, or `master-realm` in master. */
async function ownAdminClientId(ctx: RequestContext, realm: RealmModel): Promise<string | undefined> {
  const clientId = realm.name === MASTER ? `${MASTER}-realm` : 'realm-management';
  return memo(
    ctx,
    `own-admin-client:${realm.id}`,
    async () => (await ctx.db.models.Client.findOne({ where: { realmId: realm.id, clientId }, attributes: ['id'] }))?.id,
  );
}

/**
 * Privilege-escalation guard (`canMapRole` / `canMapComposite`): an admin role may only be mapped
 * (or added as a composite) by a caller who holds it, or holds the equivalent power for roles of
 * the realm's own admin client, or is master `admin`. Master `admin`/`create-realm`, roles of the
 * `*-realm` clients in master and `realm-admin` need the role itself.
 */
export async function canMapRole(ctx: RequestContext, realm: RealmModel, role: RoleModel): Promise<boolean> {
  const actor = ctx.actor;
  if (!actor || !ADMIN_ROLE_NAMES.has(role.name)) return true;
  if ((await ctx.loaders.effectiveRoleIdsByUser.load(actor.userId)).has(role.id)) return true;
  if ((await masterRealmRoles(ctx)).has('admin')) return true;
  if (role.clientId && role.clientId === (await ownAdminClientId(ctx, realm))) {
    const equivalent = EQUIVALENT[role.name];
    return equivalent ? hasAny(ctx, realm, ...equivalent) : false;
  }
  if (!role.clientId) {
    const container = await ctx.loaders.realmById.load(role.containerId);
    return container?.name !== MASTER;
  }
  const client = await ctx.loaders.clientById.load(role.clientId);
  const container = client && (await ctx.loaders.realmById.load(client.realmId));
  return !(client && container && isMasterAdminClient(container, client));
}

/** Throws 403 unless the caller may map every one of the roles. */
export async function requireMapRoles(ctx: RequestContext, realm: RealmModel, roles: RoleModel[]): Promise<void> {
  for (const r of roles) if (!(await canMapRole(ctx, realm, r))) throw forbidden();
}

/**
 * Inside the transaction of a write that links roles (mappings, composites, scope mappings): the
 * roles must still exist, read again under a shared lock (MySQL; SQLite has one writer anyway). A
 * concurrent `deleteRole` then either waits for this write and removes its links with the rest, or
 * has committed first and this write answers 404 `message`: never a link to a deleted role.
 */
export async function lockLinkedRoles(ctx: RequestContext, ids: string[], message: string): Promise<void> {
  const unique = [...new Set(ids)];
  const found = await ctx.db.models.Role.findAll({
    where: { id: { [Op.in]: unique } },
    attributes: ['id'],
    lock: Transaction.LOCK.SHARE,
  });
  if (found.length < unique.length) throw notFound(message);
}
