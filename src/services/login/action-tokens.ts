import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { BaseEventTypeName } from '../../keycloak/event-types';
import { isValidRedirectUri } from '../events/user-emails';
import { publicRealm } from '../tokens/oidc-metadata';
import { TokenEvent } from '../tokens/token-events';
import { ACTION_NOTES, isActionTokenUsed, markActionTokenUsed } from './action-token-store';
import { createAuthSession, dataOf, findAuthSession, loginLifespan, saveAuthSession, userActionLifespan } from './auth-sessions';
import { type BrowserRequest, type BrowserResponse, type CookieOp, realmPage, resumeLogin, rootOf, signRoot } from './login';
import { isResetLogin, LINK_USER, RESET_NOTES, RESET_PATH, resetAllowed } from './reset-credentials';
import { markEmailVerified } from './verify-email';
import { organizationInvitationLink } from './org-invitation-token';
import { confirmAccountLink, IDP_LINK_TYP } from './broker/idp-email-verification';

/**
 * GET /realms/{realm}/login-actions/action-token?key=... (Keycloak's LoginActionsService
 * .executeActionToken): the links of the e-mails. The token is checked in Keycloak's order: present and
 * readable, of a known type, not expired, signed by the realm, not used before, its user and client
 * present and enabled, its e-mail the user's, its redirect URI one of the client's. Then:
 *  - verify-email marks the address verified at once (and the token used); when the browser is the
 *    one whose login sent the mail (`asid`), that login continues;
 *  - execute-actions marks the address verified (the mail reached it) and runs the token's required
 *    actions, then the user's own, with the login's required-action pages;
 *  - an organization invitation (ORGIVT) asks to confirm, then makes the user a member
 *    (org-invitation-token.ts);
 * and such a login ends with "account updated" (or "e-mail verified") and a link back to the
 * admin-given redirect URI; the token is recorded as used then (src/services/login/action-token-store.ts).
 */

type Typ = 'execute-actions' | 'verify-email' | 'reset-credentials' | 'ORGIVT' | typeof IDP_LINK_TYP;

/** Per type: the event, and the error and message of a failed check (Keycloak's handler defaults). */
const HANDLERS: Record<Typ, { event: BaseEventTypeName; error: string; message: string; done: string }> = {
  'execute-actions': { event: 'EXECUTE_ACTIONS', error: 'not_allowed', message: 'invalidCodeMessage', done: 'accountUpdatedMessage' },
  'verify-email': { event: 'VERIFY_EMAIL', error: 'invalid_token', message: 'staleEmailVerificationLink', done: 'emailVerifiedMessage' },
  [IDP_LINK_TYP]: {
    event: 'IDENTITY_PROVIDER_LINK_ACCOUNT',
    error: 'invalid_token',
    message: 'staleCodeMessage',
    done: 'accountUpdatedMessage',
  },
  'reset-credentials': {
    event: 'RESET_PASSWORD',
    error: 'not_allowed',
    message: 'resetCredentialNotAllowedMessage',
    done: 'accountUpdatedMessage',
  },
  ORGIVT: { event: 'INVITE_ORG', error: 'invalid_token', message: 'staleInviteOrgLink', done: 'accountUpdatedMessage' },
};

/**
 * The token's claims when one of the realm's keys signed it, found by the header's `alg` and `kid`
 * as Keycloak's action-token handling does (the SignatureProvider of the header's algorithm): HS512,
 * what action tokens are signed with, and RS256, what this server signed them with before, so links
 * sent then still work. The time is checked by the caller.
 */
export async function signedBy(db: Db, realm: RealmModel, key: string): Promise<JWTPayload | undefined> {
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(key);
  } catch {
    return undefined;
  }
  const alg = header.alg;
  if (alg !== 'HS512' && alg !== 'RS256') return undefined;
  for (const k of verificationKeys(await realmKeys(db, realm), alg, header.kid)) {
    const material = alg === 'HS512' ? k.secret : k.publicKey;
    if (!material) continue;
    try {
      const { payload } = await compactVerify(key, material as unknown as Uint8Array, { algorithms: [alg] });
      return JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
    } catch {
      /* the next key */
    }
  }
  return undefined;
}

