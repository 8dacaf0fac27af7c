import type { ClientModel, ClientScopeModel, ProtocolMapperModel } from '../db/models/client';
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

/** Keycloak's ProtocolMapperEvaluationRepresentation: a mapper that applies to a client, with the scope (or client) it comes from. */
export interface ProtocolMapperEvaluationRepresentation {
  mapperId: string;
  mapperName: string;
  containerId: string;
  containerName: string;
  containerType: 'client-scope' | 'client';
  protocolMapper: string;
}

/** GET /clients/{id}/evaluate-scopes/protocol-mappers: one mapper of the client itself (no scope) or of one of its scopes. */
export function toProtocolMapperEvaluation(
  pm: ProtocolMapperModel,
  client: ClientModel,
  scope: ClientScopeModel | undefined,
): ProtocolMapperEvaluationRepresentation {
  return {
    mapperId: pm.id,
    mapperName: pm.name,
    containerId: scope ? scope.id : client.id,
    containerName: scope ? scope.name : '',
    containerType: scope ? 'client-scope' : 'client',
    protocolMapper: pm.protocolMapper,
  };
}
