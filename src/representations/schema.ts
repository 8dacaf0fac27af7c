import { cannotParse, errorC, type HttpError } from '../core/errors';

/**
 * One declaration per representation: the field table below drives REST input validation (an
 * Ajv schema that rejects unknown fields and wrong types as Keycloak does) and is the list the
 * GraphQL object types are checked against. Field types follow Keycloak's representation classes.
 */
export type FieldType =
  | 'string'
  | 'boolean'
  | 'int'
  | 'int32'
  | 'number'
  | 'map'
  | 'any'
  | { array: FieldType }
  | { ref: string }
  | { map: FieldType }
  | { enum: readonly string[] };

// 'int': a Java Long (or an Integer the gateway does not range-check), GraphQL SafeInt;
// 'int32': a Java Integer, GraphQL Int, outside its range a 400 as Jackson's overflow is;
// 'map': an object of any values; { map: T }: a Java Map<String, T>; { enum }: a Java enum (its names).

export type FieldTable = Record<string, FieldType>;

const S = 'string' as const;
const B = 'boolean' as const;
const I = 'int' as const;
const M = 'map' as const;
const A = 'any' as const;
const I32 = 'int32' as const;
const arr = <T extends FieldType>(t: T) => ({ array: t }) as const;
const ref = <N extends string>(name: N) => ({ ref: name }) as const;
const mapOf = <T extends FieldType>(t: T) => ({ map: t }) as const;
const oneOf = <const E extends readonly string[]>(...names: E) => ({ enum: names }) as const;

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
    config: mapOf(arr(S)),
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
    config: mapOf(S),
    types: arr(S),
  },
  IdentityProviderMapperRepresentation: { id: S, name: S, identityProviderAlias: S, identityProviderMapper: S, config: mapOf(S) },
  OrganizationRepresentation: {
    id: S,
    name: S,
    alias: S,
    enabled: B,
    description: S,
    redirectUrl: S,
    attributes: mapOf(arr(S)),
    domains: arr(ref('OrganizationDomainRepresentation')),
    members: arr(A),
    identityProviders: arr(ref('IdentityProviderRepresentation')),
  },
  OrganizationDomainRepresentation: { name: S, verified: B },
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
    attributes: M, // a single value is a one-value list (Keycloak's StringListMapDeserializer): normalizeAttributes reads it
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
    clientRoles: mapOf(arr(S)),
    clientConsents: arr(ref('UserConsentRepresentation')),
    notBefore: I,
    applicationRoles: mapOf(arr(S)),
    socialLinks: arr(A),
    groups: arr(S),
    access: mapOf(B),
  },
  GroupRepresentation: {
    id: S,
    name: S,
    description: S,
    path: S,
    parentId: S,
    subGroupCount: I,
    subGroups: arr(A),
    attributes: mapOf(arr(S)),
    realmRoles: arr(S),
    clientRoles: mapOf(arr(S)),
    access: mapOf(B),
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
    attributes: mapOf(arr(S)),
  },
  ProtocolMapperRepresentation: { id: S, name: S, protocol: S, protocolMapper: S, consentRequired: B, consentText: S, config: mapOf(S) },
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
    attributes: mapOf(S),
    authenticationFlowBindingOverrides: mapOf(S),
    fullScopeAllowed: B,
    nodeReRegistrationTimeout: I,
    registeredNodes: mapOf(I32),
    protocolMappers: arr(ref('ProtocolMapperRepresentation')),
    clientTemplate: S,
    useTemplateConfig: B,
    useTemplateScope: B,
    useTemplateMappers: B,
    defaultClientScopes: arr(S),
    optionalClientScopes: arr(S),
    authorizationSettings: A,
    access: mapOf(B),
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
  AuthenticatorConfigRepresentation: { id: S, alias: S, config: mapOf(S) },
  ComponentRepresentation: { id: S, name: S, providerId: S, providerType: S, parentId: S, subType: S, config: mapOf(arr(S)) },
  RequiredActionProviderRepresentation: { alias: S, name: S, providerId: S, enabled: B, defaultAction: B, priority: I, config: mapOf(S) },
  ClientScopeRepresentation: {
    id: S,
    name: S,
    description: S,
    protocol: S,
    attributes: mapOf(S),
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
  // The realm (Keycloak's RealmRepresentation, in its class order) and the shapes only it uses.
  // Which of these fields GET /admin/realms/{realm} returns: REALM_INPUT_ONLY_FIELDS in realm.ts.
  RealmRepresentation: {
    id: S,
    realm: S,
    displayName: S,
    displayNameHtml: S,
    notBefore: I32,
    defaultSignatureAlgorithm: S,
    revokeRefreshToken: B,
    refreshTokenMaxReuse: I32,
    accessTokenLifespan: I32,
    accessTokenLifespanForImplicitFlow: I32,
    ssoSessionIdleTimeout: I32,
    ssoSessionMaxLifespan: I32,
    ssoSessionIdleTimeoutRememberMe: I32,
    ssoSessionMaxLifespanRememberMe: I32,
    offlineSessionIdleTimeout: I32,
    offlineSessionMaxLifespanEnabled: B,
    offlineSessionMaxLifespan: I32,
    clientSessionIdleTimeout: I32,
    clientSessionMaxLifespan: I32,
    clientOfflineSessionIdleTimeout: I32,
    clientOfflineSessionMaxLifespan: I32,
    accessCodeLifespan: I32,
    accessCodeLifespanUserAction: I32,
    accessCodeLifespanLogin: I32,
    actionTokenGeneratedByAdminLifespan: I32,
    actionTokenGeneratedByUserLifespan: I32,
    oauth2DeviceCodeLifespan: I32,
    oauth2DevicePollingInterval: I32,
    oAuth2DeviceCodeLifespan: I32,
    oAuth2DevicePollingInterval: I32,
    enabled: B,
    sslRequired: S,
    passwordCredentialGrantAllowed: B,
    registrationAllowed: B,
    registrationEmailAsUsername: B,
    rememberMe: B,
    verifyEmail: B,
    loginWithEmailAllowed: B,
    duplicateEmailsAllowed: B,
    resetPasswordAllowed: B,
    editUsernameAllowed: B,
    userCacheEnabled: B,
    realmCacheEnabled: B,
    bruteForceProtected: B,
    permanentLockout: B,
    maxTemporaryLockouts: I32,
    bruteForceStrategy: oneOf('LINEAR', 'MULTIPLE'),
    maxFailureWaitSeconds: I32,
    minimumQuickLoginWaitSeconds: I32,
    waitIncrementSeconds: I32,
    quickLoginCheckMilliSeconds: I,
    maxDeltaTimeSeconds: I32,
    failureFactor: I32,
    maxSecondaryAuthFailures: I32,
    privateKey: S,
    publicKey: S,
    certificate: S,
    codeSecret: S,
    roles: ref('RolesRepresentation'),
    groups: arr(ref('GroupRepresentation')),
    defaultRoles: arr(S),
    defaultRole: ref('RoleRepresentation'),
    adminPermissionsClient: ref('ClientRepresentation'),
    defaultGroups: arr(S),
    requiredCredentials: arr(S),
    passwordPolicy: S,
    otpPolicyType: S,
    otpPolicyAlgorithm: S,
    otpPolicyInitialCounter: I32,
    otpPolicyDigits: I32,
    otpPolicyLookAheadWindow: I32,
    otpPolicyPeriod: I32,
    otpPolicyCodeReusable: B,
    otpSupportedApplications: arr(S),
    localizationTexts: mapOf(mapOf(S)),
    webAuthnPolicyRpEntityName: S,
    webAuthnPolicySignatureAlgorithms: arr(S),
    webAuthnPolicyRpId: S,
    webAuthnPolicyAttestationConveyancePreference: S,
    webAuthnPolicyAuthenticatorAttachment: S,
    webAuthnPolicyRequireResidentKey: S,
    webAuthnPolicyUserVerificationRequirement: S,
    webAuthnPolicyCreateTimeout: I32,
    webAuthnPolicyAvoidSameAuthenticatorRegister: B,
    webAuthnPolicyAcceptableAaguids: arr(S),
    webAuthnPolicyExtraOrigins: arr(S),
    webAuthnPolicyPasswordlessRpEntityName: S,
    webAuthnPolicyPasswordlessSignatureAlgorithms: arr(S),
    webAuthnPolicyPasswordlessRpId: S,
    webAuthnPolicyPasswordlessAttestationConveyancePreference: S,
    webAuthnPolicyPasswordlessAuthenticatorAttachment: S,
    webAuthnPolicyPasswordlessRequireResidentKey: S,
    webAuthnPolicyPasswordlessUserVerificationRequirement: S,
    webAuthnPolicyPasswordlessCreateTimeout: I32,
    webAuthnPolicyPasswordlessAvoidSameAuthenticatorRegister: B,
    webAuthnPolicyPasswordlessAcceptableAaguids: arr(S),
    webAuthnPolicyPasswordlessExtraOrigins: arr(S),
    webAuthnPolicyPasswordlessPasskeysEnabled: B,
    clientProfiles: ref('ClientProfilesRepresentation'),
    clientPolicies: ref('ClientPoliciesRepresentation'),
    users: arr(ref('UserRepresentation')),
    federatedUsers: arr(ref('UserRepresentation')),
    scopeMappings: arr(ref('ScopeMappingRepresentation')),
    clientScopeMappings: mapOf(arr(ref('ScopeMappingRepresentation'))),
    clients: arr(ref('ClientRepresentation')),
    clientScopes: arr(ref('ClientScopeRepresentation')),
    defaultDefaultClientScopes: arr(S),
    defaultOptionalClientScopes: arr(S),
    browserSecurityHeaders: ref('BrowserSecurityHeadersRepresentation'),
    smtpServer: ref('SmtpServerRepresentation'),
    userFederationProviders: arr(A),
    userFederationMappers: arr(A),
    loginTheme: S,
    accountTheme: S,
    adminTheme: S,
    emailTheme: S,
    eventsEnabled: B,
    eventsExpiration: I,
    eventsListeners: arr(S),
    enabledEventTypes: arr(S),
    adminEventsEnabled: B,
    adminEventsDetailsEnabled: B,
    identityProviders: arr(ref('IdentityProviderRepresentation')),
    identityProviderMappers: arr(ref('IdentityProviderMapperRepresentation')),
    protocolMappers: arr(ref('ProtocolMapperRepresentation')),
    components: mapOf(arr(ref('ComponentExportRepresentation'))),
    internationalizationEnabled: B,
    supportedLocales: arr(S),
    defaultLocale: S,
    authenticationFlows: arr(ref('AuthenticationFlowRepresentation')),
    authenticatorConfig: arr(ref('AuthenticatorConfigRepresentation')),
    requiredActions: arr(ref('RequiredActionProviderRepresentation')),
    browserFlow: S,
    registrationFlow: S,
    directGrantFlow: S,
    resetCredentialsFlow: S,
    clientAuthenticationFlow: S,
    dockerAuthenticationFlow: S,
    firstBrokerLoginFlow: S,
    attributes: mapOf(S),
    keycloakVersion: S,
    idserverVersion: S,
    userManagedAccessAllowed: B,
    organizationsEnabled: B,
    organizations: arr(A),
    verifiableCredentialsEnabled: B,
    adminPermissionsEnabled: B,
    scimApiEnabled: B,
    social: B,
    updateProfileOnInitialSocialLogin: B,
    socialProviders: mapOf(S),
    applicationScopeMappings: mapOf(arr(ref('ScopeMappingRepresentation'))),
    applications: arr(A),
    oauthClients: arr(A),
    clientTemplates: arr(A),
  },
  RolesRepresentation: {
    realm: arr(ref('RoleRepresentation')),
    client: mapOf(arr(ref('RoleRepresentation'))),
    application: mapOf(arr(ref('RoleRepresentation'))),
  },
  ScopeMappingRepresentation: { self: S, client: S, clientTemplate: S, clientScope: S, roles: arr(S) },
  ComponentExportRepresentation: {
    id: S,
    name: S,
    providerId: S,
    subType: S,
    subComponents: mapOf(arr(ref('ComponentExportRepresentation'))),
    config: mapOf(arr(S)),
  },
  // Keycloak keeps both as a Map<String, String>: the keys it knows, and any other string entry (OPEN_REPRESENTATIONS).
  SmtpServerRepresentation: {
    host: S,
    port: S,
    from: S,
    fromDisplayName: S,
    replyTo: S,
    replyToDisplayName: S,
    envelopeFrom: S,
    ssl: S,
    starttls: S,
    auth: S,
    authType: S,
    user: S,
    password: S,
    authTokenUrl: S,
    authTokenScope: S,
    authTokenClientId: S,
    authTokenClientSecret: S,
    debug: S,
    allowutf8: S,
  },
  BrowserSecurityHeadersRepresentation: {
    contentSecurityPolicyReportOnly: S,
    xContentTypeOptions: S,
    referrerPolicy: S,
    xRobotsTag: S,
    xFrameOptions: S,
    contentSecurityPolicy: S,
    strictTransportSecurity: S,
  },
} as const satisfies Record<string, FieldTable>;

