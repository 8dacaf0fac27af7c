import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA } from '../../core/errors';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { type Json, scopeRef, toResourceRepresentation, toResourceServerRepresentation } from '../../representations/authz';
import { invalidate } from '../../loaders/invalidate';
import {
  type AuthzTarget,
  authzEvent,
  authzPath,
  cannotRead,
  DECISION_STRATEGIES,
  ENFORCEMENT_MODES,
  enumField,
  objectBody,
  requireManageAuthz,
  requireViewAuthz,
  textField,
} from './access';
import { exportConfig, DEFAULT_POLICY_CODE, PERMISSION_TYPES } from './policy-types';
import { importPolicy, insertPolicy } from './policies';
import { saveResource, scopesOfResources } from './resources';
import { insertScope } from './scopes';

/**
 * The resource server of a client (`.../clients/{id}/authz/resource-server`): turning authorization
 * services on and off with the client (`authorizationServicesEnabled`), its settings, and the
 * settings export and import. Enabling creates what Keycloak creates: the `uma_protection` client
 * role granted to the service account, the "Default Resource" (`/*`, type
 * `urn:<clientId>:resources:default`), the "Default Policy" (Keycloak's granting JavaScript policy,
 * stored as Keycloak exports it) and the "Default Permission" over the default resource type.
 */

/** Keycloak's message for authorization services on a public or bearer-only client (400 here; Keycloak fails with 500). */
export const onlyConfidential = () => errorA(400, 'Only confidential clients are allowed to set authorization settings');

const isTrue = (v: unknown) => v === true || v === 'true';

/**
 * Whether a client write turns authorization services on (`authorizationServicesEnabled`), as
 * Keycloak decides it: on create, `true` on a public or bearer-only client is refused (400); on
 * update, a body making the client public or bearer-only turns them off, and so does a body without
 * `true` (Keycloak's updateAuthorizationSettings). Sets the flag the client representation reports
 * and, when on, the service account Keycloak requires.
 */
export function authorizationWanted(
  rep: { authorizationServicesEnabled?: unknown; publicClient?: unknown; bearerOnly?: unknown },
  row: { publicClient: boolean; bearerOnly: boolean; serviceAccountsEnabled: boolean; settings: Record<string, unknown> },
  creating: boolean,
): boolean {
  let on = isTrue(rep.authorizationServicesEnabled);
  if (!creating && (isTrue(rep.publicClient) || isTrue(rep.bearerOnly))) on = false;
  if (on && (row.publicClient || row.bearerOnly)) throw onlyConfidential();
  if (on) {
    row.settings.authorizationServicesEnabled = true;
    row.serviceAccountsEnabled = true;
  } else delete row.settings.authorizationServicesEnabled;
  return on;
}

/** GET .../resource-server (view-authorization). */
export async function getResourceServer(ctx: RequestContext, t: AuthzTarget): Promise<Json> {
  await requireViewAuthz(ctx, t.realm);
  return toResourceServerRepresentation(t.rs, t.client.clientId);
}

/** The three settings of a ResourceServerRepresentation, with Keycloak's defaults for absent ones. */
function settingsOf(body: Record<string, unknown>) {
  const allow = body.allowRemoteResourceManagement;
  if (allow !== undefined && allow !== null && typeof allow === 'object') throw cannotRead();
  return {
    policyEnforcementMode: enumField(body, 'policyEnforcementMode', ENFORCEMENT_MODES) ?? 'ENFORCING',
    decisionStrategy: enumField(body, 'decisionStrategy', DECISION_STRATEGIES) ?? 'UNANIMOUS',
    allowRemoteResourceManagement: allow === true || allow === 'true',
  };
}

/** PUT .../resource-server: enforcement mode, decision strategy, remote resource management (204). */
export async function updateResourceServer(ctx: RequestContext, t: AuthzTarget, raw: unknown): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const settings = settingsOf(objectBody(raw));
  await write(ctx, {}, async () => {
    await t.rs.update(settings);
    await authzEvent(ctx, t, {
      operationType: 'UPDATE',
      resourceType: 'AUTHORIZATION_RESOURCE_SERVER',
      resourcePath: authzPath(t),
      representation: toResourceServerRepresentation(t.rs, t.client.clientId),
    });
  });
}

