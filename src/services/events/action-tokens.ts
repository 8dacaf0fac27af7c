import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { RealmModel } from '../../db/models/realm';
import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { RequestContext } from '../../core/context';
import { signToken } from '../tokens/signing';

/**
 * Signed action tokens (reference §4.14): a JWT signed with the realm's active HS512 key, as
 * Keycloak signs its action tokens (TokenCategory.INTERNAL; not in the realm's JWKS), carrying `typ` (`execute-actions`, `verify-email`), `sub`
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
  const iat = nowSeconds();
  const exp = iat + t.lifespan;
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const claims: ActionTokenClaims & JWTPayload = {
    jti: randomUUID(),
    iat,
    exp,
    iss: issuer,
    aud: issuer,
    sub: t.userId,
    typ: t.typ,
    azp: t.clientId,
    eml: t.email,
  };
  if (t.actions) claims.rqac = t.actions;
  if (t.redirectUri) claims.reduri = t.redirectUri;
  if (t.authSessionId) claims.asid = t.authSessionId;
  if (t.idpAlias) claims.idpalias = t.idpAlias;
  if (t.idpUsername) claims.idpu = t.idpUsername;
  // Keycloak's DefaultActionToken.serialize: session.tokens().encode, category INTERNAL (HS512).
  const { jwt } = await signToken(ctx.db, realm, undefined, 'internal', claims);
  return { token: jwt, exp };
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