/**
 * Representations that are Java maps with well-known keys: the table types the known keys, and any
 * other key is accepted with the type given here (Keycloak stores what it is sent).
 */
export const OPEN_REPRESENTATIONS: Readonly<Record<string, FieldType>> = {
  SmtpServerRepresentation: S,
  BrowserSecurityHeadersRepresentation: S,
};

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
    : F extends 'int' | 'int32' | 'number'
      ? number
      : F extends 'map'
        ? Record<string, unknown>
        : F extends 'any'
          ? unknown
          : F extends { readonly array: infer T }
            ? Array<FieldValue<T>>
            : F extends { readonly ref: infer N extends RepresentationName }
              ? Representation<N>
              : F extends { readonly map: infer T }
                ? Record<string, FieldValue<T>>
                : F extends { readonly enum: readonly (infer E)[] }
                  ? E
                  : never;

/**
 * A Keycloak representation as a TypeScript type, derived from the field table above: the type
 * services take and return, the schema REST validates against and the GraphQL inputs are built from.
 */
export type Representation<N extends RepresentationName> = {
  -readonly [K in keyof (typeof representations)[N]]?: FieldValue<(typeof representations)[N][K]> | null;
};
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Line and column (1-based) of an unknown field as Jackson reports them: where the parser stands after
 * the field's value token (after `true`, after a string's closing quote, after `{` or `[`).
 */
