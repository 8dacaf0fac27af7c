/**
 * What Keycloak gives a new realm (reference: keycloak-behavior-core.md §3.3–3.9,
 * keycloak-behavior-config.md §3.3, §6.5): top-level settings, roles, built-in clients, client
 * scopes, required actions and components. Data only; realms.ts applies it.
 */
import type { Representation } from '../representations/schema';
import type { SmtpServerRep } from '../representations/smtp';
import { FLOW_BINDINGS } from './auth-flow-defaults';

/** All realm settings kept in the `settings` column, with the values of a new non-master realm (their types name the settings' types). */
export function defaultRealmSettings() {
  return {
    displayName: undefined as string | undefined,
    displayNameHtml: undefined as string | undefined,
    notBefore: 0,
    defaultSignatureAlgorithm: 'RS256',
    revokeRefreshToken: false,
    refreshTokenMaxReuse: 0,
    accessTokenLifespan: 300,
    accessTokenLifespanForImplicitFlow: 900,
    ssoSessionIdleTimeout: 1800,
    ssoSessionMaxLifespan: 36000,
    ssoSessionIdleTimeoutRememberMe: 0,
    ssoSessionMaxLifespanRememberMe: 0,
    offlineSessionIdleTimeout: 2592000,
    offlineSessionMaxLifespanEnabled: false,
    offlineSessionMaxLifespan: 5184000,
    clientSessionIdleTimeout: 0,
    clientSessionMaxLifespan: 0,
    clientOfflineSessionIdleTimeout: 0,
    clientOfflineSessionMaxLifespan: 0,
    accessCodeLifespan: 60,
    accessCodeLifespanUserAction: 300,
    accessCodeLifespanLogin: 1800,
    actionTokenGeneratedByAdminLifespan: 43200,
    actionTokenGeneratedByUserLifespan: 300,
    oauth2DeviceCodeLifespan: 600,
    oauth2DevicePollingInterval: 5,
    sslRequired: 'external',
    registrationAllowed: false,
    registrationEmailAsUsername: false,
    rememberMe: false,
    verifyEmail: false,
    loginWithEmailAllowed: true,
    duplicateEmailsAllowed: false,
    resetPasswordAllowed: false,
    editUsernameAllowed: false,
    bruteForceProtected: false,
    permanentLockout: false,
    maxTemporaryLockouts: 0,
    bruteForceStrategy: 'MULTIPLE',
    maxFailureWaitSeconds: 900,
    minimumQuickLoginWaitSeconds: 60,
    waitIncrementSeconds: 60,
    quickLoginCheckMilliSeconds: 1000,
    maxDeltaTimeSeconds: 43200,
    failureFactor: 30,
    requiredCredentials: ['password'],
    otpPolicyType: 'totp',
    otpPolicyAlgorithm: 'HmacSHA1',
    otpPolicyInitialCounter: 0,
    otpPolicyDigits: 6,
    otpPolicyLookAheadWindow: 1,
    otpPolicyPeriod: 30,
    otpPolicyCodeReusable: false,
    otpSupportedApplications: ['totpAppFreeOTPName', 'totpAppGoogleName', 'totpAppMicrosoftAuthenticatorName'],
    webAuthnPolicyRpEntityName: 'keycloak',
    webAuthnPolicySignatureAlgorithms: ['ES256', 'RS256'],
    webAuthnPolicyRpId: '',
    webAuthnPolicyAttestationConveyancePreference: 'not specified',
    webAuthnPolicyAuthenticatorAttachment: 'not specified',
    webAuthnPolicyRequireResidentKey: 'not specified',
    webAuthnPolicyUserVerificationRequirement: 'not specified',
    webAuthnPolicyCreateTimeout: 0,
    webAuthnPolicyAvoidSameAuthenticatorRegister: false,
    webAuthnPolicyAcceptableAaguids: [] as string[],
    webAuthnPolicyExtraOrigins: [] as string[],
    webAuthnPolicyPasswordlessRpEntityName: 'keycloak',
    webAuthnPolicyPasswordlessSignatureAlgorithms: ['ES256', 'RS256'],
    webAuthnPolicyPasswordlessRpId: '',
    webAuthnPolicyPasswordlessAttestationConveyancePreference: 'not specified',
    webAuthnPolicyPasswordlessAuthenticatorAttachment: 'not specified',
    webAuthnPolicyPasswordlessRequireResidentKey: 'Yes',
    webAuthnPolicyPasswordlessUserVerificationRequirement: 'required',
    webAuthnPolicyPasswordlessCreateTimeout: 0,
    webAuthnPolicyPasswordlessAvoidSameAuthenticatorRegister: false,
    webAuthnPolicyPasswordlessAcceptableAaguids: [] as string[],
    webAuthnPolicyPasswordlessExtraOrigins: [] as string[],
    webAuthnPolicyPasswordlessPasskeysEnabled: false,
    browserSecurityHeaders: {
      contentSecurityPolicyReportOnly: '',
      xContentTypeOptions: 'nosniff',
      referrerPolicy: 'no-referrer',
      xRobotsTag: 'none',
      xFrameOptions: 'SAMEORIGIN',
      contentSecurityPolicy: "frame-src 'self'; frame-ancestors 'self'; object-src 'none';",
      strictTransportSecurity: 'max-age=31536000; includeSubDomains',
    } as Record<string, string>,
    smtpServer: {} as SmtpServerRep,
    eventsEnabled: false,
    eventsListeners: ['jboss-logging'],
    enabledEventTypes: [] as string[],
    adminEventsEnabled: false,
    adminEventsDetailsEnabled: false,
    internationalizationEnabled: false,
    supportedLocales: [] as string[],
    ...FLOW_BINDINGS,
    attributes: {
      cibaBackchannelTokenDeliveryMode: 'poll',
      cibaExpiresIn: '120',
      cibaAuthRequestedUserHint: 'login_hint',
      oauth2DeviceCodeLifespan: '600',
      oauth2DevicePollingInterval: '5',
      parRequestUriLifespan: '60',
      cibaInterval: '5',
      realmReusableOtpCode: 'false',
    } as Record<string, string>,
    userManagedAccessAllowed: false,
    organizationsEnabled: false,
    verifiableCredentialsEnabled: false,
    adminPermissionsEnabled: false,
    clientProfiles: { profiles: [] as Representation<'ClientProfileRepresentation'>[] },
    clientPolicies: { policies: [] as Representation<'ClientPolicyRepresentation'>[] },
  };
}

