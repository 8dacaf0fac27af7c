import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { cannotParse, errorC } from '../../core/errors';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { AuthzResourceModel, ResourceServerModel } from '../../db/models/authorization';
import { isUniqueViolation } from '../../db/errors';
import { MASTER } from '../../auth/permissions';

/**
 * Fine-grained admin permissions (Keycloak 26's FGAP v1, `.../management/permissions` and
 * `users-management-permissions`): turning them on for one object creates, on the resource server of
 * the realm's admin client (`realm-management`; `master-realm` in master, created bare as Keycloak's
 * `ResourceServerStore.create(client)` does), the scopes, the object's resource and one empty scope
 * permission per scope, with Keycloak's names (UserPermissions, GroupPermissions, ClientPermissions,
 * RolePermissions, IdentityProviderPermissions). The answer is Keycloak's
 * ManagementPermissionReference; turning them off deletes the permissions and the resource.
 */

/** What one object's management permissions are made of. */
export interface MgmtSpec {
  /** The resource's name (`group.resource.<id>`, `Users`, ...). */
  resource: string;
  /** The resource's type (`Group`, `Client`, `Role`, `IdentityProvider`), null when Keycloak sets none (`Users`). */
  type: string | null;
  /** One scope permission per entry: the reference's key, its scope's name, the permission's name. */
  perms: Array<{ key: string; scope: string; name: string; strategy: 'UNANIMOUS' | 'AFFIRMATIVE' }>;
}

const perm = (key: string, name: string, scope = key, strategy: 'UNANIMOUS' | 'AFFIRMATIVE' = 'UNANIMOUS') => ({
  key,
  scope,
  name,
  strategy,
});

/** The realm's users (`users-management-permissions`). */
export const usersSpec = (): MgmtSpec => ({
  resource: 'Users',
  type: null,
  perms: [
    perm('view', 'view.permission.users'),
    perm('manage', 'manage.permission.users'),
    perm('map-roles', 'map-roles.permission.users'),
    perm('manage-group-membership', 'manage-group-membership.permission.users'),
    perm('impersonate', 'admin-impersonating.permission.users'),
    perm('user-impersonated', 'user-impersonated.permission.users'),
  ],
});

/** One group. */
export const groupSpec = (id: string): MgmtSpec => ({
  resource: `group.resource.${id}`,
  type: 'Group',
  perms: [
    perm('view', `view.permission.group.${id}`),
    perm('manage', `manage.permission.group.${id}`),
    perm('view-members', `view.members.permission.group.${id}`),
    perm('manage-members', `manage.members.permission.group.${id}`),
    perm('manage-membership', `manage.membership.permission.group.${id}`),
  ],
});

/** One client. */
export const clientSpec = (id: string): MgmtSpec => ({
  resource: `client.resource.${id}`,
  type: 'Client',
  perms: [
    perm('view', `view.permission.client.${id}`),
    perm('manage', `manage.permission.client.${id}`),
    perm('configure', `configure.permission.client.${id}`),
    perm('map-roles', `map-roles.permission.client.${id}`),
    perm('map-roles-client-scope', `map-roles-client-scope.permission.client.${id}`),
    perm('map-roles-composite', `map-roles-composite.permission.client.${id}`),
    perm('token-exchange', `token-exchange.permission.client.${id}`),
  ],
});

/** One role (realm or client role: both live on the realm's admin client, as in Keycloak). */
export const roleSpec = (id: string): MgmtSpec => ({
  resource: `role.resource.${id}`,
  type: 'Role',
  perms: [
    perm('map-role', `map-role.permission.${id}`, 'map-role', 'AFFIRMATIVE'),
    perm('map-role-client-scope', `map-role-client-scope.permission.${id}`, 'map-role-client-scope', 'AFFIRMATIVE'),
    perm('map-role-composite', `map-role-composite.permission.${id}`, 'map-role-composite', 'AFFIRMATIVE'),
  ],
});

/** One identity provider (by its internal id). */
export const idpSpec = (internalId: string): MgmtSpec => ({
  resource: `idp.resource.${internalId}`,
  type: 'IdentityProvider',
  perms: [perm('token-exchange', `token-exchange.permission.idp.${internalId}`)],
});

/** Keycloak's ManagementPermissionReference. */
export interface ManagementPermissionReference {
  enabled: boolean;
  resource?: string;
  scopePermissions?: Record<string, string>;
}

