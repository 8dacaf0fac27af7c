import { compactVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { isSessionActive } from '../sessions/session-store';
import { isTokenRevoked } from './revoked-tokens';
import { setting } from './tokens';
import { userOrTransient } from '../user-storage/transient-users';

/**
 * The checks the relying-party endpoints (userinfo, introspection, revocation) make on a token the
 * realm issued, written once: its signature with one of the realm's keys, its expiry, the client it
 * was issued to, not-before and revocation, and its user session (Keycloak's
 * UserSessionUtil.findValidSessionForAccessToken) with the user behind it. Each failure carries the
 * event error code Keycloak records for it; what the endpoint answers is the endpoint's business.
 */

/** A failed check: the event error code (Keycloak's `Errors`) and, where Keycloak gives one, a reason. */
export class TokenCheckFailure extends Error {
  constructor(
    readonly code: string,
    readonly reason?: string,
  ) {
    super(reason ?? code);
  }
}

const fail = (code: string, reason?: string) => new TokenCheckFailure(code, reason);

/**
 * The payload of a token signed by one of the realm's enabled keys (the algorithm and key id of its
 * header), or null: a garbled token, an unknown key, a bad signature. Expiry is not checked here
 * (revocation accepts an expired token; the others call `checkActive`).
 */
export async function verifiedPayload(db: Db, realm: RealmModel, token: string): Promise<JWTPayload | null> {
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return null;
  }
  if (!header.alg || header.alg === 'none') return null;
  for (const k of verificationKeys(await realmKeys(db, realm), header.alg, header.kid)) {
    const key = k.publicKey ?? k.secret;
    if (!key) continue;
    try {
      const { payload } = await compactVerify(token, key, { algorithms: [header.alg] });
      const claims = JSON.parse(new TextDecoder().decode(payload)) as unknown;
      return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as JWTPayload) : null;
    } catch {
      /* the next key of that algorithm, if any */
    }
  }
  return null;
}

/** Keycloak's IS_ACTIVE check: not expired (by the server clock), not used before its `nbf`. */
export function checkActive(claims: JWTPayload, now = nowSeconds()): void {
  if (typeof claims.exp === 'number' && claims.exp !== 0 && now > claims.exp) throw fail('invalid_token', 'Token is not active');
  if (typeof claims.nbf === 'number' && claims.nbf !== 0 && now < claims.nbf) throw fail('invalid_token', 'Token is not active');
}

/** The enabled client of the realm the token was issued to (`azp`). */
export async function tokenClient(db: Db, realm: RealmModel, claims: JWTPayload): Promise<ClientModel> {
  const clientId = typeof claims.azp === 'string' ? claims.azp : undefined;
  const client = clientId ? await db.models.Client.findOne({ where: { realmId: realm.id, clientId } }) : null;
  if (!client) throw fail('client_not_found', `Could not find client for ${clientId ?? ''}`);
  if (!client.enabled) throw fail('client_disabled', `Client with clientId ${client.clientId} is disabled`);
  return client;
}

/** Keycloak's NotBeforeCheck and TokenRevocationCheck: issued after the realm's and client's not-before, not revoked. */
export async function checkNotBeforeAndRevocation(db: Db, realm: RealmModel, client: ClientModel, claims: JWTPayload): Promise<void> {
  const notBefore = Math.max(setting(realm, 'notBefore', 0), Number(client.settings.notBefore ?? 0) || 0);
  if (Number(claims.iat ?? 0) < notBefore) throw fail('invalid_token', 'Stale token');
  if (await isTokenRevoked(db, typeof claims.jti === 'string' ? claims.jti : undefined)) throw fail('invalid_token', 'Token revoked');
}

/** What the mappers read of a session: its id (none for a transient one), notes and address. */
export type SessionFacts = Pick<UserSessionModel, 'notes' | 'ipAddress'> & { id?: string };

/** The live user session of the token (or the transient one of a token without `sid`) and the user. */
export interface TokenSession {
  session: SessionFacts;
  user: UserModel;
}

/**
 * The token's user session (`sid`), active, in the realm, with the client taking part in it, and
 * started before the token was issued; then its user, existing and enabled. Keycloak's codes:
 * `user_session_not_found`, `session_expired`, `invalid_token` (stale), `user_not_found`,
 * `user_disabled`. A token without `sid` comes from a transient session (client_credentials): as
 * Keycloak's createTransientSessionForClient, its subject must exist and be enabled, and the session
 * it stands for is made up on the spot, holding nothing.
 */
export async function tokenSession(db: Db, realm: RealmModel, client: ClientModel, claims: JWTPayload): Promise<TokenSession> {
  const sid = typeof claims.sid === 'string' ? claims.sid : undefined;
  if (!sid) {
    if (typeof claims.sub !== 'string') throw fail('user_session_not_found');
    return { session: { notes: {}, ipAddress: null }, user: await liveUser(db, realm, claims, claims.sub) };
  }
  const [session, part] = await Promise.all([
    db.models.UserSession.findByPk(sid),
    db.models.ClientSession.findOne({ where: { userSessionId: sid, clientId: client.id }, attributes: ['userSessionId'] }),
  ]);
  if (!session || session.realmId !== realm.id || !part) throw fail('user_session_not_found');
  if (!isSessionActive(realm, session)) throw fail('session_expired');
  // Keycloak's isIssuedBeforeSessionStart: a second's grace for clocks.
  if (Number(claims.iat ?? 0) + 1 < session.started) throw fail('invalid_token', 'Stale token');
  // The session's user is the token's (Keycloak's findValidSessionForAccessToken): a pairwise `sub` is not a user id.
  return { session, user: await liveUser(db, realm, claims, session.userId) };
}

/** The token's user: in the realm, enabled, and not made stale by a not-before pushed after the token. */
async function liveUser(db: Db, realm: RealmModel, claims: JWTPayload, id: string): Promise<UserModel> {
  const user = await userOrTransient(db, realm, id, (k) => db.models.User.findByPk(k));
  if (!user || user.realmId !== realm.id) throw fail('user_not_found');
  if (!user.enabled) throw fail('user_disabled');
  if (Number(claims.iat ?? 0) < Number(user.notBefore ?? 0)) throw fail('invalid_token', 'Stale token');
  return user;
}

/**
 * Session notes as the mapper engine reads them (the token endpoint computes the same): the stored
 * notes and, for a service account's session, the client's id and the address it logged in from.
 */
export function sessionNotes(session: SessionFacts, user: UserModel, client: ClientModel): Record<string, string> {
  const notes: Record<string, string> = { ...((session.notes as Record<string, string> | undefined) ?? {}) };
  if (user.serviceAccountClientLink === client.id) {
    notes.client_id = client.clientId;
    if (session.ipAddress) Object.assign(notes, { clientHost: session.ipAddress, clientAddress: session.ipAddress });
  }
  return notes;
}
