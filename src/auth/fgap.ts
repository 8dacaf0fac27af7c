import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import { memo, type RequestContext } from '../core/context';
import { forbidden } from '../core/errors';
import { effectiveRoleIdsForUsers } from '../core/effective-roles';
import { TOP_LEVEL } from '../db/models/group';
import type { RealmModel } from '../db/models/realm';
import { check } from './permissions';
import { transientActor, transientMemberships } from '../services/user-storage/transient-users';
import { loadAuthzIdentity, loadAuthzModel } from '../services/authz/authz-model';
import { type AuthzIdentity, type AuthzIndex, type AuthzRealm, evaluateAuthorization } from '../services/authz/evaluation';

/**
 * Fine-grained admin permissions, evaluated (Keycloak 26 FGAP v1: MgmtPermissions#evaluatePermission,
 * UserPermissions, GroupPermissions). Each predicate answers what Keycloak's answers *beyond* the
 * admin roles; callers ask only after the role check failed, so an admin whose roles decide pays
 * nothing, and a realm without fine-grained permissions pays one statement (`fgapOn`) per request
 * that a role check refused.
 *
 * Rules kept from Keycloak: only an admin of the realm itself is evaluated (a master admin managing
 * another realm is not); an object's permission counts only when its resource exists and the named
 * permission has policies attached; the decision is the authorization services' decision on the
 * object's resource and the scope, for the caller's identity (its stored effective roles and groups).
 *
 * Batching: the resource server's model (5 statements) and the caller's identity (at most 6) are read
 * once per request; every decision after that is computed in memory, so deciding a page of 100 users
 * or groups costs the same SQL as deciding one (plus one statement for the users' groups).
 */

const RS_SQL = `SELECT c.id AS id FROM client c
  WHERE c.realm_id = :realm AND c.client_id = :clientId
  AND EXISTS (SELECT 1 FROM resource_server_policy p JOIN associated_policy a ON a.policy_id = p.id
    WHERE p.resource_server_id = c.id AND p.type IN ('scope', 'resource'))`;

interface Fgap {
  ix: AuthzIndex;
  identity: AuthzIdentity;
  realm: AuthzRealm;
  /** Decisions of this request, by `resource#scope`. */
  decided: Map<string, boolean>;
  /** The resource server's policies by name, built on the first decision. */
  byName?: Map<string, { associatedIds: readonly unknown[] }>;
}

/**
 * The resource server of the realm's admin client when some permission on it has policies attached
 * (fine-grained permissions are in use), else null. One statement, memoised for the request.
 */
export function fgapOn(ctx: RequestContext, realm: RealmModel): Promise<string | null> {
  return memo(ctx, `fgap-on:${realm.id}`, async () => {
    const clientId = realm.name === 'master' ? 'master-realm' : 'realm-management';
    const rows = await ctx.db.sequelize.query<{ id: string }>(RS_SQL, {
      replacements: { realm: realm.id, clientId },
      type: QueryTypes.SELECT,
    });
    return rows[0]?.id ?? null;
  });
}

/** The memo key of `loaded` (the model and the caller's identity of one realm, for this request). */
const loadedKey = (realm: RealmModel) => `fgap:${realm.id}`;

/** Whether `loaded` was asked for this realm in this request (its model can be reused without reading it). */
export const isLoaded = (ctx: RequestContext, realm: RealmModel): boolean => ctx.memo.has(loadedKey(realm));

/** The model and the caller's identity, once per request; null when nothing is to be evaluated. */
export function loaded(ctx: RequestContext, realm: RealmModel): Promise<Fgap | null> {
  return memo(ctx, loadedKey(realm), async () => {
    const actor = ctx.actor;
    // isAdminSameRealm: only the realm's own admins are evaluated.
    if (!actor || actor.realmId !== realm.id) return null;
    const rsId = await fgapOn(ctx, realm);
    if (!rsId) return null;
    const ix = await loadAuthzModel(ctx.db, rsId);
    if (!ix) return null;
    // A transient federated caller (ADR 46) has no rows: its roles and groups come from its directory entry.
    const transient = actor.roleIds ? await transientActor(ctx) : null;
    const [effective, client, withoutRows] = await Promise.all([
      actor.roleIds
        ? actor.roleIds(ctx)
        : effectiveRoleIdsForUsers(ctx.db, [actor.userId]).then((m) => m.get(actor.userId) ?? new Set<string>()),
      ctx.db.models.Client.findByPk(actor.clientId, { attributes: ['id', 'clientId'] }),
      transient ? transientMemberships(ctx.db, transient).then((t) => t.groupIds) : undefined,
    ]);
    const { identity, realm: lookups } = await loadAuthzIdentity(ctx.db, ix, {
      realm,
      userId: actor.userId,
      isUser: true,
      client: client ? { id: client.id, clientId: client.clientId } : null,
      claims: {},
      extraRoles: [...effective],
      ...(withoutRows ? { withoutRows: { groupIds: withoutRows, effectiveRoleIds: [...effective] } } : {}),
    });
    return { ix, identity, realm: lookups, decided: new Map() };
  });
}

