import { Op } from 'sequelize';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { notFound } from '../../core/errors';
import { requireClientAccess } from './clients';
import type { RequestContext } from '../../core/context';

/**
 * Installation providers (config reference §1.10): adapter configuration files generated from a
 * client. Text variants are served as `text/plain` whatever their format, as Keycloak does. The zip
 * providers (`mod-auth-mellon`, `docker-v2-*`: feature docker off) answer 404 `Unknown Provider`.
 */
export interface Installation {
  contentType: string;
  body: string;
}

interface Facts {
  realm: RealmModel;
  client: ClientModel;
  authServerUrl: string;
  hasRoles: boolean;
  audienceTarget: boolean;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** JSON as Jackson's default pretty printer writes it (`"k" : v`, two-space indent, `{ }` when empty). */
export function jacksonPretty(v: Json, indent = ''): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const inner = `${indent}  `;
  if (Array.isArray(v)) return v.length ? `[ ${v.map((x) => jacksonPretty(x, indent)).join(', ')} ]` : '[ ]';
  const entries = Object.entries(v);
  if (!entries.length) return '{ }';
  return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)} : ${jacksonPretty(x, inner)}`).join(',\n')}\n${indent}}`;
}

const attrs = (c: ClientModel) => (c.settings?.attributes as Record<string, string> | undefined) ?? {};
const sslRequired = (realm: RealmModel) => String(realm.settings.sslRequired ?? 'external').toLowerCase();
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function needsCredentials(c: ClientModel): boolean {
  if (c.publicClient) return false;
  if (!c.bearerOnly) return true;
  return Boolean(c.serviceAccountsEnabled) || Number(c.settings?.nodeReRegistrationTimeout ?? 0) > 0;
}

/** The adapter `credentials` object for the client's authenticator. */
function credentials(c: ClientModel): Record<string, Json> | undefined {
  const type = String(c.settings?.clientAuthenticatorType ?? 'client-secret');
  if (type === 'client-secret') return { secret: c.secret ?? null };
  if (type === 'client-secret-jwt') {
    const alg = attrs(c)['token.endpoint.auth.signing.alg'];
    return { 'secret-jwt': { secret: c.secret ?? null, ...(alg ? { algorithm: alg } : {}) } };
  }
  if (type === 'client-jwt') {
    return {
      jwt: {
        'client-keystore-file': 'REPLACE WITH THE LOCATION OF YOUR KEYSTORE FILE',
        'client-keystore-type': 'jks',
        'client-keystore-password': 'REPLACE WITH THE KEYSTORE PASSWORD',
        'client-key-password': 'REPLACE WITH THE KEY PASSWORD IN YOUR KEYSTORE',
        'client-key-alias': c.clientId,
        'token-expiration': 10,
      },
    };
  }
  return undefined;
}

function keycloakJson(f: Facts): string {
  const c = f.client;
  const out: Record<string, Json> = {
    realm: f.realm.name,
    'auth-server-url': f.authServerUrl,
    'ssl-required': sslRequired(f.realm),
    resource: c.clientId,
  };
  if (c.publicClient && !c.bearerOnly) out['public-client'] = true;
  if (c.bearerOnly) out['bearer-only'] = true;
  if (f.hasRoles || f.audienceTarget) out['verify-token-audience'] = true;
  const creds = needsCredentials(c) ? credentials(c) : undefined;
  if (creds) out.credentials = creds;
  if (f.hasRoles) out['use-resource-role-mappings'] = true;
  out['confidential-port'] = 0;
  if (c.settings?.authorizationServicesEnabled === true) out['policy-enforcer'] = {};
  return jacksonPretty(out);
}

function jbossXml(f: Facts): string {
  const c = f.client;
  const lines = [
    '<secure-deployment name="WAR MODULE NAME.war">',
    `    <realm>${xmlEscape(f.realm.name)}</realm>`,
    `    <auth-server-url>${xmlEscape(f.authServerUrl)}</auth-server-url>`,
  ];
  if (c.bearerOnly) lines.push('    <bearer-only>true</bearer-only>');
  else if (c.publicClient) lines.push('    <public-client>true</public-client>');
  lines.push(`    <ssl-required>${sslRequired(f.realm).toUpperCase()}</ssl-required>`, `    <resource>${xmlEscape(c.clientId)}</resource>`);
  if (needsCredentials(c) && c.secret) lines.push(`    <credential name="secret">${xmlEscape(c.secret)}</credential>`);
  if (f.hasRoles) lines.push('    <use-resource-role-mappings>true</use-resource-role-mappings>');
  lines.push('</secure-deployment>');
  return `${lines.join('\n')}\n`;
}

