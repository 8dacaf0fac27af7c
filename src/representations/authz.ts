import type { AuthzPolicyModel, AuthzResourceModel, AuthzScopeModel, ResourceServerModel } from '../db/models/authorization';

/**
 * Authorization services: model → Keycloak JSON (ResourceServerRepresentation, ResourceRepresentation,
 * ScopeRepresentation, the generic PolicyRepresentation). Typed policy representations (role, user,
 * group, ...) are built from the generic one in src/services/authz/policy-types.ts. Keycloak's JSON
 * omits nulls; so do these.
 */
export type Json = Record<string, unknown>;

/** `GET .../authz/resource-server`: the id and clientId are the client's UUID, the name its clientId. */
export function toResourceServerRepresentation(rs: ResourceServerModel, clientId: string): Json {
  return {
    id: rs.id,
    clientId: rs.id,
    name: clientId,
    allowRemoteResourceManagement: Boolean(rs.allowRemoteResourceManagement),
    policyEnforcementMode: rs.policyEnforcementMode,
    decisionStrategy: rs.decisionStrategy,
  };
}

/** ScopeRepresentation: id, name, and the icon and display name when set. */
export function toScopeRepresentation(s: AuthzScopeModel): Json {
  const out: Json = { id: s.id, name: s.name };
  if (s.iconUri != null) out.iconUri = s.iconUri;
  if (s.displayName != null) out.displayName = s.displayName;
  return out;
}

/** The `{id, name, iconUri?}` of a scope inside a resource. */
export function scopeRef(s: AuthzScopeModel): Json {
  const out: Json = { id: s.id, name: s.name };
  if (s.iconUri != null) out.iconUri = s.iconUri;
  return out;
}

/**
 * ResourceRepresentation (`_id`, `uris`, `icon_uri` as Keycloak names them): with `deep`, its scopes
 * and attributes too. `ownerName` is the client's clientId or the owning user's username.
 */
export function toResourceRepresentation(r: AuthzResourceModel, ownerName: string | undefined, scopes?: AuthzScopeModel[]): Json {
  const out: Json = { name: r.name };
  if (r.type != null) out.type = r.type;
  out.owner = ownerName === undefined ? { id: r.owner } : { id: r.owner, name: ownerName };
  out.ownerManagedAccess = Boolean(r.ownerManagedAccess);
  if (r.displayName != null) out.displayName = r.displayName;
  if (scopes) out.attributes = { ...r.attributes };
  out._id = r.id;
  out.uris = [...r.uris];
  if (scopes) out.scopes = scopes.map(scopeRef);
  if (r.iconUri != null) out.icon_uri = r.iconUri;
  return out;
}

/** The generic PolicyRepresentation: Keycloak's stored config map as it is. */
export function toGenericPolicyRepresentation(p: AuthzPolicyModel): Json {
  const out = policyHead(p);
  out.config = { ...p.config };
  return out;
}

/** The fields every policy representation shares. */
export function policyHead(p: AuthzPolicyModel): Json {
  const out: Json = { id: p.id, name: p.name };
  if (p.description != null) out.description = p.description;
  out.type = p.type;
  if (p.owner != null) out.owner = p.owner;
  out.logic = p.logic;
  out.decisionStrategy = p.decisionStrategy;
  return out;
}

/** `{id, name, type}`: a policy in the short lists (dependent policies, a resource's permissions ...). */
export const policyRef = (p: AuthzPolicyModel): Json => ({ id: p.id, name: p.name, type: p.type });
