import { nowSeconds } from '../../core/clock';
import { HttpError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { encryptForClient, signToken } from '../tokens/signing';
import { codeLifespan } from './auth-sessions';
import { authorizationResponse, type BrowserRequest, type BrowserResponse, type CookieOp, realmPage } from './browser-response';
import { isJwtMode, type ResponseMode } from './response-types';

/**
 * The authorization response to a client's redirect URI in the request's response mode
 * (Keycloak's OIDCRedirectUriBuilder): query, fragment or form_post as they are, and the JWT modes of
 * JARM (query.jwt, fragment.jwt, form_post.jwt) as one `response` parameter: a JWT with `iss`, `aud`
 * (the client), `exp` (now + the realm's accessCodeLifespan) and the response's parameters, signed
 * with the client's `authorization.signed.response.alg` (else the realm's default algorithm, else
 * RS256) by the realm's active key of that algorithm (or Keycloak's fallback key), and encrypted to the client's key when
 * `authorization.encrypted.response.alg` and `.enc` are set.
 */
const log = getLogger('idserver.services.login');

/** The client's authorization response cannot be encrypted to its key (Keycloak: an internal error). */
export class ResponseSigningError extends Error {}

export type ClientResponse = { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> };

const attrsOf = (client: ClientModel) => (client.settings.attributes ?? {}) as Record<string, string>;

/** The response a client's redirect URI gets. */
export async function responseToClient(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  baseUrl: string,
  redirectUri: string,
  mode: ResponseMode,
  sent: Record<string, string | undefined>,
): Promise<ClientResponse> {
  // OIDCAdvancedConfigWrapper: a client may leave `iss` and `session_state` out of its responses.
  const a = attrsOf(client);
  const params = { ...sent };
  if (a['exclude.issuer.from.auth.response'] === 'true') delete params.iss;
  if (a['exclude.session.state.from.auth.response'] === 'true') delete params.session_state;
  if (!isJwtMode(mode)) return authorizationResponse(redirectUri, mode as 'query' | 'fragment' | 'form_post', params);
  const claims: Record<string, unknown> = {
    iss: issuerOf(baseUrl, realm.name),
    aud: client.clientId,
    exp: nowSeconds() + codeLifespan(realm),
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) claims[k] = v;
  const response = await encryptResponse(client, await signResponse(db, realm, client, claims));
  const plain = mode.slice(0, -'.jwt'.length) as 'query' | 'fragment' | 'form_post';
  return authorizationResponse(redirectUri, plain, { response });
}

/** The response claims signed as the client's tokens are (signing.ts: its algorithm, the realm's key, Keycloak's fallback key). */
async function signResponse(db: Db, realm: RealmModel, client: ClientModel, claims: Record<string, unknown>): Promise<string> {
  return (await signToken(db, realm, client, 'authorization', claims)).jwt;
}

/**
 * JWE of the signed response to the client's encryption key (signing.ts, as ID tokens are encrypted),
 * when the client names both `authorization.encrypted.response.alg` and `.enc`. A client without a
 * usable key gets Keycloak's internal-error page (sendBack), not a response it cannot read.
 */
async function encryptResponse(client: ClientModel, jws: string): Promise<string> {
  const a = attrsOf(client);
  const alg = a['authorization.encrypted.response.alg'];
  const enc = a['authorization.encrypted.response.enc'];
  if (!alg || !enc) return jws;
  try {
    return await encryptForClient(client, jws, { alg, enc });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    log.warn(`Client ${client.clientId}: the authorization response could not be encrypted (${alg}): ${e.message}`);
    throw new ResponseSigningError('can not get encryption KEK');
  }
}

/**
 * The authorization response (or error) to the client's redirect URI in the request's response mode;
 * a JWT mode whose algorithm has no active realm key (or whose encryption key is missing) shows
 * Keycloak's internal-error page instead.
 */
export async function sendBack(
  db: Db,
  realm: RealmModel,
  req: BrowserRequest,
  client: ClientModel,
  redirectUri: string,
  mode: ResponseMode,
  params: Record<string, string | undefined>,
  cookies: CookieOp[] = [],
): Promise<BrowserResponse> {
  try {
    return { ...(await responseToClient(db, realm, client, req.baseUrl, redirectUri, mode, params)), realm, cookies };
  } catch (e) {
    if (!(e instanceof ResponseSigningError)) throw e;
    return {
      ...(await realmPage(db, realm, req, { page: 'error', status: 500, message: { key: 'internalServerErrorMessage' } })),
      cookies,
    };
  }
}
