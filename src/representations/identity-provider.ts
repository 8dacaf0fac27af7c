import type { IdentityProviderModel, IdpMapperModel } from '../db/models/identity-provider';
import { cannotParse } from '../core/errors';
import type { Representation } from './schema';

/**
 * Identity provider representations (config reference §8.1): model → IdentityProviderRepresentation
 * (full with `syncMode` defaulted and `clientSecret` masked, or brief), model → mapper
 * representation, and the config-map normalisation applied to request bodies.
 */
export type IdentityProviderRep = Representation<'IdentityProviderRepresentation'>;
export type IdpMapperRep = Representation<'IdentityProviderMapperRepresentation'>;

export const SECRET_MASK = '**********';
const isVaultRef = (v: string) => /^\$\{vault\.[^}]+\}$/.test(v);

/**
 * A request's config map as Keycloak's Map<String,String>: scalars become strings, null and ''
 * values are dropped, nested objects are unreadable (400 Cannot parse the JSON).
 */
export function configOf(input: unknown): Record<string, string> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw cannotParse('mapping');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'object') throw cannotParse('mapping');
    const s = String(v);
    if (s !== '') out[k] = s;
  }
  return out;
}

/** Booleans that are always serialised (primitive fields of the Java representation). */
function flags(p: IdentityProviderModel): IdentityProviderRep {
  return {
    enabled: p.enabled,
    updateProfileFirstLoginMode: 'on',
    trustEmail: p.trustEmail,
    storeToken: p.storeToken,
    addReadTokenRoleOnCreate: p.addReadTokenRoleOnCreate,
    authenticateByDefault: p.authenticateByDefault,
    linkOnly: p.linkOnly,
    hideOnLogin: p.hideOnLogin,
  };
}

/** Full representation as GET returns it: secrets masked, `syncMode` LEGACY when unset. */
export function toIdentityProviderRepresentation(p: IdentityProviderModel): IdentityProviderRep {
  const config: Record<string, string> = { ...p.config };
  if (config.syncMode === undefined) config.syncMode = 'LEGACY';
  if (config.clientSecret !== undefined && !isVaultRef(config.clientSecret)) config.clientSecret = SECRET_MASK;
  const out: IdentityProviderRep = { alias: p.alias };
  if (p.displayName) out.displayName = p.displayName;
  Object.assign(out, { internalId: p.internalId, providerId: p.providerId }, flags(p));
  if (p.firstBrokerLoginFlowAlias) out.firstBrokerLoginFlowAlias = p.firstBrokerLoginFlowAlias;
  if (p.postBrokerLoginFlowAlias) out.postBrokerLoginFlowAlias = p.postBrokerLoginFlowAlias;
  if (p.organizationId) out.organizationId = p.organizationId;
  out.config = config;
  return out;
}

/** Brief representation (`briefRepresentation=true`): identity, flags and an empty config. */
export function toBriefIdentityProviderRepresentation(p: IdentityProviderModel): IdentityProviderRep {
  const out: IdentityProviderRep = { alias: p.alias };
  if (p.displayName) out.displayName = p.displayName;
  return { ...out, internalId: p.internalId, providerId: p.providerId, ...flags(p), config: {} };
}

/** IdentityProviderMapperRepresentation. */
export function toIdpMapperRepresentation(m: IdpMapperModel, alias: string): IdpMapperRep {
  return { id: m.id, name: m.name, identityProviderAlias: alias, identityProviderMapper: m.mapperType, config: { ...m.config } };
}
