import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorB } from '../../core/errors';
import type { ClientRepresentation, ClientSettings } from '../../representations/client';
import type { ProtocolMapperRepresentation } from '../../representations/protocol-mapper';
import { cibaSettingsProblems } from './client-ciba';

/**
 * ClientRepresentation → client row (config reference §1.1, §1.4): Keycloak's defaults for a new
 * client, the merge rules of an update, secret generation and URL validation. Pure functions; the
 * writes live in client-writes.ts. Values are read leniently (`"true"` for true, numbers as text):
 * besides REST bodies (checked against the field table), import bodies reach here unchecked.
 */
type ClientRep = ClientRepresentation;

/** The column values and the `settings` JSON of a client row. */
export interface ClientRow {
  id: string;
  clientId: string;
  name: string | null;
  enabled: boolean;
  protocol: string;
  publicClient: boolean;
  bearerOnly: boolean;
  serviceAccountsEnabled: boolean;
  directAccessGrantsEnabled: boolean;
  fullScopeAllowed: boolean;
  secret: string | null;
  settings: ClientSettings;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random secret from `[A-Za-z0-9]`: 32 chars, or entropy-based 43/65/86 for `client-secret-jwt`. */
export function generateSecret(authenticator?: string, attributes: Record<string, string> = {}): string {
  let len = 32;
  if (authenticator === 'client-secret-jwt') {
    const alg = attributes['token.endpoint.auth.signing.alg'];
    len = alg === 'HS512' ? 86 : alg === 'HS384' ? 65 : 43;
  }
  let out = '';
  for (let i = 0; i < len; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const ROTATED = 'client.secret.rotated';
export const ROTATED_EXPIRES = 'client.secret.rotated.expiration.time';

/** True when `secret` is the client's secret or its still-valid rotated secret (token endpoint, §1.5). */
export function acceptsSecret(client: ClientModel, secret: string): boolean {
  if (client.secret && secret === client.secret) return true;
  const a = (client.settings?.attributes as Record<string, string> | undefined) ?? {};
  return !!a[ROTATED] && a[ROTATED] === secret && Number(a[ROTATED_EXPIRES] ?? 0) > nowSeconds();
}

const has = (rep: ClientRep, k: keyof ClientRep) => rep[k] !== undefined && rep[k] !== null;
const bool = (v: unknown) => v === true || v === 'true';
const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => x !== null && x !== undefined).map(String) : []);
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = Array.isArray(x) ? String(x[0] ?? '') : String(x);
  }
  return out;
};