/** Master realm overrides (reference §3.3, "Master realm differences"). */
export function masterRealmOverrides(): Record<string, unknown> {
  return {
    accessTokenLifespan: 60,
    displayName: 'Keycloak',
    displayNameHtml: '<div class="kc-logo-text"><span>Keycloak</span></div>',
  };
}

/** The 17 fine-grained admin roles (AdminRoles.ALL_REALM_ROLES). */
export const ALL_REALM_ROLES = [
  'create-client',
  'view-realm',
  'view-users',
  'view-clients',
  'view-events',
  'view-identity-providers',
  'view-authorization',
  'manage-realm',
  'manage-users',
  'manage-clients',
  'manage-events',
  'manage-identity-providers',
  'manage-authorization',
  'query-users',
  'query-clients',
  'query-realms',
  'query-groups',
] as const;

/** Built-in composites among the admin roles. */
export const ADMIN_ROLE_COMPOSITES: Record<string, string[]> = {
  'view-users': ['query-users', 'query-groups'],
  'view-clients': ['query-clients'],
};

export interface ClientDefault {
  clientId: string;
  name: string;
  publicClient?: boolean;
  bearerOnly?: boolean;
  directAccessGrantsEnabled?: boolean;
  fullScopeAllowed?: boolean;
  settings: Record<string, unknown>;
  roles?: Array<{ name: string; composites?: string[] }>;
  /** false: no default/optional client scopes (the `*-realm` clients). */
  scopes?: boolean;
  realmClient?: boolean;
}

