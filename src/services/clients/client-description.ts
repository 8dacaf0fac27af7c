import { XMLParser } from 'fast-xml-parser';
import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { cannotParse, errorC } from '../../core/errors';
import { checkJsonValue } from '../../core/input-text';
import type { RealmModel } from '../../db/models/realm';
import type { ClientRepresentation } from '../../representations/client';

/**
 * POST /{realm}/client-description-converter (config reference §1.11): a Keycloak client JSON, an
 * OIDC dynamic-registration JSON or a SAML EntityDescriptor in, a ClientRepresentation (not stored) out.
 */
/** A parsed input document: OIDC client metadata, or an XML element (free-form: whatever the caller sent). */
type Rep = Record<string, unknown>;

const unsupported = () => errorC(400, 'Unsupported format');
// Keycloak's converters throw a RuntimeException on a description they cannot read (a 500); input
// is never a 5xx here (issue 10): JSON that does not parse is Keycloak's usual JSON 400, metadata
// without exactly one SP entity is not a format the converter supports.
const malformedJson = () => cannotParse('syntax');
/** A JSON value read as Jackson reads a String: scalars as text, an object or array is its 400 (String() on `{"toString":1}` threw). */
const str = (v: unknown): string => {
  if (v !== null && typeof v === 'object') throw cannotParse('mapping');
  return String(v);
};
/** A table entry for a key from the input; own keys only (`constructor` is no binding). */
const own = (table: Record<string, string>, key: string): string | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);
const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

const AUTH_METHODS: Record<string, string> = {
  client_secret_basic: 'client-secret',
  client_secret_post: 'client-secret',
  client_secret_jwt: 'client-secret-jwt',
  private_key_jwt: 'client-jwt',
  tls_client_auth: 'client-x509',
};

/** OIDC client metadata attributes copied as client attributes. */
const OIDC_ATTRIBUTES: Record<string, string> = {
  id_token_signed_response_alg: 'id.token.signed.response.alg',
  id_token_encrypted_response_alg: 'id.token.encrypted.response.alg',
  id_token_encrypted_response_enc: 'id.token.encrypted.response.enc',
  userinfo_signed_response_alg: 'user.info.response.signature.alg',
  userinfo_encrypted_response_alg: 'user.info.encrypted.response.alg',
  userinfo_encrypted_response_enc: 'user.info.encrypted.response.enc',
  request_object_signing_alg: 'request.object.signature.alg',
  request_object_encryption_alg: 'request.object.encryption.alg',
  request_object_encryption_enc: 'request.object.encryption.enc',
  token_endpoint_auth_signing_alg: 'token.endpoint.auth.signing.alg',
  authorization_signed_response_alg: 'authorization.signed.response.alg',
  authorization_encrypted_response_alg: 'authorization.encrypted.response.alg',
  authorization_encrypted_response_enc: 'authorization.encrypted.response.enc',
  backchannel_logout_uri: 'backchannel.logout.url',
  backchannel_logout_revoke_offline_tokens: 'backchannel.logout.revoke.offline.tokens',
  frontchannel_logout_uri: 'frontchannel.logout.url',
  frontchannel_logout_session_required: 'frontchannel.logout.session.required',
  tls_client_auth_subject_dn: 'x509.subjectdn',
  require_pushed_authorization_requests: 'require.pushed.authorization.requests',
  backchannel_token_delivery_mode: 'ciba.backchannel.token.delivery.mode',
  backchannel_client_notification_endpoint: 'ciba.backchannel.client.notification.endpoint',
  backchannel_authentication_request_signing_alg: 'ciba.backchannel.auth.request.signing.alg',
  default_acr_values: 'default.acr.values',
  tls_client_certificate_bound_access_tokens: 'tls.client.certificate.bound.access.tokens',
  logo_uri: 'logoUri',
  policy_uri: 'policyUri',
  tos_uri: 'tosUri',
  post_logout_redirect_uris: 'post.logout.redirect.uris',
};

