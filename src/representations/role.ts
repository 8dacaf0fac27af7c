import type { ClientModel } from '../db/models/client';
import type { RoleModel } from '../db/models/role';
import type { Representation } from './schema';

export type RoleRep = Representation<'RoleRepresentation'>;

/** Keycloak's MappingsRepresentation: direct realm mappings and, per clientId, ClientMappingsRepresentation. */
export type MappingsRep = {
  realmMappings?: RoleRep[];
  clientMappings?: Record<string, { id: string; client: string; mappings: RoleRep[] }>;
};

/**
 * Keycloak's RoleRepresentation: id, name, description?, composite, clientRole, containerId
 * [, attributes when not brief]. `composite` is true when the role has at least one child.
 */
export function toRoleRepresentation(r: RoleModel, composite: boolean, brief = true): RoleRep {
  const out: RoleRep = { id: r.id, name: r.name };
  if (r.description != null) out.description = r.description;
  out.composite = composite;
  out.clientRole = r.clientId != null;
  out.containerId = r.containerId;
  if (!brief) out.attributes = r.attributes ?? {};
  return out;
}

/**
 * Role attributes from a representation (`{name: [values]}`); a single string value is accepted
 * as a one-element list, null values are dropped.
 */
export function roleAttributesFrom(input: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!input || typeof input !== 'object') return out;
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    out[k] = (Array.isArray(v) ? v : [v]).filter((x) => x !== null && x !== undefined).map(String);
  }
  return out;
}

/**
 * Keycloak's MappingsRepresentation (direct role mappings of a user or group): `realmMappings`
 * and `clientMappings` keyed by clientId, each key omitted when it has no entries.
 */
export function toMappingsRepresentation(
  realmRoles: RoleRep[],
  clientRoles: Array<{ client: ClientModel; roles: RoleRep[] }>,
): MappingsRep {
  const out: MappingsRep = {};
  if (realmRoles.length) out.realmMappings = realmRoles;
  const byClient: NonNullable<MappingsRep['clientMappings']> = {};
  for (const { client, roles } of clientRoles) {
    if (roles.length) byClient[client.clientId] = { id: client.id, client: client.clientId, mappings: roles };
  }
  if (Object.keys(byClient).length) out.clientMappings = byClient;
  return out;
}
