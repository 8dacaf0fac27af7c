import type { RealmModel } from '../db/models/realm';
import { forbidden } from '../core/errors';
import {
  anyAdminRoleAmong,
  clientRoleNamesAmong,
  effectiveClientRoleNames,
  effectiveRealmRoleNames,
  holdsAnyAdminRole,
  realmRoleNamesAmong,
} from '../core/effective-roles';
import { ALL_REALM_ROLES } from '../keycloak/realm-defaults';
import type { RequestContext } from '../core/context';
import { realmVersion, sharedMemo, userVersion } from '../core/shared-cache';

/**
 * Admin authorization as Keycloak does it (reference §2.5–2.6). Roles are resolved from stored
 * role mappings, never from token claims: a master-realm caller is checked against the client roles
 * of `<target>-realm` in master, a caller of realm T against T's `realm-management` client roles.
 * A caller from a realm other than master or the target gets nothing.
 */
export const MASTER = 'master';

const ALL_ADMIN = [...ALL_REALM_ROLES, 'impersonation'];

/**
 * The stamp of what the caller's roles decide (ADR 23): every role, mapping, group and client they
 * depend on lives in the caller's realm (raising its version) or is the caller's own mapping or
 * membership (raising the caller's version). Undefined when either was not read in this request.
 */
function callerStamp(ctx: RequestContext): string | undefined {
  const actor = ctx.actor;
  if (!actor) return undefined;
  const r = realmVersion(ctx, actor.realmId);
  const u = userVersion(ctx, actor.userId);
  return r === undefined || u === undefined ? undefined : `r${r}u${u}`;
}

/** Effective role names the caller holds on the admin client that governs `target` (cached across requests, ADR 23). */
export function adminRoles(ctx: RequestContext, target: RealmModel): Promise<Set<string>> {
  const actor = ctx.actor;
  if (!actor) return Promise.resolve(new Set(ALL_ADMIN));
  // Keyed by the target's name too: a master caller's roles are those of the client `<name>-realm`.
  return sharedMemo(ctx, `admin-roles:${actor.userId}:${target.id}:${target.name}`, callerStamp(ctx), async () => {
    const client = actor.realmName === MASTER ? `${target.name}-realm` : actor.realmId === target.id ? 'realm-management' : undefined;
    if (!client) return new Set<string>();
    // A transient federated caller (ADR 46): its roles come from its directory entry, not from mapping rows.
    if (actor.roleIds) return clientRoleNamesAmong(ctx.db, await actor.roleIds(ctx), actor.realmId, client);
    return effectiveClientRoleNames(ctx.db, actor.userId, actor.realmId, client);
  });
}

/** Effective master realm-role names of a master caller (`admin`, `create-realm`). */
export function masterRealmRoles(ctx: RequestContext): Promise<Set<string>> {
  const actor = ctx.actor;
  if (!actor) return Promise.resolve(new Set(['admin', 'create-realm']));
  if (actor.realmName !== MASTER) return Promise.resolve(new Set());
  return sharedMemo(ctx, `master-realm-roles:${actor.userId}`, callerStamp(ctx), async () =>
    actor.roleIds
      ? realmRoleNamesAmong(ctx.db, await actor.roleIds(ctx), actor.realmId)
      : effectiveRealmRoleNames(ctx.db, actor.userId, actor.realmId),
  );
}

/**
 * Whether the caller holds any admin role at all (on any realm it can administer): the system
 * does; a token of a user with only account roles does not.
 */
export function isAdministrator(ctx: RequestContext): Promise<boolean> {
  const actor = ctx.actor;
  if (!actor) return Promise.resolve(true);
  return sharedMemo(ctx, `is-administrator:${actor.userId}`, callerStamp(ctx), async () =>
    actor.roleIds
      ? anyAdminRoleAmong(ctx.db, await actor.roleIds(ctx), actor.realmId, actor.realmName === MASTER)
      : holdsAnyAdminRole(ctx.db, actor.userId, actor.realmId, actor.realmName === MASTER),
  );
}

/** True when the caller holds any of the named admin roles on the target realm. */
export async function hasAny(ctx: RequestContext, target: RealmModel, ...roles: string[]): Promise<boolean> {
  const held = await adminRoles(ctx, target);
  return roles.some((r) => held.has(r));
}

/** Throws 403 unless the caller holds one of the named admin roles on the target realm. */
export async function requireAny(ctx: RequestContext, target: RealmModel, ...roles: string[]): Promise<void> {
  if (!(await hasAny(ctx, target, ...roles))) throw forbidden();
}

/** Throws 403 when the caller's realm is neither master nor the target (checked before anything else). */
export function requireRealmReach(ctx: RequestContext, target: RealmModel): void {
  const a = ctx.actor;
  if (a && a.realmName !== MASTER && a.realmId !== target.id) throw forbidden();
}

/** Capability predicates of reference §2.6, by name. */
export const can = {
  viewRealm: ['view-realm', 'manage-realm'],
  manageRealm: ['manage-realm'],
  queryUsers: ['query-users', 'view-users', 'manage-users'],
  viewUsers: ['view-users', 'manage-users'],
  manageUsers: ['manage-users'],
  queryGroups: ['query-groups', 'view-users', 'manage-users'],
  queryClients: ['query-clients', 'view-clients', 'manage-clients'],
  viewClients: ['view-clients', 'manage-clients'],
  manageClients: ['manage-clients'],
  listRealmRoles: ['view-realm', 'manage-realm', 'query-users', 'query-clients', 'query-realms', 'query-groups'],
  viewEvents: ['view-events', 'manage-events'],
  manageEvents: ['manage-events'],
  impersonate: ['impersonation'],
  anyAdmin: [...ALL_REALM_ROLES],
} satisfies Record<string, string[]>;

export type Capability = keyof typeof can;

export function check(ctx: RequestContext, target: RealmModel, cap: Capability): Promise<boolean> {
  return hasAny(ctx, target, ...can[cap]);
}

export async function requireCap(ctx: RequestContext, target: RealmModel, cap: Capability): Promise<void> {
  if (!(await check(ctx, target, cap))) throw forbidden();
}
