import type { ConfigPropertyRep } from '../../representations/config-property';
import { CONDITIONS } from './conditions';
import { EXECUTORS } from './executors';

/** The signature algorithms FAPI allows (PS and ES), offered as the default of the executors that set one. */
const FAPI_SIGNATURE_ALGS = ['PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

/**
 * Server info's view of client policies: the executors and conditions that act (executors.ts,
 * conditions.ts, plus `secret-rotation`), as Keycloak's ComponentTypeRepresentation under its SPI
 * interface names. Providers that are only accepted for storage are not listed.
 */
const EXECUTOR_SPI = 'org.keycloak.services.clientpolicy.executor.ClientPolicyExecutorProvider';
const CONDITION_SPI = 'org.keycloak.services.clientpolicy.condition.ClientPolicyConditionProvider';

const prop = (
  name: string,
  label: string,
  helpText: string,
  type: string,
  defaultValue?: unknown,
  options?: string[],
): ConfigPropertyRep => ({
  name,
  label,
  helpText,
  type,
  ...(defaultValue === undefined ? {} : { defaultValue }),
  ...(options ? { options } : {}),
  secret: false,
  required: false,
  readOnly: false,
});
const auto = (what: string, def = false) =>
  prop('auto-configure', 'Auto-configure', `If On, the client is auto-configured to ${what} on create and update.`, 'boolean', def);
const negative = prop('is-negative-logic', 'Negative Logic', 'If On, the result of the condition is inverted.', 'boolean', false);

const EXECUTOR_INFO: Record<string, { helpText: string; properties: ConfigPropertyRep[] }> = {
  'auth-flow-enforcer': {
    helpText: 'The login of an authorization request runs the given authentication flow.',
    properties: [
      prop('auth-flow-alias', 'Auth Flow Alias', 'The alias of the flow the login runs.', 'String'),
      prop('auth-flow-loa', 'Flow Level of Authentication', 'The level of authentication the flow stands for.', 'int'),
    ],
  },
  'intent-client-bind-checker': {
    helpText: 'An authorization request is allowed only when an outside service says its intent is bound to the client.',
    properties: [
      prop(
        'intent-client-bind-check-endpoint',
        'Intent-Client Bind Check Endpoint',
        'The URL POSTed {"intent_id", "client_id"}; it answers {"is_bound": true|false}.',
        'String',
      ),
      prop('intent-name', 'Intent Name', 'The ID token claim of the claims parameter that holds the intent id.', 'String'),
    ],
  },
  'suppress-refresh-token-rotation': {
    helpText: 'A refresh returns no new refresh token: the client keeps the one it has.',
    properties: [],
  },
  'use-lightweight-access-token': {
    helpText: 'Access tokens are lightweight: only the claims of mappers with "Add to lightweight access token".',
    properties: [],
  },
  'confidential-client': { helpText: 'Refuses public clients on authorization and token requests.', properties: [] },
  'consent-required': { helpText: 'Clients must require user consent.', properties: [auto('enable consentRequired', true)] },
  'dpop-bind-enforcer': {
    helpText: 'Clients must bind their tokens to a DPoP key (RFC 9449).',
    properties: [
      auto('bind their tokens to a DPoP key'),
      prop(
        'enforce-authorization-code-binding-to-dpop',
        'Enforce Authorization Code binding to DPoP key',
        'Authorization requests must send dpop_jkt.',
        'boolean',
        false,
      ),
      prop(
        'allow-only-refresh-token-binding',
        'Allow only refresh token binding',
        'A public client without DPoP-bound tokens must send a proof, and only its refresh token is bound.',
        'boolean',
        false,
      ),
    ],
  },
  'full-scope-disabled': { helpText: 'Clients may not have fullScopeAllowed.', properties: [auto('disable fullScopeAllowed', true)] },
  'holder-of-key-enforcer': {
    helpText: 'Clients must bind their tokens to their TLS client certificate (RFC 8705).',
    properties: [auto('bind their tokens to their TLS client certificate')],
  },
  'pkce-enforcer': { helpText: 'Clients must use PKCE with S256.', properties: [auto('require S256 PKCE')] },
  'registration-access-token-rotation-disabled': {
    helpText: 'A client update through the registration service keeps its registration access token.',
    properties: [],
  },
  'reject-implicit-grant': { helpText: 'Refuses the implicit and hybrid flows.', properties: [auto('disable the implicit flow')] },
  'reject-ropc-grant': {
    helpText: 'Refuses the resource owner password credentials grant.',
    properties: [auto('disable direct access grants')],
  },
  'secure-ciba-req-sig-algorithm': {
    helpText: 'Clients must sign their CIBA authentication requests with a PS or ES algorithm (set on create and update when absent).',
    properties: [
      prop(
        'default-algorithm',
        'Default Signature Algorithm',
        'The algorithm set when a client names none.',
        'List',
        'PS256',
        FAPI_SIGNATURE_ALGS,
      ),
    ],
  },
  'secure-ciba-session': { helpText: 'CIBA authentication requests must carry a binding_message.', properties: [] },
  'secure-ciba-signed-authn-req': {
    helpText: 'CIBA authentication requests must be signed request objects with exp, nbf, aud, iss, iat and jti.',
    properties: [prop('available-period', 'Available Period', 'The longest time (seconds) between nbf and exp.', 'int', '3600')],
  },
  'secure-client-authenticator': {
    helpText: 'Clients must use one of the allowed client authenticators.',
    properties: [
      prop(
        'allowed-client-authenticators',
        'Allowed Client Authenticators',
        'Client authenticators a client may use.',
        'MultivaluedList',
        undefined,
        ['client-jwt', 'client-secret', 'client-secret-jwt', 'client-x509'],
      ),
      prop('default-client-authenticator', 'Default Client Authenticator', 'Set on a client that names none.', 'List', undefined, [
        'client-jwt',
        'client-secret',
        'client-secret-jwt',
        'client-x509',
      ]),
    ],
  },
  'secure-redirect-uris-enforcer': {
    helpText: 'Redirect URIs of clients must be secure, as the options allow.',
    properties: [
      prop('allow-ipv4-loopback-address', 'Allow IPv4 loopback address', 'Allow 127.0.0.1 / localhost.', 'boolean', false),
      prop('allow-ipv6-loopback-address', 'Allow IPv6 loopback address', 'Allow [::1].', 'boolean', false),
      prop('allow-private-use-uri-scheme', 'Allow private use URI scheme', 'Allow schemes such as com.example.app.', 'boolean', false),
      prop('allow-http-scheme', 'Allow http scheme', 'Allow plain http.', 'boolean', false),
      prop(
        'allow-wildcard-context-path',
        'Allow wildcard in context-path',
        'Allow one wildcard at the start of the path.',
        'boolean',
        false,
      ),
      prop('allow-permitted-domains', 'Allow permitted domains', 'Regular expressions of allowed host names.', 'MultivaluedString'),
      prop('oauth-2-1-compliant', 'OAuth 2.1 Compliant', 'Apply the OAuth 2.1 rules.', 'boolean', false),
      prop('allow-open-redirect', 'Allow open redirect', 'Accept any redirect URI.', 'boolean', false),
    ],
  },
  'secure-response-type': {
    helpText: 'Authorization requests must use a hybrid response type or the JWT response mode.',
    properties: [
      auto('return the ID token as detached signature'),
      prop('allow-token-response-type', 'Allow token response type', 'Whether code id_token token is allowed.', 'boolean', false),
    ],
  },
  'reject-request': { helpText: 'Refuses every request the policy applies to.', properties: [] },
  'secure-logout': {
    helpText: 'Clients may not use front-channel logout, and logouts may not be GET requests.',
    properties: [prop('allow-front-channel-logout', 'Allow front-channel logout', 'Allow front-channel logout.', 'boolean', false)],
  },
  'secure-client-uris': {
    helpText: 'Client URIs must be https without wildcards; authorization requests must redirect to https.',
    properties: [
      prop('allow-http-on-localhost', 'Allow http on localhost', 'Allow http redirects to localhost and 127.0.0.1.', 'boolean', false),
    ],
  },
  'secure-signature-algorithm': {
    helpText: 'Client signature algorithms must be PS256, PS384, PS512, ES256, ES384 or ES512; unset ones get the default.',
    properties: [
      prop('default-algorithm', 'Default Signature Algorithm', 'Set where a client names none.', 'List', 'PS256', FAPI_SIGNATURE_ALGS),
    ],
  },
  'secure-signature-algorithm-signed-jwt': {
    helpText: 'A client assertion must be signed with PS256, PS384, PS512, ES256, ES384 or ES512.',
    properties: [
      prop('require-client-assertion', 'Require client assertion', 'A token request must carry a client assertion.', 'boolean', false),
    ],
  },
  'secure-request-object': {
    helpText: 'Authorization requests must carry a signed request object with exp, nbf and aud, repeating the query parameters.',
    properties: [
      prop('verify-nbf', 'Verify Not-Before', 'The request object must have nbf.', 'boolean', true),
      prop('available-period', 'Available Period', 'Longest time between nbf and exp, in seconds.', 'int', 3600),
      prop('allowed-clock-skew', 'Allowed Clock Skew', 'Seconds nbf and iat may lie in the future.', 'int', 15),
      prop('encryption-required', 'Encryption Required', 'The request object must be encrypted.', 'boolean', false),
    ],
  },
  'secure-par-content': {
    helpText: 'Authorization requests must use a pushed request and add no parameter it did not hold.',
    properties: [],
  },
  'secure-session': { helpText: 'OpenID authorization requests must carry nonce, others state.', properties: [] },
  'secret-rotation': {
    helpText: 'Regenerating a client secret keeps the previous one valid for a while.',
    properties: [
      prop('expiration-period', 'Secret expiration', 'Seconds a secret is valid.', 'int', 2505600),
      prop('rotated-expiration-period', 'Rotated secret expiration', 'Seconds the rotated secret stays valid.', 'int', 172800),
      prop(
        'remaining-rotation-period',
        'Remain expiration time',
        'Seconds before expiration when an update rotates the secret.',
        'int',
        864000,
      ),
    ],
  },
};

const CONDITION_INFO: Record<string, { helpText: string; properties: ConfigPropertyRep[] }> = {
  'acr-condition': {
    helpText: 'The authorization request asks for the ACR.',
    properties: [negative, prop('acr-property', 'ACR property', 'The ACR value.', 'String')],
  },
  'any-client': { helpText: 'Any client.', properties: [negative] },
  'client-attributes': {
    helpText: 'The client has all the attributes with the values.',
    properties: [negative, prop('attributes', 'Client Attributes', 'Attribute names and values.', 'Map')],
  },
  'client-type': {
    helpText: 'The client uses the protocol.',
    properties: [
      negative,
      prop('protocol', 'Client Type', 'The protocol of the client.', 'List', 'openid-connect', ['openid-connect', 'saml']),
    ],
  },
  'grant-type': {
    helpText: 'The request uses one of the grant types.',
    properties: [
      negative,
      prop('grant_types', 'Grant Types', 'Grant types that match.', 'MultivaluedList', undefined, [
        'authorization_code',
        'implicit',
        'refresh_token',
        'password',
        'client_credentials',
      ]),
    ],
  },
  'client-access-type': {
    helpText: 'The client access type.',
    properties: [
      negative,
      prop('type', 'Client Access Type', 'Access types that match.', 'MultivaluedList', 'confidential', [
        'confidential',
        'public',
        'bearer-only',
      ]),
    ],
  },
  'client-roles': {
    helpText: 'The client defines one of the roles.',
    properties: [negative, prop('roles', 'Client Roles', 'Client role names.', 'MultivaluedString')],
  },
  'client-scopes': {
    helpText: 'The request uses one of the client scopes.',
    properties: [
      negative,
      prop('scopes', 'Expected Scopes', 'Client scope names.', 'MultivaluedString', 'offline_access'),
      prop('type', 'Scope Type', 'Default, Optional or Any.', 'List', 'Optional', ['Default', 'Optional', 'Any']),
    ],
  },
  'client-updater-context': {
    helpText: 'How the client is created or updated.',
    properties: [
      negative,
      prop('update-client-source', 'Update Client Context', 'Sources that match.', 'MultivaluedList', 'ByAuthenticatedUser', [
        'ByAuthenticatedUser',
        'ByAnonymous',
        'ByInitialAccessToken',
        'ByRegistrationAccessToken',
      ]),
    ],
  },
  'client-updater-source-groups': {
    helpText: 'The user writing the client is a member of one of the groups.',
    properties: [
      negative,
      prop('groups', 'Groups', 'Names of top-level groups, or group paths (/parent/child).', 'MultivaluedString', 'topGroup'),
    ],
  },
  'client-updater-source-host': {
    helpText: 'The client is written from one of the addresses.',
    properties: [
      negative,
      prop('trusted-hosts', 'Trusted Hosts', 'IP addresses, host names, or *.domain for the host names in a domain.', 'MultivaluedString'),
    ],
  },
  'client-updater-source-roles': {
    helpText: 'The user writing the client holds one of the roles.',
    properties: [
      negative,
      prop('roles', 'Updating entity role', 'Realm role names, or clientId.role for a client role.', 'MultivaluedString', 'admin'),
    ],
  },
};

/** The executor ids that act. */
export const ACTING_EXECUTORS = [...Object.keys(EXECUTORS), 'secret-rotation'].sort();
/** The condition ids that act. */
export const ACTING_CONDITIONS = Object.keys(CONDITIONS).sort();

/** serverinfo `componentTypes` entries of the client-policy SPIs. */
export function clientPolicyComponentTypes() {
  const types = (ids: string[], info: typeof EXECUTOR_INFO) =>
    ids.map((id) => ({ id, helpText: info[id]?.helpText ?? '', properties: info[id]?.properties ?? [], metadata: {} }));
  return { [EXECUTOR_SPI]: types(ACTING_EXECUTORS, EXECUTOR_INFO), [CONDITION_SPI]: types(ACTING_CONDITIONS, CONDITION_INFO) };
}
