import { errorB } from '../../core/errors';
import type { ClientRepresentation } from '../../representations/client';
import { fromOidc } from '../clients/client-description';

/**
 * OIDC client metadata (RFC 7591 §2, OpenID Connect Dynamic Client Registration) ⇄ ClientRepresentation
 * for `/clients-registrations/openid-connect`, as Keycloak's DescriptionConverter: the request side is
 * the description converter's (`fromOidc`), the response side is `toOidcResponse`.
 */

/** OIDC client metadata as sent or answered: free-form JSON (unknown metadata is ignored, RFC 7591 §2). */
export type OidcClientMetadata = Record<string, unknown>;

/** Keycloak's `invalid_client_metadata` 400 (ErrorCodes.INVALID_CLIENT_METADATA). */
export const invalidMetadata = (description: string) => errorB(400, 'invalid_client_metadata', description);

const AUTH_METHODS = new Set([
  'client_secret_basic',
  'client_secret_post',
  'client_secret_jwt',
  'private_key_jwt',
  'tls_client_auth',
  'none',
]);
const RESPONSE_TYPES = new Set(['code', 'id_token', 'token', 'none']);

/** Keycloak's OIDCResponseType#parse: known values; `none` alone; `token` never alone. */
function responseTypesValid(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  const entries = (Array.isArray(v) ? v : [v]).map(String);
  return entries.every((entry) => {
    const parts = entry.split(' ').filter(Boolean);
    if (!parts.length || parts.some((p) => !RESPONSE_TYPES.has(p))) return false;
    if (parts.includes('none') && parts.length > 1) return false;
    return !(parts.length === 1 && parts[0] === 'token');
  });
}

/**
 * What Keycloak's DescriptionConverter refuses (a ClientRegistrationException, answered as 400
 * `invalid_client_metadata` "Client metadata invalid"): an unknown `token_endpoint_auth_method` or
 * response type, both `jwks` and `jwks_uri`, `private_key_jwt` without a key, the token-exchange
 * grant for a public (`none`) client. The CIBA metadata
 * (`backchannel_token_delivery_mode`, `backchannel_client_notification_endpoint`,
 * `backchannel_authentication_request_signing_alg`) is copied to the client's attributes as sent and
 * checked by the client validation of every client write (client-ciba.ts, Keycloak's
 * CibaClientValidation), answered here as `invalid_client_metadata` with its message.
 */
function checkMetadata(m: OidcClientMetadata): void {
  const invalid = () => invalidMetadata('Client metadata invalid');
  const method = m.token_endpoint_auth_method;
  if (method != null && !AUTH_METHODS.has(String(method))) throw invalid();
  if (!responseTypesValid(m.response_types)) throw invalid();
  if (m.jwks_uri != null && m.jwks != null) throw invalid();
  const keys = (m.jwks as { keys?: unknown } | null | undefined)?.keys;
  if (method === 'private_key_jwt' && m.jwks_uri == null && !(Array.isArray(keys) && keys.length)) throw invalid();
  // "Token Exchange cannot be enabled in a public client" (answered as the metadata error above).
  const grants = Array.isArray(m.grant_types) ? m.grant_types.map(String) : [];
  if (method === 'none' && grants.includes('urn:ietf:params:oauth:grant-type:token-exchange')) throw invalid();
}

const given = (m: OidcClientMetadata, k: string) => m[k] !== undefined && m[k] !== null;

/**
 * The client attributes Keycloak 26's DescriptionConverter#toInternal writes as null when their
 * metadata is absent, so that an update (RepresentationToModel#updateClient → ClientAdapter#setAttribute
 * with null) removes them. Its config wrapper puts such a null only into an attribute map that already
 * exists, and the map comes into being with the first attribute written: the grant-type attributes
 * (when `grant_types` is sent), the JWKS ones, the userinfo / request-object algorithms, the mTLS and
 * subject-DN ones, ... and at the latest the backchannel-logout defaults, which are always written.
 * So `frontchannel_logout_uri` is always cleared when absent, the attributes before it only once
 * something earlier in that order was written.
 */
