import {
  type AuthzIndex,
  type AuthzModelInput,
  type AuthzPolicy,
  type AuthzResource,
  type AuthzScope,
  type DecisionStrategy,
  type Effect,
  indexAuthzModel,
  type Logic,
  uniqueById,
} from './evaluation-index';
import { type AuthzIdentity, type AuthzRealm, type ProviderContext, policyProviders } from './policy-providers';

/**
 * The authorization services' decision engine: Keycloak 26's policy evaluation as pure TypeScript over
 * Keycloak's representations. No database, no clock of its own; callers load the resource server
 * (storage in src/services/authz/) and the identity, and render the outcome.
 *
 * API
 * - `indexAuthzModel(model)`: the resource server, its resources, scopes and policies (generic
 *   PolicyRepresentations, config as Keycloak stores it) indexed once; reuse it for many identities.
 *   The model types live in evaluation-index.ts and are re-exported here.
 * - `evaluateAuthorization(modelOrIndex, input)`: decides the requested permissions (`resource#scope`
 *   as the UMA grant asks them, `parsePermissionParameter` reads one; or the admin evaluate tool's
 *   resources; none = every resource of the server and of the user) for one identity: its id, effective
 *   role ids, direct group ids (ancestors through `realm.group`), requesting client, client scopes and
 *   token claims (`AuthzIdentity`, policy-providers.ts), plus context attributes and the time. Bad
 *   requests throw `AuthzRequestError` (Keycloak's `invalid_resource` / `invalid_scope`, a 400 at the
 *   token endpoint).
 * - The outcome has one `PermissionDecision` per evaluated resource permission (granted scopes, the
 *   permissions that voted and their policies) and `permissions`, the RPT's `authorization.permissions`
 *   claim (`[{rsid, rsname, scopes}]`). `toEvaluationResponse` (evaluation-response.ts) renders the
 *   admin's `policy/evaluate` body from it.
 *
 * The rules, and the Keycloak classes they come from:
 * - DefaultPolicyEvaluator: DISABLED grants everything; permissions apply to a resource permission when
 *   they are scope permissions on the resource and one of the asked scopes, scope permissions on an asked
 *   scope without resources, permissions for the resource's `type` (config `defaultResourceType`), the
 *   permissions of the server's typed resources of that type (for resources owned by a user), and
 *   resource permissions on the resource itself. When none applies, ENFORCING denies and PERMISSIVE grants.
 * - AbstractPermissionProvider / AggregatePolicyProvider: a permission or aggregate evaluates each
 *   associated policy; a policy that does not grant denies (`denyIfNoEffect`); NEGATIVE logic swaps
 *   the effect (DefaultEvaluation#grant/deny).
 * - AbstractDecisionCollector#isGranted: a permission's (or aggregate's) decision strategy over its
 *   associated policies: UNANIMOUS no DENY, AFFIRMATIVE one PERMIT, CONSENSUS more PERMITs than DENYs.
 * - DecisionPermissionCollector: combines the permissions of one resource permission into granted
 *   scopes. The resource server's strategy only matters for scopes: under AFFIRMATIVE a scope granted by
 *   one permission stays granted when another denies it; under UNANIMOUS (and CONSENSUS, which Keycloak
 *   treats the same here) any deny removes it. A resource with no granted scope left is denied whenever
 *   any permission denied, whatever the strategy.
 * - Permissions / AuthorizationTokenService#createPermissions: how requests become resource permissions.
 */

export * from './evaluation-index';
export type { AuthzGroup, AuthzIdentity, AuthzRealm } from './policy-providers';

/** One asked permission: `resource#scope1,scope2`, or the evaluate tool's `{id | type, scopes}`. */
export interface PermissionRequest {
  /** A resource id or name, or `resource-type:T`, `resource-type-any:T`, `resource-type-instance:T`, `resource-type-owner:T`. */
  resource?: string | null;
  /** The server's resources of this type (the evaluate tool's `type`). */
  resourceType?: string | null;
  /** Scope names (ids accepted too). */
  scopes?: string[];
}

/** The UMA grant's `permission` parameter, `RESOURCE#SCOPE1,SCOPE2` (`#SCOPE` asks for a scope on any resource). */
export function parsePermissionParameter(value: string): PermissionRequest {
  const hash = value.indexOf('#');
  const resource = hash === -1 ? value : value.slice(0, hash);
  const scopes =
    hash === -1
      ? []
      : value
          .slice(hash + 1)
          .split(',')
          .filter((s) => s !== '');
  return { resource: resource.trim() === '' ? null : resource, scopes };
}

