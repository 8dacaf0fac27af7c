import type { AuthzIndex, AuthzScope, Effect, EvaluationOutcome, PermissionDecision, PolicyDecision } from './evaluation';

/**
 * The body of `POST .../authz/resource-server/policy/evaluate` (PolicyEvaluationResponse) from an
 * evaluation outcome, as Keycloak's PolicyEvaluationResponseBuilder writes it; the caller adds `rpt`
 * (the identity's access token with `authorization.permissions` = `outcome.permissions`).
 *
 * - Only resource permissions Keycloak has a result for are listed (a resource no permission covers
 *   under ENFORCING is absent); the overall status is DENY when any of them is denied, else PERMIT.
 * - A result's `scopes` are the granted scopes when granted, the asked ones otherwise, and
 *   `allowedScopes` repeats them when PERMIT; the resource's name becomes `<name> with scopes [a, b]`,
 *   and results without a resource are `Any Resource with Scopes [a, b]`, merged into one.
 * - Each permission is reported with its status (its own decision strategy over its policies) and its
 *   associated policies with their effects; a denied one lists its scopes. The policy representation
 *   carries Keycloak's defaults for what the builder does not copy (`logic` POSITIVE, empty `config`),
 *   and a resource permission shows the resource's scopes.
 */

export interface EvaluationScopeRep {
  id: string;
  name: string;
}

export interface EvaluationPolicyRep {
  id: string;
  name: string;
  description?: string;
  type: string;
  logic: 'POSITIVE';
  decisionStrategy: string;
  config: Record<string, string>;
  resources: string[];
  scopes: string[];
}

export interface PolicyResultRep {
  policy: EvaluationPolicyRep;
  status: Effect;
  associatedPolicies: PolicyResultRep[];
  scopes: string[];
}

export interface EvaluationResultRep {
  resource: { id?: string; name: string };
  scopes: EvaluationScopeRep[];
  policies: PolicyResultRep[];
  status: Effect;
  allowedScopes: EvaluationScopeRep[];
}

export interface PolicyEvaluationResponseBody {
  results: EvaluationResultRep[];
  entitlements: false;
  status: Effect;
}

const scopeRep = (s: AuthzScope): EvaluationScopeRep => ({ id: s.id, name: s.name });
const list = (names: string[]) => `[${names.join(', ')}]`;

function policyResult(ix: AuthzIndex, d: PolicyDecision): PolicyResultRep {
  const p = d.policy;
  const scopes = p.scopeIds.map((id) => ix.scopeById.get(id)?.name).filter((n): n is string => n !== undefined);
  const policy: EvaluationPolicyRep = {
    id: p.id,
    name: p.name,
    ...(p.description != null ? { description: p.description } : {}),
    type: p.type,
    logic: 'POSITIVE',
    decisionStrategy: p.decisionStrategy,
    config: {},
    resources: p.resourceIds.map((id) => ix.resourceById.get(id)?.name).filter((n): n is string => n !== undefined),
    scopes,
  };
  return {
    policy,
    status: d.status,
    associatedPolicies: d.associatedPolicies.map((a) => policyResult(ix, a)),
    scopes: d.status === 'DENY' ? [...scopes] : [],
  };
}

function resultRep(ix: AuthzIndex, d: PermissionDecision): EvaluationResultRep {
  const scopes = (d.granted ? d.grantedScopes : d.requestedScopes).map(scopeRep);
  const resource = d.resource
    ? { id: d.resource.id, name: d.resource.name }
    : { name: `Any Resource with Scopes ${list(d.requestedScopes.map((s) => s.name))}` };
  const policies = d.policies.map((p) => {
    const rep = policyResult(ix, p);
    if (p.policy.type === 'resource' && d.resource) rep.policy.scopes = d.resource.scopes.map((s) => s.name);
    return rep;
  });
  return { resource, scopes, policies, status: d.status, allowedScopes: [] };
}

/** The evaluate tool's response body, without `rpt` (see the file header). */
export function toEvaluationResponse(outcome: EvaluationOutcome): PolicyEvaluationResponseBody {
  const evaluated = outcome.decisions.filter((d) => d.evaluated);
  const status: Effect = evaluated.some((d) => d.status === 'DENY') ? 'DENY' : 'PERMIT';
  const reps = evaluated.map((d) => resultRep(outcome.index, d));
  reps.sort((a, b) => (a.resource.name < b.resource.name ? -1 : a.resource.name > b.resource.name ? 1 : 0));
  const grouped = new Map<string, EvaluationResultRep>();
  for (const rep of reps) {
    const key = rep.resource.id ?? '';
    let result = grouped.get(key);
    if (!result) {
      result = rep;
      grouped.set(key, rep);
    }
    if (rep.status === 'PERMIT') result.status = 'PERMIT';
    const names = result.scopes.map((s) => s.name);
    if (result.status === 'PERMIT') result.allowedScopes = result.scopes;
    if (rep.resource.id !== undefined)
      result.resource.name = names.length ? `${rep.resource.name} with scopes ${list(names)}` : rep.resource.name;
    else result.resource.name = `Any Resource with Scopes ${list(names)}`;
    if (result !== rep)
      for (const p of rep.policies) if (!result.policies.some((q) => q.policy.id === p.policy.id)) result.policies.push(p);
  }
  return { results: [...grouped.values()], entitlements: false, status };
}