/** Built-in clients of a realm (reference §3.5). */
export function builtInClients(realm: string): ClientDefault[] {
  const accountUrls = {
    rootUrl: '${authBaseUrl}',
    baseUrl: `/realms/${realm}/account/`,
    redirectUris: [`/realms/${realm}/account/*`],
  };
  return [
    {
      clientId: 'account',
      name: '${client_account}',
      publicClient: true,
      fullScopeAllowed: false,
      settings: { ...accountUrls, standardFlowEnabled: true, attributes: { 'post.logout.redirect.uris': '+', realm_client: 'false' } },
      roles: [
        { name: 'view-profile' },
        { name: 'manage-account', composites: ['manage-account-links'] },
        { name: 'manage-account-links' },
        { name: 'view-applications' },
        { name: 'view-consent' },
        { name: 'manage-consent', composites: ['view-consent'] },
        { name: 'view-groups' },
        { name: 'delete-account' },
      ],
    },
    {
      clientId: 'account-console',
      name: '${client_account-console}',
      publicClient: true,
      fullScopeAllowed: false,
      settings: {
        ...accountUrls,
        standardFlowEnabled: true,
        attributes: { 'post.logout.redirect.uris': '+', 'pkce.code.challenge.method': 'S256', realm_client: 'false' },
      },
    },
    {
      clientId: 'admin-cli',
      name: '${client_admin-cli}',
      publicClient: true,
      directAccessGrantsEnabled: true,
      fullScopeAllowed: true,
      settings: {
        standardFlowEnabled: false,
        attributes: { 'client.use.lightweight.access.token.enabled': 'true', realm_client: 'false' },
      },
    },
    {
      clientId: 'broker',
      name: '${client_broker}',
      bearerOnly: true,
      fullScopeAllowed: false,
      realmClient: true,
      settings: { standardFlowEnabled: true, attributes: { realm_client: 'true' } },
      roles: [{ name: 'read-token' }],
    },
    {
      clientId: 'security-admin-console',
      name: '${client_security-admin-console}',
      publicClient: true,
      fullScopeAllowed: true,
      settings: {
        rootUrl: '${authAdminUrl}',
        baseUrl: `/admin/${realm}/console/`,
        redirectUris: [`/admin/${realm}/console/*`],
        webOrigins: ['+'],
        standardFlowEnabled: true,
        attributes: {
          'post.logout.redirect.uris': '+',
          'pkce.code.challenge.method': 'S256',
          'client.use.lightweight.access.token.enabled': 'true',
          realm_client: 'false',
        },
      },
    },
  ];
}

/** The admin client of a realm: `realm-management` inside the realm, or `<realm>-realm` in master. */
export function adminClient(kind: 'realm-management' | 'master-realm-client', realmName: string): ClientDefault {
  const roles = [...ALL_REALM_ROLES.map((name) => ({ name, composites: ADMIN_ROLE_COMPOSITES[name] })), { name: 'impersonation' }];
  if (kind === 'realm-management') {
    return {
      clientId: 'realm-management',
      name: '${client_realm-management}',
      bearerOnly: true,
      fullScopeAllowed: false,
      realmClient: true,
      settings: { standardFlowEnabled: true, attributes: { realm_client: 'true' } },
      roles: [...roles, { name: 'realm-admin', composites: [...ALL_REALM_ROLES, 'impersonation'] }],
    };
  }
  return {
    clientId: `${realmName}-realm`,
    name: `${realmName} Realm`,
    bearerOnly: true,
    fullScopeAllowed: false,
    realmClient: true,
    scopes: false,
    settings: { standardFlowEnabled: true, attributes: { realm_client: 'true' } },
    roles,
  };
}

export interface ScopeDefault {
  name: string;
  protocol: 'openid-connect' | 'saml';
  description: string;
  attributes: Record<string, string>;
  /** 'default' | 'optional' realm list, or none. */
  realmList?: 'default' | 'optional';
}

const consent = (include: boolean | undefined, display: boolean, text?: string) => {
  const a: Record<string, string> = {};
  if (include !== undefined) a['include.in.token.scope'] = String(include);
  a['display.on.consent.screen'] = String(display);
  if (text !== undefined) a['consent.screen.text'] = text;
  return a;
};

