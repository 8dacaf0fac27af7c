import { XMLParser } from 'fast-xml-parser';
import type { IdentityProviderModel } from '../../db/models/identity-provider';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import type { RequestContext } from '../../core/context';
import { identityProviderType } from '../../keycloak/identity-provider-types';
import { requireIdpAccess, validateAlias } from './identity-providers';

/**
 * `POST /identity-provider/import-config` (config reference §8.2): downloads a provider's metadata
 * (OIDC discovery document or SAML IdP metadata) with a timeout and returns the config map it
 * implies; and `GET /instances/{alias}/export`: the SP metadata of a SAML provider.
 */
const FETCH_TIMEOUT_MS = 5000;
const MAX_BYTES = 1024 * 1024;

const badRequest = () => errorC(400, 'HTTP 400 Bad Request');
const cannotImport = (url: string) => errorA(400, `Could not import the configuration from ${url}`);

/** Fetches a metadata document (http/https only, timeout, size cap); any failure → 400. */
async function download(url: string): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw cannotImport(url);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw cannotImport(url);
  try {
    const res = await fetch(parsed, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
    if (!res.ok) throw new Error(`status ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_BYTES) throw new Error('too large');
    return text;
  } catch {
    throw cannotImport(url);
  }
}

type Config = Record<string, string>;

/** OIDC discovery document → authorizationUrl, tokenUrl, userInfoUrl, logoutUrl, issuer, jwksUrl. */
function parseOidc(text: string, url: string): Config {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch {
    throw cannotImport(url);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw cannotImport(url);
  const out: Config = {};
  const put = (key: string, v: unknown) => {
    if (typeof v === 'string' && v) out[key] = v;
  };
  put('authorizationUrl', doc.authorization_endpoint);
  put('tokenUrl', doc.token_endpoint);
  put('userInfoUrl', doc.userinfo_endpoint);
  put('logoutUrl', doc.end_session_endpoint);
  put('issuer', doc.issuer);
  if (typeof doc.jwks_uri === 'string' && doc.jwks_uri) {
    out.validateSignature = 'true';
    out.useJwksUrl = 'true';
    out.jwksUrl = doc.jwks_uri;
  }
  return out;
}

type Xml = Record<string, unknown>;
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});
const all = (node: unknown, name: string): Xml[] => ((node as Xml | undefined)?.[name] as Xml[] | undefined) ?? [];
const attr = (node: Xml | undefined, name: string) => (node?.[`@${name}`] as string | undefined) ?? undefined;
const textOf = (node: unknown): string => {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  const t = (node as Xml | undefined)?.['#text'];
  return t === undefined ? '' : String(t);
};
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** SAML IdP metadata → the SAML provider's config. */
function parseSaml(text: string, url: string): Config {
  let root: Xml;
  try {
    root = xml.parse(text) as Xml;
  } catch {
    throw cannotImport(url);
  }
  const entity = all(root, 'EntityDescriptor')[0] ?? all(all(root, 'EntitiesDescriptor')[0], 'EntityDescriptor')[0];
  const idp = all(entity, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw cannotImport(url);
  const pick = (list: Xml[]) => list.find((s) => attr(s, 'Binding') === POST) ?? list[0];
  const sso = pick(all(idp, 'SingleSignOnService'));
  const slo = pick(all(idp, 'SingleLogoutService'));
  const postSso = attr(sso, 'Binding') === POST;
  const out: Config = {
    validateSignature: 'false',
    postBindingResponse: String(postSso),
    postBindingAuthnRequest: String(postSso),
    postBindingLogout: String(attr(slo, 'Binding') === POST),
    wantAuthnRequestsSigned: String(attr(idp, 'WantAuthnRequestsSigned') === 'true'),
    loginHint: 'false',
    enabledFromMetadata: 'true',
    addExtensionsElementWithKeyInfo: 'false',
    artifactBindingResponse: 'false',
  };
  const entityId = attr(entity, 'entityID');
  if (entityId) out.idpEntityId = entityId;
  if (attr(sso, 'Location')) out.singleSignOnServiceUrl = attr(sso, 'Location') as string;
  if (attr(slo, 'Location')) out.singleLogoutServiceUrl = attr(slo, 'Location') as string;
  const nameId = textOf(all(idp, 'NameIDFormat')[0]).trim();
  if (nameId) out.nameIDPolicyFormat = nameId;
  const certs = all(idp, 'KeyDescriptor')
    .filter((k) => !attr(k, 'use') || attr(k, 'use') === 'signing')
    .map((k) => textOf(all(all(all(k, 'KeyInfo')[0], 'X509Data')[0], 'X509Certificate')[0]).replace(/\s+/g, ''))
    .filter(Boolean);
  if (certs.length) {
    out.signingCertificate = certs.join(',');
    out.validateSignature = 'true';
  }
  return out;
}

/** The config a provider's factory parses from a metadata document (social providers: none). */
function parseConfig(providerId: string, text: string, source: string): Config {
  if (providerId === 'oidc' || providerId === 'keycloak-oidc') return parseOidc(text, source);
  if (providerId === 'saml') return parseSaml(text, source);
  return {};
}

const knownProvider = (providerId: unknown) => {
  const type = identityProviderType(providerId);
  if (!type) throw errorA(400, `Invalid identity provider id [${String(providerId)}`);
  return type;
};

/** POST /{realm}/identity-provider/import-config (manage-identity-providers): `{providerId, fromUrl, alias?}`. */
export async function importIdentityProviderConfig(ctx: RequestContext, realm: RealmModel, body: unknown): Promise<Config> {
  await requireIdpAccess(ctx, realm, 'manage');
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest();
  const data = body as Record<string, unknown>;
  if (!('providerId' in data) || !('fromUrl' in data)) throw badRequest();
  validateAlias(data.alias);
  const type = knownProvider(data.providerId);
  const from = String(data.fromUrl);
  return { ...parseConfig(type.id, await download(from), from), metadataDescriptorUrl: from };
}

/** POST /{realm}/identity-provider/import-config (multipart `providerId` + `file`): the parsed config, `syncMode` LEGACY when unset. */
export async function importIdentityProviderConfigFile(
  ctx: RequestContext,
  realm: RealmModel,
  fields: { providerId?: string; file?: string },
): Promise<Config> {
  await requireIdpAccess(ctx, realm, 'manage');
  if (fields.providerId === undefined || fields.file === undefined) throw badRequest();
  const type = knownProvider(fields.providerId);
  const config = parseConfig(type.id, fields.file, 'the uploaded file');
  return { ...config, syncMode: config.syncMode ?? 'LEGACY' };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * GET .../instances/{alias}/export (the provider resolved with view access): SAML → this realm as SP of that IdP (`application/xml`);
 * other providers → 404 `Could not export public broker configuration for identity provider [<id>].`
 */
export async function exportIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  idp: IdentityProviderModel,
): Promise<{ contentType: string; body: string }> {
  if (idp.providerId !== 'saml') {
    throw errorA(404, `Could not export public broker configuration for identity provider [${idp.providerId}].`);
  }
  const c = idp.config;
  const realmUrl = `${ctx.baseUrl}/realms/${encodeURIComponent(realm.name)}`;
  const endpoint = `${realmUrl}/broker/${encodeURIComponent(idp.alias)}/endpoint`;
  const signed = c.wantAuthnRequestsSigned === 'true';
  const binding = (post: boolean) => `urn:oasis:names:tc:SAML:2.0:bindings:${post ? 'HTTP-POST' : 'HTTP-Redirect'}`;
  const lines = [
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${esc(c.entityId || realmUrl)}">`,
    `  <md:SPSSODescriptor AuthnRequestsSigned="${signed}" WantAssertionsSigned="${c.wantAssertionsSigned === 'true'}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol urn:oasis:names:tc:SAML:1.1:protocol http://schemas.xmlsoap.org/ws/2003/07/secext">`,
  ];
  const cert = signed ? activeKey(await realmKeys(ctx.db, realm), 'RS256')?.certificate : undefined;
  const keyDescriptor = (use: string, pem: string) => [
    `    <md:KeyDescriptor use="${use}">`,
    `      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>${pem}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`,
    '    </md:KeyDescriptor>',
  ];
  if (cert) lines.push(...keyDescriptor('signing', cert));
  if (cert && c.wantAssertionsEncrypted === 'true') lines.push(...keyDescriptor('encryption', cert));
  lines.push(
    `    <md:SingleLogoutService Binding="${binding(c.postBindingLogout === 'true')}" Location="${esc(endpoint)}"/>`,
    `    <md:NameIDFormat>${esc(c.nameIDPolicyFormat || 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified')}</md:NameIDFormat>`,
    `    <md:AssertionConsumerService Binding="${binding(c.postBindingResponse === 'true')}" Location="${esc(endpoint)}" index="0" isDefault="true"/>`,
    '  </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
  );
  return { contentType: 'application/xml', body: `${lines.join('\n')}\n` };
}