/**
 * Whether the permission `permissionName` (with policies attached) grants `scope` on the resource
 * named `resourceName` to the caller (Keycloak's `root.evaluatePermission(resource, scope, server)`).
 */
export async function fgapGrants(
  ctx: RequestContext,
  realm: RealmModel,
  resourceName: string,
  permissionNames: string[],
  scopes: string[],
): Promise<boolean> {
  const f = await loaded(ctx, realm);
  if (!f) return false;
  const resource = f.ix.resources.find((r) => r.serverOwned && r.name === resourceName);
  if (!resource) return false;
  const key = `${resource.id}#${scopes.join(',')}#${permissionNames.join(',')}`;
  const known = f.decided.get(key);
  if (known !== undefined) return known;
  f.byName ??= new Map([...f.ix.policyById.values()].map((p) => [p.name, p]));
  const byName = f.byName;
  // "if no policies attached to permission then just do default behavior"
  const armed = permissionNames.some((n) => (byName.get(n)?.associatedIds.length ?? 0) > 0);
  let granted = false;
  if (armed) {
    const outcome = evaluateAuthorization(f.ix, {
      identity: f.identity,
      realm: f.realm,
      permissions: [{ resource: resource.id, scopes }],
    });
    granted = outcome.permissions.length > 0;
  }
  f.decided.set(key, granted);
  return granted;
}

/** ClientPermissions' scopes on one client (raw: no implications; ClientPermissions#canX adds those). */
export type ClientScope =
  | 'view'
  | 'manage'
  | 'configure'
  | 'map-roles'
  | 'map-roles-client-scope'
  | 'map-roles-composite'
  | 'token-exchange';

/** The raw evaluation of one scope on one client (`<scope>.permission.client.<id>` on `client.resource.<id>`). */
export function fgapClientScope(ctx: RequestContext, realm: RealmModel, clientId: string, scope: ClientScope): Promise<boolean> {
  return fgapGrants(ctx, realm, `client.resource.${clientId}`, [`${scope}.permission.client.${clientId}`], [scope]);
}

/** RolePermissions' scopes on one role (raw: RolePermissions#canMapRole etc. add the role-container rules). */
export type RoleScope = 'map-role' | 'map-role-client-scope' | 'map-role-composite';

/** The raw evaluation of one scope on one role (`<scope>.permission.<id>` on `role.resource.<id>`). */
export function fgapRoleScope(ctx: RequestContext, realm: RealmModel, roleId: string, scope: RoleScope): Promise<boolean> {
  return fgapGrants(ctx, realm, `role.resource.${roleId}`, [`${scope}.permission.${roleId}`], [scope]);
}

/** UserPermissions' realm-wide scopes on the `Users` resource (`view` is granted by `manage` too). */
export type UsersScope = 'view' | 'manage' | 'map-roles' | 'manage-group-membership' | 'impersonate';
const USERS_PERMISSION: Record<UsersScope, string> = {
  view: 'view.permission.users',
  manage: 'manage.permission.users',
  'map-roles': 'map-roles.permission.users',
  'manage-group-membership': 'manage-group-membership.permission.users',
  impersonate: 'admin-impersonating.permission.users',
};

/** `users().canView()` / `canManage()` / ... beyond the roles: the `Users` resource's permissions. */
export async function fgapUsers(ctx: RequestContext, realm: RealmModel, scope: UsersScope): Promise<boolean> {
  if (scope === 'view') {
    // hasPermission(VIEW_SCOPE, MANAGE_SCOPE): either permission, either scope.
    const names = [USERS_PERMISSION.view, USERS_PERMISSION.manage];
    return (await fgapGrants(ctx, realm, 'Users', names, ['view'])) || (await fgapGrants(ctx, realm, 'Users', names, ['manage']));
  }
  return fgapGrants(ctx, realm, 'Users', [USERS_PERMISSION[scope]], [scope]);
}

