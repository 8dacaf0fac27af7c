import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { Op } from 'sequelize';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { clock, nowSeconds } from '../../core/clock';
import { effectiveRoleIdsForUsers } from '../../core/effective-roles';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { fastRows } from '../../loaders';
import { USER_VERSION, userWithVersion, versionedUser } from './client-config-cache';
import { recordLoginSuccess } from '../sessions/brute-force';
import { createSession, findActiveSession, type NewSession, touchSession } from '../sessions/session-store';
import { passwordExpired } from '../users/password-policy';
import { refreshBindingError } from './token-binding';
import { countRefreshUse, NO_CLIENT_SESSION, REUSE_ID_CLAIM, revokesRefreshTokens } from './refresh-reuse';
import { consentStillCovers } from '../login/consent';
import { verifyProfilePending } from '../login/update-profile';
import { runDirectGrant } from '../login/direct-grant';
import { realmRequiredActions } from '../login/flow-definitions';
import { HttpError } from '../../core/errors';
import type { TokenEvent } from './token-events';
import { grantedScope, issue, oauth, setting, type TokenRequest, type TokenResponse } from './tokens';
import { userOrTransient, withTransientDefaults } from '../user-storage/transient-users';

/**
 * The grants of the token endpoint (reference §2.1–2.3, §8.3): password (with brute-force
 * detection), client_credentials and refresh_token. Each creates or refreshes a session row (except
 * client_credentials without `client_credentials.use_refresh_token`, whose session is transient, as
 * Keycloak's) and fills the request's user event.
 */
const ids = (res: TokenResponse) => ({
  token_id: String(decodeJwt(res.access_token).jti ?? ''),
  refresh_token_id: res.refresh_token ? String(decodeJwt(res.refresh_token).jti ?? '') : undefined,
  refresh_token_type: res.refresh_token ? String(decodeJwt(res.refresh_token).typ ?? '') : undefined,
});

/** True when the user holds the realm's `offline_access` role (directly, by composite or by group). */
export async function mayGoOffline(db: Db, realm: RealmModel, user: UserModel): Promise<boolean> {
  const effective =
    (await withTransientDefaults(db, [user], await effectiveRoleIdsForUsers(db, [user.id]))).get(user.id) ?? new Set<string>();
  if (!effective.size) return false;
  const role = await db.models.Role.findOne({
    where: { containerId: realm.id, clientId: null, name: 'offline_access', id: { [Op.in]: [...effective] } },
    attributes: ['id'],
  });
  return Boolean(role);
}

/** Whether the realm's UPDATE_PASSWORD required action is enabled (an expired password only forces it then). */
async function updatePasswordEnabled(db: Db, realm: RealmModel): Promise<boolean> {
  return Boolean((await realmRequiredActions(db, realm)).find((d) => d.alias === 'UPDATE_PASSWORD')?.enabled);
}

const offlineRequested = (scope: string) => scope.split(' ').includes('offline_access');

/** One grant of the token endpoint: the realm, the authenticated client, the request and its user event. */
export interface GrantCall {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  req: TokenRequest;
  ev: TokenEvent;
}

/** A login (password or client_credentials): a new session, its tokens, and the success event with their ids. */
async function loggedIn(
  { db, realm, client, req, ev }: GrantCall,
  user: UserModel,
  scope: string,
  session: Pick<NewSession, 'offline' | 'notes'>,
  withRefresh: boolean,
): Promise<TokenResponse> {
  const s = await createSession(db, realm, { user, client, ipAddress: req.ipAddress, authMethod: 'openid-connect', ...session });
  ev.sessionId = s.id;
  return succeeded(ev, await issue({ db, realm, client, user, session: s, scope, req }, withRefresh), scope);
}

/** The success event of a grant, with the ids of the tokens it issued. */
async function succeeded(ev: TokenEvent, res: TokenResponse, scope: string): Promise<TokenResponse> {
  for (const [k, v] of Object.entries({ ...ids(res), scope })) ev.detail(k, v);
  await ev.success();
  return res;
}

/**
 * grant_type=password: the realm's direct grant flow (or the client's override) through the flow
 * engine (login/direct-grant.ts), then what Keycloak's ResourceOwnerPasswordCredentialsGrantType checks
 * after it: pending required actions (an expired password, VERIFY_PROFILE), offline access.
 */
