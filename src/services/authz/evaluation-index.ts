import { idList, type ProviderPolicy } from './policy-providers';

/**
 * The model the decision engine (evaluation.ts) works on: Keycloak's representations of a resource
 * server, its resources, scopes and policies as input, and the same indexed for the engine's look-ups
 * (DefaultPolicyEvaluator's queries: permissions by resource, by scope without resources, by resource type).
 */

export type Effect = 'PERMIT' | 'DENY';
export type DecisionStrategy = 'UNANIMOUS' | 'AFFIRMATIVE' | 'CONSENSUS';
export type Logic = 'POSITIVE' | 'NEGATIVE';
export type PolicyEnforcementMode = 'ENFORCING' | 'PERMISSIVE' | 'DISABLED';

/** ScopeRepresentation (or just its name, or id, as in a resource's scope list). */
export interface AuthzScopeInput {
  id?: string;
  name?: string;
}

/** ResourceRepresentation: Keycloak names the id `_id`; `owner` is `{id, name}` or an id. */
export interface AuthzResourceInput {
  id?: string;
  _id?: string;
  name: string;
  type?: string | null;
  owner?: string | { id?: string; name?: string } | null;
  uris?: string[];
  scopes?: Array<AuthzScopeInput | string>;
}

/**
 * The generic PolicyRepresentation. A permission's resources, scopes and applied policies come from
 * `resources` / `scopes` / `policies` when given, else from the config's JSON lists (`resources`,
 * `scopes`, `applyPolicies`, as an export holds them); entries are ids or names. The resource type of
 * a resource permission is `resourceType` or config `defaultResourceType`.
 */
export interface AuthzPolicyInput {
  id: string;
  name: string;
  type: string;
  description?: string | null;
  logic?: string | null;
  decisionStrategy?: string | null;
  config?: Record<string, string> | null;
  resources?: string[];
  scopes?: string[];
  policies?: string[];
  resourceType?: string | null;
}

/** ResourceServerRepresentation: `id` and `clientId` are the client's UUID. */
export interface AuthzServerInput {
  id?: string;
  clientId?: string;
  policyEnforcementMode?: string | null;
  decisionStrategy?: string | null;
}

export interface AuthzModelInput {
  server: AuthzServerInput;
  resources?: AuthzResourceInput[];
  scopes?: AuthzScopeInput[];
  policies?: AuthzPolicyInput[];
}

export interface AuthzScope {
  id: string;
  name: string;
}

export interface AuthzResource {
  id: string;
  name: string;
  type: string | null;
  ownerId: string;
  /** Owned by the resource server itself (not by a user). */
  serverOwned: boolean;
  scopes: AuthzScope[];
  rep: AuthzResourceInput;
}

export interface AuthzPolicy extends ProviderPolicy {
  description: string | null;
  logic: Logic;
  decisionStrategy: DecisionStrategy;
  resourceIds: string[];
  scopeIds: string[];
  associatedIds: string[];
  resourceType: string | null;
  rep: AuthzPolicyInput;
}

/** The indexed model. */
export interface AuthzIndex {
  server: { id: string; enforcement: PolicyEnforcementMode; strategy: DecisionStrategy };
  resources: AuthzResource[];
  resourceById: Map<string, AuthzResource>;
  scopeById: Map<string, AuthzScope>;
  scopeByName: Map<string, AuthzScope>;
  policyById: Map<string, AuthzPolicy>;
  /** The permissions (`resource` and `scope` policies), in the given order. */
  permissions: AuthzPolicy[];
  /** Look-ups for DefaultPolicyEvaluator's queries, each list in the permissions' order. */
  permissionsByResource: Map<string, AuthzPolicy[]>;
  /** Permissions on a scope with no resources and no resource type. */
  unboundPermissionsByScope: Map<string, AuthzPolicy[]>;
  permissionsByType: Map<string, AuthzPolicy[]>;
  serverResourcesByType: Map<string, AuthzResource[]>;
  /** A permission's position in `permissions`. */
  permissionRank: Map<string, number>;
}