function clearedAttributes(m: OidcClientMetadata): string[] {
  const out: string[] = [];
  let map = ['grant_types', 'jwks', 'jwks_uri', 'userinfo_signed_response_alg', 'request_object_signing_alg']
    .concat(['userinfo_encrypted_response_alg', 'userinfo_encrypted_response_enc'])
    .concat(['tls_client_certificate_bound_access_tokens', 'tls_client_auth_subject_dn'])
    .some((k) => given(m, k));
  /** An attribute set unconditionally from `k`: null when absent (if the map exists); present creates the map. */
  const always = (k: string, attr: string) => {
    if (given(m, k)) map = true;
    else if (map) out.push(attr);
  };
  always('id_token_signed_response_alg', 'id.token.signed.response.alg');
  if (given(m, 'id_token_encrypted_response_alg') || given(m, 'id_token_encrypted_response_enc')) map = true;
  always('authorization_signed_response_alg', 'authorization.signed.response.alg');
  always('authorization_encrypted_response_alg', 'authorization.encrypted.response.alg');
  always('authorization_encrypted_response_enc', 'authorization.encrypted.response.enc');
  // An empty request_uris list removes the attribute, a non-empty one writes it.
  if (Array.isArray(m.request_uris)) {
    if (m.request_uris.length) map = true;
    else if (map) out.push('request.uris');
  }
  always('token_endpoint_auth_signing_alg', 'token.endpoint.auth.signing.alg');
  always('backchannel_logout_uri', 'backchannel.logout.url');
  // The backchannel-logout defaults are always written: from here on the map exists.
  if (!given(m, 'frontchannel_logout_uri')) out.push('frontchannel.logout.url');
  for (const [k, attr] of [
    ['default_acr_values', 'default.acr.values'],
    ['post_logout_redirect_uris', 'post.logout.redirect.uris'],
  ] as const) {
    if (Array.isArray(m[k]) && !(m[k] as unknown[]).length) out.push(attr);
  }
  return out;
}

/**
 * The client representation of registration metadata; `client_id` only where the caller may name it
 * (update). Beyond the description converter's mapping, what Keycloak 26's toInternal always writes:
 * the logout defaults (backchannel session required `true`, revoke offline tokens `false`, front-channel
 * session required `false`), front-channel logout on exactly when `frontchannel_logout_uri` is set, the
 * other JWKS source off, and null for the attributes it clears (`clearedAttributes`), which an update
 * removes and a create ignores.
 */
export function oidcToClient(m: OidcClientMetadata): ClientRepresentation {
  checkMetadata(m);
  const rep = fromOidc(m);
  const attributes = rep.attributes as Record<string, string | null>;
  attributes['backchannel.logout.session.required'] ??= 'true';
  attributes['backchannel.logout.revoke.offline.tokens'] ??= 'false';
  attributes['frontchannel.logout.session.required'] ??= 'false';
  rep.frontchannelLogout = typeof m.frontchannel_logout_uri === 'string' && m.frontchannel_logout_uri.trim() !== '';
  if (attributes['use.jwks.string'] === 'true') attributes['use.jwks.url'] = 'false';
  if (attributes['use.jwks.url'] === 'true') attributes['use.jwks.string'] = 'false';
  // request_uris (OIDCAdvancedConfigWrapper#setRequestUris, `##`-joined as the other lists).
  if (Array.isArray(m.request_uris) && m.request_uris.length) attributes['request.uris'] = m.request_uris.map(String).join('##');
  // An empty list is a removal, not an empty value (setAttributeMultivalued).
  for (const attr of clearedAttributes(m)) attributes[attr] = null;
  // Authorization services for a client that asks for the UMA grant (toInternal; AbstractClientRegistrationProvider#create
  // acts on it; an update leaves them as they are, see updateRegisteredClient).
  const grants = Array.isArray(m.grant_types) ? m.grant_types.map(String) : [];
  if (grants.includes('urn:ietf:params:oauth:grant-type:uma-ticket')) rep.authorizationServicesEnabled = true;
  return rep;
}

/** `token_endpoint_auth_method` of a client authenticator. */
const AUTH_METHOD: Record<string, string> = {
  'client-secret': 'client_secret_basic',
  'client-secret-jwt': 'client_secret_jwt',
  'client-jwt': 'private_key_jwt',
  'client-x509': 'tls_client_auth',
  none: 'none',
};

/** Client attributes answered as metadata when set. */
const ATTRIBUTE_METADATA: Array<[string, string]> = [
  ['user.info.response.signature.alg', 'userinfo_signed_response_alg'],
  ['user.info.encrypted.response.alg', 'userinfo_encrypted_response_alg'],
  ['user.info.encrypted.response.enc', 'userinfo_encrypted_response_enc'],
  ['request.object.signature.alg', 'request_object_signing_alg'],
  ['request.object.encryption.alg', 'request_object_encryption_alg'],
  ['request.object.encryption.enc', 'request_object_encryption_enc'],
  ['x509.subjectdn', 'tls_client_auth_subject_dn'],
  ['id.token.signed.response.alg', 'id_token_signed_response_alg'],
  ['id.token.encrypted.response.alg', 'id_token_encrypted_response_alg'],
  ['id.token.encrypted.response.enc', 'id_token_encrypted_response_enc'],
  ['authorization.signed.response.alg', 'authorization_signed_response_alg'],
  ['authorization.encrypted.response.alg', 'authorization_encrypted_response_alg'],
  ['authorization.encrypted.response.enc', 'authorization_encrypted_response_enc'],
  ['token.endpoint.auth.signing.alg', 'token_endpoint_auth_signing_alg'],
  ['ciba.backchannel.token.delivery.mode', 'backchannel_token_delivery_mode'],
  ['ciba.backchannel.auth.request.signing.alg', 'backchannel_authentication_request_signing_alg'],
  ['ciba.backchannel.client.notification.endpoint', 'backchannel_client_notification_endpoint'],
  ['frontchannel.logout.url', 'frontchannel_logout_uri'],
];