function locate(raw: string | undefined, field: string): { line: number; column: number } {
  // A plain scan, not a RegExp built from the name: a field name can be as long as the body (a
  // 70,000-character name made "Regular expression too large", a 500).
  const name = JSON.stringify(field);
  const skipSpace = (i: number) => {
    let j = i;
    while (j < (raw as string).length && /\s/.test((raw as string)[j])) j += 1;
    return j;
  };
  for (let at = raw ? raw.indexOf(name) : -1; raw && at >= 0; at = raw.indexOf(name, at + 1)) {
    const colon = skipSpace(at + name.length);
    if (raw[colon] !== ':') continue;
    const lines = raw.slice(0, endOfToken(raw, skipSpace(colon + 1))).split('\n');
    return { line: lines.length, column: lines[lines.length - 1].length + 1 };
  }
  return { line: 1, column: 1 };
}

/** The offset just after the JSON token starting at `start` (a string, a literal, or the `{`/`[` opening a value). */
function endOfToken(raw: string, start: number): number {
  if (raw[start] === '{' || raw[start] === '[') return start + 1;
  let end = start;
  if (raw[start] === '"') {
    end += 1;
    while (end < raw.length && raw[end] !== '"') end += raw[end] === '\\' ? 2 : 1;
    return end + 1;
  }
  while (end < raw.length && !/[\s,}\]]/.test(raw[end])) end += 1;
  return end;
}