/**
 * GET .../resource-server/settings: the whole configuration as Keycloak exports it (no ids; resource
 * owners by name; policies with their config, the names of what they apply to, roles, users, groups
 * and clients by name).
 */
export async function exportSettings(ctx: RequestContext, t: AuthzTarget): Promise<Json> {
  await requireManageAuthz(ctx, t.realm);
  return authorizationSettings(ctx, t);
}

/** The exported settings of a resource server (also what a realm export carries as `authorizationSettings`). */
export async function authorizationSettings(ctx: RequestContext, t: AuthzTarget): Promise<Json> {
  const m = ctx.db.models;
  const rsId = t.rs.id;
  const [resources, scopes, policies] = await Promise.all([
    m.AuthzResource.findAll({ where: { resourceServerId: rsId }, order: [['name', 'ASC']] }),
    m.AuthzScope.findAll({ where: { resourceServerId: rsId }, order: [['name', 'ASC']] }),
    m.AuthzPolicy.findAll({ where: { resourceServerId: rsId, owner: null }, order: [['name', 'ASC']] }),
  ]);
  const scopeMap = await scopesOfResources(
    ctx,
    resources.map((r) => r.id),
  );
  const userIds = [...new Set(resources.map((r) => r.owner).filter((o) => o !== rsId))];
  const users = userIds.length ? await m.User.findAll({ where: { id: { [Op.in]: userIds } }, attributes: ['id', 'username'] }) : [];
  const resourceReps = resources.map((r) => {
    const rep = toResourceRepresentation(r, undefined, scopeMap.get(r.id));
    delete rep._id;
    if (r.owner === rsId) delete rep.owner;
    else rep.owner = { name: users.find((u) => u.id === r.owner)?.username ?? r.owner };
    rep.scopes = (scopeMap.get(r.id) ?? []).map((s) => ({ name: s.name }));
    return rep;
  });
  const ids = policies.map((p) => p.id);
  const [rLinks, sLinks, aLinks] = ids.length
    ? await Promise.all([
        m.AuthzResourcePolicy.findAll({ where: { policyId: { [Op.in]: ids } } }),
        m.AuthzScopePolicy.findAll({ where: { policyId: { [Op.in]: ids } } }),
        m.AuthzAssociatedPolicy.findAll({ where: { policyId: { [Op.in]: ids } } }),
      ])
    : [[], [], []];
  const ordered = [...policies.filter((p) => !PERMISSION_TYPES.has(p.type)), ...policies.filter((p) => PERMISSION_TYPES.has(p.type))];
  const policyReps: Json[] = [];
  for (const p of ordered) {
    const config = await exportConfig(ctx, p.type, p.config);
    const rNames = rLinks.filter((l) => l.policyId === p.id).map((l) => resources.find((r) => r.id === l.resourceId)?.name);
    const sNames = sLinks.filter((l) => l.policyId === p.id).map((l) => scopes.find((s) => s.id === l.scopeId)?.name);
    const aNames = aLinks.filter((l) => l.policyId === p.id).map((l) => policies.find((x) => x.id === l.associatedPolicyId)?.name);
    if (sNames.length) config.scopes = JSON.stringify(sNames);
    if (rNames.length) config.resources = JSON.stringify(rNames);
    if (aNames.length) config.applyPolicies = JSON.stringify(aNames);
    const rep: Json = { name: p.name };
    if (p.description != null) rep.description = p.description;
    Object.assign(rep, { type: p.type, logic: p.logic, decisionStrategy: p.decisionStrategy, config });
    policyReps.push(rep);
  }
  return {
    allowRemoteResourceManagement: Boolean(t.rs.allowRemoteResourceManagement),
    policyEnforcementMode: t.rs.policyEnforcementMode,
    resources: resourceReps,
    policies: policyReps,
    scopes: scopes.map((s) => {
      const rep = scopeRef(s);
      delete rep.id;
      delete rep.iconUri;
      if (s.iconUri != null) rep.iconUri = s.iconUri;
      if (s.displayName != null) rep.displayName = s.displayName;
      return rep;
    }),
    decisionStrategy: t.rs.decisionStrategy,
  };
}

