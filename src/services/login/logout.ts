import { compactVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import { clientPoliciesOnAuthorization } from '../client-policies';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { findActiveSession, removeSessions } from '../sessions/session-store';
import { clientsOfSessions, frontchannelCallUrl, notifyBackchannel } from '../sessions/logout-notify';
import { publicRealm } from '../tokens/oidc-metadata';
import { TokenEvent } from '../tokens/token-events';
import { type BrowserRequest, type BrowserResponse, type CookieOp, realmPage } from './login';
import { matchesRedirect, postLogoutRedirectUris } from './redirect-uris';
import { checkLogoutConfirmToken, logoutConfirmToken, ssoFromCookie } from './sso';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0, as Keycloak serves it): GET/POST
 * /realms/{realm}/protocol/openid-connect/logout with id_token_hint, post_logout_redirect_uri,
 * state, client_id. With a valid id_token_hint the SSO session ends at once; without one the user
 * confirms first (a form bound to the browser's session by an HMAC). The post-logout redirect URI
 * must match the client's `post.logout.redirect.uris` (`+`: its redirect URIs).
 */

/** The claims of an ID token this realm signed (expired ones too: a hint may be old), or undefined. */
async function verifiedHint(db: Db, realm: RealmModel, token: string, iss: string): Promise<JWTPayload | undefined> {
  if (token.length > 16384) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    for (const k of verificationKeys(await realmKeys(db, realm), String(header.alg), header.kid)) {
      if (!k.publicKey) continue;
      try {
        const { payload } = await compactVerify(token, k.publicKey);
        const claims = JSON.parse(Buffer.from(payload).toString('utf8')) as JWTPayload;
        return claims.iss === iss ? claims : undefined;
      } catch {
        // Next key.
      }
    }
  } catch {
    // Not a JWS.
  }
  return undefined;
}

const CLEAR: CookieOp[] = [
  { name: 'KEYCLOAK_IDENTITY', value: '', maxAge: 0, httpOnly: true },
  { name: 'KEYCLOAK_SESSION', value: '', maxAge: 0, httpOnly: false },
];

/** GET/POST .../logout (confirmed: the POST of the confirmation form, .../logout/logout-confirm). */
export async function logout(db: Db, req: BrowserRequest, confirmed: boolean): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const p = req.params;
  const iss = issuerOf(req.baseUrl, realm.name);
  const error = (key: string, ...params: string[]) =>
    realmPage(db, realm, req, { page: 'error', status: 400, message: { key, params } }, p.ui_locales);
  let hint: JWTPayload | undefined;
  if (p.id_token_hint) {
    hint = await verifiedHint(db, realm, p.id_token_hint, iss);
    if (!hint) return error('invalidParameterMessage', 'id_token_hint');
  }
  let client: ClientModel | null = null;
  const clientId = p.client_id || (hint?.azp ? String(hint.azp) : undefined);
  if (p.client_id && hint?.azp && p.client_id !== hint.azp) return error('invalidParameterMessage', 'client_id');
  if (clientId) {
    client = await db.models.Client.findOne({ where: { realmId: realm.id, clientId } });
    if (!client) return error('clientNotFoundMessage');
    const refused = await clientPoliciesOnAuthorization(db, realm, client, { ...p, http_method: req.method }, 'LOGOUT_REQUEST');
    if (refused) return error(refused.description);
  }
  const redirect = p.post_logout_redirect_uri;
  if (redirect) {
    if (!client) return error('missingParameterMessage', 'client_id');
    if (redirect.includes('#') || !matchesRedirect(redirect, postLogoutRedirectUris(client, req.baseUrl)))
      return error('invalidRedirectUriMessage');
  }
  const sso = await ssoFromCookie(db, realm, req.cookies.KEYCLOAK_IDENTITY);
  const what = [redirect ?? '', p.state ?? '', client?.clientId ?? ''].join('|');
  if (!hint && sso) {
    if (!confirmed) {
      const fields: Record<string, string> = { session_code: await logoutConfirmToken(db, realm, sso.session.id, what) };
      if (redirect) fields.post_logout_redirect_uri = redirect;
      if (p.state) fields.state = p.state;
      if (client) fields.client_id = client.clientId;
      return realmPage(
        db,
        realm,
        req,
        { page: 'logout-confirm', status: 200, action: `${iss}/protocol/openid-connect/logout/logout-confirm`, fields },
        p.ui_locales,
      );
    }
    if (!(await checkLogoutConfirmToken(db, realm, sso.session.id, what, p.session_code ?? ''))) return error('staleCodeMessage');
  }
  // The session to end: the browser's, else the one the hint names (a browser that lost its cookie).
  let session = sso?.session ?? null;
  if (!session && hint?.sid) {
    const named = await findActiveSession(db, realm, String(hint.sid));
    // As Keycloak's LogoutEndpoint: the session the hint names (its `sub` may be a pairwise one).
    if (named) session = named;
  }
  let front: Array<{ name: string; url: string }> = [];
  if (session) {
    const clients = await clientsOfSessions(db, [session]);
    await removeSessions(db, [session.id]);
    const sid = session.id;
    front = clients.flatMap(({ client: c }) => {
      const url = frontchannelCallUrl(c, iss, sid);
      return url ? [{ name: c.name || c.clientId, url }] : [];
    });
    await notifyBackchannel(db, realm, req.baseUrl, clients, true);
    const ev = new TokenEvent(db, realm, 'LOGOUT', req.ipAddress);
    ev.userId = session.userId;
    ev.sessionId = session.id;
    ev.clientId = client?.clientId ?? null;
    ev.detail('redirect_uri', redirect);
    await ev.success();
  }
  const location =
    redirect && p.state ? `${redirect}${redirect.includes('?') ? '&' : '?'}${new URLSearchParams({ state: p.state })}` : redirect;
  if (front.length) {
    // Keycloak's FrontChannelLogoutHandler: the browser calls each client's URL, then goes on.
    const out = await realmPage(
      db,
      realm,
      req,
      { page: 'frontchannel-logout', status: 200, apps: front, redirect: location },
      p.ui_locales,
    );
    const frameSrc = [...new Set(front.map((f) => new URL(f.url).origin))];
    return { ...out, frameSrc, cookies: [...out.cookies, ...CLEAR] } as BrowserResponse;
  }
  if (location) return { kind: 'redirect', location, realm, cookies: CLEAR };
  const out = await realmPage(
    db,
    realm,
    req,
    { page: 'info', status: 200, title: { key: 'loggedOutTitle' }, message: { key: 'loggedOutMessage' } },
    p.ui_locales,
  );
  return { ...out, cookies: [...out.cookies, ...CLEAR] };
}