export async function passwordGrant(g: GrantCall): Promise<TokenResponse> {
  const { db, realm, client, req, ev } = g;
  ev.detail('auth_method', 'openid-connect').detail('grant_type', 'password').detail('client_auth_method', 'client-secret');
  if (!client.directAccessGrantsEnabled)
    throw await ev.fail('not_allowed', oauth(400, 'unauthorized_client', 'Client not allowed for direct access grants'));
  if (client.settings.consentRequired === true)
    throw await ev.fail('consent_denied', oauth(400, 'invalid_client', 'Client requires user consent'));
  const run = await runDirectGrant({ db, realm, client, form: req.form, ev, ipAddress: req.ipAddress });
  if (run.kind === 'failure') {
    const { status, error, description } = run.reply;
    throw await ev.fail(
      run.event,
      new HttpError(status, description === undefined ? { error } : { error, error_description: description }),
    );
  }
  const { user } = run;
  ev.userId = user.id;
  const pending = await db.models.UserRequiredAction.count({ where: { userId: user.id } });
  const expired =
    run.passwordDate !== undefined && passwordExpired(realm, run.passwordDate, clock.now()) && (await updatePasswordEnabled(db, realm));
  if (pending > 0 || expired || (await verifyProfilePending(db, realm, user, req.form.scope ?? '')))
    throw await ev.fail('resolve_required_actions', oauth(400, 'invalid_grant', 'Account is not fully set up'));
  const scope = await grantedScope(db, client, req.form.scope);
  const offline = offlineRequested(scope);
  if (offline && !(await mayGoOffline(db, realm, user)))
    throw await ev.fail('not_allowed', oauth(400, 'not_allowed', 'Offline tokens not allowed for the user or client'));
  await recordLoginSuccess(db, realm, user);
  // The level the direct grant flow reached is the acr claim's (the `loa:<client id>` note, as a browser login's: acr.ts).
  const notes = run.level === undefined ? undefined : { [`loa:${client.id}`]: JSON.stringify({ l: run.level }) };
  return loggedIn(g, user, scope, { offline, ...(notes ? { notes } : {}) }, true);
}

/** grant_type=client_credentials: the client's service-account user. */
export async function clientCredentialsGrant(g: GrantCall): Promise<TokenResponse> {
  const { db, realm, client, req, ev } = g;
  ev.detail('grant_type', 'client_credentials').detail('client_auth_method', 'client-secret');
  if (client.publicClient)
    throw await ev.fail('invalid_client', oauth(400, 'unauthorized_client', 'Public client not allowed to retrieve service account'));
  if (!client.serviceAccountsEnabled)
    throw await ev.fail('invalid_client', oauth(400, 'unauthorized_client', 'Client not enabled to retrieve service account'));
  const [row] = await fastRows<UserModel>(
    db,
    db.models.User,
    't.realm_id = :realm AND t.service_account_client_link = :client',
    { realm: realm.id, client: client.id },
    '',
    USER_VERSION,
  );
  // With its cache version: the roles and groups of its tokens are kept under it (client-config-cache.ts).
  const user = row ? versionedUser(row) : undefined;
  if (user) ev.userId = user.id;
  if (!user?.enabled) throw await ev.fail('user_disabled', oauth(400, 'invalid_request', 'User for this service account is disabled'));
  ev.detail('username', user.username);
  const scope = await grantedScope(db, client, req.form.scope);
  const attributes = (client.settings.attributes ?? {}) as Record<string, string>;
  if (attributes['client_credentials.use_refresh_token'] === 'true')
    return loggedIn(g, user, scope, { offline: false, notes: { clientId: client.clientId } }, true);
  // Keycloak's default: a transient session (KEYCLOAK-9551). Nothing is stored, the access token has no
  // `sid` and no refresh token comes with it; the event still names the transient session's id.
  ev.sessionId = randomUUID();
  return succeeded(ev, await issue({ db, realm, client, user, scope, req }, false), scope);
}

/** A token `issue` signed, signed again with the same key and `extra` claims added. */
async function withClaims(db: Db, realm: RealmModel, token: string, extra: JWTPayload): Promise<string> {
  const header = decodeProtectedHeader(token);
  const key = (await realmKeys(db, realm)).find((k) => k.kid === header.kid && k.algorithm === header.alg);
  if (!key) return token;
  return new SignJWT({ ...decodeJwt(token), ...extra })
    .setProtectedHeader({ alg: String(header.alg), typ: 'JWT', kid: key.kid })
    .sign((key.privateKey ?? key.secret) as Uint8Array);
}

/**
 * grant_type=refresh_token: a live session of the token's user, refreshed. The refresh token of an
 * RPT (UMA grant) carries its `authorization`: the new access token carries it too, as Keycloak's
 * refreshAccessToken does, and so does the new refresh token, so the next refresh keeps it.
 */
