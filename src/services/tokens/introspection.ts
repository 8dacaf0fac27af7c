import type { JWTPayload } from 'jose';
import { HttpError } from '../../core/errors';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { Claims } from '../../representations/token';
import { authenticatePresentedClient, type PresentedClient, presentedClientId } from './client-auth';
import { publicRealm } from './oidc-metadata';
import { computeClaims } from './token-claims';
import {
  checkActive,
  checkNotBeforeAndRevocation,
  sessionNotes,
  TokenCheckFailure,
  tokenClient,
  tokenSession,
  verifiedPayload,
} from './token-check';
import { clientErrorCode, TokenEvent } from './token-events';
import { oauth } from './tokens';
import { refreshTokenIntrospectable, revokesRefreshTokens } from './refresh-reuse';

/**
 * Token introspection (RFC 7662; Keycloak's TokenIntrospectionEndpoint and
 * AccessTokenIntrospectionProvider): an authenticated confidential client (bearer-only ones too)
 * asks whether a token of the realm is active. Anything that does not check out (signature, expiry,
 * client, not-before, revocation, session, user) is `{"active": false}`; an active token is
 * answered with its basic claims, the claims the mappers put into introspection
 * (`introspection.token.claim`), `client_id`, `username`, `token_type` and `active: true`.
 */

export interface IntrospectionRequest extends PresentedClient {
  realm: string;
  /** Parameters sent more than once. */
  repeated: string[];
  ipAddress?: string;
}

/** The token type hints Keycloak has an introspection provider for. */
const HINTS = new Set(['access_token', 'refresh_token', 'requesting_party_token']);

/** Claims copied from the token itself (Keycloak's getAccessTokenFromStoredData); the rest comes from the mappers. */
const BASIC = ['exp', 'iat', 'jti', 'iss', 'aud', 'sub', 'typ', 'azp', 'nonce', 'sid', 'scope', 'cnf'] as const;

/** POST /realms/{realm}/protocol/openid-connect/token/introspect. */
export async function introspect(db: Db, req: IntrospectionRequest): Promise<Claims> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'INTROSPECT_TOKEN', req.ipAddress);
  ev.clientId = presentedClientId(req);
  if (!realm.enabled) throw oauth(403, 'access_denied', 'Realm not enabled');
  let client: ClientModel;
  try {
    client = await authenticatePresentedClient(db, realm, req);
  } catch (e) {
    if (e instanceof HttpError) await ev.error(clientErrorCode(e));
    throw e;
  }
  const refuse = async (status: number, description: string) => {
    ev.detail('detail', description);
    return ev.fail('invalid_request', oauth(status, 'invalid_request', description));
  };
  if (client.publicClient) throw await refuse(403, 'Client not allowed.');
  if (req.repeated.length) throw await refuse(400, 'duplicated parameter');
  const hint = typeof req.form.token_type_hint === 'string' ? req.form.token_type_hint : 'access_token';
  const token = req.form.token;
  if (typeof token !== 'string') throw await refuse(400, 'Token not provided.');
  if (!HINTS.has(hint)) throw await refuse(400, `Unsupported token type [${hint}].`);
  try {
    const out = await activeToken(db, realm, token, hint, ev);
    await ev.success();
    return out;
  } catch (e) {
    if (!(e instanceof TokenCheckFailure)) throw e;
    ev.detail('reason', e.reason);
    await ev.error(e.code);
    return { active: false };
  }
}

/** The introspection answer of a token that passes every check; a TokenCheckFailure otherwise. */
async function activeToken(db: Db, realm: RealmModel, token: string, hint: string, ev: TokenEvent): Promise<Claims> {
  const claims = await verifiedPayload(db, realm, token);
  if (!claims) throw new TokenCheckFailure('invalid_token', 'Access token JWT check failed');
  ev.detail('token_id', str(claims.jti)).detail('token_type', str(claims.typ)).detail('token_issued_for', str(claims.azp));
  const client = await tokenClient(db, realm, claims);
  checkActive(claims);
  await checkNotBeforeAndRevocation(db, realm, client, claims);
  if (hint === 'refresh_token' && claims.typ !== 'Refresh' && claims.typ !== 'Offline') throw new TokenCheckFailure('invalid_token_type');
  ev.sessionId = str(claims.sid) ?? null;
  const { session, user } = await tokenSession(db, realm, client, claims);
  ev.userId = user.id;
  const refreshType = claims.typ === 'Refresh' || claims.typ === 'Offline';
  const revoked = refreshType && session.id && revokesRefreshTokens(realm);
  if (revoked && !(await refreshTokenIntrospectable(db, realm, session.id as string, client.id, claims)))
    throw new TokenCheckFailure(
      'invalid_token',
      `Realm revoke refresh token, token type is ${String(claims.typ)} and token is not eligible for introspection`,
    );
  const scope = String(claims.scope ?? '');
  const mapped = await computeClaims(db, { realm, client, user, scope, sessionId: session.id, notes: sessionNotes(session, user, client) });
  const out: Claims = {};
  for (const k of BASIC) if (claims[k] !== undefined) out[k] = claims[k];
  if (hint === 'requesting_party_token' && claims.authorization !== undefined) out.authorization = claims.authorization;
  Object.assign(out, mapped.introspection);
  const aud = mergeAudience(claims.aud, mapped.introspectionAud);
  if (aud !== undefined) out.aud = aud;
  else delete out.aud;
  out.client_id = claims.azp;
  if (typeof out.scope === 'string' && !out.scope.trim()) delete out.scope;
  if (out.username === undefined) out.username = typeof out.preferred_username === 'string' ? out.preferred_username : user.username;
  out.token_type = claims.typ;
  out.active = true;
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The token's own audiences followed by those the introspection mappers add: absent, one string, or a list. */
function mergeAudience(own: JWTPayload['aud'], added: string[]): string | string[] | undefined {
  const list = [...new Set([...(own === undefined ? [] : Array.isArray(own) ? own : [own]), ...added])];
  return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
}