/** Built-in client scopes (config reference §3.3), in the realm-list order of a Keycloak export. */
export function builtInClientScopes(): ScopeDefault[] {
  const oidc = 'openid-connect' as const;
  return [
    {
      name: 'role_list',
      protocol: 'saml',
      description: 'SAML role list',
      attributes: consent(undefined, true, '${samlRoleListScopeConsentText}'),
      realmList: 'default',
    },
    {
      name: 'saml_organization',
      protocol: 'saml',
      description: 'Organization Membership',
      attributes: consent(undefined, false),
      realmList: 'default',
    },
    {
      name: 'profile',
      protocol: oidc,
      description: 'OpenID Connect built-in scope: profile',
      attributes: consent(true, true, '${profileScopeConsentText}'),
      realmList: 'default',
    },
    {
      name: 'email',
      protocol: oidc,
      description: 'OpenID Connect built-in scope: email',
      attributes: consent(true, true, '${emailScopeConsentText}'),
      realmList: 'default',
    },
    {
      name: 'roles',
      protocol: oidc,
      description: 'OpenID Connect scope for add user roles to the access token',
      attributes: consent(false, true, '${rolesScopeConsentText}'),
      realmList: 'default',
    },
    {
      name: 'web-origins',
      protocol: oidc,
      description: 'OpenID Connect scope for add allowed web origins to the access token',
      attributes: consent(false, false, ''),
      realmList: 'default',
    },
    {
      name: 'acr',
      protocol: oidc,
      description: 'OpenID Connect scope for add acr (authentication context class reference) to the token',
      attributes: consent(false, false),
      realmList: 'default',
    },
    {
      name: 'basic',
      protocol: oidc,
      description: 'OpenID Connect scope for add all basic claims to the token',
      attributes: consent(false, false),
      realmList: 'default',
    },
    {
      name: 'offline_access',
      protocol: oidc,
      description: 'OpenID Connect built-in scope: offline_access',
      attributes: consent(undefined, true, '${offlineAccessScopeConsentText}'),
      realmList: 'optional',
    },
    {
      name: 'address',
      protocol: oidc,
      description: 'OpenID Connect built-in scope: address',
      attributes: consent(true, true, '${addressScopeConsentText}'),
      realmList: 'optional',
    },
    {
      name: 'phone',
      protocol: oidc,
      description: 'OpenID Connect built-in scope: phone',
      attributes: consent(true, true, '${phoneScopeConsentText}'),
      realmList: 'optional',
    },
    {
      name: 'microprofile-jwt',
      protocol: oidc,
      description: 'Microprofile - JWT built-in scope',
      attributes: consent(true, false),
      realmList: 'optional',
    },
    {
      name: 'organization',
      protocol: oidc,
      description: 'Additional claims about the organization a subject belongs to',
      attributes: consent(true, true, '${organizationScopeConsentText}'),
      realmList: 'optional',
    },
    {
      name: 'service_account',
      protocol: oidc,
      description: 'Specific scope for a client enabled for service accounts',
      attributes: consent(false, false),
    },
  ];
}

/** Default required actions (reference §3.8). */
export const DEFAULT_REQUIRED_ACTIONS: Array<{ alias: string; name: string; enabled: boolean; priority: number }> = [
  { alias: 'CONFIGURE_TOTP', name: 'Configure OTP', enabled: true, priority: 10 },
  { alias: 'TERMS_AND_CONDITIONS', name: 'Terms and Conditions', enabled: false, priority: 20 },
  { alias: 'UPDATE_PASSWORD', name: 'Update Password', enabled: true, priority: 30 },
  { alias: 'UPDATE_PROFILE', name: 'Update Profile', enabled: true, priority: 40 },
  { alias: 'VERIFY_EMAIL', name: 'Verify Email', enabled: true, priority: 50 },
  { alias: 'delete_account', name: 'Delete Account', enabled: false, priority: 60 },
  { alias: 'UPDATE_EMAIL', name: 'Update Email', enabled: false, priority: 70 },
  { alias: 'webauthn-register', name: 'Webauthn Register', enabled: true, priority: 80 },
  { alias: 'webauthn-register-passwordless', name: 'Webauthn Register Passwordless', enabled: true, priority: 90 },
  { alias: 'VERIFY_PROFILE', name: 'Verify Profile', enabled: true, priority: 100 },
  { alias: 'delete_credential', name: 'Delete Credential', enabled: true, priority: 110 },
  { alias: 'idp_link', name: 'Linking Identity Provider', enabled: true, priority: 120 },
  { alias: 'CONFIGURE_RECOVERY_AUTHN_CODES', name: 'Recovery Authentication Codes', enabled: true, priority: 130 },
  { alias: 'update_user_locale', name: 'Update User Locale', enabled: true, priority: 1000 },
];