/**
 * Validates (and coerces, in place, as Jackson does) a parsed request body against a representation.
 * Unknown fields → 400 "Invalid json representation ..."; wrong types → 400 "Cannot parse the JSON".
 */
export function validateRepresentation<T = Record<string, unknown>>(name: string, body: unknown, raw?: string): T {
  if (!isObject(body)) throw cannotParse('mapping');
  const problem = readRepresentation(name as RepresentationName, body);
  if (problem) throw representationError(problem, raw);
  return body as T;
}

/** Validates an array body of a representation (role mappings, composites). */
export function validateRepresentationArray<T = Record<string, unknown>>(name: string, body: unknown, raw?: string): T[] {
  if (!Array.isArray(body)) throw cannotParse('mapping');
  for (const item of body) validateRepresentation(name, item, raw);
  return body as T[];
}

/**
 * What is wrong with a body read as Jackson reads a Keycloak representation: a field the class does
 * not have (`representation` is the class it was found in, nested or not) or a value of a type
 * Jackson cannot coerce to the field's (`field` is the top-level field it sits under).
 */
export type RepresentationProblem = { kind: 'unknown'; representation: string; field: string } | { kind: 'type'; field: string };

class Mismatch extends Error {
  constructor(readonly problem: RepresentationProblem) {
    super(problem.kind);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Jackson's reading of a JSON number or numeric string as a Java Integer (32-bit) or Long. */
function readInteger(v: unknown, int32: boolean, fail: () => never): number | null {
  let n: number;
  if (typeof v === 'number') {
    n = Math.trunc(v); // ACCEPT_FLOAT_AS_INT: 60.9 → 60
  } else if (typeof v === 'string') {
    const text = v.trim();
    if (text === '' || text === 'null') return null; // empty and "null" strings coerce to null
    if (!/^[+-]?\d+$/.test(text)) return fail();
    n = Number(text);
  } else return fail();
  const ok = int32 ? n >= INT32_MIN && n <= INT32_MAX : Number.isSafeInteger(n);
  return ok ? n : fail();
}

/** Jackson's reading of a value as a Java Boolean: booleans, ints (non-zero is true), "true"/"false". */
function readBoolean(v: unknown, fail: () => never): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? v !== 0 : fail();
  if (typeof v !== 'string') return fail();
  const text = v.trim();
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  return text === '' || text === 'null' ? null : fail();
}

function readValue(t: FieldType, v: unknown, field: string): unknown {
  const fail = (): never => {
    throw new Mismatch({ kind: 'type', field });
  };
  if (v === null || t === 'any') return v;
  if (t === 'string') return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fail();
  if (t === 'boolean') return readBoolean(v, fail);
  if (t === 'int' || t === 'int32') return readInteger(v, t === 'int32', fail);
  if (t === 'number') {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    return Number.isFinite(n) ? n : fail();
  }
  if (t === 'map') return isObject(v) ? v : fail();
  if ('enum' in t) {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < t.enum.length) return t.enum[v]; // an enum's ordinal
    if (v === '') return null;
    return typeof v === 'string' && t.enum.includes(v) ? v : fail();
  }
  if ('array' in t) return Array.isArray(v) ? v.map((item) => readValue(t.array, item, field)) : fail();
  if ('map' in t) {
    if (!isObject(v)) return fail();
    for (const [k, item] of Object.entries(v)) v[k] = readValue(t.map, item, field);
    return v;
  }
  if (!isObject(v)) return fail();
  readFields(t.ref, v, field);
  return v;
}