/** GroupPermissions' scopes on one group. */
export type GroupScope = 'view' | 'manage' | 'view-members' | 'manage-members' | 'manage-membership';
const GROUP_PERMISSION: Record<GroupScope, (id: string) => string> = {
  view: (id) => `view.permission.group.${id}`,
  manage: (id) => `manage.permission.group.${id}`,
  'view-members': (id) => `view.members.permission.group.${id}`,
  'manage-members': (id) => `manage.members.permission.group.${id}`,
  'manage-membership': (id) => `manage.membership.permission.group.${id}`,
};

/** The raw evaluation of one scope on one group (no implications). */
export function groupScope(ctx: RequestContext, realm: RealmModel, groupId: string, scope: GroupScope): Promise<boolean> {
  return fgapGrants(ctx, realm, `group.resource.${groupId}`, [GROUP_PERMISSION[scope](groupId)], [scope]);
}

/**
 * GroupPermissions#canX(group) beyond the admin roles, with Keycloak's implications: view ⇐ manage;
 * view-members ⇐ users view, manage-members; manage-members ⇐ users manage; manage-membership ⇐ manage.
 */
export async function fgapGroup(ctx: RequestContext, realm: RealmModel, groupId: string, scope: GroupScope): Promise<boolean> {
  switch (scope) {
    case 'manage':
      return groupScope(ctx, realm, groupId, 'manage');
    case 'view':
      return (await groupScope(ctx, realm, groupId, 'view')) || (await groupScope(ctx, realm, groupId, 'manage'));
    case 'manage-members':
      return (await fgapUsers(ctx, realm, 'manage')) || (await groupScope(ctx, realm, groupId, 'manage-members'));
    case 'view-members':
      return (
        (await fgapUsers(ctx, realm, 'view')) ||
        (await groupScope(ctx, realm, groupId, 'view-members')) ||
        (await fgapGroup(ctx, realm, groupId, 'manage-members'))
      );
    case 'manage-membership':
      return (await groupScope(ctx, realm, groupId, 'manage-membership')) || (await groupScope(ctx, realm, groupId, 'manage'));
  }
}

/**
 * UserPermissions#canView(user) / canManage(user) beyond the roles, for many users at once: the
 * realm-wide `Users` permission, else a `view-members` (`manage-members`) grant on one of the user's
 * groups or their ancestors (canViewByGroup / canManageByGroup). One statement for all the users'
 * groups; the decisions themselves are in memory. Answers in the order of `userIds`.
 */
export async function fgapUsersByGroup(
  ctx: RequestContext,
  realm: RealmModel,
  userIds: string[],
  scope: 'view' | 'manage',
): Promise<boolean[]> {
  if (!userIds.length || !(await loaded(ctx, realm))) return userIds.map(() => false);
  if (await fgapUsers(ctx, realm, scope)) return userIds.map(() => true);
  const m = ctx.db.models;
  const [memberships, groups] = await Promise.all([
    m.UserGroupMembership.findAll({ where: { userId: userIds }, attributes: ['userId', 'groupId'], raw: true }),
    memo(ctx, `fgap-groups:${realm.id}`, () =>
      m.Group.findAll({ where: { realmId: realm.id }, attributes: ['id', 'parentId'], raw: true }),
    ),
  ]);
  const parent = new Map(groups.map((g) => [g.id, g.parentId]));
  const groupsOf = new Map<string, string[]>();
  for (const row of memberships as Array<{ userId: string; groupId: string }>)
    groupsOf.set(row.userId, [...(groupsOf.get(row.userId) ?? []), row.groupId]);
  const groupScopeName: GroupScope = scope === 'view' ? 'view-members' : 'manage-members';
  const decide = async (userId: string) => {
    for (const direct of groupsOf.get(userId) ?? []) {
      let g: string | undefined = direct;
      for (let depth = 0; g && g !== TOP_LEVEL && depth < 1000; depth++) {
        if (await fgapGroup(ctx, realm, g, groupScopeName)) return true;
        g = parent.get(g) ?? undefined;
      }
    }
    return false;
  };
  const out: boolean[] = [];
  for (const id of userIds) out.push(await decide(id));
  return out;
}

/*
 * The admin checks of UserPermissions / GroupPermissions as the users and groups services ask them:
 * the admin roles first (cached, free), the fine-grained permissions only when the roles refuse.
 */