const REG_POLICY = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';
const MAPPER_TYPES = [
  'saml-user-attribute-mapper',
  'oidc-usermodel-attribute-mapper',
  'saml-user-property-mapper',
  'oidc-usermodel-property-mapper',
  'oidc-full-name-mapper',
  'oidc-address-mapper',
  'oidc-sha256-pairwise-sub-mapper',
  'saml-role-list-mapper',
];

/** Default client-registration policy components (config reference §6.5). */
export function registrationPolicies(): Array<{
  name: string;
  providerId: string;
  providerType: string;
  subType: string;
  config: Record<string, string[]>;
}> {
  const p = (name: string, providerId: string, subType: string, config: Record<string, string[]> = {}) => ({
    name,
    providerId,
    providerType: REG_POLICY,
    subType,
    config,
  });
  return [
    p('Trusted Hosts', 'trusted-hosts', 'anonymous', {
      'host-sending-registration-request-must-match': ['true'],
      'client-uris-must-match': ['true'],
    }),
    p('Consent Required', 'consent-required', 'anonymous'),
    p('Full Scope Disabled', 'scope', 'anonymous'),
    p('Max Clients Limit', 'max-clients', 'anonymous', { 'max-clients': ['200'] }),
    p('Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'anonymous', { 'allowed-protocol-mapper-types': MAPPER_TYPES }),
    p('Allowed Client Scopes', 'allowed-client-templates', 'anonymous', { 'allow-default-scopes': ['true'] }),
    p('Allowed Registration Web Origins', 'registration-web-origins', 'anonymous'),
    p('Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'authenticated', { 'allowed-protocol-mapper-types': MAPPER_TYPES }),
    p('Allowed Client Scopes', 'allowed-client-templates', 'authenticated', { 'allow-default-scopes': ['true'] }),
    p('Allowed Registration Web Origins', 'registration-web-origins', 'authenticated'),
  ];
}

/** A built-in protocol mapper (config reference §3.3, §4.3). */
export interface MapperDefault {
  name: string;
  protocol: 'openid-connect' | 'saml';
  protocolMapper: string;
  config: Record<string, string>;
}

const TOKENS4 = {
  'introspection.token.claim': 'true',
  'userinfo.token.claim': 'true',
  'id.token.claim': 'true',
  'access.token.claim': 'true',
};
const ACCESS2 = { 'introspection.token.claim': 'true', 'access.token.claim': 'true' };
const oidcMapper = (name: string, protocolMapper: string, config: Record<string, string>): MapperDefault => ({
  name,
  protocol: 'openid-connect',
  protocolMapper,
  config,
});
const userAttr = (name: string, attribute: string, claim: string, type = 'String') =>
  oidcMapper(name, 'oidc-usermodel-attribute-mapper', {
    ...TOKENS4,
    'user.attribute': attribute,
    'claim.name': claim,
    'jsonType.label': type,
  });
const sessionNote = (name: string, note: string, claim: string, type = 'String') =>
  oidcMapper(name, 'oidc-usersessionmodel-note-mapper', {
    ...TOKENS4,
    'user.session.note': note,
    'claim.name': claim,
    'jsonType.label': type,
  });
const roleMapper = (name: string, type: string, claim: string, extra: Record<string, string> = {}) =>
  oidcMapper(name, type, {
    ...ACCESS2,
    'user.attribute': 'foo',
    'claim.name': claim,
    'jsonType.label': 'String',
    multivalued: 'true',
    ...extra,
  });

/** Protocol mappers of the built-in client scopes, by scope name (config reference §3.3). */
export function builtInScopeMappers(): Record<string, MapperDefault[]> {
  return {
    profile: [
      oidcMapper('full name', 'oidc-full-name-mapper', { ...TOKENS4 }),
      userAttr('family name', 'lastName', 'family_name'),
      userAttr('given name', 'firstName', 'given_name'),
      userAttr('middle name', 'middleName', 'middle_name'),
      userAttr('nickname', 'nickname', 'nickname'),
      userAttr('username', 'username', 'preferred_username'),
      userAttr('profile', 'profile', 'profile'),
      userAttr('picture', 'picture', 'picture'),
      userAttr('website', 'website', 'website'),
      userAttr('gender', 'gender', 'gender'),
      userAttr('birthdate', 'birthdate', 'birthdate'),
      userAttr('zoneinfo', 'zoneinfo', 'zoneinfo'),
      userAttr('locale', 'locale', 'locale'),
      userAttr('updated at', 'updatedAt', 'updated_at', 'long'),
    ],
    email: [
      userAttr('email', 'email', 'email'),
      oidcMapper('email verified', 'oidc-usermodel-property-mapper', {
        ...TOKENS4,
        'user.attribute': 'emailVerified',
        'claim.name': 'email_verified',
        'jsonType.label': 'boolean',
      }),
    ],
    address: [
      oidcMapper('address', 'oidc-address-mapper', {
        ...TOKENS4,
        'user.attribute.formatted': 'formatted',
        'user.attribute.country': 'country',
        'user.attribute.postal_code': 'postal_code',
        'user.attribute.street': 'street',
        'user.attribute.region': 'region',
        'user.attribute.locality': 'locality',
      }),
    ],
    phone: [
      userAttr('phone number', 'phoneNumber', 'phone_number'),
      userAttr('phone number verified', 'phoneNumberVerified', 'phone_number_verified', 'boolean'),
    ],
    roles: [
      roleMapper('realm roles', 'oidc-usermodel-realm-role-mapper', 'realm_access.roles'),
      roleMapper('client roles', 'oidc-usermodel-client-role-mapper', 'resource_access.${client_id}.roles'),
      oidcMapper('audience resolve', 'oidc-audience-resolve-mapper', { ...ACCESS2 }),
    ],
    'web-origins': [oidcMapper('allowed web origins', 'oidc-allowed-origins-mapper', { ...ACCESS2 })],
    'microprofile-jwt': [
      userAttr('upn', 'username', 'upn'),
      oidcMapper('groups', 'oidc-usermodel-realm-role-mapper', {
        ...TOKENS4,
        'claim.name': 'groups',
        'jsonType.label': 'String',
        multivalued: 'true',
        'user.attribute': 'foo',
      }),
    ],
    acr: [oidcMapper('acr loa level', 'oidc-acr-mapper', { 'id.token.claim': 'true', ...ACCESS2 })],
    basic: [sessionNote('auth_time', 'AUTH_TIME', 'auth_time', 'long'), oidcMapper('sub', 'oidc-sub-mapper', { ...ACCESS2 })],
    service_account: [
      sessionNote('Client ID', 'client_id', 'client_id'),
      sessionNote('Client Host', 'clientHost', 'clientHost'),
      sessionNote('Client IP Address', 'clientAddress', 'clientAddress'),
    ],
    organization: [
      oidcMapper('organization', 'oidc-organization-membership-mapper', {
        ...TOKENS4,
        'claim.name': 'organization',
        'jsonType.label': 'String',
        multivalued: 'true',
      }),
    ],
    role_list: [
      {
        name: 'role list',
        protocol: 'saml',
        protocolMapper: 'saml-role-list-mapper',
        config: { single: 'false', 'attribute.nameformat': 'Basic', 'attribute.name': 'Role' },
      },
    ],
    saml_organization: [{ name: 'organization', protocol: 'saml', protocolMapper: 'saml-organization-membership-mapper', config: {} }],
  };
}

/** Protocol mappers of built-in clients, by clientId: `account-console` audience resolve, `security-admin-console` locale. */
export function builtInClientMappers(): Record<string, MapperDefault[]> {
  return {
    'account-console': [oidcMapper('audience resolve', 'oidc-audience-resolve-mapper', {})],
    'security-admin-console': [userAttr('locale', 'locale', 'locale')],
  };
}
