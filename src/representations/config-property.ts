/**
 * Keycloak's ConfigPropertyRepresentation (ProviderConfigProperty as the admin API serialises it):
 * the configuration properties of component types, authenticators, identity providers and their
 * mappers, shown by serverinfo and the provider description endpoints.
 */
export interface ConfigPropertyRep {
  name: string;
  label: string;
  helpText: string;
  type: string;
  defaultValue?: unknown;
  options?: string[];
  secret: boolean;
  required: boolean;
  readOnly: boolean;
}
