import { randomUUID } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA, errorB } from '../../core/errors';
import { isEmptyPage, pageOf, sqlPage } from '../../core/paging';
import type { AuthzPolicyModel, AuthzResourceModel, AuthzScopeModel } from '../../db/models/authorization';
import { type Json, policyHead, policyRef, toGenericPolicyRepresentation, toScopeRepresentation } from '../../representations/authz';
import {
  type AuthzTarget,
  authzEvent,
  authzNotFound,
  authzPath,
  cannotRead,
  DECISION_STRATEGIES,
  enumField,
  LOGICS,
  listField,
  objectBody,
  plainBadRequest,
  requireManageAuthz,
  requireViewAuthz,
  textField,
} from './access';
import { deletePolicyRows, linkedRows, policiesById } from './policy-links';
import { PERMISSION_TYPES, POLICY_PROVIDERS, POLICY_TYPES, providerConfig, typedFields, typedFromConfig } from './policy-types';
import { resourceRepresentations } from './resources';
import { AUTHZ_DEFAULT_MAX, likeLower } from './scopes';

/**
 * Policies and permissions (`.../authz/resource-server/policy` and `/permission`): a permission is a
 * policy of type `resource` or `scope`. The generic endpoints speak Keycloak's PolicyRepresentation
 * with its string `config`; the typed ones (`policy/role`, `permission/scope`, ...) the provider's
 * own representation. Both write through `savePolicy`, so a policy reads the same either way.
 */

export const policyTaken = (name: string) => errorB(409, `Policy with name [${name}] already exists`, 'Conflicting policy');

/** The config keys each provider owns (replaced as a whole on update; other keys are kept). */
const PROVIDER_KEYS: Record<string, string[]> = {
  role: ['roles', 'fetchRoles'],
  user: ['users'],
  client: ['clients'],
  'client-scope': ['clientScopes'],
  group: ['groups', 'groupsClaim'],
  time: ['nbf', 'noa', 'dayMonth', 'dayMonthEnd', 'month', 'monthEnd', 'year', 'yearEnd', 'hour', 'hourEnd', 'minute', 'minuteEnd'],
  regex: ['targetClaim', 'pattern', 'targetContextAttributes'],
  js: ['code'],
  resource: ['defaultResourceType'],
};

/** A policy of the resource server by id, or 404. */
export async function findPolicy(ctx: RequestContext, t: AuthzTarget, id: string): Promise<AuthzPolicyModel> {
  const p = await ctx.db.models.AuthzPolicy.findOne({ where: { id, resourceServerId: t.rs.id } });
  if (!p) throw authzNotFound();
  return p;
}

/** What a write asks of a policy: its typed body (provider fields) and the links it names. */
interface PolicyInput {
  type: string;
  name?: string;
  description?: string | null;
  logic: string;
  decisionStrategy: string;
  owner?: string;
  /** Provider fields as the typed representation has them. */
  typed: Record<string, unknown>;
  /** Config keys a generic body carries besides the provider's. */
  extraConfig: Record<string, string>;
  resources?: string[];
  scopes?: string[];
  policies?: string[];
}

/** A JSON-array text of a generic config (`resources`, `scopes`, `applyPolicies`), or undefined. */
function configList(config: Record<string, string>, key: string): string[] | undefined {
  const text = config[key];
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    if (Array.isArray(v)) return v.map(String);
  } catch {
    // a single name rather than a JSON list
  }
  return [text];
}

