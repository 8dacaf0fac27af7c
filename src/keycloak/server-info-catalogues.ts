import { POLICY_TYPES } from './password-policy-types';

/**
 * The static parts of `GET /admin/serverinfo` (config reference §11): the Keycloak version the
 * server is compatible with (tools gate features on it), features and profile, themes, crypto
 * algorithms, password policy types, client installation providers. Everything here describes
 * what this server really implements.
 */

/** The Keycloak release whose admin API the server follows (systemInfo.version). */
export const COMPATIBLE_KEYCLOAK_VERSION = '26.3.2';

type FeatureType = 'DEFAULT' | 'DISABLED_BY_DEFAULT' | 'PREVIEW' | 'PREVIEW_DISABLED_BY_DEFAULT' | 'EXPERIMENTAL' | 'DEPRECATED';
interface Feature {
  name: string;
  label: string;
  type: FeatureType;
  enabled: boolean;
  dependencies: string[];
}

const f = (name: string, label: string, type: FeatureType, dependencies: string[] = []): Feature => ({
  name,
  label,
  type,
  enabled: type === 'DEFAULT',
  dependencies,
});

/** Keycloak 26.3's features with their default state (config reference §0.2). */
export const FEATURES: Feature[] = [
  f('ACCOUNT_API', 'Account Management REST API', 'DEFAULT'),
  f('ACCOUNT_V3', 'Account Console version 3', 'DEFAULT', ['ACCOUNT_API']),
  f('ADMIN_API', 'Admin API', 'DEFAULT'),
  f('ADMIN_FINE_GRAINED_AUTHZ', 'Fine-Grained Admin Permissions', 'PREVIEW', ['AUTHORIZATION']),
  f('ADMIN_FINE_GRAINED_AUTHZ_V2', 'Fine-Grained Admin Permissions version 2', 'DEFAULT', ['AUTHORIZATION']),
  f('ADMIN_V2', 'New Admin Console', 'DEFAULT', ['ADMIN_API']),
  f('AUTHORIZATION', 'Authorization Service', 'DEFAULT'),
  f('CIBA', 'OpenID Connect Client Initiated Backchannel Authentication (CIBA)', 'DEFAULT'),
  f('CLIENT_POLICIES', 'Client configuration policies', 'DEFAULT'),
  f('CLIENT_SECRET_ROTATION', 'Client Secret Rotation', 'PREVIEW'),
  f('CLIENT_TYPES', 'Client Types', 'EXPERIMENTAL'),
  f('CLUSTERLESS', 'Store all session data, work cache and login failures in external Infinispan', 'EXPERIMENTAL'),
  f('DECLARATIVE_UI', 'Declarative UI', 'EXPERIMENTAL'),
  f('DEVICE_FLOW', 'OAuth 2.0 Device Authorization Grant', 'DEFAULT'),
  f('DOCKER', 'Docker Registry protocol', 'DISABLED_BY_DEFAULT'),
  // Supported (on by default) since Keycloak 26.4; idserver verifies proofs and binds tokens (ADR 0038).
  f('DPOP', 'OAuth 2.0 Demonstrating Proof-of-Possession at the Application Layer', 'DEFAULT'),
  f('DYNAMIC_SCOPES', 'Dynamic OAuth 2.0 scopes', 'EXPERIMENTAL'),
  f('FIPS', 'FIPS 140-2 mode', 'DISABLED_BY_DEFAULT'),
  f('HOSTNAME_V2', 'Hostname Options V2', 'DEFAULT'),
  f('IMPERSONATION', 'Ability for admins to impersonate users', 'DEFAULT'),
  f('INSTAGRAM_BROKER', 'Instagram Identity Broker', 'DEPRECATED'),
  f('IPA_TUURA_FEDERATION', 'IPA-Tuura user federation provider', 'EXPERIMENTAL'),
  // Not built here: off, as in a Keycloak whose JVM has no Kerberos (FIPS mode), which then turns the
  // feature into DISABLED_BY_DEFAULT, drops the `kerberos` user storage provider and offers auth-spnego
  // only as DISABLED (SpnegoDisabledAuthenticatorFactory).
  f('KERBEROS', 'Kerberos', 'DISABLED_BY_DEFAULT'),
  f('LOGIN_V1', 'Legacy Login Theme', 'DEPRECATED'),
  f('LOGIN_V2', 'New Login Theme', 'DEFAULT'),
  f('LOGOUT_ALL_SESSIONS_V1', 'Logout all sessions logs out only regular sessions', 'DEPRECATED'),
  f('MULTI_SITE', 'Multi-site support', 'DISABLED_BY_DEFAULT'),
  f('OID4VC_VCI', 'Support for the OID4VCI protocol as part of OID4VC.', 'EXPERIMENTAL'),
  f('ORGANIZATION', 'Organization support within realms', 'DEFAULT'),
  f('PAR', 'OAuth 2.0 Pushed Authorization Requests (PAR)', 'DEFAULT'),
  f('PASSKEYS', 'Passkeys', 'PREVIEW', ['WEB_AUTHN']),
  f('PERSISTENT_USER_SESSIONS', 'Persistent online user sessions across restarts and upgrades', 'DEFAULT'),
  f('QUICK_THEME', 'Create themes using the quick theme tool', 'EXPERIMENTAL'),
  f('RECOVERY_CODES', 'Recovery codes', 'DEFAULT'),
  f('ROLLING_UPDATES_V2', 'Rolling Updates for patch releases', 'PREVIEW'),
  f('SCRIPTS', 'Write custom authenticators using JavaScript', 'PREVIEW'),
  f('STEP_UP_AUTHENTICATION', 'Step-up Authentication', 'DEFAULT'),
  f('TOKEN_EXCHANGE', 'Token Exchange Service', 'PREVIEW'),
  f('TOKEN_EXCHANGE_EXTERNAL_INTERNAL_V2', 'External to Internal Token Exchange', 'EXPERIMENTAL'),
  f('TOKEN_EXCHANGE_STANDARD_V2', 'Standard Token Exchange version 2', 'DEFAULT'),
  f('TRANSIENT_USERS', 'Transient users for brokering', 'EXPERIMENTAL'),
  f('UPDATE_EMAIL', 'Update Email Action', 'PREVIEW'),
  f('USER_EVENT_METRICS', 'Collect metrics based on user events', 'DEFAULT'),
  f('WEB_AUTHN', 'W3C Web Authentication (WebAuthn)', 'DEFAULT'),
];

