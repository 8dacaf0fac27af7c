import type { RealmModel } from '../../db/models/realm';
import { globalProfiles } from '../../keycloak/client-policies-data';
import type {
  ClientPoliciesRepresentation,
  ClientPolicyRepresentation,
  ClientProfileRepresentation,
  ClientProfilesRepresentation,
  ProviderConfiguration,
} from '../../representations/client-policy';
import { CONDITIONS } from './conditions';
import { EXECUTORS } from './executors';
import type { PolicyContext, Vote } from './types';

export { ClientPolicyViolation, type PolicyContext, type PolicyEvent, type UpdaterSource } from './types';

/**
 * The client-policy engine (ADR 0032), after Keycloak's DefaultClientPolicyManager: on an event, each
 * enabled policy of the realm (stored order) whose conditions are satisfied runs the executors of its
 * profiles (realm or global profiles, in the policy's order, executors in the profile's order).
 * A policy is satisfied when no condition votes NO and at least one votes YES (ABSTAIN is neutral;
 * `is-negative-logic` swaps YES and NO); a policy without conditions never applies.
 * An executor refuses with `ClientPolicyViolation` (Keycloak's ClientPolicyException), which each
 * front renders as `{"error", "error_description"}` with the status of its endpoint.
 */

const listOf = <T>(v: T[] | null | undefined): T[] => (Array.isArray(v) ? v : []);
const isTrue = (v: unknown) => v === true || v === 'true';

function enabledPolicies(realm: RealmModel): ClientPolicyRepresentation[] {
  const policies = (realm.settings?.clientPolicies as ClientPoliciesRepresentation | undefined)?.policies;
  if (!Array.isArray(policies) || !policies.length) return [];
  return policies.filter((p) => isTrue(p?.enabled));
}

/** Whether the realm has an enabled client policy: a plain read of the realm settings, no statement. */
export function hasClientPolicies(realm: RealmModel): boolean {
  return enabledPolicies(realm).length > 0;
}

function profileNamed(realm: RealmModel, name: string): ClientProfileRepresentation | undefined {
  const own = listOf((realm.settings?.clientProfiles as ClientProfilesRepresentation | undefined)?.profiles);
  return own.find((p) => p.name === name) ?? (globalProfiles() as ClientProfileRepresentation[]).find((p) => p.name === name);
}

async function satisfied(policy: ClientPolicyRepresentation, c: PolicyContext): Promise<boolean> {
  const conditions = listOf(policy.conditions);
  if (!conditions.length) return false;
  let yes = false;
  for (const cond of conditions) {
    const impl = CONDITIONS[String(cond.condition)];
    if (!impl) return false;
    const conf = (cond.configuration ?? {}) as ProviderConfiguration;
    let vote: Vote = await impl(conf, c);
    if (isTrue(conf['is-negative-logic'])) vote = vote === 'YES' ? 'NO' : vote === 'NO' ? 'YES' : vote;
    if (vote === 'NO') return false;
    if (vote === 'YES') yes = true;
  }
  return yes;
}

/** Runs the realm's client policies on an event; throws `ClientPolicyViolation` when an executor refuses. */
export async function evaluateClientPolicies(c: PolicyContext): Promise<void> {
  const policies = enabledPolicies(c.realm);
  if (!policies.length) return;
  for (const policy of policies) {
    if (!(await satisfied(policy, c))) continue;
    for (const name of listOf(policy.profiles)) {
      const profile = profileNamed(c.realm, String(name));
      for (const ex of listOf(profile?.executors)) {
        const impl = EXECUTORS[String(ex.executor)];
        if (impl) await impl.run((ex.configuration ?? {}) as ProviderConfiguration, c);
      }
    }
  }
}