const isTrue = (v: unknown) => String(v).toLowerCase() === 'true';

function responseTypes(c: ClientRepresentation): string[] {
  const out: string[] = [];
  if (c.standardFlowEnabled) out.push('code', 'none');
  if (c.implicitFlowEnabled) out.push('id_token', 'id_token token');
  if (c.standardFlowEnabled && c.implicitFlowEnabled) out.push('code id_token', 'code token', 'code id_token token');
  return out;
}

function grantTypes(c: ClientRepresentation): string[] {
  const a = c.attributes ?? {};
  const out: string[] = [];
  if (c.standardFlowEnabled) out.push('authorization_code');
  if (c.implicitFlowEnabled) out.push('implicit');
  if (c.directAccessGrantsEnabled) out.push('password');
  if (c.serviceAccountsEnabled) out.push('client_credentials');
  if (isTrue(a['oauth2.device.authorization.grant.enabled'])) out.push('urn:ietf:params:oauth:grant-type:device_code');
  if (isTrue(a['oidc.ciba.grant.enabled'])) out.push('urn:openid:params:grant-type:ciba');
  if (c.authorizationServicesEnabled) out.push('urn:ietf:params:oauth:grant-type:uma-ticket');
  // Refresh tokens are on unless the client turned them off.
  if (String(a['use.refresh.tokens'] ?? 'true').toLowerCase() !== 'false') out.push('refresh_token');
  return out;
}

/**
 * The registration response of a client (DescriptionConverter#toExternalResponse): its metadata, the
 * secret of a client-secret client, the registration access token and the client's registration URI.
 */
export function toOidcResponse(c: ClientRepresentation, registrationClientUri: string): OidcClientMetadata {
  const a = c.attributes ?? {};
  const authenticator = c.clientAuthenticatorType ?? 'client-secret';
  const out: OidcClientMetadata = { client_id: c.clientId };
  const method = Object.hasOwn(AUTH_METHOD, authenticator) ? AUTH_METHOD[authenticator] : undefined;
  if (method) out.token_endpoint_auth_method = method;
  if (authenticator === 'client-secret') {
    if (c.secret != null) out.client_secret = c.secret;
    out.client_secret_expires_at = 0;
  }
  if (c.name != null) out.client_name = c.name;
  if (c.baseUrl != null) out.client_uri = c.baseUrl;
  out.redirect_uris = c.redirectUris ?? [];
  if (c.registrationAccessToken != null) out.registration_access_token = c.registrationAccessToken;
  out.registration_client_uri = registrationClientUri;
  out.response_types = responseTypes(c);
  out.grant_types = grantTypes(c);
  if (c.optionalClientScopes != null) out.scope = c.optionalClientScopes.join(' ');
  if (isTrue(a['use.jwks.url']) && a['jwks.url'] != null) out.jwks_uri = a['jwks.url'];
  if (isTrue(a['use.jwks.string']) && a['jwks.string']) {
    try {
      out.jwks = JSON.parse(String(a['jwks.string']));
    } catch {
      // Keycloak answers "Illegal jwks format"; a stored JWKS the admin API accepted is JSON.
    }
  }
  out.tls_client_certificate_bound_access_tokens = isTrue(a['tls.client.certificate.bound.access.tokens']);
  for (const [attr, name] of ATTRIBUTE_METADATA) {
    const v = a[attr];
    if (v !== undefined && v !== null && v !== '') out[name] = v;
  }
  if (a['request.uris']) out.request_uris = String(a['request.uris']).split('##');
  if (a['post.logout.redirect.uris']) out.post_logout_redirect_uris = String(a['post.logout.redirect.uris']).split('##');
  out.frontchannel_logout_session_required = isTrue(a['frontchannel.logout.session.required']);
  if (a['default.acr.values']) out.default_acr_values = String(a['default.acr.values']).split('##');
  if (a['backchannel.logout.url']) out.backchannel_logout_uri = a['backchannel.logout.url'];
  // Keycloak answers the client's "revoke offline sessions" setting under this name (it sets the field twice).
  out.backchannel_logout_session_required = isTrue(a['backchannel.logout.revoke.offline.tokens']);
  out.require_pushed_authorization_requests = isTrue(a['require.pushed.authorization.requests']);
  const pairwise = (c.protocolMappers ?? []).find((m) => String(m.protocolMapper).endsWith('-pairwise-sub-mapper'));
  out.subject_type = pairwise ? 'pairwise' : 'public';
  if (pairwise?.config?.sectorIdentifierUri) out.sector_identifier_uri = pairwise.config.sectorIdentifierUri;
  return out;
}