export interface EvaluationInput {
  identity: AuthzIdentity;
  realm?: AuthzRealm;
  /** None (or empty) = all resources of the server and of the identity, with all their scopes. */
  permissions?: PermissionRequest[];
  /** Context attributes (pushed claims, the evaluate tool's `context.attributes`); override `kc.client.id`. */
  attributes?: Record<string, string | string[]>;
  /** The time for time policies; defaults to the current time. */
  now?: Date | (() => Date);
  /** The zone time policies read calendar fields in; defaults to the process zone (Keycloak: the JVM's). */
  timeZone?: string;
  /** UMA grant: a permission whose scopes are all unknown is `invalid_scope` (the evaluate tool ignores them). */
  validateScopes?: boolean;
}

/** A policy's vote as the evaluate tool reports it. */
export interface PolicyDecision {
  policy: AuthzPolicy;
  status: Effect;
  associatedPolicies: PolicyDecision[];
}

/** The decision on one resource permission (a resource, or a scope with no resource, and the asked scopes). */
export interface PermissionDecision {
  resource: AuthzResource | null;
  requestedScopes: AuthzScope[];
  /** Keycloak has a result for it (some permission voted, or it was granted without one); the evaluate tool lists only these. */
  evaluated: boolean;
  /** The result's status in the evaluate tool (PERMIT when granted, or when granted without permissions). */
  status: Effect;
  granted: boolean;
  grantedScopes: AuthzScope[];
  /** The permissions that voted, in Keycloak's evaluation order, each with its associated policies. */
  policies: PolicyDecision[];
}

/** An entry of the RPT's `authorization.permissions` (Keycloak's Permission: `rsid`, `rsname`, `scopes` when not empty). */
export interface RptPermission {
  rsid?: string;
  rsname?: string;
  scopes?: string[];
}

export interface EvaluationOutcome {
  decisions: PermissionDecision[];
  permissions: RptPermission[];
  /** The indexed model the decisions refer to (names of a policy's resources and scopes). */
  index: AuthzIndex;
}

/** A request Keycloak rejects before evaluating (400 with `{error, error_description}` at the token endpoint). */
export class AuthzRequestError extends Error {
  constructor(
    readonly error: 'invalid_resource' | 'invalid_scope',
    readonly description: string,
  ) {
    super(description);
    this.name = 'AuthzRequestError';
  }
}

/** A resource permission to decide (Keycloak's ResourcePermission). */
interface ResourcePermission {
  resource: AuthzResource | null;
  scopes: AuthzScope[];
}

/** Permissions#resolveScopes: the asked scopes the resource has (with the scopes its type's server resources have, for user-owned typed resources); none asked = all of them. */
function resolveScopes(ix: AuthzIndex, resource: AuthzResource, asked: AuthzScope[]): AuthzScope[] {
  let scopes = resource.scopes;
  if (resource.type && !resource.serverOwned) {
    const typed = (ix.serverResourcesByType.get(resource.type) ?? []).flatMap((r) => r.scopes);
    scopes = uniqueById([...scopes, ...typed]);
  }
  if (asked.length === 0) return scopes;
  const ids = new Set(asked.map((s) => s.id));
  return scopes.filter((s) => ids.has(s.id));
}

/** The resources a `resource` reference names (AuthorizationTokenService#createPermissions). */
function resourcesFor(ix: AuthzIndex, ref: string, subject: string | null | undefined): AuthzResource[] {
  const byId = ix.resourceById.get(ref);
  if (byId) return [byId];
  const typed = /^(resource-type|resource-type-any|resource-type-instance|resource-type-owner):(.*)$/s.exec(ref);
  if (typed) {
    const [, kind, type] = typed;
    return ix.resources.filter(
      (r) =>
        r.type === type &&
        (kind === 'resource-type-any' ||
          (kind === 'resource-type' && r.serverOwned) ||
          (kind === 'resource-type-instance' && !r.serverOwned) ||
          (kind === 'resource-type-owner' && subject != null && r.ownerId === subject)),
    );
  }
  const out: AuthzResource[] = [];
  if (subject != null) out.push(...ix.resources.filter((r) => r.name === ref && r.ownerId === subject && !r.serverOwned));
  if (subject !== ix.server.id) out.push(...ix.resources.filter((r) => r.name === ref && r.serverOwned));
  return out;
}