/** Reads a policy body: typed (`policy/{type}`) or generic (`policy` with `config`). */
function readInput(raw: unknown, type: string | undefined, generic: boolean): PolicyInput {
  const body = objectBody(raw);
  const policyType = type ?? textField(body, 'type');
  if (!policyType || !POLICY_TYPES.has(policyType)) throw errorA(400, `Unknown policy type [${policyType ?? ''}]`);
  const base = {
    type: policyType,
    name: textField(body, 'name'),
    description: textField(body, 'description') ?? null,
    logic: enumField(body, 'logic', LOGICS) ?? 'POSITIVE',
    decisionStrategy: enumField(body, 'decisionStrategy', DECISION_STRATEGIES) ?? 'UNANIMOUS',
    owner: textField(body, 'owner'),
    resources: listField(body, 'resources'),
    scopes: listField(body, 'scopes'),
    policies: listField(body, 'policies'),
  };
  if (!generic) return { ...base, typed: body, extraConfig: {} };
  const rawConfig = body.config;
  if (rawConfig !== undefined && rawConfig !== null && (typeof rawConfig !== 'object' || Array.isArray(rawConfig))) throw cannotRead();
  const config: Record<string, string> = {};
  for (const [k, v] of Object.entries((rawConfig ?? {}) as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'object') throw cannotRead();
    config[k] = String(v);
  }
  const resources = configList(config, 'resources') ?? base.resources;
  const scopes = configList(config, 'scopes') ?? base.scopes;
  const policies = configList(config, 'applyPolicies') ?? base.policies;
  const extraConfig = { ...config };
  for (const k of ['resources', 'scopes', 'applyPolicies', ...(PROVIDER_KEYS[policyType] ?? [])]) delete extraConfig[k];
  return { ...base, resources, scopes, policies, typed: typedFromConfig(policyType, config), extraConfig };
}

/** Ids of the resource server's rows named by id or name; one not found is Keycloak's error (as 400). */
async function resolveRefs(
  find: (where: Record<string, unknown>) => Promise<{ id: string } | null>,
  refs: string[],
  missing: (ref: string) => string,
  byName: Record<string, unknown> = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of refs) {
    const row = (await find({ id: ref })) ?? (await find({ name: ref, ...byName }));
    if (!row) throw errorA(400, missing(ref));
    ids.push(row.id);
  }
  return [...new Set(ids)];
}

/** True when following `policyId`'s applied policies leads back to it. */
async function circular(ctx: RequestContext, policyId: string): Promise<boolean> {
  const seen = new Set<string>();
  let frontier = [policyId];
  while (frontier.length) {
    const links = await ctx.db.models.AuthzAssociatedPolicy.findAll({ where: { policyId: { [Op.in]: frontier } } });
    const next: string[] = [];
    for (const l of links) {
      if (l.associatedPolicyId === policyId) return true;
      if (!seen.has(l.associatedPolicyId)) {
        seen.add(l.associatedPolicyId);
        next.push(l.associatedPolicyId);
      }
    }
    frontier = next;
  }
  return false;
}

/**
 * Creates or updates a policy from its input inside the caller's transaction: provider config with
 * names resolved to ids, and the resources, scopes and applied policies it names (left as they are
 * when the body does not name them).
 */
async function savePolicy(ctx: RequestContext, t: AuthzTarget, input: PolicyInput, existing?: AuthzPolicyModel): Promise<AuthzPolicyModel> {
  const m = ctx.db.models;
  const name = input.name ?? existing?.name;
  if (!name?.trim()) throw errorA(400, 'Policy name is required');
  const provider = await providerConfig(ctx, t, existing?.type ?? input.type, input.typed, name);
  const kept = { ...(existing?.config ?? {}) };
  for (const k of PROVIDER_KEYS[existing?.type ?? input.type] ?? []) delete kept[k];
  const config = { ...kept, ...input.extraConfig, ...provider };
  const fields = { name, description: input.description ?? null, logic: input.logic, decisionStrategy: input.decisionStrategy, config };
  let p = existing;
  if (p) await p.update(fields);
  else
    p = await m.AuthzPolicy.create({
      id: randomUUID(),
      resourceServerId: t.rs.id,
      type: input.type,
      owner: input.owner ?? null,
      ...fields,
    });
  const policyId = p.id;
  const rsId = t.rs.id;
  if (input.resources) {
    const ids = await resolveRefs(
      (w) => m.AuthzResource.findOne({ where: { ...w, resourceServerId: rsId }, attributes: ['id'] }),
      input.resources.filter((r) => r.trim()),
      (ref) => `Resource [${ref}] does not exist or is not owned by the resource server.`,
      { owner: rsId },
    );
    await m.AuthzResourcePolicy.destroy({ where: { policyId } });
    if (ids.length) await m.AuthzResourcePolicy.bulkCreate(ids.map((resourceId) => ({ resourceId, policyId })));
  }
  if (input.scopes) {
    const ids = await resolveRefs(
      (w) => m.AuthzScope.findOne({ where: { ...w, resourceServerId: rsId }, attributes: ['id'] }),
      input.scopes.filter((s) => s.trim()),
      (ref) => `Scope with id or name [${ref}] does not exist`,
    );
    await m.AuthzScopePolicy.destroy({ where: { policyId } });
    if (ids.length) await m.AuthzScopePolicy.bulkCreate(ids.map((scopeId) => ({ scopeId, policyId })));
  }
  if (input.policies) {
    const ids = await resolveRefs(
      (w) => m.AuthzPolicy.findOne({ where: { ...w, resourceServerId: rsId }, attributes: ['id'] }),
      input.policies.filter((x) => x.trim()),
      (ref) => `Policy with id or name [${ref}] does not exist`,
    );
    if (ids.includes(policyId)) throw errorA(400, `Circular reference found [${name}].`);
    await m.AuthzAssociatedPolicy.destroy({ where: { policyId } });
    if (ids.length) await m.AuthzAssociatedPolicy.bulkCreate(ids.map((associatedPolicyId) => ({ policyId, associatedPolicyId })));
    if (existing && (await circular(ctx, policyId))) throw errorA(400, `Circular reference found [${name}].`);
  }
  return p;
}