/** UserPermissions#canView(): view-users / manage-users, else the `Users` resource's view or manage permission. */
export async function canViewUsers(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'viewUsers')) || fgapUsers(ctx, realm, 'view');
}

/** UserPermissions#canManage(): manage-users, else the `Users` resource's manage permission. */
export async function canManageUsers(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'manageUsers')) || fgapUsers(ctx, realm, 'manage');
}

/** UserPermissions#canQuery(): query-users (or view/manage) roles, else the users view permission. */
export async function canQueryUsers(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'queryUsers')) || fgapUsers(ctx, realm, 'view');
}

/** UserPermissions#canView(user) / canManage(user) for many users at once (in the order of `userIds`). */
export async function canUsers(ctx: RequestContext, realm: RealmModel, userIds: string[], scope: 'view' | 'manage'): Promise<boolean[]> {
  if (await check(ctx, realm, scope === 'view' ? 'viewUsers' : 'manageUsers')) return userIds.map(() => true);
  if (userIds.length !== 1) return fgapUsersByGroup(ctx, realm, userIds, scope);
  // One user at a time (a GraphQL resolver per user of a page): the questions asked in the same tick are
  // decided together, in one read of their memberships. Batching only: nothing is kept between ticks,
  // so a membership written later in the request is seen.
  const batch = await memo(
    ctx,
    `fgap-users-batch:${realm.id}:${scope}`,
    async () => new DataLoader<string, boolean>(async (ids) => fgapUsersByGroup(ctx, realm, [...ids], scope), { cache: false }),
  );
  return [await batch.load(userIds[0])];
}

/** 403 unless the caller may view this user (UserPermissions#requireView(user)). */
export async function requireViewUser(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  if (!(await canUsers(ctx, realm, [userId], 'view'))[0]) throw forbidden();
}

/** 403 unless the caller may manage this user (UserPermissions#requireManage(user)). */
export async function requireManageUser(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  if (!(await canUsers(ctx, realm, [userId], 'manage'))[0]) throw forbidden();
}

/**
 * UserPermissions#getAccess(user) for many users: view, manage, mapRoles, manageGroupMembership (each
 * implied by manage of that user, else the `Users` resource's own permission) and impersonate.
 * Admins whose roles decide everything pay nothing beyond the role checks.
 */
export async function usersAccess(ctx: RequestContext, realm: RealmModel, userIds: string[]): Promise<Array<Record<string, boolean>>> {
  const [view, manage, impersonateRole] = await Promise.all([
    canUsers(ctx, realm, userIds, 'view'),
    canUsers(ctx, realm, userIds, 'manage'),
    check(ctx, realm, 'impersonate'),
  ]);
  const everyManaged = manage.every(Boolean);
  const mapRoles = everyManaged || (await fgapUsers(ctx, realm, 'map-roles'));
  const membership = everyManaged || (await fgapUsers(ctx, realm, 'manage-group-membership'));
  const impersonate = impersonateRole || (await fgapUsers(ctx, realm, 'impersonate'));
  return userIds.map((_, i) => ({
    view: view[i],
    manage: manage[i],
    mapRoles: manage[i] || mapRoles,
    manageGroupMembership: manage[i] || membership,
    impersonate,
  }));
}

/** GroupPermissions#requireViewMembers(group): users view (roles or permission), else view-members / manage-members on it. */
export async function requireViewMembers(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  if (await check(ctx, realm, 'viewUsers')) return;
  if (!(await fgapGroup(ctx, realm, groupId, 'view-members'))) throw forbidden();
}

/** UserPermissions#requireManageGroupMembership(user): manage of the user, else the users manage-group-membership permission. */
export async function requireManageGroupMembership(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  if ((await canUsers(ctx, realm, [userId], 'manage'))[0]) return;
  if (!(await fgapUsers(ctx, realm, 'manage-group-membership'))) throw forbidden();
}

/** GroupPermissions#requireManageMembership(group): manage-users, else manage or manage-membership on the group. */
export async function requireManageMembership(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  if (await check(ctx, realm, 'manageUsers')) return;
  if (!(await fgapGroup(ctx, realm, groupId, 'manage-membership'))) throw forbidden();
}

/**
 * GroupPermissions#getGroupsWithViewPermission(): the groups whose members the caller may view through a
 * group permission (view-members or manage-members), for a caller who may not view all users. Keycloak
 * lists such a caller's users among the direct members of these groups. In memory once the model is read.
 */
