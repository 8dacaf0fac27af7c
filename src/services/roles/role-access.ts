import { MASTER, can, check, hasAny, masterRealmRoles, type Capability } from '../../auth/permissions';
import { actorRoleIds } from '../user-storage/transient-users';
import { canManageUsers, canViewUsers, fgapUsers } from '../../auth/fgap';
import { canClientRoles } from '../../auth/fgap-clients';
import { fgapRoleGrant, type RoleGrant } from '../../auth/fgap-roles';
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
 * Who may do what with roles (reference §2.6, Keycloak's RolePermissions with FGAP v1): the role
 * container decides (realm roles: realm view/manage; client roles: client list/view/configure, by the
 * roles or the client's fine-grained permissions); mapping a role, adding it as a composite or to a
 * scope has its own decision (canMapRole, canMapComposite, canMapClientScope: roles first, then the
 * permissions of src/auth/fgap-roles.ts) with the privilege-escalation guard (checkAdminRoles) that
 * protects admin roles. Also the `{roleOwner}` and role lookups shared by roles, composites and role mappings.
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

const ACCESS: { realm: Record<RoleAccess, Capability> } = {
  realm: { list: 'listRealmRoles', view: 'viewRealm', manage: 'manageRealm' },
};

/**
 * True when the caller may list, view or manage the roles of the owner (RolePermissions#canList /
 * canView / canManage(container)): realm roles by the realm roles only; client roles as the client
 * decides (src/auth/fgap-clients.ts: list and view ⇐ view of the client, manage ⇐ configure).
 */
export async function canAccessRoles(ctx: RequestContext, owner: RoleOwner, access: RoleAccess): Promise<boolean> {
  // The system itself (an import of master, which brings these clients) may; no caller may.
  if (access === 'manage' && ctx.actor && owner.kind === 'client' && isMasterAdminClient(owner.realm, owner.client)) return false;
  if (owner.kind === 'realm') return hasAny(ctx, owner.realm, ...can[ACCESS.realm[access]]);
  return canClientRoles(ctx, owner.realm, owner.client, access);
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
  // A role read by the roleById loader knows whether it has composites; others ask the composites loader.
  const known = roles.map((r) => r.getDataValue('hasComposites' as keyof RoleModel) as unknown);
  const unknown = roles.filter((_, i) => known[i] === undefined || known[i] === null);
  const children = unknown.length ? await ctx.loaders.childIdsByRoles.load(unknown.map((r) => r.id)) : [];
  const composite = new Map(unknown.map((r, i) => [r.id, Array.isArray(children[i]) && (children[i] as string[]).length > 0]));
  return roles.map((r, i) => toRoleRepresentation(r, composite.get(r.id) ?? (known[i] === true || Number(known[i]) === 1), brief));
}

/** Role names that carry admin power (AdminRoles.ALL_ROLES). */
const ADMIN_ROLE_NAMES = new Set<string>([...ALL_REALM_ROLES, 'impersonation', 'admin', 'create-realm', 'realm-admin']);

type Power = (ctx: RequestContext, realm: RealmModel) => Promise<boolean>;
const anyOf =
  (...roles: string[]): Power =>
  (ctx, realm) =>
    hasAny(ctx, realm, ...roles);
const always: Power = async () => true;

/**
 * For a role of the realm's own admin client: what the caller must be able to do to map it
 * (RolePermissions#checkAdminRoles): the users powers with their fine-grained permissions, the others
 * by the admin roles; the query roles are free. Names missing here (`realm-admin`) need the role itself.
 */
const EQUIVALENT: Record<string, Power> = {
  'create-client': anyOf('manage-clients'),
  'manage-clients': anyOf('manage-clients'),
  'view-clients': anyOf(...can.viewClients),
  'query-clients': always,
  'view-realm': anyOf(...can.viewRealm),
  'query-realms': always,
  'manage-realm': anyOf(...can.manageRealm),
  'view-users': canViewUsers,
  'query-users': always,
  'query-groups': always,
  'manage-users': canManageUsers,
  'view-events': anyOf(...can.viewEvents),
  'manage-events': anyOf(...can.manageEvents),
  'view-identity-providers': anyOf('view-identity-providers', 'manage-identity-providers'),
  'manage-identity-providers': anyOf('manage-identity-providers'),
  'view-authorization': anyOf('view-authorization', 'manage-authorization'),
  'manage-authorization': anyOf('manage-authorization'),
  impersonation: async (ctx, realm) => (await check(ctx, realm, 'impersonate')) || fgapUsers(ctx, realm, 'impersonate'),
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
 * Privilege-escalation guard (RolePermissions#checkAdminRoles): an admin role may only be mapped (or
 * added as a composite, or to a scope) by a caller who holds it, or holds the equivalent power for
 * roles of the realm's own admin client, or is master `admin`. Master `admin`/`create-realm`, roles of
 * the `*-realm` clients in master and `realm-admin` need the role itself.
 */
export async function checkAdminRoles(ctx: RequestContext, realm: RealmModel, role: RoleModel): Promise<boolean> {
  const actor = ctx.actor;
  if (!actor || !ADMIN_ROLE_NAMES.has(role.name)) return true;
  if ((await actorRoleIds(ctx)).has(role.id)) return true;
  if ((await masterRealmRoles(ctx)).has('admin')) return true;
  if (role.clientId && role.clientId === (await ownAdminClientId(ctx, realm))) {
    const equivalent = EQUIVALENT[role.name];
    return equivalent ? equivalent(ctx, realm) : false;
  }
  if (!role.clientId) {
    const container = await ctx.loaders.realmById.load(role.containerId);
    return container?.name !== MASTER;
  }
  const client = await ctx.loaders.clientById.load(role.clientId);
  const container = client && (await ctx.loaders.realmById.load(client.realmId));
  return !(client && container && isMasterAdminClient(container, client));
}

/** A permission's grant, with the escalation guard where Keycloak keeps it. */
async function granted(ctx: RequestContext, realm: RealmModel, role: RoleModel, grant: RoleGrant): Promise<boolean> {
  return grant === 'free' || (grant === 'guarded' && (await checkAdminRoles(ctx, realm, role)));
}

/**
 * RolePermissions#canMapRole: may the caller map this role to a user or group (the owner's own check,
 * map-roles of the user or manage of the group, comes first)? manage-users and the escalation guard;
 * else map-roles of the role's client, or the role's map-role permission and the guard.
 */
export async function canMapRole(ctx: RequestContext, realm: RealmModel, role: RoleModel): Promise<boolean> {
  if (!ctx.actor) return true;
  if (await check(ctx, realm, 'manageUsers')) return checkAdminRoles(ctx, realm, role);
  return granted(ctx, realm, role, await fgapRoleGrant(ctx, realm, role, 'map-role'));
}

/** Throws 403 unless the caller may map every one of the roles. */
export async function requireMapRoles(ctx: RequestContext, realm: RealmModel, roles: RoleModel[]): Promise<void> {
  for (const r of roles) if (!(await canMapRole(ctx, realm, r))) throw forbidden();
}

/** The admin role that manages a container by default: manage-realm for realm roles, manage-clients for client roles. */
const managesByRole = (ctx: RequestContext, realm: RealmModel, clientId: string | null) =>
  check(ctx, realm, clientId ? 'manageClients' : 'manageRealm');

/**
 * RolePermissions#canMapComposite: may the caller add `child` to the composite `parent` (whose
 * container he manages)? The admin role that manages the child's container (Keycloak) or the
 * parent's (idserver's rule before fine-grained permissions, kept), and the escalation guard; else
 * map-roles-composite of the child's client, or the child's map-role-composite permission and the guard.
 */
export async function canMapComposite(ctx: RequestContext, realm: RealmModel, child: RoleModel, parent: RoleRefLike): Promise<boolean> {
  if (!ctx.actor) return true;
  if ((await managesByRole(ctx, realm, child.clientId)) || (await managesByRole(ctx, realm, parent.clientId)))
    return checkAdminRoles(ctx, realm, child);
  return granted(ctx, realm, child, await fgapRoleGrant(ctx, realm, child, 'map-role-composite'));
}

/** A role or what a create body will make of one: only its container matters here. */
export type RoleRefLike = { clientId: string | null };

/** Throws 403 unless the caller may add every one of the roles as a composite of `parent`. */
export async function requireMapComposites(ctx: RequestContext, realm: RealmModel, roles: RoleModel[], parent: RoleRefLike): Promise<void> {
  for (const r of roles) if (!(await canMapComposite(ctx, realm, r, parent))) throw forbidden();
}

/**
 * RolePermissions#canMapClientScope: may the caller put this role in a client's or client scope's
 * scope (whose owner he may manage or configure)? manage-clients; else map-roles-client-scope of the
 * role's client, or the role's map-role-client-scope permission. idserver keeps the escalation guard on
 * every path (Keycloak has none here).
 */
export async function canMapClientScope(ctx: RequestContext, realm: RealmModel, role: RoleModel): Promise<boolean> {
  if (!ctx.actor) return true;
  const byRole = await check(ctx, realm, 'manageClients');
  if (!byRole && !(await fgapRoleGrant(ctx, realm, role, 'map-role-client-scope'))) return false;
  return checkAdminRoles(ctx, realm, role);
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