function readFields(name: string, body: Record<string, unknown>, topField?: string): void {
  const table = fieldTable(name) as FieldTable;
  const open = Object.hasOwn(OPEN_REPRESENTATIONS, name) ? OPEN_REPRESENTATIONS[name] : undefined;
  for (const [k, v] of Object.entries(body)) {
    const t = Object.hasOwn(table, k) ? table[k] : open;
    if (!t) throw new Mismatch({ kind: 'unknown', representation: name, field: k });
    body[k] = readValue(t, v, topField ?? k);
  }
}

/**
 * Reads a parsed JSON object as Keycloak's Jackson reads the representation `name`, coercing in place
 * what Jackson coerces ("60" → 60, "true" → true, 5 → "5", 60.9 → 60 for an int, "" → null for a
 * number or boolean) and returning the first problem in document order, or undefined when there is
 * none. Nested representations are read against their own tables.
 */
export function readRepresentation(name: RepresentationName, body: Record<string, unknown>): RepresentationProblem | undefined {
  try {
    readFields(name, body);
    return undefined;
  } catch (e) {
    if (e instanceof Mismatch) return e.problem;
    throw e;
  }
}

/**
 * Keycloak's answer to a problem of a JSON body its JAX-RS layer read: an unknown field →
 * 400 `Invalid json representation for <class>. Unrecognized field "f" at line L column C.`, a value
 * of the wrong type → 400 `unknown_error` / `Cannot parse the JSON`.
 */
export function representationError(problem: RepresentationProblem, raw?: string): HttpError {
  if (problem.kind === 'type') return cannotParse('mapping');
  const { line, column } = locate(raw, problem.field);
  return errorC(
    400,
    `Invalid json representation for ${problem.representation}. Unrecognized field "${problem.field}" at line ${line} column ${column}.`,
  );
}