/** The requests as resource permissions, merged per resource (AuthorizationTokenService, PolicyEvaluationService, Permissions#all). */
function resourcePermissions(ix: AuthzIndex, input: EvaluationInput): ResourcePermission[] {
  const subject = input.identity.id;
  const requests = input.permissions ?? [];
  if (requests.length === 0) {
    const owned = ix.resources.filter((r) => r.serverOwned || (subject != null && subject !== ix.server.id && r.ownerId === subject));
    const ordered = [...owned.filter((r) => r.serverOwned), ...owned.filter((r) => !r.serverOwned)];
    return ordered.map((resource) => ({ resource, scopes: resolveScopes(ix, resource, []) }));
  }
  const out = new Map<string, ResourcePermission>();
  for (const request of requests) {
    const names = request.scopes ?? [];
    const scopes = uniqueById(names.map((n) => ix.scopeByName.get(n) ?? ix.scopeById.get(n)).filter((s): s is AuthzScope => !!s));
    const resources: AuthzResource[] = [];
    if (request.resource) resources.push(...resourcesFor(ix, request.resource, subject));
    if (request.resourceType) resources.push(...ix.resources.filter((r) => r.serverOwned && r.type === request.resourceType));
    if (request.resource && resources.length === 0) {
      throw new AuthzRequestError('invalid_resource', `Resource with id [${request.resource}] does not exist.`);
    }
    if (input.validateScopes && names.length > 0 && scopes.length === 0) {
      throw new AuthzRequestError('invalid_scope', `One of the given scopes [${names.join(', ')}] is invalid`);
    }
    const add = (resource: AuthzResource) => {
      const existing = out.get(resource.id);
      if (existing) existing.scopes = uniqueById([...existing.scopes, ...scopes]);
      else out.set(resource.id, { resource, scopes: resolveScopes(ix, resource, scopes) });
    };
    if (request.resource || request.resourceType) {
      resources.forEach(add);
      continue;
    }
    if (scopes.length === 0) continue;
    const ids = new Set(scopes.map((s) => s.id));
    const withScopes = ix.resources.filter((r) => r.scopes.some((s) => ids.has(s.id)));
    if (withScopes.length > 0) withScopes.forEach(add);
    else for (const scope of scopes) if (!out.has(`#${scope.id}`)) out.set(`#${scope.id}`, { resource: null, scopes: [scope] });
  }
  return [...out.values()];
}

/** AbstractDecisionCollector#isGranted over the effects of a policy's associated policies. */
function strategyGrants(strategy: DecisionStrategy, effects: Effect[]): boolean {
  const permits = effects.filter((e) => e === 'PERMIT').length;
  if (strategy === 'AFFIRMATIVE') return permits > 0;
  if (strategy === 'CONSENSUS') return permits > effects.length - permits;
  return permits === effects.length;
}

/** DefaultEvaluation#grant/deny: NEGATIVE logic swaps the outcome. */
const applyLogic = (logic: Logic, granted: boolean): Effect => ((logic === 'NEGATIVE' ? !granted : granted) ? 'PERMIT' : 'DENY');

/** The permissions that apply to a resource permission, in DefaultPolicyEvaluator's order, each once. */
function applicablePermissions(ix: AuthzIndex, rp: ResourcePermission): AuthzPolicy[] {
  const found = new Map<string, AuthzPolicy>();
  const add = (list: AuthzPolicy[] | undefined, pred: (p: AuthzPolicy) => boolean = () => true) => {
    for (const p of list ?? []) if (!found.has(p.id) && pred(p)) found.set(p.id, p);
  };
  const asked = new Set(rp.scopes.map((s) => s.id));
  const r = rp.resource;
  // scope permissions on the resource and an asked scope
  if (r) add(ix.permissionsByResource.get(r.id), (p) => p.scopeIds.some((id) => asked.has(id)));
  // scope permissions on an asked scope, for any resource (in the permissions' order)
  const unbound = new Set(rp.scopes.flatMap((s) => ix.unboundPermissionsByScope.get(s.id) ?? []));
  add([...unbound].sort((a, b) => (ix.permissionRank.get(a.id) ?? 0) - (ix.permissionRank.get(b.id) ?? 0)));
  if (r) {
    if (r.type) {
      // permissions for the resource's type, then those of the server's resources of that type (for user-owned resources)
      add(ix.permissionsByType.get(r.type));
      if (!r.serverOwned) for (const typed of ix.serverResourcesByType.get(r.type) ?? []) add(ix.permissionsByResource.get(typed.id));
    }
    // resource permissions on the resource itself
    add(ix.permissionsByResource.get(r.id), (p) => p.scopeIds.length === 0);
  }
  return [...found.values()];
}