/** `scheme://host[:port]` of an http(s) URL, or undefined. */
function originOf(uri: string): string | undefined {
  if (!/^https?:/i.test(uri)) return undefined;
  try {
    const u = new URL(uri);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** webOrigins derived from redirect URIs: the origins of those starting with `http`. */
export const originsOf = (uris: string[]): string[] => [...new Set(uris.map(originOf).filter((o): o is string => !!o))];

/** Settings fields copied verbatim when present in the body (booleans, strings, numbers, maps). */
const SETTINGS_COPY = [
  'description',
  'type',
  'rootUrl',
  'adminUrl',
  'baseUrl',
  'surrogateAuthRequired',
  'alwaysDisplayInConsole',
  'clientAuthenticatorType',
  'notBefore',
  'consentRequired',
  'standardFlowEnabled',
  'implicitFlowEnabled',
  'frontchannelLogout',
  'nodeReRegistrationTimeout',
] as const;
const SETTINGS_BOOLEANS = new Set([
  'surrogateAuthRequired',
  'alwaysDisplayInConsole',
  'consentRequired',
  'standardFlowEnabled',
  'implicitFlowEnabled',
  'frontchannelLogout',
]);
const SETTINGS_NUMBERS = new Set(['notBefore', 'nodeReRegistrationTimeout']);

function copySettings(rep: ClientRep, settings: ClientSettings): void {
  for (const k of SETTINGS_COPY) {
    if (!has(rep, k)) continue;
    settings[k] = SETTINGS_BOOLEANS.has(k) ? bool(rep[k]) : SETTINGS_NUMBERS.has(k) ? Number(rep[k]) : String(rep[k]);
  }
}

/** Flow binding overrides: blank values remove the key. */
function mergeOverrides(current: unknown, rep: ClientRep): Record<string, string> {
  const out = { ...strMap(current) };
  for (const [k, v] of Object.entries(strMap(rep.authenticationFlowBindingOverrides))) {
    if (v.trim()) out[k] = v;
    else delete out[k];
  }
  return out;
}

/** Stores a (newly generated or given) secret with its creation time. */
function setSecret(row: ClientRow, secret: string): void {
  row.secret = secret;
  const attrs = { ...strMap(row.settings.attributes), 'client.secret.creation.time': String(nowSeconds()) };
  row.settings.attributes = attrs;
}

/** Secret rule of §1.1/§1.4: none for public or bearer-only; body secret, else kept, else generated. */
function applySecret(row: ClientRow, rep: ClientRep): void {
  if (row.publicClient || row.bearerOnly) {
    row.secret = null;
    return;
  }
  if (has(rep, 'secret') && String(rep.secret) !== row.secret) setSecret(row, String(rep.secret));
  else if (!row.secret) setSecret(row, generateSecret(String(row.settings.clientAuthenticatorType), strMap(row.settings.attributes)));
}

/** SAML artifact binding identifier: base64 of the SHA-1 of the clientId. */
const artifactId = (clientId: string) => createHash('sha1').update(clientId, 'utf8').digest('base64');

/** POST /clients: the row of a new client with Keycloak's defaults (§1.1 steps 2–4). */
export function newClientRow(rep: ClientRep): ClientRow {
  const id = text(rep.id) || randomUUID();
  if (id.length > 36) throw errorB(400, 'validation error', 'Client ID must not exceed 36 characters');
  const consentRequired = bool(rep.consentRequired);
  const settings: ClientSettings = {
    surrogateAuthRequired: false,
    alwaysDisplayInConsole: false,
    clientAuthenticatorType: 'client-secret',
    notBefore: 0,
    consentRequired: false,
    standardFlowEnabled: true,
    implicitFlowEnabled: false,
    frontchannelLogout: false,
    nodeReRegistrationTimeout: -1,
    attributes: {},
  };
  copySettings(rep, settings);
  if (Number(settings.nodeReRegistrationTimeout) === 0 && !has(rep, 'nodeReRegistrationTimeout')) settings.nodeReRegistrationTimeout = -1;
  settings.authenticationFlowBindingOverrides = mergeOverrides({}, rep);
  settings.redirectUris = strList(rep.redirectUris);
  settings.webOrigins = has(rep, 'webOrigins') ? strList(rep.webOrigins) : originsOf(settings.redirectUris as string[]);
  if (rep.registeredNodes && typeof rep.registeredNodes === 'object') settings.registeredNodes = rep.registeredNodes;
  const row: ClientRow = {
    id,
    clientId: text(rep.clientId) ?? id,
    name: text(rep.name) ?? null,
    enabled: has(rep, 'enabled') ? bool(rep.enabled) : true,
    protocol: text(rep.protocol) ?? 'openid-connect',
    publicClient: bool(rep.publicClient),
    bearerOnly: bool(rep.bearerOnly),
    serviceAccountsEnabled: bool(rep.serviceAccountsEnabled),
    directAccessGrantsEnabled: bool(rep.directAccessGrantsEnabled),
    fullScopeAllowed: has(rep, 'fullScopeAllowed') ? bool(rep.fullScopeAllowed) : !consentRequired,
    secret: null,
    settings,
  };
  const attrs = strMap(rep.attributes);
  delete attrs.realm_client;
  settings.attributes = attrs;
  if (has(rep, 'protocol')) protocolDefaults(row, rep);
  applySecret(row, rep);
  return row;
}

/** Protocol defaults applied only when the body names a protocol (§1.1 step 4). */
function protocolDefaults(row: ClientRow, rep: ClientRep): void {
  const s = row.settings;
  const attrs = s.attributes as Record<string, string>;
  if (row.protocol === 'saml') {
    attrs['saml.artifact.binding.identifier'] ??= artifactId(row.clientId);
    return;
  }
  if (row.protocol !== 'openid-connect') return;
  const rootUrl = text(s.rootUrl);
  if (rootUrl && !(s.redirectUris as string[]).length) {
    const redirect = rootUrl.endsWith('/') ? rootUrl : `${rootUrl}/*`;
    s.redirectUris = [redirect];
    if (!has(rep, 'webOrigins')) s.webOrigins = originsOf([redirect]);
  }
  if (!has(rep, 'bearerOnly') && !has(rep, 'publicClient')) row.publicClient = true;
  if (!has(rep, 'adminUrl') && rootUrl) s.adminUrl = rootUrl;
  if (!has(rep, 'directAccessGrantsEnabled')) row.directAccessGrantsEnabled = true;
  if (attrs['backchannel.logout.url'] === undefined) {
    attrs['backchannel.logout.session.required'] ??= 'true';
    attrs['backchannel.logout.revoke.offline.tokens'] ??= 'false';
  }
}

/** The current row of a stored client, for merging an update into. */
export function rowOf(c: ClientModel): ClientRow {
  return {
    id: c.id,
    clientId: c.clientId,
    name: c.name,
    enabled: Boolean(c.enabled),
    protocol: c.protocol || 'openid-connect',
    publicClient: Boolean(c.publicClient),
    bearerOnly: Boolean(c.bearerOnly),
    serviceAccountsEnabled: Boolean(c.serviceAccountsEnabled),
    directAccessGrantsEnabled: Boolean(c.directAccessGrantsEnabled),
    fullScopeAllowed: Boolean(c.fullScopeAllowed),
    secret: c.secret,
    settings: structuredClone(c.settings ?? {}),
  };
}

/** PUT /clients/{id}: merges a representation into the current row (§1.4 partial-update semantics). */
export function mergeClientRow(current: ClientRow, rep: ClientRep): ClientRow {
  const row: ClientRow = { ...current, settings: structuredClone(current.settings) };
  const s = row.settings;
  if (has(rep, 'clientId')) row.clientId = String(rep.clientId);
  if (has(rep, 'name')) row.name = String(rep.name);
  if (has(rep, 'enabled')) row.enabled = bool(rep.enabled);
  if (has(rep, 'protocol')) row.protocol = String(rep.protocol);
  for (const k of ['publicClient', 'bearerOnly', 'serviceAccountsEnabled', 'directAccessGrantsEnabled', 'fullScopeAllowed'] as const) {
    if (has(rep, k)) row[k] = bool(rep[k]);
  }
  copySettings(rep, s);
  if (has(rep, 'authenticationFlowBindingOverrides'))
    s.authenticationFlowBindingOverrides = mergeOverrides(s.authenticationFlowBindingOverrides, rep);
  if (has(rep, 'redirectUris')) s.redirectUris = strList(rep.redirectUris);
  if (has(rep, 'webOrigins')) s.webOrigins = strList(rep.webOrigins);
  else if (!strList(s.webOrigins).length) s.webOrigins = originsOf(strList(s.redirectUris));
  if (rep.registeredNodes && typeof rep.registeredNodes === 'object') s.registeredNodes = rep.registeredNodes;
  if (has(rep, 'attributes')) {
    const attrs = { ...strMap(s.attributes), ...strMap(rep.attributes) };
    // A null value removes the attribute (RepresentationToModel#updateClient → ClientAdapter#setAttribute(name, null)).
    for (const [k, v] of Object.entries(rep.attributes as Record<string, unknown>)) if (v === null) delete attrs[k];
    delete attrs.realm_client;
    s.attributes = attrs;
  }
  applySecret(row, rep);
  return row;
}

const ILLEGAL_SCHEME = /^\s*(javascript|data):/i;

/** Checks one URL (relative ones resolved against `base`; none → must be absolute): the kind of problem, if any. */
function urlProblem(raw: string, base?: string): 'invalid' | 'fragment' | 'scheme' | undefined {
  const url = raw.replace(/\$\{auth(Base|Admin)Url\}/g, 'http://localhost');
  if (ILLEGAL_SCHEME.test(url)) return 'scheme';
  if (url === '*' || url === '+') return undefined;
  const absolute = /^[a-z][\w+.-]*:/i.test(url);
  if (!absolute && !base) return 'invalid';
  let u: URL;
  try {
    u = absolute ? new URL(url) : new URL(url, base);
  } catch {
    return 'invalid';
  }
  return u.hash ? 'fragment' : undefined;
}

/**
 * Client validation of §1.1 step 10 (Keycloak's DefaultClientValidationProvider, in its order): the
 * URLs, the CIBA settings (CibaClientValidation, client-ciba.ts), the key source. 400 `invalid_input`
 * with the messages joined.
 */
export function validateClientUrls(row: ClientRow, realm: RealmModel): void {
  const s = row.settings;
  const attrs = strMap(s.attributes);
  const errors: string[] = [];
  const rootUrl = text(s.rootUrl);
  if (rootUrl) {
    const p = urlProblem(rootUrl);
    if (p === 'invalid') errors.push('Root URL is not a valid URL');
    if (p === 'fragment') errors.push('Root URL must not contain an URL fragment');
    if (p === 'scheme') errors.push('Root URL uses an illegal scheme');
  }
  const baseUrl = text(s.baseUrl);
  if (baseUrl) {
    const p = urlProblem(baseUrl, 'http://localhost/');
    if (p === 'invalid') errors.push('Base URL is not a valid URL');
    if (p === 'scheme') errors.push('Base URL uses an illegal scheme');
  }
  for (const uri of strList(s.redirectUris)) {
    const p = urlProblem(uri, 'http://localhost/');
    if (p === 'invalid') errors.push('A redirect URI is not a valid URI');
    if (p === 'fragment') errors.push('Redirect URIs must not contain an URI fragment');
    if (p === 'scheme') errors.push('A redirect URI uses an illegal scheme');
  }
  const checks: Array<[string, string]> = [
    ['backchannel.logout.url', 'Backchannel logout URL'],
    ['logoUri', 'Logo URL'],
    ['policyUri', 'Policy URL'],
    ['tosUri', 'Terms of service URL'],
  ];
  for (const [attr, label] of checks) {
    const v = attrs[attr];
    if (!v) continue;
    const p = urlProblem(v);
    if (p === 'invalid') errors.push(`${label} is not a valid URL`);
    if (p === 'scheme') errors.push(`${label} uses an illegal scheme`);
  }
  errors.push(...cibaSettingsProblems(realm, attrs));
  if (attrs['use.jwks.url'] === 'true' && attrs['use.jwks.string'] === 'true') errors.push('Illegal to use both jwks_uri and jwks_string');
  if (errors.length) throw errorB(400, 'invalid_input', [...new Set(errors)].join(', '));
}

/** Mapper rows of a `protocolMappers` body list (protocol defaults to the client's). */
export function mapperRows(list: unknown, clientUuid: string, protocol: string) {
  return (Array.isArray(list) ? list : [])
    .filter((m): m is ProtocolMapperRepresentation => !!m && typeof m === 'object')
    .map((m) => ({
      id: text(m.id) || randomUUID(),
      name: text(m.name) ?? '',
      protocol: text(m.protocol) ?? protocol,
      protocolMapper: text(m.protocolMapper) ?? '',
      clientId: clientUuid,
      clientScopeId: null,
      config: strMap(m.config),
    }));
}