export async function actionToken(db: Db, req: BrowserRequest): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  let ev = new TokenEvent(db, realm, 'EXECUTE_ACTION_TOKEN', req.ipAddress);
  ev.clientId = req.params.client_id ?? null;
  const fail = async (error: string, key: string) => {
    await ev.error(error);
    return realmPage(db, realm, req, { page: 'error', status: 400, message: { key } });
  };
  const key = req.params.key;
  if (!key || key.length > 8192) return fail('not_allowed', 'invalidRequestMessage');
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(key);
  } catch {
    return fail('not_allowed', 'invalidRequestMessage');
  }
  const typ = unverified.typ as Typ;
  const handler = typeof typ === 'string' ? HANDLERS[typ] : undefined;
  if (!handler || !Object.hasOwn(HANDLERS, typ)) return fail('not_allowed', 'invalidRequestMessage');
  ev.userId = typeof unverified.sub === 'string' ? unverified.sub : null;
  if (typeof unverified.exp !== 'number' || unverified.exp < nowSeconds())
    return fail('expired_code', 'expiredActionTokenNoSessionMessage');

  // From here on the event is the handler's (EXECUTE_ACTIONS_ERROR, VERIFY_EMAIL_ERROR ...).
  const typed = new TokenEvent(db, realm, handler.event, req.ipAddress);
  typed.clientId = ev.clientId;
  typed.userId = ev.userId;
  ev = typed;
  const claims = await signedBy(db, realm, key);
  const iss = issuerOf(req.baseUrl, realm.name);
  if (!claims || claims.iss !== iss || claims.typ !== typ || typeof claims.jti !== 'string' || typeof claims.sub !== 'string')
    return fail(handler.error, handler.message);
  ev.detail('token_id', claims.jti);
  if (await isActionTokenUsed(db, claims.jti)) return fail('expired_code', 'expiredActionMessage');
  const user = await db.models.User.findOne({ where: { id: claims.sub, realmId: realm.id } });
  if (!user) return fail('user_not_found', 'invalidUserMessage');
  ev.detail('username', user.username);
  if (!user.enabled) return fail('user_disabled', 'accountDisabledMessage');
  const client = await db.models.Client.findOne({ where: { realmId: realm.id, clientId: String(claims.azp ?? '') } });
  if (!client) return fail('client_not_found', 'unknownLoginRequesterMessage');
  ev.clientId = client.clientId;
  if (!client.enabled) return fail('client_disabled', 'loginRequesterNotEnabledMessage');
  if (claims.eml !== user.email) return fail('invalid_email', handler.message);
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  // An invitation's redirect URI is the organization's own, not one of the account client's (Keycloak 26 follows it as is).
  if (typ === 'ORGIVT') return organizationInvitationLink(db, realm, req, claims, user, client, ev, root);
  const redirectUri = typeof claims.reduri === 'string' ? claims.reduri : undefined;
  if (redirectUri && !isValidRedirectUri(client, redirectUri, req.baseUrl))
    return fail('invalid_redirect_uri', 'invalidRedirectUriMessage');
  if (typ === 'reset-credentials' && !resetAllowed(realm)) return fail(handler.error, handler.message);
  const exp = Number(claims.exp);

  if (typ === IDP_LINK_TYP) {
    // Only in the browser of the first broker login that mailed it (Keycloak also confirms in another one).
    const asid = typeof claims.asid === 'string' ? claims.asid : undefined;
    const origin = root && asid ? await findAuthSession(db, realm, root, asid) : null;
    const resumed = await confirmAccountLink(db, realm, origin, user, claims, ev);
    if (!resumed) return fail('invalid_token', handler.message);
    await markActionTokenUsed(db, realm, claims.jti, exp);
    return resumeLogin(db, realm, req, resumed);
  }
  if (typ === 'verify-email') {
    if (!(await markActionTokenUsed(db, realm, claims.jti, exp))) return fail('expired_code', 'expiredActionMessage');
    await markEmailVerified(db, user);
    ev.detail('email', user.email);
    await ev.success();
    // The mail a login sent, followed in that login's browser: the login goes on.
    const asid = typeof claims.asid === 'string' ? claims.asid : undefined;
    const origin = root && asid ? await findAuthSession(db, realm, root, asid) : null;
    if (origin && origin.userId === user.id) return resumeLogin(db, realm, req, origin);
  } else if (typ === 'reset-credentials') {
    // The "forgot password" login of this browser that mailed the link: its flow goes on to the new password.
    const asid = typeof claims.asid === 'string' ? claims.asid : undefined;
    const origin = root && asid ? await findAuthSession(db, realm, root, asid) : null;
    const originData = origin ? dataOf(origin) : undefined;
    if (origin && originData && origin.userId === user.id && isResetLogin({ data: originData })) {
      if (!(await markActionTokenUsed(db, realm, claims.jti, exp))) return fail('expired_code', 'expiredActionMessage');
      const execution = originData.notes[RESET_NOTES.EMAIL_EXECUTION];
      if (execution) originData.statuses[execution] = 'SUCCESS';
      await saveAuthSession(db, origin, userActionLifespan(realm), originData);
      return resumeLogin(db, realm, req, origin);
    }
  } else if (!user.emailVerified) {
    // The mail reached the user: the address is theirs (Keycloak's ExecuteActionsActionTokenHandler).
    user.emailVerified = true;
    await user.save();
  }

  // A login of its own for the link: the token's actions, then the page that ends it.
  const request = {
    client_id: client.clientId,
    redirect_uri: redirectUri ?? '',
    redirect_uri_param: redirectUri ?? '',
    response_type: 'code',
    response_mode: 'query',
  };
  const authSession = await createAuthSession(db, realm, root, client.id, request);
  const data = dataOf(authSession);
  // A reset link runs the realm's reset flow for its user (Keycloak's ResetCredentialsActionTokenHandler):
  // choose-user and the mail pass, reset-password and reset-otp add their actions; other links only run actions.
  if (typ === 'reset-credentials') data.notes[LINK_USER] = user.id;
  else data.notes.FLOW_DONE = 'true';
  data.notes[ACTION_NOTES.END_AFTER_REQUIRED_ACTIONS] = 'true';
  data.notes[ACTION_NOTES.TOKEN_TYPE] = typ;
  if (typ === 'reset-credentials') data.notes[RESET_NOTES.FLOW_PATH] = RESET_PATH;
  data.notes[ACTION_NOTES.DONE_MESSAGE] = handler.done;
  if (typ !== 'verify-email') {
    data.notes[ACTION_NOTES.TOKEN_ID] = claims.jti;
    data.notes[ACTION_NOTES.TOKEN_EXP] = String(exp);
  }
  if (redirectUri) data.notes[ACTION_NOTES.REDIRECT_URI] = redirectUri;
  const actions = Array.isArray(claims.rqac) ? claims.rqac.map(String) : [];
  data.notes[ACTION_NOTES.TOKEN_ACTIONS] = JSON.stringify(typ === 'reset-credentials' ? [] : actions);
  authSession.userId = user.id;
  await saveAuthSession(db, authSession, userActionLifespan(realm), data);
  const cookies: CookieOp[] = root
    ? []
    : [{ name: 'AUTH_SESSION_ID', value: await signRoot(db, realm, authSession.rootId), maxAge: -1, httpOnly: true }];
  const out = await resumeLogin(db, realm, req, authSession);
  return { ...out, cookies: [...cookies, ...out.cookies] };
}