/** The client whose resource server holds the realm's admin permissions (`realm-management`, or `master-realm` in master). */
export function adminClientOf(ctx: RequestContext, realm: RealmModel): Promise<ClientModel | null> {
  const clientId = realm.name === MASTER ? 'master-realm' : 'realm-management';
  return ctx.db.models.Client.findOne({ where: { realmId: realm.id, clientId } });
}

/** The `enabled` field of a PUT body (Jackson: a boolean, or its text; absent or null is false). */
export function enabledOf(body: unknown): boolean {
  if (body === undefined || body === null) throw errorC(400, 'HTTP 400 Bad Request');
  if (typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const v = (body as Record<string, unknown>).enabled;
  if (v === undefined || v === null || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  throw cannotParse('mapping');
}

interface Found {
  rs: ResourceServerModel | null;
  resource: AuthzResourceModel | null;
  policies: Map<string, string>;
}

/** What exists of one object's management permissions (3 statements at most). */
async function find(ctx: RequestContext, client: ClientModel | null, spec: MgmtSpec): Promise<Found> {
  const m = ctx.db.models;
  const none: Found = { rs: null, resource: null, policies: new Map() };
  if (!client) return none;
  const rs = await m.ResourceServer.findByPk(client.id);
  if (!rs) return none;
  const [resource, policies] = await Promise.all([
    m.AuthzResource.findOne({ where: { resourceServerId: rs.id, name: spec.resource } }),
    m.AuthzPolicy.findAll({ where: { resourceServerId: rs.id, name: spec.perms.map((p) => p.name) }, attributes: ['id', 'name'] }),
  ]);
  return { rs, resource, policies: new Map(policies.map((p) => [p.name, p.id])) };
}

const complete = (f: Found, spec: MgmtSpec) => f.resource !== null && spec.perms.every((p) => f.policies.has(p.name));

function reference(f: Found, spec: MgmtSpec): ManagementPermissionReference {
  if (!f.resource) return { enabled: false };
  const scopePermissions: Record<string, string> = {};
  for (const p of spec.perms) scopePermissions[p.key] = f.policies.get(p.name) as string;
  return { enabled: true, resource: f.resource.id, scopePermissions };
}

/** Creates what is missing of the spec's objects (Keycloak's `initialize`), inside the caller's transaction. */
async function initialize(ctx: RequestContext, realm: RealmModel, client: ClientModel, spec: MgmtSpec): Promise<void> {
  const m = ctx.db.models;
  let rs = await m.ResourceServer.findByPk(client.id);
  if (!rs)
    rs = await m.ResourceServer.create({
      id: client.id,
      realmId: realm.id,
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: false,
    });
  const rsId = rs.id;
  const names = [...new Set(spec.perms.map((p) => p.scope))];
  const scopes = new Map(
    (await m.AuthzScope.findAll({ where: { resourceServerId: rsId, name: names }, attributes: ['id', 'name'] })).map((s) => [s.name, s.id]),
  );
  for (const name of names)
    if (!scopes.has(name)) {
      const id = randomUUID();
      await m.AuthzScope.create({ id, resourceServerId: rsId, name, displayName: null, iconUri: null });
      scopes.set(name, id);
    }
  let resource = await m.AuthzResource.findOne({ where: { resourceServerId: rsId, name: spec.resource } });
  if (!resource) {
    resource = await m.AuthzResource.create({
      id: randomUUID(),
      resourceServerId: rsId,
      name: spec.resource,
      displayName: null,
      type: spec.type,
      iconUri: null,
      owner: rsId,
      ownerManagedAccess: false,
      uris: [],
      attributes: {},
    });
    await m.AuthzResourceScope.bulkCreate(names.map((name) => ({ resourceId: resource?.id, scopeId: scopes.get(name) })));
  }
  const existing = new Set(
    (await m.AuthzPolicy.findAll({ where: { resourceServerId: rsId, name: spec.perms.map((p) => p.name) }, attributes: ['name'] })).map(
      (p) => p.name,
    ),
  );
  for (const p of spec.perms) {
    if (existing.has(p.name)) continue;
    const policyId = randomUUID();
    await m.AuthzPolicy.create({
      id: policyId,
      resourceServerId: rsId,
      name: p.name,
      description: null,
      type: 'scope',
      decisionStrategy: p.strategy,
      logic: 'POSITIVE',
      owner: null,
      config: {},
    });
    await m.AuthzResourcePolicy.create({ resourceId: resource.id, policyId });
    await m.AuthzScopePolicy.create({ scopeId: scopes.get(p.scope), policyId });
  }
}

/** Deletes the spec's permissions and resource (the scopes stay, as in Keycloak), inside the caller's transaction. */
async function remove(ctx: RequestContext, f: Found): Promise<void> {
  const m = ctx.db.models;
  const ids = [...f.policies.values()];
  if (ids.length) {
    await m.AuthzResourcePolicy.destroy({ where: { policyId: ids } });
    await m.AuthzScopePolicy.destroy({ where: { policyId: ids } });
    await m.AuthzAssociatedPolicy.destroy({ where: { policyId: ids } });
    await m.AuthzAssociatedPolicy.destroy({ where: { associatedPolicyId: ids } });
    await m.AuthzPolicy.destroy({ where: { id: ids } });
  }
  if (f.resource) {
    const resourceId = f.resource.id;
    await m.AuthzResourcePolicy.destroy({ where: { resourceId } });
    await m.AuthzResourceScope.destroy({ where: { resourceId } });
    await m.AuthzResource.destroy({ where: { id: resourceId } });
  }
}

/**
 * GET .../management/permissions (callers check access first): the reference, `{"enabled":false}` when
 * off. As Keycloak's `getPermissions`, a permission deleted by hand while the resource remains is made again.
 */
export async function readManagementPermissions(
  ctx: RequestContext,
  realm: RealmModel,
  spec: MgmtSpec,
): Promise<ManagementPermissionReference> {
  const client = await adminClientOf(ctx, realm);
  const f = await find(ctx, client, spec);
  if (!f.resource || !client || complete(f, spec)) return reference(f, spec);
  return setManagementPermissions(ctx, realm, spec, true);
}

/** PUT .../management/permissions (callers check access first): `enabled` true creates, false removes. */
export async function setManagementPermissions(
  ctx: RequestContext,
  realm: RealmModel,
  spec: MgmtSpec,
  enabled: boolean,
): Promise<ManagementPermissionReference> {
  try {
    return await apply(ctx, realm, spec, enabled);
  } catch (e) {
    // A concurrent PUT created the same objects first (a unique name): they exist now, so once more finds them.
    if (!isUniqueViolation(e)) throw e;
    return apply(ctx, realm, spec, enabled);
  }
}

function apply(ctx: RequestContext, realm: RealmModel, spec: MgmtSpec, enabled: boolean): Promise<ManagementPermissionReference> {
  return write(ctx, {}, async () => {
    const client = await adminClientOf(ctx, realm);
    if (!client) return { enabled: false };
    if (!enabled) {
      const f = await find(ctx, client, spec);
      await remove(ctx, f);
      return { enabled: false };
    }
    await initialize(ctx, realm, client, spec);
    return reference(await find(ctx, client, spec), spec);
  });
}

const DROP_SQL = `SELECT r.id AS id, r.resource_server_id AS rs FROM resource_server_resource r
  JOIN client c ON c.id = r.resource_server_id
  WHERE c.realm_id = :realm AND c.client_id = :clientId AND r.name IN (:names)`;

/**
 * Deletes the management permissions of objects being deleted (a group and its subgroups, a client, a
 * role, an identity provider), inside the caller's transaction, as Keycloak's model-removal listeners do:
 * the permissions and the resource go, the scopes stay. One statement when none of them was ever enabled.
 */
export async function dropManagementPermissions(ctx: RequestContext, realm: RealmModel, specs: MgmtSpec[]): Promise<void> {
  if (!specs.length) return;
  const clientId = realm.name === MASTER ? 'master-realm' : 'realm-management';
  const found = await ctx.db.sequelize.query<{ id: string; rs: string }>(DROP_SQL, {
    replacements: { realm: realm.id, clientId, names: specs.map((s) => s.resource) },
    type: QueryTypes.SELECT,
  });
  if (!found.length) return;
  const m = ctx.db.models;
  const rsId = found[0].rs;
  const policies = await m.AuthzPolicy.findAll({
    where: { resourceServerId: rsId, name: specs.flatMap((s) => s.perms.map((p) => p.name)) },
    attributes: ['id', 'name'],
  });
  for (const resource of found) {
    await remove(ctx, { rs: null, resource: { id: resource.id } as AuthzResourceModel, policies: new Map() });
  }
  await remove(ctx, { rs: null, resource: null, policies: new Map(policies.map((p) => [p.name, p.id])) });
}
