import { memo, type RequestContext } from '../core/context';
import { forbidden } from '../core/errors';
import { effectiveRoleIdsForUsers } from '../core/effective-roles';
import type { RealmModel } from '../db/models/realm';
import type { UserModel } from '../db/models/user';
import { batchLoad } from '../loaders/batch';
import { contextAttributes, loadAuthzIdentity, loadAuthzModel } from '../services/authz/authz-model';
import { type AuthzIndex, evaluateAuthorization } from '../services/authz/evaluation';
import { canManageUsers, canUsers, fgapOn, fgapUsers, isLoaded, loaded } from './fgap';
import { check } from './permissions';
import {
  isTransient,
  transientAttributeRows,
  transientEffectiveRoleIds,
  transientMemberships,
} from '../services/user-storage/transient-users';

/**
 * Fine-grained admin permissions for what an admin does to one user beyond reading and editing it
 * (Keycloak 26 FGAP v1, UserPermissions): the user's sessions, logout, e-mails and impersonation, and
 * the realm-wide session endpoints that Keycloak guards with `users().requireManage()`. The admin
 * roles decide first; the decisions of `fgap.ts` come after them, so an admin whose roles decide pays
 * nothing and a realm without fine-grained permissions pays its one `fgapOn` statement.
 *
 * Impersonation is the one decision made for someone other than the caller: Keycloak asks the
 * `user-impersonated` permission of the `Users` resource with the TARGET user's identity
 * (UserPermissions#isImpersonatable builds a UserModelIdentity: the user's id, its effective roles,
 * its groups, its attributes as the identity's attributes), whoever the caller is (a master admin
 * too), and lets any user be impersonated while that permission has no policy.
 */

/**
 * UserPermissions#requireView(user) for the sessions of a user; the users of one request tick are
 * decided together (GraphQL `User.sessions` of a list): one evaluation and one membership statement.
 */
export async function requireViewUserSessions(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  const name = `fgap-view-user:${realm.id}`;
  const ok = await batchLoad(ctx.memo, name, (ids: readonly string[]) => canUsers(ctx, realm, [...ids], 'view'), userId);
  if (!ok) throw forbidden();
}

/** UserPermissions#requireManage() (realm-wide): manage-users, else the `Users` resource's manage permission. */
export async function requireManageUsers(ctx: RequestContext, realm: RealmModel): Promise<void> {
  if (!(await canManageUsers(ctx, realm))) throw forbidden();
}

/** UserPermissions#canImpersonate(): the `impersonation` role, else the `admin-impersonating` permission (the realm's own admins). */
export async function canImpersonate(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'impersonate')) || fgapUsers(ctx, realm, 'impersonate');
}

const USER_IMPERSONATED = 'user-impersonated.permission.users';

/**
 * The model of the admin client's resource server for this request: the one `fgap.ts` read for the
 * caller when it did (a permission-based impersonator), else read alone (a master admin, or an admin
 * whose `impersonation` role decided: the caller's own identity is not needed then).
 */
async function requestModel(ctx: RequestContext, realm: RealmModel, rsId: string): Promise<AuthzIndex | null> {
  if (ctx.actor?.realmId === realm.id && isLoaded(ctx, realm)) {
    const f = await loaded(ctx, realm);
    if (f) return f.ix;
  }
  return memo(ctx, `fgap-model:${rsId}`, () => loadAuthzModel(ctx.db, rsId));
}

/**
 * UserPermissions#isImpersonatable(user): true while the `Users` resource or its `user-impersonated`
 * permission is missing or has no policy; else the permission's decision for the target user's own
 * identity. One statement (`fgapOn`) in a realm without fine-grained permissions; else the model (read
 * once per request) and the target's roles, groups and, when a regex policy reads them, attributes.
 */
export async function isImpersonatable(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<boolean> {
  const rsId = await fgapOn(ctx, realm);
  if (!rsId) return true;
  const ix = await requestModel(ctx, realm, rsId);
  if (!ix) return true;
  const resource = ix.resources.find((r) => r.serverOwned && r.name === 'Users');
  const permission = [...ix.policyById.values()].find((p) => p.name === USER_IMPERSONATED);
  // "if no policies attached to permission then just do default behavior"
  if (!resource || !permission?.associatedIds.length) return true;
  const wantsAttributes = [...ix.policyById.values()].some((p) => p.type === 'regex');
  // A transient federated user (ADR 46): roles, groups and attributes from its directory entry, not from rows.
  const transient = isTransient(user);
  const [roles, attributes, groupIds] = await Promise.all([
    transient ? transientEffectiveRoleIds(ctx.db, user).then((r) => new Map([[user.id, r]])) : effectiveRoleIdsForUsers(ctx.db, [user.id]),
    transient
      ? transientAttributeRows([user])
      : wantsAttributes
        ? ctx.db.models.UserAttribute.findAll({ where: { userId: user.id }, attributes: ['name', 'value'] })
        : [],
    transient ? transientMemberships(ctx.db, user).then((t) => t.groupIds) : undefined,
  ]);
  // UserModelIdentity's attributes (what regex policies read): the user's attributes, username, email and names.
  const claims: Record<string, string[]> = {};
  if (wantsAttributes) {
    for (const a of attributes) claims[a.name] = [...(claims[a.name] ?? []), a.value];
    const named = { username: user.username, email: user.email, firstName: user.firstName, lastName: user.lastName };
    for (const [k, v] of Object.entries(named)) if (v != null) claims[k] = [v];
  }
  const { identity, realm: lookups } = await loadAuthzIdentity(ctx.db, ix, {
    realm,
    userId: user.id,
    isUser: true,
    client: null,
    claims,
    extraRoles: [...(roles.get(user.id) ?? [])],
    ...(groupIds ? { withoutRows: { groupIds, effectiveRoleIds: [...(roles.get(user.id) ?? [])] } } : {}),
  });
  const outcome = evaluateAuthorization(ix, {
    identity,
    realm: lookups,
    attributes: contextAttributes(realm, ctx.actor?.ipAddress),
    permissions: [{ resource: resource.id, scopes: ['user-impersonated'] }],
  });
  return outcome.permissions.length > 0;
}

/** UserPermissions#requireImpersonate(user): may impersonate (role or permission) AND the user may be impersonated; else 403. */
export async function requireImpersonate(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<void> {
  if (!(await canImpersonate(ctx, realm))) throw forbidden();
  if (!(await isImpersonatable(ctx, realm, user))) throw forbidden();
}