/** serverinfo `profileInfo`. */
export function profileInfo() {
  const names = (pred: (x: Feature) => boolean) => FEATURES.filter(pred).map((x) => x.name);
  return {
    name: 'community',
    disabledFeatures: names((x) => !x.enabled),
    previewFeatures: names((x) => x.type === 'PREVIEW' || x.type === 'PREVIEW_DISABLED_BY_DEFAULT'),
    experimentalFeatures: names((x) => x.type === 'EXPERIMENTAL'),
  };
}

/** serverinfo `features`: `enabled` for the admin client and `isEnabled` for the Terraform provider. */
export const features = () => FEATURES.map((x) => ({ ...x, isEnabled: x.enabled }));

const LOCALES = [
  'ar',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'fa',
  'fi',
  'fr',
  'hu',
  'it',
  'ja',
  'lt',
  'lv',
  'nl',
  'no',
  'pl',
  'pt',
  'pt-BR',
  'ru',
  'sk',
  'sv',
  'th',
  'tr',
  'uk',
  'zh-CN',
  'zh-TW',
];
const theme = (name: string, locales: string[] = LOCALES) => ({ name, locales });

/** serverinfo `themes`: theme type → themes (Keycloak 26.3's built-in set). */
export function themes(): Record<string, Array<{ name: string; locales: string[] }>> {
  return {
    account: [theme('base'), theme('keycloak.v3')],
    admin: [theme('base'), theme('keycloak.v2')],
    common: [theme('keycloak', [])],
    email: [theme('base'), theme('keycloak')],
    login: [theme('base'), theme('keycloak'), theme('keycloak.v2')],
    welcome: [theme('keycloak', [])],
  };
}

