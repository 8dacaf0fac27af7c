import { randomBytes, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import { HttpError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { clientPoliciesOnBackchannel } from '../client-policies';
import { findLoginUser } from '../user-storage/federation';
import { CIBA_REQUEST_ALGS, cibaGrantEnabled, cibaPolicy, clientAttribute, postJson, usableChannel } from './ciba-channel';
import { type CibaData, digest, insertCibaRequest, removeCibaRequest } from './ciba-store';
import { authenticatePresentedClient } from './client-auth';
import { ClientJwtError, fetchSmallDocument, verifyClientJws } from './client-keys';
import { publicRealm } from './oidc-metadata';
import { clientLinkedScopes } from './token-claims';
import { clientErrorCode, TokenEvent } from './token-events';
import { oauth } from './tokens';

/**
 * POST /realms/{realm}/protocol/openid-connect/ext/ciba/auth (OpenID CIBA, ADR 0044), as Keycloak's
 * BackchannelAuthenticationEndpoint: an authenticated client with `oidc.ciba.grant.enabled` names
 * the user (by the realm's `cibaAuthRequestedUserHint`, `login_hint` by default: username or e-mail),
 * the scope and an optional binding message, in the form or in a signed request object; the request
 * is POSTed to the authentication channel (`--spi-ciba-auth-channel-...-uri`) with a bearer token the
 * device answers with at `.../auth/callback`; once the device said 201 the request is kept as a row
 * and the client gets `auth_req_id`, `expires_in` and `interval`.
 */
const log = getLogger('idserver.services.tokens.ciba');

export interface CibaAuthRequest {
  realm: string;
  form: Record<string, unknown>;
  basic?: { clientId: string; secret: string };
  baseUrl: string;
  ipAddress?: string;
  /** The authentication channel (server option); unset: requests fail as Keycloak's without one. */
  channelUri?: string;
}

export interface CibaAuthResponse {
  auth_req_id: string;
  expires_in: number;
  interval?: number;
}

/** Keycloak's BINDING_MESSAGE_VALIDATION. */
const BINDING_MESSAGE = /^[a-zA-Z0-9-._+/!?#]{1,50}$/;
/** Parameters that are the protocol's, not additional ones (Keycloak's KNOWN_REQ_PARAMS), and the client's credentials. */
const KNOWN = new Set([
  'request',
  'request_uri',
  'scope',
  'client_notification_token',
  'acr_values',
  'login_hint_token',
  'id_token_hint',
  'login_hint',
  'binding_message',
  'user_code',
  'requested_expiry',
  'prompt',
  'nonce',
  'max_age',
  'ui_locales',
  'claims',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
]);

const invalid = (text: string) => oauth(400, 'invalid_request', text);

/** Keycloak's authenticateClient of the CIBA endpoints; every refusal is a 401 there. */
async function authenticate(db: Db, realm: RealmModel, req: CibaAuthRequest, ev: TokenEvent): Promise<ClientModel> {
  const as401 = (e: HttpError) => oauth(401, String(e.body.error), String(e.body.error_description ?? ''));
  if (!realm.enabled) throw oauth(401, 'access_denied', 'Realm not enabled');
  let client: ClientModel;
  try {
    client = await authenticatePresentedClient(db, realm, { basic: req.basic, form: req.form, baseUrl: req.baseUrl });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    await ev.error(clientErrorCode(e));
    throw as401(e);
  }
  ev.clientId = client.clientId;
  if (client.bearerOnly) throw oauth(401, 'invalid_client', 'Bearer-only not allowed');
  if (!cibaGrantEnabled(client)) {
    await ev.detail('reason', 'Client not allowed OIDC CIBA Grant').error('not_allowed');
    throw oauth(401, 'invalid_grant', 'Client not allowed OIDC CIBA Grant');
  }
  return client;
}

/** The form's single string values; a parameter sent twice is refused (Keycloak's "duplicated parameter"). */
function singleValues(form: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    if (Array.isArray(v)) throw invalid('duplicated parameter');
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** A `request_uri` is one of the client's `request.uris` (exact, or a prefix ending in `*`). */
function registeredRequestUri(client: ClientModel, uri: string): boolean {
  const list = (clientAttribute(client, 'request.uris') ?? '').split('##').filter(Boolean);
  return list.some((u) => (u.endsWith('*') ? uri.startsWith(u.slice(0, -1)) : u === uri));
}

/** Keycloak's BackchannelAuthenticationEndpointSignedRequestParser: the verified claims of a signed authentication request. */
async function signedRequest(client: ClientModel, jws: string): Promise<Record<string, unknown>> {
  if (jws.split('.').length === 5) throw invalid('Encrypted request object is not allowed');
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(jws).alg;
  } catch {
    throw invalid('Signed algorithm not specified');
  }
  if (!alg) throw invalid('Signed algorithm not specified');
  if (alg === 'none') throw invalid('None signed algorithm is not allowed');
  if (/^HS/.test(alg)) throw invalid('Signed algorithm is not allowed');
  if (!CIBA_REQUEST_ALGS.includes(alg)) throw invalid(`Not found provider for the algorithm ${alg}`);
  if (clientAttribute(client, 'ciba.backchannel.auth.request.signing.alg') !== alg) {
    throw invalid(
      'Client requested algorithm not registered in advance or request signed with different algorithm other than client requested algorithm',
    );
  }
  try {
    return (await verifyClientJws(client, jws)).claims;
  } catch (e) {
    if (e instanceof ClientJwtError) throw invalid('Failed to verify signature');
    throw e;
  }
}

/** The request's parameters: the form, then a signed request object's claims over it. */
async function parseRequest(
  client: ClientModel,
  form: Record<string, string>,
): Promise<{ params: Record<string, string>; object?: Record<string, unknown> }> {
  if (form.request !== undefined && form.request_uri !== undefined) {
    throw invalid("Illegal to use both 'request' and 'request_uri' parameters together");
  }
  let jws = form.request;
  if (form.request_uri !== undefined) {
    if (!registeredRequestUri(client, form.request_uri)) throw invalid("Specified 'request_uri' not allowed for this client.");
    try {
      jws = await fetchSmallDocument(form.request_uri);
    } catch {
      throw invalid(`Could not fetch ${form.request_uri}`);
    }
  }
  if (jws === undefined) return { params: form };
  const object = await signedRequest(client, jws);
  const params = { ...form };
  for (const [k, v] of Object.entries(object)) {
    if (v === null || v === undefined) continue;
    params[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return { params, object };
}

/** Keycloak's resolveUser with the default CIBALoginUserResolver (login_hint: username or e-mail; the other hints resolve no one). */
async function resolveUser(db: Db, realm: RealmModel, hint: string, params: Record<string, string>): Promise<UserModel> {
  if (hint !== 'login_hint' && hint !== 'id_token_hint' && hint !== 'login_hint_token') throw invalid('invalid user hint');
  const value = params[hint];
  if (value === undefined) throw invalid(`missing parameter : ${hint}`);
  const user = hint === 'login_hint' ? await findLoginUser(db, realm, value) : null;
  if (!user?.enabled) throw invalid('invalid user');
  return user;
}

/** The scope sent on: the requested one (each a client scope of the client, or openid), then the client's default scopes shown on the consent screen. */
async function checkedScope(db: Db, client: ClientModel, scope: string | undefined): Promise<string> {
  if (scope === undefined) throw invalid('missing parameter : scope');
  const { links, scopes } = await clientLinkedScopes(db, client);
  const byId = new Map(scopes.filter((s) => s.protocol === client.protocol).map((s) => [s.id, s]));
  const linked = new Set(links.map((l) => byId.get(l.scopeId)?.name).filter(Boolean));
  const requested = scope.split(' ').filter(Boolean);
  if (requested.some((s) => s !== 'openid' && !linked.has(s))) throw oauth(400, 'invalid_scope', `Invalid scopes: ${scope}`);
  const out = [...requested];
  for (const l of links) {
    const s = byId.get(l.scopeId);
    if (l.defaultScope && s && s.attributes?.['display.on.consent.screen'] !== 'false' && !out.includes(s.name)) out.push(s.name);
  }
  return out.join(' ');
}

/** Keycloak's extractAdditionalParams: at most 5 other non-empty parameters of at most 200 characters. */
function additionalParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (KNOWN.has(k) || !v.trim() || v.length > 200) continue;
    if (Object.keys(out).length >= 5) break;
    out[k] = v;
  }
  return out;
}

/** The bearer token the device calls back with: signed by the realm, naming the request's result, client, user and expiry. */
async function channelToken(db: Db, realm: RealmModel, claims: Record<string, unknown>): Promise<string> {
  const keys = await realmKeys(db, realm);
  const key = activeKey(keys, String(realm.settings.defaultSignatureAlgorithm ?? 'RS256')) ?? activeKey(keys, 'RS256');
  if (!key?.privateKey) throw new Error('No active signing key');
  // Not typed Bearer: the token is for the callback only, never an access token (ADR 0044).
  return new SignJWT({ ...claims, typ: 'CIBA-Channel' })
    .setProtectedHeader({ alg: key.algorithm, typ: 'JWT', kid: key.kid })
    .sign(key.privateKey);
}

/** POST .../ext/ciba/auth. */
export async function backchannelAuthentication(db: Db, req: CibaAuthRequest): Promise<CibaAuthResponse> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'LOGIN', req.ipAddress);
  ev.clientId = req.basic?.clientId ?? (typeof req.form.client_id === 'string' ? req.form.client_id : null);
  const client = await authenticate(db, realm, req, ev);
  const form = singleValues(req.form);
  const { params, object } = await parseRequest(client, form);
  const policy = cibaPolicy(realm, client);
  if (params.requested_expiry !== undefined && !/^[+-]?\d{1,9}$/.test(params.requested_expiry)) {
    throw invalid(`For input string: "${params.requested_expiry}"`);
  }
  const user = await resolveUser(db, realm, policy.userHint, params);
  let scope = params.scope;
  scope = await checkedScope(db, client, scope);
  const bindingMessage = params.binding_message;
  if (bindingMessage !== undefined && !BINDING_MESSAGE.test(bindingMessage)) {
    throw oauth(
      400,
      'invalid_binding_message',
      'the binding_message value has to be max 50 characters in length and must contain only basic plain-text characters without spaces',
    );
  }
  const iat = nowSeconds();
  const channelExp = iat + (params.requested_expiry !== undefined ? Number(params.requested_expiry) : policy.expiresIn);
  const notificationToken = params.client_notification_token;
  if (notificationToken !== undefined) {
    if (policy.mode !== 'ping') throw invalid('Client Notification token supported only for the ping mode');
    if (notificationToken.length > 1024) throw invalid('Client Notification token length is limited to 1024 characters');
  } else if (policy.mode === 'ping') throw invalid('Client Notification token needs to be provided with the ping mode');
  if (params.user_code !== undefined) throw invalid('User code not supported');
  const issuer = issuerOf(req.baseUrl, realm.name);
  const refused = await clientPoliciesOnBackchannel(db, realm, client, 'BACKCHANNEL_AUTHENTICATION_REQUEST', params, {
    rawParams: form,
    requestObject: object,
    issuer,
    ciba: { bindingMessage },
  });
  if (refused) {
    await ev.detail('reason', 'client_policy_error').detail('client_policy_error', refused.error).error(refused.error);
    throw oauth(400, refused.error, refused.description);
  }

  const authReqId = randomBytes(32).toString('base64url');
  const resultId = randomUUID();
  const data: CibaData = { bindingMessage, acrValues: params.acr_values, requestParams: additionalParams(params) };
  if (!usableChannel(req.channelUri)) {
    log.warn('CIBA authentication request refused: the authentication channel URI is not set');
    throw oauth(503, 'server_error', 'Failed to send authentication request');
  }
  const bearer = await channelToken(db, realm, {
    iss: issuer,
    aud: issuer,
    jti: resultId,
    azp: client.clientId,
    sub: user.id,
    iat,
    exp: channelExp,
  });
  const body = {
    scope,
    ...(bindingMessage !== undefined ? { binding_message: bindingMessage } : {}),
    login_hint: user.username,
    is_consent_required: client.settings.consentRequired === true,
    ...(params.acr_values !== undefined ? { acr_values: params.acr_values } : {}),
  };
  // Kept before the device hears of it, so that a device answering at once finds the request (any node).
  const row = {
    id: digest(authReqId),
    resultId,
    realmId: realm.id,
    clientId: client.id,
    userId: user.id,
    scope,
    status: 'pending' as const,
    notification: notificationToken !== undefined ? { token: notificationToken, authReqId } : undefined,
    data,
    expiresAt: iat + policy.expiresIn,
    channelExpiresAt: channelExp,
    pollInterval: Math.max(0, policy.interval),
  };
  await insertCibaRequest(db, row, iat);
  let status: number;
  try {
    status = await postJson(req.channelUri, body, bearer);
  } catch (e) {
    await removeCibaRequest(db, row);
    log.warn(`CIBA authentication channel not reachable: ${(e as Error).message}`);
    throw oauth(503, 'server_error', 'Failed to send authentication request');
  }
  if (status !== 201) {
    await removeCibaRequest(db, row);
    throw oauth(503, 'server_error', 'Unexpected response from authentication device');
  }
  return { auth_req_id: authReqId, expires_in: policy.expiresIn, ...(policy.interval > 0 ? { interval: policy.interval } : {}) };
}
