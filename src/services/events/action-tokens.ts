import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { RealmModel } from '../../db/models/realm';
import { serverError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import type { RequestContext } from '../../core/context';

/**
 * Signed action tokens (reference §4.14): a JWT signed with the realm's active RS256 key (so it can
 * be verified with the realm's JWKS), carrying `typ` (`execute-actions`, `verify-email`), `sub`
 * (user id), `exp` = now + lifespan, `azp` (client_id), `rqac` (required actions), `reduri`
 * (redirect URI), `eml` (e-mail) and `asid` (the login a link sent during a login continues). The link
 * points at the realm's login-actions endpoint, which src/services/login/action-tokens.ts serves.
 */
export type ActionTokenType = 'execute-actions' | 'verify-email' | 'reset-credentials' | 'idp-verify-account-via-email';

export interface ActionTokenInput {
  typ: ActionTokenType;
  userId: string;
  email: string;
  clientId: string;
  /** Seconds until the token expires. */
  lifespan: number;
  actions?: string[];
  redirectUri?: string;
  /** The login (authentication session id) a link sent during that login continues (`asid`). */
  authSessionId?: string;
  /** idp-verify-account-via-email: the provider and the provider's username the link confirms. */
  idpAlias?: string;
  idpUsername?: string;
}

/** The claims of an action token besides the registered ones jose sets (jti, iat, exp, iss, aud, sub). */
type ActionTokenClaims = {
  typ: ActionTokenType;
  azp: string;
  eml: string;
  rqac?: string[];
  reduri?: string;
  asid?: string;
  idpalias?: string;
  idpu?: string;
};

/** Signs an action token; returns the compact JWT and its expiry (epoch seconds). */
export async function createActionToken(
  ctx: Pick<RequestContext, 'db' | 'baseUrl'>,
  realm: RealmModel,
  t: ActionTokenInput,
): Promise<{ token: string; exp: number }> {
  const key = activeKey(await realmKeys(ctx.db, realm), 'RS256');
  if (!key?.privateKey) throw serverError();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + t.lifespan;
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const claims: ActionTokenClaims = { typ: t.typ, azp: t.clientId, eml: t.email };
  if (t.actions) claims.rqac = t.actions;
  if (t.redirectUri) claims.reduri = t.redirectUri;
  if (t.authSessionId) claims.asid = t.authSessionId;
  if (t.idpAlias) claims.idpalias = t.idpAlias;
  if (t.idpUsername) claims.idpu = t.idpUsername;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setIssuer(issuer)
    .setAudience(issuer)
    .setSubject(t.userId)
    .sign(key.privateKey);
  return { token, exp };
}

/** `<base>/realms/<realm>/login-actions/action-token?key=<token>&client_id=<clientId>[&tab_id=<tab>]`. */
export function actionTokenLink(
  ctx: Pick<RequestContext, 'baseUrl'>,
  realm: RealmModel,
  token: string,
  clientId: string,
  tabId?: string,
): string {
  const q = new URLSearchParams({ key: token, client_id: clientId, ...(tabId ? { tab_id: tabId } : {}) });
  return `${issuerOf(ctx.baseUrl, realm.name)}/login-actions/action-token?${q.toString()}`;
}
