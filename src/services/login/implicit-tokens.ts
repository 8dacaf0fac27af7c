import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, SignJWT } from 'jose';
import { realmKeys } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { grantedScope, issue } from '../tokens/tokens';
import type { ResponseType } from './response-types';

/**
 * The tokens of the implicit and hybrid flows, sent through the browser (Keycloak's
 * OIDCLoginProtocol.authenticated with TokenManager's responseBuilder): an access token when
 * `token` is asked for (with token_type and expires_in, never a refresh token), an ID token when
 * `id_token` is, carrying the request's nonce, auth_time and the hashes of what travels with it:
 * `at_hash` of the access token (only with `token`), `c_hash` of the code (with `code`), `s_hash`
 * of the state (when there is one). A client with `id.token.as.detached.signature` gets an ID token
 * without the user's claims (FAPI 1 Advanced's detached signature).
 */

/**
 * The left half of the hash of `value` with the hash of the signing algorithm, base64url (OIDC Core
 * 3.3.2.11; Keycloak's HashUtils: SHA-256/384/512 by the algorithm's size, SHA-512 for Ed25519).
 */
export function halfHash(alg: string, value: string, curve?: string): string {
  let digest: Buffer;
  if (alg === 'EdDSA' || alg === 'Ed25519' || alg === 'Ed448') {
    digest =
      curve === 'Ed448' || alg === 'Ed448'
        ? createHash('shake256', { outputLength: 114 }).update(value).digest()
        : createHash('sha512').update(value).digest();
  } else {
    const bits = alg.slice(-3);
    digest = createHash(bits === '384' ? 'sha384' : bits === '512' ? 'sha512' : 'sha256')
      .update(value)
      .digest();
  }
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** Claims an ID token keeps as a detached signature (IDToken's own fields, no mapper's claims). */
const DETACHED_CLAIMS = ['exp', 'iat', 'auth_time', 'jti', 'iss', 'aud', 'sub', 'typ', 'azp', 'nonce', 'sid', 'acr'];

export interface FrontChannelTokenRequest {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  user: UserModel;
  session: UserSessionModel;
  type: ResponseType;
  /** The request's scope, nonce and state. */
  scope?: string;
  nonce?: string;
  state?: string;
  /** The code issued in the same response (hybrid flows). */
  code?: string;
  authTime: number;
  baseUrl: string;
  ipAddress?: string;
}

/** The token parameters of an implicit or hybrid authorization response. */
export async function frontChannelTokens(t: FrontChannelTokenRequest): Promise<Record<string, string>> {
  const { db, realm, client, user, session, type } = t;
  const scope = await grantedScope(db, client, t.scope);
  const req = { realm: realm.name, form: { scope: t.scope }, baseUrl: t.baseUrl, ipAddress: t.ipAddress };
  const res = await issue({ db, realm, client, user, session, scope, req }, false);
  const out: Record<string, string> = {};
  if (type.has('id_token')) {
    // Keycloak makes an ID token for `id_token` even when the scope lacks openid.
    let idToken = res.id_token;
    if (!idToken) {
      const withOpenid = `openid ${t.scope ?? ''}`.trim();
      const again = await issue({ db, realm, client, user, session, scope: await grantedScope(db, client, withOpenid), req }, false);
      idToken = again.id_token as string;
    }
    out.id_token = await completeIdToken(t, idToken, type.has('token') ? res.access_token : undefined);
  }
  if (type.has('token')) {
    out.access_token = res.access_token;
    out.token_type = res.token_type;
    out.expires_in = String(res.expires_in);
  }
  return out;
}

/** The ID token signed again by its key, with nonce, auth_time and the hashes of what the response carries. */
async function completeIdToken(t: FrontChannelTokenRequest, token: string, accessToken: string | undefined): Promise<string> {
  const header = decodeProtectedHeader(token);
  const alg = String(header.alg);
  const key = (await realmKeys(t.db, t.realm)).find((k) => k.kid === header.kid && k.algorithm === alg);
  const signing = key?.privateKey ?? key?.secret;
  if (!key || !signing) return token;
  const detached = (t.client.settings.attributes as Record<string, string> | undefined)?.['id.token.as.detached.signature'] === 'true';
  const { at_hash: _ignored, ...issued } = decodeJwt(token);
  const claims: JWTPayload = { ...issued, auth_time: t.authTime, ...(t.nonce !== undefined ? { nonce: t.nonce } : {}) };
  const kept: JWTPayload = detached ? Object.fromEntries(Object.entries(claims).filter(([k]) => DETACHED_CLAIMS.includes(k))) : claims;
  const curve = key.publicKey?.asymmetricKeyType === 'ed448' ? 'Ed448' : undefined;
  if (accessToken) kept.at_hash = halfHash(alg, accessToken, curve);
  if (t.code) kept.c_hash = halfHash(alg, t.code, curve);
  if (t.state) kept.s_hash = halfHash(alg, t.state, curve);
  return new SignJWT(kept).setProtectedHeader({ alg, typ: 'JWT', kid: key.kid }).sign(signing);
}