export async function refreshGrant(g: GrantCall): Promise<TokenResponse> {
  const { db, realm, client, req, ev } = g;
  ev.detail('grant_type', 'refresh_token').detail('client_auth_method', 'client-secret');
  const invalid = () => oauth(400, 'invalid_grant', 'Invalid refresh token');
  const token = req.form.refresh_token;
  if (!token) throw await ev.fail('invalid_request', oauth(400, 'invalid_request', 'Missing form parameter: refresh_token'));
  // Signed with one of the realm's enabled HS512 keys (a rotated, now passive key still verifies), by its kid.
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw await ev.fail('invalid_token', invalid());
  }
  let claims: JWTPayload | undefined;
  for (const key of verificationKeys(await realmKeys(db, realm), 'HS512', kid)) {
    if (!key.secret) continue;
    try {
      claims = (await jwtVerify(token, key.secret, { algorithms: ['HS512'] })).payload;
      break;
    } catch {
      /* the next key */
    }
  }
  if (!claims) throw await ev.fail('invalid_token', invalid());
  const offline = claims.typ === 'Offline';
  if (claims.typ !== 'Refresh' && !offline) throw await ev.fail('invalid_token', invalid());
  ev.userId = claims.sub ? String(claims.sub) : null;
  ev.sessionId = claims.sid ? String(claims.sid) : null;
  ev.detail('refresh_token_id', claims.jti ? String(claims.jti) : undefined).detail('refresh_token_type', String(claims.typ));
  if (claims.azp !== client.clientId)
    throw await ev.fail(
      'invalid_token',
      oauth(400, 'invalid_grant', "Invalid refresh token. Token client and authorized client don't match"),
    );
  const bound = refreshBindingError(client, claims, req);
  if (bound) throw await ev.fail('invalid_token', oauth(400, bound.error, bound.description));
  const session = claims.sid ? await findActiveSession(db, realm, String(claims.sid)) : null;
  if (!session || session.offline !== offline) {
    const text = offline ? 'Offline user session not found' : 'Session not active';
    throw await ev.fail(offline ? 'invalid_token' : 'session_expired', oauth(400, 'invalid_grant', text));
  }
  const user = await userOrTransient(db, realm, session.userId, (id) => userWithVersion(db, id));
  // The session's user, as Keycloak's validateToken (a pairwise client's refresh token carries its pairwise sub).
  if (!user?.enabled) throw await ev.fail('user_disabled', oauth(400, 'invalid_grant', 'Session not active'));
  ev.userId = user.id;
  // Keycloak's validateToken: the client's part in the session must still be there. A revoked one
  // (token revocation, a revoked consent, a refused reuse) is refused, never brought back.
  if (!(await db.models.ClientSession.count({ where: { userSessionId: session.id, clientId: client.id } })))
    throw await ev.fail('invalid_token', oauth(400, 'invalid_grant', NO_CLIENT_SESSION));
  if (Number(claims.iat ?? 0) < Math.max(user.notBefore, setting(realm, 'notBefore', 0)))
    throw await ev.fail('invalid_token', oauth(400, 'invalid_grant', 'Stale token'));
  const scope = String(claims.scope ?? '');
  // Keycloak's verifyConsentStillAvailable: a revoked consent ends the refresh of what was issued on it.
  if (!(await consentStillCovers(db, user, client, scope)))
    throw await ev.fail('not_allowed', oauth(400, 'invalid_scope', 'Client no longer has requested consent from user'));
  // Keycloak's validateTokenReuseForRefresh, after validateToken and before the new tokens (and so
  // before the client policies' TOKEN_REFRESH_RESPONSE executors, suppress-refresh-token-rotation).
  const revoking = revokesRefreshTokens(realm);
  const iat = nowSeconds();
  if (revoking) {
    const refused = await countRefreshUse(db, realm, session.id, client.id, claims, iat);
    if (refused) {
      ev.userId = null; // Keycloak names the user only once the reuse check passed
      throw await ev.fail('invalid_token', oauth(400, 'invalid_grant', refused));
    }
  }
  // The use's count wrote the client session's timestamp; else it is marked used (never recreated).
  await touchSession(db, session, client.id, revoking ? 'none' : 'update');
  const reuseId = typeof claims[REUSE_ID_CLAIM] === 'string' ? (claims[REUSE_ID_CLAIM] as string) : null;
  const res = await issue({ db, realm, client, user, session, scope, req, iat, reuseId }, true);
  if (claims.authorization && typeof claims.authorization === 'object') {
    const authorization = claims.authorization as JWTPayload;
    res.access_token = await withClaims(db, realm, res.access_token, { authorization });
    if (res.refresh_token) res.refresh_token = await withClaims(db, realm, res.refresh_token, { authorization });
  }
  const fresh = ids(res);
  ev.detail('token_id', fresh.token_id).detail('updated_refresh_token_id', fresh.refresh_token_id).detail('scope', scope);
  await ev.success();
  return res;
}
