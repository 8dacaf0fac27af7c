import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { type HttpError, cannotParse, errorC } from '../core/errors';

/**
 * One declaration per representation: the field table below drives REST input validation (an
 * Ajv schema that rejects unknown fields and wrong types as Keycloak does) and is the list the
 * GraphQL object types are checked against. Field types follow Keycloak's representation classes.
 */
export type FieldType = 'string' | 'boolean' | 'int' | 'number' | 'map' | 'any' | { array: FieldType } | { ref: string };

export type FieldTable = Record<string, FieldType>;

const S = 'string' as const;
const B = 'boolean' as const;
const I = 'int' as const;
const M = 'map' as const;
const A = 'any' as const;
const arr = <T extends FieldType>(t: T) => ({ array: t }) as const;
const ref = <N extends string>(name: N) => ({ ref: name }) as const;

export const representations = {
  ClientInitialAccessCreatePresentation: { expiration: I, count: I },
  KeyStoreConfig: {
    realmCertificate: B,
    storePassword: S,
    keyPassword: S,
    keyAlias: S,
    realmAlias: S,
    format: S,
    keySize: I,
    validity: I,
  },
  CredentialRepresentation: {
    id: S,
    type: S,
    userLabel: S,
    createdDate: I,
    secretData: S,
    credentialData: S,
    priority: I,
    value: S,
    temporary: B,
    federationLink: S,
    device: S,
    hashedSaltedValue: S,
    salt: S,
    hashIterations: I,
    counter: I,
    algorithm: S,
    digits: I,
    period: I,
    config: M,
    rawPassword: S,
  },
  FederatedIdentityRepresentation: { identityProvider: S, userId: S, userName: S },
  IdentityProviderRepresentation: {
    alias: S,
    displayName: S,
    internalId: S,
    providerId: S,
    enabled: B,
    updateProfileFirstLoginMode: S,
    updateProfileFirstLogin: B,
    trustEmail: B,
    storeToken: B,
    addReadTokenRoleOnCreate: B,
    authenticateByDefault: B,
    linkOnly: B,
    hideOnLogin: B,
    firstBrokerLoginFlowAlias: S,
    postBrokerLoginFlowAlias: S,
    organizationId: S,
    config: M,
    types: arr(S),
  },
  IdentityProviderMapperRepresentation: { id: S, name: S, identityProviderAlias: S, identityProviderMapper: S, config: M },
  RealmEventsConfigRepresentation: {
    eventsEnabled: B,
    eventsExpiration: I,
    eventsListeners: arr(S),
    enabledEventTypes: arr(S),
    adminEventsEnabled: B,
    adminEventsDetailsEnabled: B,
  },
  UserConsentRepresentation: { clientId: S, grantedClientScopes: arr(S), createdDate: I, lastUpdatedDate: I, grantedRealmRoles: arr(S) },
  UserRepresentation: {
    id: S,
    username: S,
    firstName: S,
    lastName: S,
    email: S,
    emailVerified: B,
    attributes: M,
    userProfileMetadata: A,
    self: S,
    origin: S,
    createdTimestamp: I,
    enabled: B,
    totp: B,
    federationLink: S,
    serviceAccountClientId: S,
    credentials: arr(ref('CredentialRepresentation')),
    disableableCredentialTypes: arr(S),
    requiredActions: arr(S),
    federatedIdentities: arr(ref('FederatedIdentityRepresentation')),
    realmRoles: arr(S),
    clientRoles: M,
    clientConsents: arr(ref('UserConsentRepresentation')),
    notBefore: I,
    applicationRoles: M,
    socialLinks: arr(A),
    groups: arr(S),
    access: M,
  },
  GroupRepresentation: {
    id: S,
    name: S,
    description: S,
    path: S,
    parentId: S,
    subGroupCount: I,
    subGroups: arr(A),
    attributes: M,
    realmRoles: arr(S),
    clientRoles: M,
    access: M,
  },
  RoleRepresentation: {
    id: S,
    name: S,
    description: S,
    scopeParamRequired: B,
    composite: B,
    composites: M,
    clientRole: B,
    containerId: S,
    attributes: M,
  },
  ProtocolMapperRepresentation: { id: S, name: S, protocol: S, protocolMapper: S, consentRequired: B, consentText: S, config: M },
  ClientRepresentation: {
    id: S,
    clientId: S,
    name: S,
    description: S,
    type: S,
    rootUrl: S,
    adminUrl: S,
    baseUrl: S,
    surrogateAuthRequired: B,
    enabled: B,
    alwaysDisplayInConsole: B,
    clientAuthenticatorType: S,
    secret: S,
    registrationAccessToken: S,
    defaultRoles: arr(S),
    redirectUris: arr(S),
    webOrigins: arr(S),
    notBefore: I,
    bearerOnly: B,
    consentRequired: B,
    standardFlowEnabled: B,
    implicitFlowEnabled: B,
    directAccessGrantsEnabled: B,
    serviceAccountsEnabled: B,
    authorizationServicesEnabled: B,
    directGrantsOnly: B,
    publicClient: B,
    frontchannelLogout: B,
    protocol: S,
    attributes: M,
    authenticationFlowBindingOverrides: M,
    fullScopeAllowed: B,
    nodeReRegistrationTimeout: I,
    registeredNodes: M,
    protocolMappers: arr(ref('ProtocolMapperRepresentation')),
    clientTemplate: S,
    useTemplateConfig: B,
    useTemplateScope: B,
    useTemplateMappers: B,
    defaultClientScopes: arr(S),
    optionalClientScopes: arr(S),
    authorizationSettings: A,
    access: M,
    origin: S,
  },
  AuthenticationFlowRepresentation: {
    id: S,
    alias: S,
    description: S,
    providerId: S,
    topLevel: B,
    builtIn: B,
    authenticationExecutions: arr(ref('AuthenticationExecutionExportRepresentation')),
  },
  AuthenticationExecutionExportRepresentation: {
    authenticatorConfig: S,
    authenticator: S,
    authenticatorFlow: B,
    autheticatorFlow: B,
    requirement: S,
    priority: I,
    userSetupAllowed: B,
    flowAlias: S,
  },
  AuthenticationExecutionRepresentation: {
    id: S,
    authenticatorConfig: S,
    authenticator: S,
    authenticatorFlow: B,
    autheticatorFlow: B,
    requirement: S,
    priority: I,
    flowId: S,
    parentFlow: S,
  },
  AuthenticationExecutionInfoRepresentation: {
    id: S,
    requirement: S,
    displayName: S,
    alias: S,
    description: S,
    requirementChoices: arr(S),
    configurable: B,
    authenticationFlow: B,
    providerId: S,
    authenticationConfig: S,
    flowId: S,
    level: I,
    index: I,
    priority: I,
  },
  AuthenticatorConfigRepresentation: { id: S, alias: S, config: M },
  ComponentRepresentation: { id: S, name: S, providerId: S, providerType: S, parentId: S, subType: S, config: M },
  RequiredActionProviderRepresentation: { alias: S, name: S, providerId: S, enabled: B, defaultAction: B, priority: I, config: M },
  ClientScopeRepresentation: {
    id: S,
    name: S,
    description: S,
    protocol: S,
    attributes: M,
    protocolMappers: arr(ref('ProtocolMapperRepresentation')),
  },
  ClientPolicyExecutorRepresentation: { executor: S, configuration: A },
  ClientProfileRepresentation: { name: S, description: S, executors: arr(ref('ClientPolicyExecutorRepresentation')) },
  ClientProfilesRepresentation: {
    profiles: arr(ref('ClientProfileRepresentation')),
    globalProfiles: arr(ref('ClientProfileRepresentation')),
  },
  ClientPolicyConditionRepresentation: { condition: S, configuration: A },
  ClientPolicyRepresentation: {
    name: S,
    description: S,
    enabled: B,
    conditions: arr(ref('ClientPolicyConditionRepresentation')),
    profiles: arr(S),
  },
  ClientPoliciesRepresentation: {
    policies: arr(ref('ClientPolicyRepresentation')),
    globalPolicies: arr(ref('ClientPolicyRepresentation')),
  },
} as const satisfies Record<string, FieldTable>;