function jbossCli(f: Facts): string {
  const c = f.client;
  const dep = '/subsystem=keycloak/secure-deployment="WAR MODULE NAME.war"';
  const params = [`realm=${f.realm.name}`, `auth-server-url=${f.authServerUrl}`];
  if (c.bearerOnly) params.push('bearer-only=true');
  else if (c.publicClient) params.push('public-client=true');
  params.push(`ssl-required=${sslRequired(f.realm).toUpperCase()}`, `resource=${c.clientId}`);
  if (f.hasRoles) params.push('use-resource-role-mappings=true');
  const lines = [`${dep}/:add(${params.join(',')})`];
  if (needsCredentials(c) && c.secret) lines.push(`${dep}/credential=secret/:add(value=${c.secret})`);
  return `${lines.join('\n')}\n`;
}

function samlEndpoints(f: Facts) {
  const a = attrs(f.client);
  return {
    idpUrl: `${f.authServerUrl}realms/${encodeURIComponent(f.realm.name)}/protocol/saml`,
    signatures: a['saml.client.signature'] === 'true',
    nameIdFormat: a.saml_name_id_format ?? 'username',
    acs: a.saml_assertion_consumer_url_post ?? f.client.settings?.baseUrl ?? '',
  };
}

function keycloakSaml(f: Facts): string {
  const e = samlEndpoints(f);
  return [
    '<keycloak-saml-adapter>',
    `    <SP entityID="${xmlEscape(f.client.clientId)}" sslPolicy="${sslRequired(f.realm).toUpperCase()}" logoutPage="SPECIFY YOUR LOGOUT PAGE!">`,
    `        <IDP entityID="idp" signatureAlgorithm="RSA_SHA256" signatureCanonicalizationMethod="http://www.w3.org/2001/10/xml-exc-c14n#">`,
    `            <SingleSignOnService signRequest="${e.signatures}" validateResponseSignature="true" validateAssertionSignature="false" requestBinding="POST" bindingUrl="${xmlEscape(e.idpUrl)}"/>`,
    `            <SingleLogoutService signRequest="${e.signatures}" signResponse="${e.signatures}" validateRequestSignature="true" validateResponseSignature="true" requestBinding="POST" responseBinding="POST" postBindingUrl="${xmlEscape(e.idpUrl)}" redirectBindingUrl="${xmlEscape(e.idpUrl)}"/>`,
    '        </IDP>',
    '    </SP>',
    '</keycloak-saml-adapter>',
    '',
  ].join('\n');
}

