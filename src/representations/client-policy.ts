import type { Representation } from './schema';

/**
 * Client profiles and policies as Keycloak serialises them (ClientProfileRepresentation,
 * ClientPolicyRepresentation): the stored form of a realm's `clientProfiles` / `clientPolicies`
 * and what GET /client-policies/* returns; null fields omitted.
 */
export type ClientProfilesRepresentation = Representation<'ClientProfilesRepresentation'>;
export type ClientProfileRepresentation = Representation<'ClientProfileRepresentation'>;
export type ClientPolicyExecutorRepresentation = Representation<'ClientPolicyExecutorRepresentation'>;
export type ClientPoliciesRepresentation = Representation<'ClientPoliciesRepresentation'>;
export type ClientPolicyRepresentation = Representation<'ClientPolicyRepresentation'>;
export type ClientPolicyConditionRepresentation = Representation<'ClientPolicyConditionRepresentation'>;

/** The `configuration` of an executor or condition: a JSON object whose fields each provider defines (free-form). */
export type ProviderConfiguration = Record<string, unknown>;

/** The elements of a list field (a stored or unvalidated value that is not an array reads as empty). */
export const listOf = <T>(v: T[] | null | undefined): T[] => (Array.isArray(v) ? v : []);

/** A profile: name, description, executors `{executor, configuration}`. */
export function toClientProfileRepresentation(p: ClientProfileRepresentation): ClientProfileRepresentation {
  const out: ClientProfileRepresentation = {};
  if (p.name != null) out.name = p.name;
  if (p.description != null) out.description = p.description;
  if (p.executors != null) {
    out.executors = listOf(p.executors).map((e) => {
      const x: ClientPolicyExecutorRepresentation = {};
      if (e?.executor != null) x.executor = e.executor;
      if (e?.configuration != null) x.configuration = e.configuration;
      return x;
    });
  }
  return out;
}

/** A policy condition: `{condition, configuration}`. */
export function toClientPolicyConditionRepresentation(c: ClientPolicyConditionRepresentation): ClientPolicyConditionRepresentation {
  const x: ClientPolicyConditionRepresentation = {};
  if (c?.condition != null) x.condition = c.condition;
  if (c?.configuration != null) x.configuration = c.configuration;
  return x;
}

/** A validated policy: name, description?, enabled, conditions, profiles. */
export function toClientPolicyRepresentation(p: {
  name: string;
  description?: string | null;
  enabled: boolean;
  conditions: ClientPolicyConditionRepresentation[];
  profiles: string[];
}): ClientPolicyRepresentation {
  const out: ClientPolicyRepresentation = { name: p.name };
  if (p.description != null) out.description = p.description;
  out.enabled = p.enabled;
  out.conditions = p.conditions;
  out.profiles = p.profiles;
  return out;
}