export async function groupsWithViewMembers(ctx: RequestContext, realm: RealmModel): Promise<string[]> {
  const f = await loaded(ctx, realm);
  if (!f) return [];
  const prefix = 'group.resource.';
  const out: string[] = [];
  for (const r of f.ix.resources) {
    if (!r.serverOwned || !r.name.startsWith(prefix)) continue;
    const id = r.name.slice(prefix.length);
    if ((await groupScope(ctx, realm, id, 'view-members')) || (await groupScope(ctx, realm, id, 'manage-members'))) out.push(id);
  }
  return out;
}

/*
 * Groups themselves (GroupPermissions#canView(group) / canManage(group) / getAccess(group), FGAP v1), for
 * many groups at once: the admin roles first, then each group's own permissions, decided in memory once
 * the model is read (a page of groups costs the SQL of one group). A group inherits nothing from its
 * parent: each has its own resource `group.resource.<id>`.
 */

/** GroupPermissions#canView(group) / canManage(group) for many groups, in the order of `groupIds`. */
export async function canGroups(
  ctx: RequestContext,
  realm: RealmModel,
  groupIds: readonly string[],
  scope: 'view' | 'manage',
): Promise<boolean[]> {
  // canView(): view-users or manage-users; canManage(): manage-users (roles only, as Keycloak's).
  if (await check(ctx, realm, scope === 'view' ? 'viewUsers' : 'manageUsers')) return groupIds.map(() => true);
  if (!groupIds.length || !(await loaded(ctx, realm))) return groupIds.map(() => false);
  const out: boolean[] = [];
  for (const id of groupIds) out.push(await fgapGroup(ctx, realm, id, scope));
  return out;
}

/**
 * Whether the caller may view any group at all: view-users / manage-users, else fine-grained permissions in
 * use in the realm for an admin of the realm (at most the `fgapOn` statement). False: every listing is empty.
 */
export async function mayViewSomeGroups(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'viewUsers')) || (await loaded(ctx, realm)) !== null;
}

/** 403 unless the caller may view this group (GroupPermissions#requireView(group)). */
export async function requireViewGroup(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  if (!(await canGroups(ctx, realm, [groupId], 'view'))[0]) throw forbidden();
}

/** 403 unless the caller may manage this group (GroupPermissions#requireManage(group)). */
export async function requireManageGroup(ctx: RequestContext, realm: RealmModel, groupId: string): Promise<void> {
  if (!(await canGroups(ctx, realm, [groupId], 'manage'))[0]) throw forbidden();
}

/** The access map of a group representation (GroupPermissions#getAccess(group)). */
export interface GroupAccess {
  view: boolean;
  viewMembers: boolean;
  manageMembers: boolean;
  manage: boolean;
  manageMembership: boolean;
}

/**
 * GroupPermissions#getAccess(group) for many groups: view, manage (the group's permissions), viewMembers
 * (users view, else view-members or manage-members), manageMembers (users manage, else manage-members) and
 * manageMembership (manage, else manage-membership). Roles first: a manage-users admin pays nothing, a
 * view-users admin at most the `fgapOn` statement; the fine-grained decisions are in memory.
 */
export async function groupsAccess(ctx: RequestContext, realm: RealmModel, groupIds: readonly string[]): Promise<GroupAccess[]> {
  const [viewRole, manageRole] = await Promise.all([check(ctx, realm, 'viewUsers'), check(ctx, realm, 'manageUsers')]);
  const all = (access: GroupAccess) => groupIds.map(() => ({ ...access }));
  if (manageRole) return all({ view: true, viewMembers: true, manageMembers: true, manage: true, manageMembership: true });
  const f = groupIds.length ? await loaded(ctx, realm) : null;
  if (!f) return all({ view: viewRole, viewMembers: viewRole, manageMembers: false, manage: false, manageMembership: false });
  const out: GroupAccess[] = [];
  for (const id of groupIds) {
    const manage = await fgapGroup(ctx, realm, id, 'manage');
    out.push({
      view: viewRole || manage || (await fgapGroup(ctx, realm, id, 'view')),
      viewMembers: viewRole || (await fgapGroup(ctx, realm, id, 'view-members')),
      manageMembers: await fgapGroup(ctx, realm, id, 'manage-members'),
      manage,
      manageMembership: manage || (await fgapGroup(ctx, realm, id, 'manage-membership')),
    });
  }
  return out;
}
