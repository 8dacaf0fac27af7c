import type { OrganizationModel } from '../db/models/organization';
import type { Representation } from './schema';

/**
 * Organization representations (Keycloak 26 ModelToRepresentation#toRepresentation(OrganizationModel,
 * brief)): id, name, alias, enabled, description and redirectUrl when set, the domains, and the
 * attributes only in the full representation.
 */
export type OrganizationRep = Representation<'OrganizationRepresentation'>;
export type OrganizationDomainRep = Representation<'OrganizationDomainRepresentation'>;

export interface OrganizationParts {
  domains: Array<{ name: string; verified: boolean }>;
  /** Undefined for the brief representation. */
  attributes?: Record<string, string[]>;
}

export function toOrganizationRepresentation(o: OrganizationModel, parts: OrganizationParts): OrganizationRep {
  const rep: OrganizationRep = { id: o.id, name: o.name, alias: o.alias };
  if (parts.attributes) rep.attributes = parts.attributes;
  rep.enabled = o.enabled;
  if (o.redirectUrl !== null) rep.redirectUrl = o.redirectUrl;
  if (o.description !== null) rep.description = o.description;
  if (parts.domains.length) rep.domains = parts.domains.map((d) => ({ name: d.name, verified: d.verified }));
  return rep;
}
