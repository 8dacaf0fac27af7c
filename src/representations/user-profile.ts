/**
 * Keycloak's declarative user-profile configuration (UPConfig, reference §4.16): attributes with
 * their validators, annotations, permissions and required rules, and the attribute groups. Stored
 * as given, so fields this server does not read are kept.
 */

/** A validator's configuration (`{min, max}` for length, `{pattern, error-message}` ...): each validator defines its own keys. */
export type UPValidatorConfig = Record<string, unknown>;

/** Annotations of an attribute or group (`inputType`, `inputHelperTextBefore` ...): free-form, read by the consoles only. */
export type UPAnnotations = Record<string, unknown>;

export interface UPAttribute {
  name: string;
  displayName?: string;
  /** Validator id → its configuration. */
  validations?: Record<string, UPValidatorConfig>;
  annotations?: UPAnnotations;
  required?: { roles?: string[]; scopes?: string[] };
  permissions?: { view?: string[]; edit?: string[] };
  multivalued?: boolean;
  group?: string;
  [k: string]: unknown;
}

export interface UPGroup {
  name?: string;
  displayHeader?: string;
  displayDescription?: string;
  annotations?: UPAnnotations;
  [k: string]: unknown;
}

export interface UPConfig {
  attributes?: UPAttribute[];
  groups?: UPGroup[];
  unmanagedAttributePolicy?: 'ENABLED' | 'ADMIN_VIEW' | 'ADMIN_EDIT';
  [k: string]: unknown;
}
