import type { ClientScopeModel, ProtocolMapperModel } from '../db/models/client';
import { toProtocolMapperRepresentation } from './protocol-mapper';
import type { Representation } from './schema';

export type ClientScopeRepresentation = Representation<'ClientScopeRepresentation'>;

/** Keycloak's ClientScopeRepresentation (config reference §3.1): `description` and `protocolMappers` omitted when absent/empty. */
export function toClientScopeRepresentation(s: ClientScopeModel, mappers: ProtocolMapperModel[]): ClientScopeRepresentation {
  const out: ClientScopeRepresentation = { id: s.id, name: s.name };
  if (s.description != null) out.description = s.description;
  out.protocol = s.protocol;
  out.attributes = { ...(s.attributes ?? {}) };
  if (mappers.length) out.protocolMappers = mappers.map(toProtocolMapperRepresentation);
  return out;
}

/** `{id, name, protocol}` of the realm default scope lists (config reference §3.2). */
export const toScopeRef = (s: ClientScopeModel): ClientScopeRepresentation => ({ id: s.id, name: s.name, protocol: s.protocol });