/** serverinfo `cryptoInfo`. */
export function cryptoInfo() {
  return {
    cryptoProvider: 'DefaultCryptoProvider',
    supportedKeystoreTypes: ['JKS', 'PKCS12', 'BCFKS'],
    clientSignatureSymmetricAlgorithms: ['HS256', 'HS384', 'HS512'],
    clientSignatureAsymmetricAlgorithms: ['ES256', 'ES384', 'ES512', 'EdDSA', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'],
  };
}

/** Keycloak's PasswordPolicyTypeRepresentation for each policy type: display name, config type, multiple. */
const POLICY_DISPLAY: Record<string, [displayName: string, configType: string | null, multipleSupported?: boolean]> = {
  digits: ['Digits', 'int'],
  forceExpiredPasswordChange: ['Expire Password', 'String'],
  hashAlgorithm: ['Hashing Algorithm', 'String'],
  hashIterations: ['Hashing Iterations', 'int'],
  passwordHistory: ['Not Recently Used', 'int'],
  length: ['Minimum Length', 'int'],
  lowerCase: ['Lowercase Characters', 'int'],
  maxLength: ['Maximum Length', 'int'],
  notUsername: ['Not Username', null],
  notContainsUsername: ['Not Contains Username', null],
  regexPattern: ['Regular Expression', 'String', true],
  specialChars: ['Special Characters', 'int'],
  upperCase: ['Uppercase Characters', 'int'],
  passwordBlacklist: ['Password Blacklist', 'String'],
  notEmail: ['Not Email', null],
  recoveryCodesWarningThreshold: ['Recovery Codes Warning Threshold', 'int'],
  maxAuthAge: ['Maximum Authentication Age', 'int'],
  passwordAge: ['Not Recently Used (In Days)', 'int'],
};

/** serverinfo `passwordPolicies`: the policy types the server enforces (password-policy.ts), in Keycloak's order. */
export function passwordPolicies() {
  return Object.entries(POLICY_DISPLAY)
    .filter(([id]) => POLICY_TYPES[id] !== undefined)
    .map(([id, [displayName, configType, multiple]]) => ({
      id,
      displayName,
      ...(configType ? { configType } : {}),
      ...(id !== 'hashAlgorithm' && POLICY_TYPES[id].dflt !== null ? { defaultValue: POLICY_TYPES[id].dflt } : {}),
      multipleSupported: multiple ?? false,
    }));
}

/** serverinfo `clientInstallations`: the installation providers `GET /clients/{id}/installation/providers/{id}` serves. */
export function clientInstallations() {
  const i = (id: string, protocol: string, displayType: string, filename: string, mediaType: string, helpText: string) => ({
    id,
    protocol,
    downloadOnly: false,
    displayType,
    helpText,
    filename,
    mediaType,
  });
  return {
    'openid-connect': [
      i(
        'keycloak-oidc-keycloak-json',
        'openid-connect',
        'Keycloak OIDC JSON',
        'keycloak.json',
        'application/json',
        'keycloak.json file used by the Keycloak OIDC client adapter to configure clients.',
      ),
      i(
        'keycloak-oidc-jboss-subsystem-cli',
        'openid-connect',
        'Keycloak OIDC JBoss Subsystem CLI',
        'keycloak-oidc-subsystem.cli',
        'text/plain',
        'CLI script you must edit and apply to your client app server.',
      ),
      i(
        'keycloak-oidc-jboss-subsystem',
        'openid-connect',
        'Keycloak OIDC JBoss Subsystem XML',
        'keycloak-oidc-subsystem.xml',
        'application/xml',
        'XML snippet you must edit and add to the Keycloak OIDC subsystem on your client app server.',
      ),
    ],
    saml: [
      i(
        'keycloak-saml',
        'saml',
        'Keycloak SAML Adapter keycloak-saml.xml',
        'keycloak-saml.xml',
        'application/xml',
        'Keycloak SAML adapter configuration file.',
      ),
      i(
        'saml-sp-descriptor',
        'saml',
        'SAML Metadata SPSSODescriptor',
        'saml-sp-metadata.xml',
        'application/xml',
        'SAML SP Metadata EntityDescriptor.',
      ),
      i(
        'keycloak-saml-subsystem-cli',
        'saml',
        'Keycloak SAML JBoss Subsystem CLI',
        'keycloak-saml-subsystem.cli',
        'text/plain',
        'CLI script you must edit and apply to your client app server.',
      ),
      i(
        'keycloak-saml-subsystem',
        'saml',
        'Keycloak SAML JBoss Subsystem XML',
        'keycloak-saml-subsystem.xml',
        'application/xml',
        'Keycloak SAML subsystem XML you must edit and add to your client app server.',
      ),
    ],
  };
}
