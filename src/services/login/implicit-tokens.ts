import type { JWTPayload } from 'jose';
import type { RealmKey } from '../../auth/keys';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { oidcHash } from '../tokens/signing';
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
  const idExtra: JWTPayload = { auth_time: t.authTime, ...(t.nonce !== undefined ? { nonce: t.nonce } : {}) };
  const idFinish = (claims: JWTPayload, key: RealmKey) => finishIdToken(t, claims, key);
  const res = await issue({ db, realm, client, user, session, scope, req, idExtra, idFinish }, false);
  const out: Record<string, string> = {};
  if (type.has('id_token')) {
    // Keycloak makes an ID token for `id_token` even when the scope lacks openid.
    let idToken = res.id_token;
    if (!idToken) {
      const withOpenid = `openid ${t.scope ?? ''}`.trim();
      const again = await issue(
        { db, realm, client, user, session, scope: await grantedScope(db, client, withOpenid), req, idExtra, idFinish },
        false,
      );
      idToken = again.id_token as string;
    }
    out.id_token = idToken;
  }
  if (type.has('token')) {
    out.access_token = res.access_token;
    out.token_type = res.token_type;
    out.expires_in = String(res.expires_in);
  }
  return out;
}

/**
 * The ID token's claims before signing: the hashes of what the response carries, by the signing
 * key's hash (at_hash only with `token`: the token endpoint's at_hash is of an access token the
 * browser does not get otherwise), and only the detached signature's claims when the client asks for it.
 */
function finishIdToken(t: FrontChannelTokenRequest, claims: JWTPayload, key: RealmKey): JWTPayload {
  const detached = (t.client.settings.attributes as Record<string, string> | undefined)?.['id.token.as.detached.signature'] === 'true';
  const { at_hash, ...rest } = claims;
  const kept: JWTPayload = detached ? Object.fromEntries(Object.entries(rest).filter(([k]) => DETACHED_CLAIMS.includes(k))) : rest;
  if (t.type.has('token') && at_hash) kept.at_hash = at_hash;
  if (t.code) kept.c_hash = oidcHash(key, t.code);
  if (t.state) kept.s_hash = oidcHash(key, t.state);
  return kept;
}
