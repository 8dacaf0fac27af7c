import { CompactEncrypt, importJWK, type JWK, SignJWT } from 'jose';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { clientJwks } from '../tokens/client-keys';
import { codeLifespan } from './auth-sessions';
import { authorizationResponse, type BrowserRequest, type BrowserResponse, type CookieOp, realmPage } from './browser-response';
import { isJwtMode, type ResponseMode } from './response-types';

/**
 * The authorization response to a client's redirect URI in the request's response mode
 * (Keycloak's OIDCRedirectUriBuilder): query, fragment or form_post as they are, and the JWT modes of
 * JARM (query.jwt, fragment.jwt, form_post.jwt) as one `response` parameter: a JWT with `iss`, `aud`
 * (the client), `exp` (now + the realm's accessCodeLifespan) and the response's parameters, signed
 * with the client's `authorization.signed.response.alg` (else the realm's default algorithm, else
 * RS256) by the realm's active key of that algorithm, and encrypted to the client's key when
 * `authorization.encrypted.response.alg` and `.enc` are set.
 */
const log = getLogger('idserver.services.login');

/** The realm has no active key for the algorithm the client's responses must be signed with (Keycloak: an internal error). */
export class ResponseSigningError extends Error {}

export type ClientResponse = { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> };

const attrsOf = (client: ClientModel) => (client.settings.attributes ?? {}) as Record<string, string>;

/** The algorithm a client's authorization responses are signed with. */
export function responseSigningAlg(realm: RealmModel, client: ClientModel): string {
  const own = attrsOf(client)['authorization.signed.response.alg'];
  if (own) return own;
  const realmDefault = realm.settings.defaultSignatureAlgorithm;
  return typeof realmDefault === 'string' && realmDefault ? realmDefault : 'RS256';
}

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
  const response = await encryptForClient(client, await signResponse(db, realm, client, claims));
  const plain = mode.slice(0, -'.jwt'.length) as 'query' | 'fragment' | 'form_post';
  return authorizationResponse(redirectUri, plain, { response });
}

async function signResponse(db: Db, realm: RealmModel, client: ClientModel, claims: Record<string, unknown>): Promise<string> {
  const alg = responseSigningAlg(realm, client);
  const key = activeKey(await realmKeys(db, realm), alg);
  const signing = key?.privateKey ?? key?.secret;
  if (!key || !signing) {
    log.warn(`Client ${client.clientId}: no active realm key for the authorization response algorithm ${alg}`);
    throw new ResponseSigningError(`Active key for ${alg} not found`);
  }
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT', kid: key.kid }).sign(signing);
}

/** JWE of the signed response to the client's encryption key, when the client asks for it. */
async function encryptForClient(client: ClientModel, jws: string): Promise<string> {
  const a = attrsOf(client);
  const alg = a['authorization.encrypted.response.alg'];
  const enc = a['authorization.encrypted.response.enc'];
  if (!alg || !enc) return jws;
  let jwk: JWK | undefined;
  try {
    const set = await clientJwks(client);
    jwk = set?.keys.find((k) => k.use === 'enc' && (!k.alg || k.alg === alg)) as JWK | undefined;
  } catch {
    jwk = undefined;
  }
  if (!jwk) {
    log.warn(`Client ${client.clientId}: no encryption key for the authorization response algorithm ${alg}`);
    throw new ResponseSigningError('can not get encryption KEK');
  }
  try {
    const key = await importJWK({ ...jwk, alg }, alg);
    return await new CompactEncrypt(new TextEncoder().encode(jws))
      .setProtectedHeader({ alg, enc, cty: 'JWT', ...(jwk.kid ? { kid: jwk.kid } : {}) })
      .encrypt(key);
  } catch (e) {
    log.warn(`Client ${client.clientId}: the authorization response could not be encrypted: ${(e as Error).message}`);
    throw new ResponseSigningError('can not encrypt the authorization response');
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