/** Creates a policy inside the caller's transaction (the default policy and permission, imports). */
export async function insertPolicy(ctx: RequestContext, t: AuthzTarget, body: Record<string, unknown>, generic: boolean) {
  return savePolicy(ctx, t, readInput(body, undefined, generic));
}

/** Updates the policy of that name (or creates it) inside the caller's transaction: the settings import. */
export async function importPolicy(ctx: RequestContext, t: AuthzTarget, body: Record<string, unknown>): Promise<void> {
  const input = readInput(body, undefined, true);
  const existing = input.name ? await ctx.db.models.AuthzPolicy.findOne({ where: { resourceServerId: t.rs.id, name: input.name } }) : null;
  await savePolicy(ctx, t, input, existing ?? undefined);
}

/**
 * POST .../policy[/{type}] and .../permission[/{type}]: 201 with the body as read (defaults filled in)
 * and the new id; a taken name is 409 `Conflicting policy`.
 */
export async function createPolicy(ctx: RequestContext, t: AuthzTarget, type: string | undefined, raw: unknown): Promise<Json> {
  await requireManageAuthz(ctx, t.realm);
  const generic = type === undefined;
  const input = readInput(raw, type, generic);
  if (type === 'js') throw errorA(400, 'Script upload is disabled');
  const name = input.name ?? '';
  return write(ctx, { unique: () => policyTaken(name) }, async () => {
    if (name && (await ctx.db.models.AuthzPolicy.findOne({ where: { resourceServerId: t.rs.id, name }, attributes: ['id'] }))) {
      throw policyTaken(name);
    }
    const p = await savePolicy(ctx, t, input);
    const rep: Json = { ...(raw as Json), id: p.id, type: input.type, logic: input.logic, decisionStrategy: input.decisionStrategy };
    await authzEvent(ctx, t, {
      operationType: 'CREATE',
      resourceType: 'AUTHORIZATION_POLICY',
      resourcePath: authzPath(t, `policy/${p.id}`),
      representation: rep,
    });
    return rep;
  });
}

/** PUT .../policy/{id} (generic body) and .../policy/{type}/{id} (typed body): Keycloak answers 201. */
export async function updatePolicy(ctx: RequestContext, t: AuthzTarget, id: string, raw: unknown, generic: boolean): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const input = readInput(raw, p.type, generic);
  const name = input.name ?? p.name;
  await write(ctx, { unique: () => policyTaken(name) }, async () => {
    await savePolicy(ctx, t, input, p);
    await authzEvent(ctx, t, {
      operationType: 'UPDATE',
      resourceType: 'AUTHORIZATION_POLICY',
      resourcePath: authzPath(t, `policy/${id}`),
      representation: { ...(raw as Json), id },
    });
  });
}

