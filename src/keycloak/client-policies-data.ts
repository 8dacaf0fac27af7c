/**
 * Facts of Keycloak 26.3's client-policies SPI (config reference §10.1): the executor and condition
 * provider ids a policy or profile may name, and the global (built-in) client profiles every realm
 * sees with `include-global-profiles=true`. `secret-rotation` is accepted because idserver
 * implements client secret rotation (src/services/client-secret.ts).
 */
type Json = Record<string, unknown>;

export const EXECUTOR_IDS = new Set([
  'secure-response-type',
  'secure-request-object',
  'secure-client-authenticator',
  'pkce-enforcer',
  'secure-session',
  'secure-signature-algorithm',
  'secure-client-uris',
  'secure-signature-algorithm-signed-jwt',
  'holder-of-key-enforcer',
  'confidential-client',
  'consent-required',
  'full-scope-disabled',
  'secure-ciba-session',
  'secure-ciba-signed-authn-req',
  'secure-ciba-req-sig-algorithm',
  'secure-logout',
  'reject-ropc-grant',
  'reject-request',
  'intent-client-bind-checker',
  'suppress-refresh-token-rotation',
  'registration-access-token-rotation-disabled',
  'reject-implicit-grant',
  'secure-par-content',
  'dpop-bind-enforcer',
  'use-lightweight-access-token',
  'secure-redirect-uris-enforcer',
  'saml-secure-client-uris',
  'saml-avoid-redirect',
  'saml-signature-enforcer',
  'auth-flow-enforcer',
  'secret-rotation',
]);

export const CONDITION_IDS = new Set([
  'client-updater-context',
  'client-roles',
  'client-scopes',
  'client-access-type',
  'client-updater-source-host',
  'client-updater-source-groups',
  'client-updater-source-roles',
  'any-client',
  'client-type',
  'client-attributes',
  'acr-condition',
  'grant-type',
]);

const ex = (executor: string, configuration: Json = {}): Json => ({ executor, configuration });
const conform = (spec: string, who = 'clients') => `Client profile, which enforce ${who} to conform '${spec}' specification.`;
const jwtAuth = (alsoSecretJwt = false) =>
  ex('secure-client-authenticator', {
    'allowed-client-authenticators': alsoSecretJwt ? ['client-jwt', 'client-secret-jwt', 'client-x509'] : ['client-jwt', 'client-x509'],
    'default-client-authenticator': 'client-jwt',
  });
const auto = (executor: string, value: boolean | string = true) => ex(executor, { 'auto-configure': value });
const redirectUris = () =>
  ex('secure-redirect-uris-enforcer', {
    'allow-ipv4-loopback-address': 'true',
    'allow-ipv6-loopback-address': 'true',
    'allow-private-use-uri-scheme': 'true',
    'oauth-2-1-compliant': 'true',
  });
const fapi2 = (): Json[] => [
  ex('confidential-client'),
  jwtAuth(),
  ex('secure-client-uris'),
  ex('secure-signature-algorithm', { 'default-algorithm': 'PS256' }),
  ex('secure-signature-algorithm-signed-jwt', { 'require-client-assertion': false }),
  auto('consent-required'),
  auto('full-scope-disabled'),
  auto('reject-implicit-grant', 'true'),
  auto('holder-of-key-enforcer', 'true'),
  auto('pkce-enforcer', 'true'),
  ex('secure-par-content'),
];

/** The global client profiles, in Keycloak's order; values typed exactly as Keycloak stores them (booleans and "true" strings). */
export function globalProfiles(): Json[] {
  return [
    {
      name: 'fapi-1-baseline',
      description: conform('Financial-grade API Security Profile 1.0 - Part 1: Baseline'),
      executors: [
        ex('secure-session'),
        auto('pkce-enforcer'),
        jwtAuth(true),
        ex('secure-client-uris'),
        auto('consent-required'),
        auto('full-scope-disabled'),
      ],
    },
    {
      name: 'fapi-1-advanced',
      description: conform('Financial-grade API Security Profile 1.0 - Part 2: Advanced'),
      executors: [
        ex('secure-session'),
        ex('confidential-client'),
        jwtAuth(),
        ex('secure-client-uris'),
        ex('secure-request-object', { 'available-period': '3600', 'verify-nbf': true }),
        ex('secure-response-type', { 'auto-configure': true, 'allow-token-response-type': false }),
        ex('secure-signature-algorithm', { 'default-algorithm': 'PS256' }),
        ex('secure-signature-algorithm-signed-jwt', { 'require-client-assertion': false }),
        auto('consent-required'),
        auto('full-scope-disabled'),
        auto('holder-of-key-enforcer'),
      ],
    },
    {
      name: 'fapi-ciba',
      description: conform('Financial-grade API: Client Initiated Backchannel Authentication Profile'),
      executors: [
        ex('secure-ciba-req-sig-algorithm', { 'default-algorithm': 'PS256' }),
        ex('secure-ciba-session'),
        ex('secure-ciba-signed-authn-req', { 'available-period': '3600' }),
      ],
    },
    { name: 'fapi-2-security-profile', description: conform('FAPI 2.0 Security Profile'), executors: fapi2() },
    {
      name: 'fapi-2-message-signing',
      description: conform('FAPI 2.0 Message Signing'),
      executors: [
        ...fapi2(),
        ex('secure-request-object', { 'verify-nbf': true, 'available-period': '3600', 'encryption-required': false }),
      ],
    },
    {
      name: 'oauth-2-1-for-confidential-client',
      description: conform('OAuth 2.1', 'confidential clients'),
      executors: [
        ex('confidential-client'),
        jwtAuth(),
        redirectUris(),
        auto('pkce-enforcer', 'true'),
        auto('holder-of-key-enforcer', 'true'),
        auto('reject-implicit-grant', 'true'),
        auto('reject-ropc-grant', 'true'),
      ],
    },
    {
      name: 'oauth-2-1-for-public-client',
      description: conform('OAuth 2.1', 'public clients'),
      executors: [
        redirectUris(),
        auto('pkce-enforcer', 'true'),
        auto('dpop-bind-enforcer', 'true'),
        auto('reject-implicit-grant', 'true'),
        auto('reject-ropc-grant', 'true'),
      ],
    },
    {
      name: 'saml-security-profile',
      description: 'Client profile that enforces SAML clients to be secure.',
      executors: [ex('saml-secure-client-uris'), ex('saml-signature-enforcer'), ex('saml-avoid-redirect')],
    },
  ];
}
