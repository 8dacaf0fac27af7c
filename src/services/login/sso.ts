import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { activeKey, realmKeys, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { findActiveSession, sessionTimeouts } from '../sessions/session-store';
import { userOrTransient } from '../user-storage/transient-users';

/**
 * The browser's single sign-on: KEYCLOAK_IDENTITY is a token signed with the realm's HMAC key that
 * names the user session; it is worth something only while that session row is active (logged out
 * through the admin API, expired, or the user disabled: the cookie no longer signs anyone in).
 * KEYCLOAK_SESSION carries a hash of the session id, readable by scripts as Keycloak's is.
 */
const IDENTITY_TYPE = 'Serialized-ID';

async function hmacKey(db: Db, realm: RealmModel): Promise<Uint8Array | undefined> {
  const key = activeKey(await realmKeys(db, realm), 'HS512');
  return key?.secret as Uint8Array | undefined;
}

/** The KEYCLOAK_IDENTITY value of a user session and its lifetime in seconds (the session's max lifespan). */
export async function identityCookieValue(db: Db, realm: RealmModel, s: UserSessionModel): Promise<{ value: string; maxAge: number }> {
  const key = await hmacKey(db, realm);
  if (!key) throw new Error('The realm has no active HMAC key');
  const { max } = sessionTimeouts(realm, false, s.rememberMe);
  const iat = nowSeconds();
  const maxAge = max > 0 ? Math.max(1, s.started + max - iat) : 36000;
  const value = await new SignJWT({ typ: IDENTITY_TYPE, sid: s.id, sub: s.userId })
    .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + maxAge)
    .sign(key);
  return { value, maxAge };
}

/** KEYCLOAK_SESSION: a hash of the session id (never the id itself). */
/** When the user last proved who they are in this SSO session: a later sign-in (AUTH_TIME note), else its start. */
export function authTimeOf(s: UserSessionModel): number {
  const n = Number(s.notes?.AUTH_TIME);
  return Number.isInteger(n) && n > 0 ? n : s.started;
}

export const sessionCookieValue = (s: UserSessionModel) => createHash('sha256').update(s.id).digest('base64url');

/** The active session and enabled user a KEYCLOAK_IDENTITY cookie names, or null. */
export async function ssoFromCookie(
  db: Db,
  realm: RealmModel,
  cookie: string | undefined,
): Promise<{ session: UserSessionModel; user: UserModel } | null> {
  if (!cookie || cookie.length > 4096) return null;
  let claims: JWTPayload | undefined;
  for (const k of verificationKeys(await realmKeys(db, realm), 'HS512')) {
    try {
      claims = (await jwtVerify(cookie, k.secret as Uint8Array, { algorithms: ['HS512'] })).payload;
      break;
    } catch {
      // Next key (a rotated one), or not ours.
    }
  }
  if (!claims || claims.typ !== IDENTITY_TYPE || typeof claims.sid !== 'string') return null;
  const session = await findActiveSession(db, realm, claims.sid);
  if (!session || session.offline || session.userId !== claims.sub) return null;
  const user = await userOrTransient(db, realm, session.userId, (id) => db.models.User.findByPk(id));
  if (!user?.enabled || user.realmId !== realm.id) return null;
  if (Number(claims.iat ?? 0) < Math.max(user.notBefore ?? 0, Number(realm.settings.notBefore ?? 0))) return null;
  return { session, user };
}

/** A token binding a logout confirmation form to the browser's session (no row needed: an HMAC of what it confirms). */
export async function logoutConfirmToken(db: Db, realm: RealmModel, sessionId: string, what: string): Promise<string> {
  const key = await hmacKey(db, realm);
  if (!key) return '';
  return createHmac('sha256', key).update(`logout|${sessionId}|${what}`).digest('base64url');
}

/** True when `token` is the confirmation token of this session and request. */
export async function checkLogoutConfirmToken(db: Db, realm: RealmModel, sessionId: string, what: string, token: string): Promise<boolean> {
  const expected = Buffer.from(await logoutConfirmToken(db, realm, sessionId, what));
  const got = Buffer.from(token);
  return expected.length > 0 && expected.length === got.length && timingSafeEqual(expected, got);
}