/**
 * Applies exported settings to a resource server inside the caller's transaction: its three
 * settings, then scopes, resources and policies, each created or updated by name (nothing removed).
 */
export async function applySettings(ctx: RequestContext, t: AuthzTarget, body: Record<string, unknown>): Promise<void> {
  const m = ctx.db.models;
  await t.rs.update(settingsOf(body));
  const list = (key: string): Array<Record<string, unknown>> => {
    const v = body[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => !x || typeof x !== 'object' || Array.isArray(x))) throw cannotRead();
    return v as Array<Record<string, unknown>>;
  };
  for (const s of list('scopes')) {
    const name = textField(s, 'name');
    if (!name) continue;
    const existing = await m.AuthzScope.findOne({ where: { resourceServerId: t.rs.id, name } });
    const fields = { displayName: textField(s, 'displayName') ?? null, iconUri: textField(s, 'iconUri') ?? null };
    if (existing) await existing.update(fields);
    else await insertScope(ctx, t, { name, displayName: fields.displayName ?? undefined, iconUri: fields.iconUri ?? undefined });
  }
  for (const r of list('resources')) {
    const { _id: _ignored, id: _id2, ...rest } = r;
    const owner = r.owner && typeof r.owner === 'object' ? (r.owner as Record<string, unknown>) : undefined;
    const ownerRef = owner ? (textField(owner, 'id') ?? textField(owner, 'name')) : typeof r.owner === 'string' ? r.owner : undefined;
    const body = { ...rest, owner: ownerRef === undefined || ownerRef === t.client.clientId ? undefined : { id: ownerRef } };
    const name = textField(r, 'name');
    let existing = null;
    if (name) {
      const candidates = await m.AuthzResource.findAll({ where: { resourceServerId: t.rs.id, name } });
      existing = candidates.find((c) => (body.owner ? c.owner !== t.rs.id : c.owner === t.rs.id)) ?? null;
    }
    await saveResource(ctx, t, body, existing ?? undefined);
  }
  // A policy applying one defined further down the list is imported after it (Keycloak's importPolicies).
  const policies = list('policies');
  const byName = new Map(policies.map((p) => [textField(p, 'name'), p]));
  const done = new Set<Record<string, unknown>>();
  const importOne = async (p: Record<string, unknown>, path: Set<Record<string, unknown>>): Promise<void> => {
    if (done.has(p) || path.has(p)) return;
    path.add(p);
    const config = p.config && typeof p.config === 'object' ? (p.config as Record<string, unknown>) : {};
    let applied: unknown = [];
    try {
      applied = typeof config.applyPolicies === 'string' ? JSON.parse(config.applyPolicies) : [];
    } catch {
      applied = [];
    }
    for (const name of Array.isArray(applied) ? applied : []) {
      const dep = byName.get(String(name));
      if (dep && !(await m.AuthzPolicy.findOne({ where: { resourceServerId: t.rs.id, name: String(name) }, attributes: ['id'] }))) {
        await importOne(dep, path);
      }
    }
    done.add(p);
    await importPolicy(ctx, t, { ...p, id: undefined });
  };
  for (const p of policies) await importOne(p, new Set());
}

/** POST .../resource-server/import: merges exported settings into the resource server (204). */
export async function importSettings(ctx: RequestContext, t: AuthzTarget, raw: unknown): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const body = objectBody(raw);
  await write(ctx, {}, async () => {
    await applySettings(ctx, t, body);
    await authzEvent(ctx, t, {
      operationType: 'UPDATE',
      resourceType: 'AUTHORIZATION_RESOURCE_SERVER',
      resourcePath: authzPath(t, 'import'),
      representation: body,
    });
  });
}