/** OIDC client metadata (RFC 7591) → ClientRepresentation, as Keycloak's DescriptionConverter#toInternal (also the registration service's). */
export function fromOidc(m: Rep): ClientRepresentation {
  const out: ClientRepresentation = {};
  if (m.client_id) out.clientId = str(m.client_id);
  if (m.client_name) out.name = str(m.client_name);
  out.redirectUris = list(m.redirect_uris).map(str);
  if (m.client_uri) out.baseUrl = str(m.client_uri);
  out.protocol = 'openid-connect';
  // Without response_types: `code` when no grant types are named either, else those the grant types
  // imply (authorization_code → code, implicit → id_token), possibly none (Keycloak 26's toInternal).
  const grantList = m.grant_types === undefined || m.grant_types === null ? undefined : list(m.grant_types).map(str);
  const grants = new Set(grantList ?? []);
  let responseList = list(m.response_types).map(str);
  if (!responseList.length) {
    if (!grants.size) responseList = ['code'];
    else responseList = [...(grants.has('authorization_code') ? ['code'] : []), ...(grants.has('implicit') ? ['id_token'] : [])];
  }
  const responses = new Set(responseList.flatMap((r) => r.split(' ')));
  out.standardFlowEnabled = responses.has('code') || responses.has('none');
  out.implicitFlowEnabled = responses.has('id_token') || responses.has('token');
  out.directAccessGrantsEnabled = grants.has('password');
  const attributes: Record<string, string> = {};
  // The other grants are set only when grant_types is sent: without it the client keeps (or gets) its defaults.
  if (grantList) {
    out.serviceAccountsEnabled = grants.has('client_credentials');
    attributes['oidc.ciba.grant.enabled'] = String(grants.has('urn:openid:params:grant-type:ciba'));
    attributes['oauth2.device.authorization.grant.enabled'] = String(grants.has('urn:ietf:params:oauth:grant-type:device_code'));
    attributes['standard.token.exchange.enabled'] = String(grants.has('urn:ietf:params:oauth:grant-type:token-exchange'));
    attributes['use.refresh.tokens'] = String(grants.has('refresh_token'));
  }
  const method = m.token_endpoint_auth_method === undefined ? 'client_secret_basic' : str(m.token_endpoint_auth_method);
  if (method === 'none') {
    out.publicClient = true;
    out.clientAuthenticatorType = 'none';
  } else {
    out.publicClient = false;
    out.clientAuthenticatorType = own(AUTH_METHODS, method) ?? 'client-secret';
  }
  if (m.jwks_uri) {
    attributes['use.jwks.url'] = 'true';
    attributes['jwks.url'] = str(m.jwks_uri);
  } else if (m.jwks) {
    attributes['use.jwks.string'] = 'true';
    attributes['jwks.string'] = JSON.stringify(m.jwks);
  }
  for (const [k, a] of Object.entries(OIDC_ATTRIBUTES)) {
    const v = m[k];
    if (v !== undefined && v !== null) attributes[a] = Array.isArray(v) ? v.map(str).join('##') : str(v);
  }
  // The metadata names the exact subject DN (RFC 8705 §2.1.2): no regular expression (Keycloak's DescriptionConverter).
  if (m.tls_client_auth_subject_dn != null) attributes['x509.allow.regex.pattern.comparison'] = 'false';
  if (m.backchannel_logout_session_required !== undefined)
    attributes['backchannel.logout.session.required'] = str(m.backchannel_logout_session_required);
  out.attributes = attributes;
  if (typeof m.scope === 'string' && m.scope.trim()) out.optionalClientScopes = m.scope.trim().split(/\s+/);
  return out;
}

const BINDINGS: Record<string, string> = {
  'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST': 'post',
  'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect': 'redirect',
  'urn:oasis:names:tc:SAML:2.0:bindings:SOAP': 'soap',
  'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact': 'artifact',
};

const NAME_ID_FORMATS: Array<[string, string]> = [
  ['emailAddress', 'email'],
  ['transient', 'transient'],
  ['persistent', 'persistent'],
  ['unspecified', 'username'],
];

const NAME_FORMATS: Record<string, string> = {
  'urn:oasis:names:tc:SAML:2.0:attrname-format:basic': 'Basic',
  'urn:oasis:names:tc:SAML:2.0:attrname-format:uri': 'URI Reference',
  'urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified': 'Unspecified',
};

function certOf(kd: Rep): string | undefined {
  const info = kd.KeyInfo as Rep | undefined;
  const data = info?.X509Data as Rep | undefined;
  const cert = data?.X509Certificate;
  return cert === undefined ? undefined : String(cert).replace(/\s+/g, '');
}