interface Vote {
  permission: AuthzPolicy;
  associated: PolicyDecision[];
  granted: boolean;
}

/** Evaluates policies with a per-resource-permission cache (the decision cache of IterablePermissionEvaluator). */
class PolicyEvaluator {
  private cache = new Map<string, Effect>();

  constructor(
    private readonly ix: AuthzIndex,
    private readonly ctx: ProviderContext,
  ) {}

  reset(): void {
    this.cache.clear();
  }

  associated(policy: AuthzPolicy): AuthzPolicy[] {
    return policy.associatedIds.map((id) => this.ix.policyById.get(id)).filter((p): p is AuthzPolicy => !!p);
  }

  /** A policy's effect, its logic applied. Aggregates (and permissions nested in them) recurse; a cycle denies. */
  effect(policy: AuthzPolicy, path: Set<string> = new Set()): Effect {
    const cached = this.cache.get(policy.id);
    if (cached) return cached;
    let granted = false;
    if (path.has(policy.id)) return applyLogic(policy.logic, false);
    if (policy.type === 'aggregate' || policy.type === 'resource' || policy.type === 'scope') {
      const inner = this.associated(policy);
      const next = new Set(path).add(policy.id);
      granted =
        inner.length > 0 &&
        strategyGrants(
          policy.decisionStrategy,
          inner.map((p) => this.effect(p, next)),
        );
    } else {
      const provider = policyProviders[policy.type];
      granted = provider ? provider(policy, this.ctx) : false;
    }
    const effect = applyLogic(policy.logic, granted);
    this.cache.set(policy.id, effect);
    return effect;
  }
}

const has = (ids: string[], id: string) => ids.includes(id);

/** DecisionPermissionCollector#isTypedResourcePermission. */
function isTyped(ix: AuthzIndex, p: AuthzPolicy): boolean {
  if (p.config.defaultResourceType || p.resourceType) return true;
  const first = p.resourceIds.length ? ix.resourceById.get(p.resourceIds[0]) : undefined;
  return !!first && !!first.type && first.serverOwned;
}

/** DecisionPermissionCollector#onComplete for a result that is not a plain grant: the granted scopes, or null when denied. */
function combine(ix: AuthzIndex, rp: ResourcePermission, votes: Vote[]): AuthzScope[] | null {
  const r = rp.resource;
  const requested = rp.scopes.map((s) => s.id);
  const granted = new Set<string>();
  const denied = new Set<string>();
  const deniedByTyped = new Set<string>();
  let resourceGranted = false;
  let anyDeny = false;
  for (const { permission: p, granted: ok } of votes) {
    const containsResource = r != null && has(p.resourceIds, r.id);
    if (ok) {
      if (p.type === 'scope') {
        for (const s of requested) {
          if (!has(p.scopeIds, s)) continue;
          granted.add(s);
          // a scope the resource does not declare itself (inherited from its type) is granted over earlier denials
          if (r && !r.scopes.some((rs) => rs.id === s)) denied.delete(s);
        }
      } else if (p.type === 'resource') for (const s of requested) granted.add(s);
      // a scope permission grants the resource itself only for user-owned resources (isGrantingAccessToResource)
      if (!resourceGranted) resourceGranted = (p.type !== 'scope' || (r != null && !r.serverOwned)) && containsResource;
    } else {
      if (p.type === 'resource') {
        if (containsResource || !resourceGranted) for (const s of requested) (isTyped(ix, p) ? deniedByTyped : denied).add(s);
      } else if (containsResource || p.resourceIds.length === 0) for (const s of p.scopeIds) denied.add(s);
      anyDeny = true;
    }
  }
  // the resource server's strategy: only AFFIRMATIVE lets a grant win over a deny of the same scope
  if (ix.server.strategy === 'AFFIRMATIVE') for (const s of granted) denied.delete(s);
  if (resourceGranted) {
    for (const s of granted) deniedByTyped.delete(s);
    for (const s of deniedByTyped) denied.add(s);
  }
  if (denied.size === 0) for (const s of deniedByTyped) denied.add(s);
  for (const s of denied) granted.delete(s);
  if (!resourceGranted && granted.size === 0 && requested.length > 0) return null;
  if (anyDeny && granted.size === 0) return null;
  return rp.scopes.filter((s) => granted.has(s.id));
}