/** DELETE .../policy/{id}: permissions left applying no policy go too (Keycloak's cascade). */
export async function deletePolicy(ctx: RequestContext, t: AuthzTarget, id: string): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const rep = (await policyRepresentations(ctx, t, [p], { typed: false }))[0];
  await write(ctx, {}, async () => {
    await deletePolicyRows(ctx, t, [id]);
    await authzEvent(ctx, t, {
      operationType: 'DELETE',
      resourceType: 'AUTHORIZATION_POLICY',
      resourcePath: authzPath(t, `policy/${id}`),
      representation: rep,
    });
  });
}

/**
 * Representations of policies: generic (`config`) or typed (the provider's fields); with `allFields`
 * (`fields=*`) also `resourcesData` and `scopesData`.
 */
export async function policyRepresentations(
  ctx: RequestContext,
  t: AuthzTarget,
  rows: AuthzPolicyModel[],
  o: { typed: boolean; allFields?: boolean },
): Promise<Json[]> {
  const out = rows.map((p) => (o.typed ? { ...policyHead(p), ...typedFields(p.type, p.config) } : toGenericPolicyRepresentation(p)));
  if (!o.allFields || !rows.length) return out;
  const m = ctx.db.models;
  const ids = rows.map((p) => p.id);
  const [rLinks, sLinks] = await Promise.all([
    m.AuthzResourcePolicy.findAll({ where: { policyId: { [Op.in]: ids } } }),
    m.AuthzScopePolicy.findAll({ where: { policyId: { [Op.in]: ids } } }),
  ]);
  const resources = rLinks.length
    ? await m.AuthzResource.findAll({ where: { id: { [Op.in]: [...new Set(rLinks.map((l) => l.resourceId))] } }, order: [['name', 'ASC']] })
    : [];
  const scopes = sLinks.length
    ? await m.AuthzScope.findAll({ where: { id: { [Op.in]: [...new Set(sLinks.map((l) => l.scopeId))] } }, order: [['name', 'ASC']] })
    : [];
  const resourceReps = await resourceRepresentations(ctx, t, resources);
  rows.forEach((p, i) => {
    out[i].resourcesData = resources.flatMap((r, j) =>
      rLinks.some((l) => l.policyId === p.id && l.resourceId === r.id) ? [resourceReps[j]] : [],
    );
    out[i].scopesData = scopes.filter((s) => sLinks.some((l) => l.policyId === p.id && l.scopeId === s.id)).map(toScopeRepresentation);
  });
  return out;
}

/** GET .../policy/{id} (generic) and .../policy/{type}/{id}, .../permission/{id} (typed). */
export async function getPolicy(ctx: RequestContext, t: AuthzTarget, id: string, o: { typed: boolean; fields?: string }): Promise<Json> {
  await requireViewAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  return (await policyRepresentations(ctx, t, [p], { typed: o.typed, allFields: o.fields === '*' }))[0];
}

export interface PolicyQuery {
  policyId?: string;
  name?: string;
  type?: string;
  resource?: string;
  scope?: string;
  permission?: boolean;
  owner?: string;
  fields?: string;
  first?: number;
  max?: number;
}

/**
 * GET .../policy (generic) and .../permission, .../policy/{type} (typed): filtered by id, name
 * (substring, any case), type, resource and scope (id or name), permission or not; ordered by name,
 * `first`/`max` (default 100). An unknown resource or scope name: nothing (204).
 */
