import type { ProtocolMapperModel } from '../db/models/client';
import type { Representation } from './schema';

export type ProtocolMapperRepresentation = Representation<'ProtocolMapperRepresentation'>;

/**
 * Keycloak's ProtocolMapperRepresentation, built here for every place that shows a mapper (the
 * protocol-mappers endpoints, and inside ClientRepresentation and ClientScopeRepresentation):
 * id, name, protocol, protocolMapper, consentRequired (always false), config.
 */
export function toProtocolMapperRepresentation(pm: ProtocolMapperModel): ProtocolMapperRepresentation {
  return {
    id: pm.id,
    name: pm.name,
    protocol: pm.protocol,
    protocolMapper: pm.protocolMapper,
    consentRequired: false,
    config: { ...(pm.config ?? {}) },
  };
}