const oneOf = <T extends string>(value: string | null | undefined, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;
const STRATEGIES = ['UNANIMOUS', 'AFFIRMATIVE', 'CONSENSUS'] as const;

/** Indexes a resource server's model (see the file header). */
export function indexAuthzModel(model: AuthzModelInput): AuthzIndex {
  const serverId = model.server.clientId ?? model.server.id ?? '';
  const scopeById = new Map<string, AuthzScope>();
  const scopeByName = new Map<string, AuthzScope>();
  const addScope = (s: AuthzScope) => {
    if (!scopeById.has(s.id)) scopeById.set(s.id, s);
    if (!scopeByName.has(s.name)) scopeByName.set(s.name, s);
  };
  for (const s of model.scopes ?? []) if (s.id && s.name) addScope({ id: s.id, name: s.name });
  const scopeRef = (ref: AuthzScopeInput | string): AuthzScope | undefined => {
    const r = typeof ref === 'string' ? { id: ref, name: ref } : ref;
    const found = (r.id && scopeById.get(r.id)) || (r.name && scopeByName.get(r.name)) || undefined;
    if (found) return found;
    if (typeof ref !== 'string' && r.id && r.name) {
      addScope({ id: r.id, name: r.name });
      return scopeById.get(r.id);
    }
    return undefined;
  };

  const resources: AuthzResource[] = [];
  const resourceById = new Map<string, AuthzResource>();
  for (const rep of model.resources ?? []) {
    const id = rep._id ?? rep.id;
    if (!id) continue;
    const ownerId = (typeof rep.owner === 'string' ? rep.owner : rep.owner?.id) ?? serverId;
    const scopes = uniqueById((rep.scopes ?? []).map(scopeRef).filter((s): s is AuthzScope => !!s));
    const serverOwned = ownerId === serverId || ownerId === model.server.id;
    const r: AuthzResource = { id, name: rep.name, type: rep.type || null, ownerId, serverOwned, scopes, rep };
    resources.push(r);
    resourceById.set(id, r);
  }
  const resourceRef = (ref: string) => resourceById.get(ref) ?? resources.find((r) => r.name === ref && r.serverOwned);

  const policies = model.policies ?? [];
  const byName = new Map(policies.map((p) => [p.name, p.id]));
  const ids = new Set(policies.map((p) => p.id));
  const policyById = new Map<string, AuthzPolicy>();
  const permissions: AuthzPolicy[] = [];
  for (const rep of policies) {
    const config = { ...(rep.config ?? {}) };
    const resourceIds = (rep.resources ?? idList(config.resources)).map((ref) => resourceRef(ref)?.id).filter((id): id is string => !!id);
    const scopeIds = (rep.scopes ?? idList(config.scopes)).map((ref) => scopeRef(ref)?.id).filter((id): id is string => !!id);
    const associatedIds = (rep.policies ?? idList(config.applyPolicies))
      .map((ref) => (ids.has(ref) ? ref : byName.get(ref)))
      .filter((id): id is string => !!id);
    const p: AuthzPolicy = {
      id: rep.id,
      name: rep.name,
      type: rep.type,
      description: rep.description ?? null,
      config,
      logic: oneOf(rep.logic, ['POSITIVE', 'NEGATIVE'], 'POSITIVE'),
      decisionStrategy: oneOf(rep.decisionStrategy, STRATEGIES, 'UNANIMOUS'),
      resourceIds: [...new Set(resourceIds)],
      scopeIds: [...new Set(scopeIds)],
      associatedIds: [...new Set(associatedIds)],
      resourceType: rep.resourceType || config.defaultResourceType || null,
      rep,
    };
    policyById.set(p.id, p);
    if (p.type === 'resource' || p.type === 'scope') permissions.push(p);
  }
  const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  const permissionsByResource = new Map<string, AuthzPolicy[]>();
  const unboundPermissionsByScope = new Map<string, AuthzPolicy[]>();
  const permissionsByType = new Map<string, AuthzPolicy[]>();
  for (const p of permissions) {
    for (const id of p.resourceIds) push(permissionsByResource, id, p);
    if (p.resourceIds.length === 0 && !p.resourceType) for (const id of p.scopeIds) push(unboundPermissionsByScope, id, p);
    if (p.resourceType) push(permissionsByType, p.resourceType, p);
  }
  const serverResourcesByType = new Map<string, AuthzResource[]>();
  for (const r of resources) if (r.serverOwned && r.type) push(serverResourcesByType, r.type, r);
  return {
    server: {
      id: serverId,
      enforcement: oneOf(model.server.policyEnforcementMode, ['ENFORCING', 'PERMISSIVE', 'DISABLED'], 'ENFORCING'),
      strategy: oneOf(model.server.decisionStrategy, STRATEGIES, 'UNANIMOUS'),
    },
    resources,
    resourceById,
    scopeById,
    scopeByName,
    policyById,
    permissions,
    permissionsByResource,
    unboundPermissionsByScope,
    permissionsByType,
    serverResourcesByType,
    permissionRank: new Map(permissions.map((p, i) => [p.id, i])),
  };
}

export function uniqueById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.id) && seen.add(i.id));
}