function fromSaml(xml: string): ClientRepresentation {
  let doc: Rep;
  try {
    doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false }).parse(
      xml,
    ) as Rep;
  } catch {
    throw unsupported();
  }
  const roots = list(doc.EntityDescriptor ?? (doc.EntitiesDescriptor as Rep | undefined)?.EntityDescriptor) as Rep[];
  const entities = roots.filter((e) => e.SPSSODescriptor);
  if (entities.length !== 1) throw unsupported();
  const entity = entities[0];
  const sp = list(entity.SPSSODescriptor)[0] as Rep;
  const attributes: Record<string, string> = {
    'saml.server.signature': 'true',
    'saml.server.signature.keyinfo.ext': 'false',
    'saml.signature.algorithm': 'RSA_SHA256',
    'saml.authnstatement': 'true',
  };
  if (sp['@WantAssertionsSigned'] === 'true') attributes['saml.assertion.signature'] = 'true';
  for (const slo of list(sp.SingleLogoutService) as Rep[]) {
    const b = own(BINDINGS, String(slo['@Binding']));
    if (b && b !== 'artifact') attributes[`saml_single_logout_service_url_${b}`] = String(slo['@Location']);
  }
  const redirectUris: string[] = [];
  for (const acs of list(sp.AssertionConsumerService) as Rep[]) {
    const b = own(BINDINGS, String(acs['@Binding']));
    const loc = String(acs['@Location']);
    if (b === 'post' || b === 'redirect') attributes[`saml_assertion_consumer_url_${b}`] ??= loc;
    if (b === 'artifact') attributes.saml_artifact_binding_url ??= loc;
    redirectUris.push(loc);
  }
  const ars = list(sp.ArtifactResolutionService)[0] as Rep | undefined;
  if (ars) attributes.saml_artifact_resolution_service_url = String(ars['@Location']);
  const format = list(sp.NameIDFormat).map(String)[0];
  const nid = format && NAME_ID_FORMATS.find(([k]) => format.endsWith(`:${k}`));
  if (nid) attributes.saml_name_id_format = nid[1];
  const ui = ((sp.Extensions as Rep | undefined)?.UIInfo as Rep | undefined) ?? {};
  const logo = list(ui.Logo)[0];
  if (logo !== undefined) attributes.logoUri = String(typeof logo === 'object' ? (logo as Rep)['#text'] : logo);
  const policy = list(ui.PrivacyStatementURL)[0];
  if (policy !== undefined) attributes.policyUri = String(typeof policy === 'object' ? (policy as Rep)['#text'] : policy);
  for (const kd of list(sp.KeyDescriptor) as Rep[]) {
    const use = kd['@use'];
    const cert = certOf(kd);
    if (!cert) continue;
    if (use === 'signing' || use === undefined) {
      attributes['saml.client.signature'] = 'true';
      attributes['saml.signing.certificate'] = cert;
    }
    if (use === 'encryption' || use === undefined) {
      attributes['saml.encrypt'] = 'true';
      attributes['saml.encryption.certificate'] = cert;
    }
  }
  attributes['saml.client.signature'] ??= 'false';
  const protocolMappers = (list(sp.AttributeConsumingService) as Rep[]).flatMap((acs) =>
    (list(acs.RequestedAttribute) as Rep[]).map((ra) => ({
      name: String(ra['@Name']),
      protocol: 'saml',
      protocolMapper: 'saml-user-attribute-mapper',
      consentRequired: false,
      config: {
        'attribute.name': String(ra['@Name']),
        ...(ra['@FriendlyName'] ? { 'friendly.name': String(ra['@FriendlyName']) } : {}),
        'attribute.nameformat': own(NAME_FORMATS, String(ra['@NameFormat'])) ?? 'Basic',
      },
    })),
  );
  const out: ClientRepresentation = {
    clientId: String(entity['@entityID']),
    redirectUris,
    protocol: 'saml',
    fullScopeAllowed: true,
    attributes,
  };
  if (protocolMappers.length) out.protocolMappers = protocolMappers;
  return out;
}

/** POST /{realm}/client-description-converter: converts a client description (manage-clients). */
export async function convertClientDescription(ctx: RequestContext, realm: RealmModel, text: string): Promise<ClientRepresentation> {
  await requireCap(ctx, realm, 'manageClients');
  const t = text.trim();
  if (t.startsWith('{') && t.endsWith('}') && (t.includes('"clientId"') || t.includes('"redirect_uris"'))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch {
      throw malformedJson();
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformedJson();
    // The nesting and text limits of every JSON body (a deep `jwks` overflowed JSON.stringify's stack).
    const bad = checkJsonValue(parsed);
    if (bad) throw bad;
    return t.includes('"clientId"') ? (parsed as ClientRepresentation) : fromOidc(parsed as Rep);
  }
  if (t.startsWith('<') && t.endsWith('>') && t.includes('EntityDescriptor')) return fromSaml(t);
  throw unsupported();
}