/**
 * GET /realms/{realm}/login-actions/reset-credentials?client_id=...&tab_id=... ("Forgot password?"):
 * the login of this tab (or, without one, a new login of the client that ends on a page) runs the
 * realm's reset-credentials flow from its start.
 */
export async function resetCredentials(db: Db, req: BrowserRequest): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'RESET_PASSWORD', req.ipAddress);
  ev.clientId = req.params.client_id ?? null;
  const fail = async (error: string, key: string) => {
    await ev.error(error);
    return realmPage(db, realm, req, { page: 'error', status: 400, message: { key } });
  };
  if (!resetAllowed(realm)) return fail('not_allowed', 'resetCredentialNotAllowedMessage');
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  let authSession = root && req.params.tab_id ? await findAuthSession(db, realm, root, req.params.tab_id) : null;
  const cookies: CookieOp[] = [];
  let endAfter = false;
  if (!authSession) {
    const client = req.params.client_id
      ? await db.models.Client.findOne({ where: { realmId: realm.id, clientId: req.params.client_id } })
      : null;
    if (!client) return fail('client_not_found', 'clientNotFoundMessage');
    if (!client.enabled) return fail('client_disabled', 'clientDisabledMessage');
    const request = { client_id: client.clientId, redirect_uri: '', redirect_uri_param: '', response_type: 'code', response_mode: 'query' };
    authSession = await createAuthSession(db, realm, root, client.id, request);
    endAfter = true;
    if (!root) cookies.push({ name: 'AUTH_SESSION_ID', value: await signRoot(db, realm, authSession.rootId), maxAge: -1, httpOnly: true });
  }
  const data = dataOf(authSession);
  endAfter ||= Boolean(data.notes[ACTION_NOTES.END_AFTER_REQUIRED_ACTIONS]);
  data.statuses = {};
  data.notes = { [RESET_NOTES.FLOW_PATH]: RESET_PATH };
  if (endAfter) {
    data.notes[ACTION_NOTES.END_AFTER_REQUIRED_ACTIONS] = 'true';
    data.notes[ACTION_NOTES.TOKEN_TYPE] = 'reset-credentials';
  }
  authSession.userId = null;
  await saveAuthSession(db, authSession, loginLifespan(realm), data);
  const out = await resumeLogin(db, realm, req, authSession);
  return { ...out, cookies: [...cookies, ...out.cookies] };
}