/** The `uma_protection` role of the client, created if missing, granted to its service account. */
async function grantUmaProtection(ctx: RequestContext, realm: RealmModel, clientUuid: string): Promise<void> {
  const m = ctx.db.models;
  let role = await m.Role.findOne({ where: { clientId: clientUuid, name: 'uma_protection' }, attributes: ['id'] });
  if (!role) {
    role = await m.Role.create({
      id: randomUUID(),
      realmId: realm.id,
      clientId: clientUuid,
      containerId: clientUuid,
      name: 'uma_protection',
      description: null,
      attributes: {},
    });
    invalidate.role(ctx.loaders, role.id, clientUuid);
  }
  const sa = await m.User.findOne({ where: { serviceAccountClientLink: clientUuid }, attributes: ['id'] });
  if (sa && !(await m.UserRoleMapping.findOne({ where: { userId: sa.id, roleId: role.id } }))) {
    await m.UserRoleMapping.create({ userId: sa.id, roleId: role.id });
    invalidate.user(ctx.loaders, sa.id);
  }
}

/**
 * Turns authorization services on for a confidential client whose service account exists, inside
 * the client write's transaction: a no-op when its resource server exists. `settings`, when given
 * (`authorizationSettings` of a client body), is imported after the defaults.
 */
export async function enableAuthorization(
  ctx: RequestContext,
  realm: RealmModel,
  client: Pick<ClientModel, 'id' | 'clientId' | 'publicClient' | 'bearerOnly'>,
  settings?: unknown,
): Promise<void> {
  if (client.publicClient || client.bearerOnly) throw onlyConfidential();
  const m = ctx.db.models;
  let rs = await m.ResourceServer.findByPk(client.id);
  // Keycloak's ResourceServerService.create: a caller with create-client alone may not turn it on.
  if (!rs || settings != null) await requireManageAuthz(ctx, realm);
  await grantUmaProtection(ctx, realm, client.id);
  if (!rs) {
    rs = await m.ResourceServer.create({
      id: client.id,
      realmId: realm.id,
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: true,
    });
    const t: AuthzTarget = { realm, client: client as ClientModel, rs };
    const type = `urn:${client.clientId}:resources:default`;
    await saveResource(ctx, t, { name: 'Default Resource', uris: ['/*'], type });
    await insertPolicy(
      ctx,
      t,
      {
        name: 'Default Policy',
        description: 'A policy that grants access only for users within this realm',
        type: 'js',
        logic: 'POSITIVE',
        decisionStrategy: 'AFFIRMATIVE',
        config: { code: DEFAULT_POLICY_CODE },
      },
      true,
    );
    await insertPolicy(
      ctx,
      t,
      {
        name: 'Default Permission',
        description: 'A permission that applies to the default resource type',
        type: 'resource',
        logic: 'POSITIVE',
        decisionStrategy: 'UNANIMOUS',
        resourceType: type,
        policies: ['Default Policy'],
      },
      false,
    );
    await recordResourceServerEvent(ctx, t, 'CREATE');
  }
  if (settings !== undefined && settings !== null) {
    await applySettings(ctx, { realm, client: client as ClientModel, rs }, objectBody(settings));
  }
}

/** Turns authorization services off: the resource server and everything in it go (inside the client write). */
export async function disableAuthorization(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<void> {
  const rs = await ctx.db.models.ResourceServer.findByPk(client.id);
  if (!rs) return;
  await rs.destroy();
  await recordResourceServerEvent(ctx, { realm, client, rs }, 'DELETE');
}

function recordResourceServerEvent(ctx: RequestContext, t: AuthzTarget, op: 'CREATE' | 'DELETE'): Promise<void> {
  return authzEvent(ctx, t, {
    operationType: op,
    resourceType: 'AUTHORIZATION_RESOURCE_SERVER',
    resourcePath: authzPath(t),
    representation: toResourceServerRepresentation(t.rs, t.client.clientId),
  });
}
