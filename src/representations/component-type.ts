import type { ConfigPropertyRep } from './config-property';

/** Keycloak's ComponentTypeRepresentation: a provider factory of a component type with its config properties. */
export interface ComponentTypeRep {
  id: string;
  helpText: string;
  properties: ConfigPropertyRep[];
  /** Provider-defined metadata (free-form; empty for every provider this server has). */
  metadata: Record<string, unknown>;
}
