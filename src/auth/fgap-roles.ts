import type { RequestContext } from '../core/context';
import type { RealmModel } from '../db/models/realm';
import { type ClientScope, fgapClientScope, fgapGroup, fgapRoleScope, fgapUsers, type RoleScope, canUsers } from './fgap';
import { check } from './permissions';

/**
 * Fine-grained admin permissions (FGAP v1) of roles and role mappings: the parts of Keycloak 26's
 * RolePermissions (canMapRole, canMapComposite, canMapClientScope), ClientPermissions' map-roles*
 * (a client's own view/configure/manage: src/auth/fgap-clients.ts), UserPermissions#canMapRoles(user)
 * and GroupPermissions#canView/canManage(group) that the roles family asks. The escalation guard
 * (RolePermissions#checkAdminRoles) stays in src/services/roles/role-access.ts, which applies it to what
 * these functions answer `guarded`.
 *
 * Roles first: every function asks the admin roles (cached, free) before any permission, so an admin
 * whose roles decide pays nothing; otherwise the decisions are those of src/auth/fgap.ts (the model read
 * once per request, every evaluation in memory), so mapping 50 roles costs what mapping one costs.
 */

/** A role as these decisions need it: its id and, for a client role, its client's id. */
export interface RoleRef {
  id: string;
  clientId: string | null;
}

/**
 * How a permission lets the caller map a role beyond the admin roles: `free` (the role's client grants
 * map-roles / map-roles-composite / map-roles-client-scope: Keycloak asks nothing more), `guarded` (the
 * role's own permission grants it: the escalation guard still has its say), or null (not granted).
 */
export type RoleGrant = 'free' | 'guarded' | null;

const CLIENT_SCOPE: Record<RoleScope, ClientScope> = {
  'map-role': 'map-roles',
  'map-role-composite': 'map-roles-composite',
  'map-role-client-scope': 'map-roles-client-scope',
};

/**
 * RolePermissions#canMapRole / canMapComposite / canMapClientScope after the admin roles refused: the
 * client's map-roles* permission (client roles), else the role's own permission. map-role-client-scope is
 * not guarded in Keycloak; the others are.
 */
export async function fgapRoleGrant(ctx: RequestContext, realm: RealmModel, role: RoleRef, scope: RoleScope): Promise<RoleGrant> {
  if (!ctx.actor) return 'free';
  if (role.clientId && (await fgapClientScope(ctx, realm, role.clientId, CLIENT_SCOPE[scope]))) return 'free';
  if (await fgapRoleScope(ctx, realm, role.id, scope)) return scope === 'map-role-client-scope' ? 'free' : 'guarded';
  return null;
}

/** UserPermissions#canMapRoles(user): manage of that user, else the `Users` map-roles permission. */
export async function canMapRolesOfUser(ctx: RequestContext, realm: RealmModel, userId: string): Promise<boolean> {
  if ((await canUsers(ctx, realm, [userId], 'manage'))[0]) return true;
  return fgapUsers(ctx, realm, 'map-roles');
}

/** GroupPermissions#canView(group) / canManage(group): view-users (manage-users), else the group's view (manage) permission. */
export async function canGroup(ctx: RequestContext, realm: RealmModel, groupId: string, access: 'view' | 'manage'): Promise<boolean> {
  if (await check(ctx, realm, access === 'view' ? 'viewUsers' : 'manageUsers')) return true;
  return fgapGroup(ctx, realm, groupId, access);
}