export type RepresentationName = keyof typeof representations;

/** The field table of a representation by name, or undefined for a name the table does not have. */
export function fieldTable(name: string): FieldTable | undefined {
  return Object.hasOwn(representations, name) ? (representations as Record<string, FieldTable>)[name] : undefined;
}

/** The TypeScript type of a field of the table (`null` is accepted wherever Keycloak's Jackson accepts it). */
type FieldValue<F> = F extends 'string'
  ? string
  : F extends 'boolean'
    ? boolean
    : F extends 'int' | 'number'
      ? number
      : F extends 'map'
        ? Record<string, unknown>
        : F extends 'any'
          ? unknown
          : F extends { readonly array: infer T }
            ? Array<FieldValue<T>>
            : F extends { readonly ref: infer N extends RepresentationName }
              ? Representation<N>
              : never;

/**
 * A Keycloak representation as a TypeScript type, derived from the field table above: the type
 * services take and return, the schema REST validates against and the GraphQL inputs are built from.
 */
export type Representation<N extends RepresentationName> = {
  -readonly [K in keyof (typeof representations)[N]]?: FieldValue<(typeof representations)[N][K]> | null;
};
const jsonType = (t: FieldType): Record<string, unknown> => {
  if (t === 'string') return { type: ['string', 'null'] };
  if (t === 'boolean') return { type: ['boolean', 'null'] };
  if (t === 'int') return { type: ['integer', 'null'] };
  if (t === 'number') return { type: ['number', 'null'] };
  if (t === 'map') return { type: ['object', 'null'] };
  if (t === 'any') return {};
  if ('array' in t) return { type: ['array', 'null'], items: jsonType(t.array) };
  return { anyOf: [{ $ref: `#/definitions/${t.ref}` }, { type: 'null' }] };
};