function samlSpDescriptor(f: Facts): string {
  const e = samlEndpoints(f);
  const format = { email: 'emailAddress', transient: 'transient', persistent: 'persistent' }[e.nameIdFormat] ?? 'unspecified';
  const nameId =
    format === 'transient' || format === 'persistent'
      ? `urn:oasis:names:tc:SAML:2.0:nameid-format:${format}`
      : `urn:oasis:names:tc:SAML:1.1:nameid-format:${format}`;
  return [
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${xmlEscape(f.client.clientId)}">`,
    `    <md:SPSSODescriptor AuthnRequestsSigned="${e.signatures}" WantAssertionsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol urn:oasis:names:tc:SAML:1.1:protocol http://schemas.xmlsoap.org/ws/2003/07/secext">`,
    `        <md:NameIDFormat>${nameId}</md:NameIDFormat>`,
    `        <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${xmlEscape(String(e.acs))}" index="1" isDefault="true" />`,
    '    </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}

function samlSubsystemXml(f: Facts): string {
  const e = samlEndpoints(f);
  return [
    '<secure-deployment name="YOUR-WAR.war">',
    `    <SP entityID="${xmlEscape(f.client.clientId)}" sslPolicy="${sslRequired(f.realm).toUpperCase()}" logoutPage="SPECIFY YOUR LOGOUT PAGE!">`,
    '        <IDP entityID="idp">',
    `            <SingleSignOnService signRequest="${e.signatures}" validateResponseSignature="true" validateAssertionSignature="false" requestBinding="POST" bindingUrl="${xmlEscape(e.idpUrl)}"/>`,
    `            <SingleLogoutService signRequest="${e.signatures}" signResponse="${e.signatures}" validateRequestSignature="true" validateResponseSignature="true" requestBinding="POST" responseBinding="POST" postBindingUrl="${xmlEscape(e.idpUrl)}" redirectBindingUrl="${xmlEscape(e.idpUrl)}"/>`,
    '        </IDP>',
    '    </SP>',
    '</secure-deployment>',
    '',
  ].join('\n');
}

function samlSubsystemCli(f: Facts): string {
  const e = samlEndpoints(f);
  const dep = '/subsystem=keycloak-saml/secure-deployment=YOUR-WAR.war';
  return [
    `${dep}/:add`,
    `${dep}/SP="${f.client.clientId}"/:add(sslPolicy=${sslRequired(f.realm).toUpperCase()},logoutPage=SPECIFY YOUR LOGOUT PAGE!)`,
    `${dep}/SP="${f.client.clientId}"/IDP=idp/:add( \\`,
    `    SingleSignOnService={signRequest=${e.signatures},validateResponseSignature=true,validateAssertionSignature=false,requestBinding=POST,bindingUrl=${e.idpUrl}}, \\`,
    `    SingleLogoutService={signRequest=${e.signatures},signResponse=${e.signatures},validateRequestSignature=true,validateResponseSignature=true,requestBinding=POST,responseBinding=POST,postBindingUrl=${e.idpUrl},redirectBindingUrl=${e.idpUrl}} \\`,
    ')',
    '',
  ].join('\n');
}

const PROVIDERS: Record<string, (f: Facts) => string> = {
  'keycloak-oidc-keycloak-json': keycloakJson,
  'keycloak-oidc-jboss-subsystem': jbossXml,
  'keycloak-oidc-jboss-subsystem-cli': jbossCli,
  'keycloak-saml': keycloakSaml,
  'saml-sp-descriptor': samlSpDescriptor,
  'keycloak-saml-subsystem': samlSubsystemXml,
  'keycloak-saml-subsystem-cli': samlSubsystemCli,
};

/** True when an `oidc-audience-mapper` of the realm (on a client or a scope) names this client. */
async function isAudienceTarget(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<boolean> {
  const m = ctx.db.models;
  const mappers = await m.ProtocolMapper.findAll({ where: { protocolMapper: 'oidc-audience-mapper' } });
  const hits = mappers.filter((pm) => pm.config?.['included.client.audience'] === client.clientId);
  if (!hits.length) return false;
  const clientIds = hits.map((h) => h.clientId).filter((x): x is string => !!x);
  const scopeIds = hits.map((h) => h.clientScopeId).filter((x): x is string => !!x);
  const [clients, scopes] = await Promise.all([
    clientIds.length ? m.Client.count({ where: { id: { [Op.in]: clientIds }, realmId: realm.id } }) : 0,
    scopeIds.length ? m.ClientScope.count({ where: { id: { [Op.in]: scopeIds }, realmId: realm.id } }) : 0,
  ]);
  return clients + scopes > 0;
}

/** GET /clients/{id}/installation/providers/{providerId}: the generated file (view-clients); unknown → 404. */
export async function clientInstallation(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  providerId: string,
): Promise<Installation> {
  await requireClientAccess(ctx, realm, client, 'view');
  const provider = PROVIDERS[providerId];
  if (!provider) throw notFound('Unknown Provider');
  const hasRoles = (await ctx.db.models.Role.count({ where: { clientId: client.id } })) > 0;
  const facts: Facts = {
    realm,
    client,
    authServerUrl: `${ctx.baseUrl}/`,
    hasRoles,
    audienceTarget: await isAudienceTarget(ctx, realm, client),
  };
  return { contentType: 'text/plain', body: provider(facts) };
}