export async function listPolicies(ctx: RequestContext, t: AuthzTarget, q: PolicyQuery, typed: boolean): Promise<Json[] | undefined> {
  await requireViewAuthz(ctx, t.realm);
  const m = ctx.db.models;
  const page = pageOf(q, { defaultMax: AUTHZ_DEFAULT_MAX });
  const and: WhereOptions[] = [{ resourceServerId: t.rs.id }];
  if (q.policyId?.trim()) and.push({ id: q.policyId });
  if (q.name?.trim()) and.push(likeLower('name', q.name));
  if (q.type?.trim()) and.push({ type: q.type });
  and.push(q.owner?.trim() ? { owner: q.owner } : { owner: null });
  if (q.permission !== undefined) and.push({ type: { [q.permission ? Op.in : Op.notIn]: [...PERMISSION_TYPES] } });
  if (q.resource?.trim()) {
    const r =
      (await m.AuthzResource.findOne({ where: { resourceServerId: t.rs.id, id: q.resource }, attributes: ['id'] })) ??
      (await m.AuthzResource.findOne({ where: { resourceServerId: t.rs.id, name: q.resource }, attributes: ['id'] }));
    if (!r) return undefined;
    const links = await m.AuthzResourcePolicy.findAll({ where: { resourceId: r.id } });
    and.push({ id: { [Op.in]: links.map((l) => l.policyId) } });
  }
  if (q.scope?.trim()) {
    const s =
      (await m.AuthzScope.findOne({ where: { resourceServerId: t.rs.id, id: q.scope }, attributes: ['id'] })) ??
      (await m.AuthzScope.findOne({ where: { resourceServerId: t.rs.id, name: q.scope }, attributes: ['id'] }));
    if (!s) return undefined;
    const links = await m.AuthzScopePolicy.findAll({ where: { scopeId: s.id } });
    and.push({ id: { [Op.in]: links.map((l) => l.policyId) } });
  }
  if (isEmptyPage(page)) return [];
  const rows = await m.AuthzPolicy.findAll({ where: { [Op.and]: and }, order: [['name', 'ASC']], ...sqlPage(page) });
  return policyRepresentations(ctx, t, rows, { typed, allFields: q.fields === '*' });
}

/** GET .../policy/search?name= (generic) and .../permission/search (typed): the policy of that exact name, nothing (204), or 400 without a name. */
export async function searchPolicy(
  ctx: RequestContext,
  t: AuthzTarget,
  name: string | undefined,
  fields?: string,
  typed = false,
): Promise<Json | undefined> {
  await requireViewAuthz(ctx, t.realm);
  if (name === undefined) throw plainBadRequest();
  const p = await ctx.db.models.AuthzPolicy.findOne({ where: { resourceServerId: t.rs.id, name } });
  return p ? (await policyRepresentations(ctx, t, [p], { typed, allFields: fields === '*' }))[0] : undefined;
}

/** GET .../policy/{id}/dependentPolicies: `{id, name, type}` of the policies applying this one. */
export async function dependentPolicies(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const links = await ctx.db.models.AuthzAssociatedPolicy.findAll({ where: { associatedPolicyId: p.id } });
  return (
    await policiesById(
      ctx,
      links.map((l) => l.policyId),
    )
  ).map(policyRef);
}

/** GET .../policy/{id}/associatedPolicies: `{id, name, type, description}` of the policies it applies. */
export async function associatedPolicies(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const links = await ctx.db.models.AuthzAssociatedPolicy.findAll({ where: { policyId: p.id } });
  return (
    await policiesById(
      ctx,
      links.map((l) => l.associatedPolicyId),
    )
  ).map((x) => {
    const out = policyRef(x);
    if (x.description != null) out.description = x.description;
    return out;
  });
}

/** GET .../policy/{id}/resources: `{_id, name}` of the resources the permission names. */
export async function policyResources(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const m = ctx.db.models;
  const rows = await linkedRows<AuthzResourceModel>(m.AuthzResourcePolicy, { policyId: p.id }, 'resourceId', m.AuthzResource);
  return rows.map((r) => ({ name: r.name, _id: r.id }));
}

/** GET .../policy/{id}/scopes: `{id, name}` of the scopes the permission names. */
export async function policyScopes(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const p = await findPolicy(ctx, t, id);
  const m = ctx.db.models;
  const rows = await linkedRows<AuthzScopeModel>(m.AuthzScopePolicy, { policyId: p.id }, 'scopeId', m.AuthzScope);
  return rows.map((s) => ({ id: s.id, name: s.name }));
}

/** GET .../policy/providers and .../permission/providers: `{type, name, group}` of each provider. */
export async function policyProviders(ctx: RequestContext, t: AuthzTarget): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  return POLICY_PROVIDERS.map((p) => ({ type: p.type, name: p.name, group: p.group }));
}

/** True when `segment` names a policy provider (so `policy/{segment}` is a type, not an id). */
export const isPolicyType = (segment: string) => POLICY_TYPES.has(segment);