function schemaFor(name: string): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const [n, table] of Object.entries(representations)) {
    definitions[n] = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(Object.entries(table).map(([k, t]) => [k, jsonType(t)])),
    };
  }
  return { $ref: `#/definitions/${name}`, definitions };
}

// coerceTypes mirrors Jackson's leniency ("true" for a boolean, 5 for a string field).
const ajv = new Ajv({ allErrors: false, coerceTypes: true, strict: false });
const cache = new Map<string, ValidateFunction>();

function compiled(name: string, isArray: boolean): ValidateFunction {
  const key = `${name}${isArray ? '[]' : ''}`;
  let v = cache.get(key);
  if (!v) {
    const s = schemaFor(name);
    v = ajv.compile(isArray ? { type: 'array', items: { $ref: s.$ref }, definitions: s.definitions } : s);
    cache.set(key, v);
  }
  return v;
}

/** Line and column (1-based) just after the first occurrence of a field name in the raw JSON text. */
function locate(raw: string | undefined, field: string): { line: number; column: number } {
  const idx = raw ? raw.indexOf(`"${field}"`) : -1;
  if (!raw || idx < 0) return { line: 1, column: 1 };
  const before = raw.slice(0, idx + field.length + 2);
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

function toHttpError(name: string, err: ErrorObject, raw?: string): HttpError {
  if (err.keyword === 'additionalProperties') {
    const field = String((err.params as { additionalProperty: string }).additionalProperty);
    const { line, column } = locate(raw, field);
    return errorC(400, `Invalid json representation for ${name}. Unrecognized field "${field}" at line ${line} column ${column}.`);
  }
  return cannotParse('mapping');
}

/**
 * Validates (and leniently coerces, in place) a parsed request body against a representation.
 * Unknown fields → 400 "Invalid json representation ..."; wrong types → 400 "Cannot parse the JSON".
 */
export function validateRepresentation<T = Record<string, unknown>>(name: string, body: unknown, raw?: string): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const v = compiled(name, false);
  if (!v(body)) throw toHttpError(name, (v.errors ?? [])[0], raw);
  return body as T;
}

/** Validates an array body of a representation (role mappings, composites). */
export function validateRepresentationArray<T = Record<string, unknown>>(name: string, body: unknown, raw?: string): T[] {
  if (!Array.isArray(body)) throw cannotParse('mapping');
  const v = compiled(name, true);
  if (!v(body)) throw toHttpError(name, (v.errors ?? [])[0], raw);
  return body as T[];
}