/** Decides one resource permission (DefaultPolicyEvaluator#evaluate + the collectors' onComplete). */
function decide(ix: AuthzIndex, rp: ResourcePermission, evaluator: PolicyEvaluator): PermissionDecision {
  const base = { resource: rp.resource, requestedScopes: rp.scopes };
  const denied: PermissionDecision = { ...base, evaluated: false, status: 'DENY', granted: false, grantedScopes: [], policies: [] };
  // grantAndComplete: a result with PERMIT status and no votes; nothing granted when no scope of a scoped resource is left
  const plainGrant = (): PermissionDecision => {
    const granted = !(rp.scopes.length === 0 && rp.resource && rp.resource.scopes.length > 0);
    return { ...base, evaluated: true, status: 'PERMIT', granted, grantedScopes: granted ? rp.scopes : [], policies: [] };
  };
  if (ix.server.enforcement === 'DISABLED') return plainGrant();
  const applicable = applicablePermissions(ix, rp);
  if (applicable.length === 0) return ix.server.enforcement === 'PERMISSIVE' ? plainGrant() : denied;
  evaluator.reset();
  const votes: Vote[] = [];
  for (const permission of applicable) {
    const inner = evaluator.associated(permission);
    // a permission without policies casts no vote (but still counts as evaluated: no PERMISSIVE fallback)
    if (inner.length === 0) continue;
    const associated = inner.map((policy) => ({ policy, status: evaluator.effect(policy), associatedPolicies: [] }));
    votes.push({
      permission,
      associated,
      granted: strategyGrants(
        permission.decisionStrategy,
        associated.map((a) => a.status),
      ),
    });
  }
  if (votes.length === 0) return denied;
  const policies = votes.map((v) => ({
    policy: v.permission,
    status: (v.granted ? 'PERMIT' : 'DENY') as Effect,
    associatedPolicies: v.associated,
  }));
  const grantedScopes = combine(ix, rp, votes);
  if (grantedScopes === null) return { ...base, evaluated: true, status: 'DENY', granted: false, grantedScopes: [], policies };
  return { ...base, evaluated: true, status: 'PERMIT', granted: true, grantedScopes, policies };
}

/** DecisionPermissionCollector#grantPermission: one entry per resource (the first wins), one for scopes granted without a resource. */
export function rptPermissions(decisions: PermissionDecision[], includeResourceName = true): RptPermission[] {
  const out = new Map<string, RptPermission>();
  for (const d of decisions) {
    if (!d.granted) continue;
    const scopes = d.grantedScopes.map((s) => s.name);
    if (d.resource) {
      if (out.has(d.resource.id)) continue;
      const p: RptPermission = { rsid: d.resource.id };
      if (includeResourceName) p.rsname = d.resource.name;
      if (scopes.length) p.scopes = scopes;
      out.set(d.resource.id, p);
    } else if (scopes.length && !out.has('')) out.set('', { scopes });
  }
  return [...out.values()];
}

/** A context attribute: a list as is, a string split at commas (as the evaluate tool splits its `context.attributes`). */
const attributeValues = (v: string | string[]) => (Array.isArray(v) ? v : v.split(','));

/** Decides the requested permissions for one identity (see the file header). */
export function evaluateAuthorization(model: AuthzModelInput | AuthzIndex, input: EvaluationInput): EvaluationOutcome {
  const ix = isIndex(model) ? model : indexAuthzModel(model);
  const attributes: Record<string, string[]> = {};
  if (input.identity.client) attributes['kc.client.id'] = [input.identity.client.clientId];
  for (const [k, v] of Object.entries(input.attributes ?? {})) attributes[k] = attributeValues(v);
  const now = typeof input.now === 'function' ? input.now() : (input.now ?? new Date());
  const ctx: ProviderContext = {
    identity: input.identity,
    realm: input.realm ?? {},
    attributes,
    now,
    timeZone: input.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC',
  };
  const evaluator = new PolicyEvaluator(ix, ctx);
  const decisions = resourcePermissions(ix, input).map((rp) => decide(ix, rp, evaluator));
  return { decisions, permissions: rptPermissions(decisions), index: ix };
}

const isIndex = (model: AuthzModelInput | AuthzIndex): model is AuthzIndex => 'resourceById' in model && model.resourceById instanceof Map;
