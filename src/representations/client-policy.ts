import type { Representation } from './schema';

/**
 * Client profiles and policies as Keycloak serialises them (ClientProfileRepresentation,
 * ClientPolicyRepresentation): the stored form of a realm's `clientProfiles` / `clientPolicies`
 * and what GET /client-policies/* returns; null fields omitted.
 */
export type ClientProfileRepresentation = Representation<'ClientProfileRepresentation'>;
export type ClientPolicyRepresentation = Representation<'ClientPolicyRepresentation'>;
export type ClientPolicyConditionRepresentation = Representation<'ClientPolicyConditionRepresentation'>;

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** A profile: name, description, executors `{executor, configuration}`. */
export function toClientProfileRepresentation(p: Json): ClientProfileRepresentation {
  const out: Json = {};
  if (p.name != null) out.name = p.name;
  if (p.description != null) out.description = p.description;
  if (p.executors != null) {
    out.executors = list(p.executors).map((e) => {
      const x: Json = {};
      if (e?.executor != null) x.executor = e.executor;
      if (e?.configuration != null) x.configuration = e.configuration;
      return x;
    });
  }
  return out as ClientProfileRepresentation;
}

/** A policy condition: `{condition, configuration}`. */
export function toClientPolicyConditionRepresentation(c: Json): ClientPolicyConditionRepresentation {
  const x: Json = {};
  if (c?.condition != null) x.condition = c.condition;
  if (c?.configuration != null) x.configuration = c.configuration;
  return x as ClientPolicyConditionRepresentation;
}

/** A validated policy: name, description?, enabled, conditions, profiles. */
export function toClientPolicyRepresentation(p: {
  name: string;
  description?: unknown;
  enabled: boolean;
  conditions: ClientPolicyConditionRepresentation[];
  profiles: string[];
}): ClientPolicyRepresentation {
  const out: ClientPolicyRepresentation = { name: p.name };
  if (p.description != null) out.description = p.description as string;
  out.enabled = p.enabled;
  out.conditions = p.conditions;
  out.profiles = p.profiles;
  return out;
}
