import { createHash, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { Op, QueryTypes } from 'sequelize';
import { activeKey, realmKeys, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import { errorB, errorC } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { isSessionActive, secondsLeft } from '../sessions/session-store';
import { audClaim, computeClaims } from './token-claims';

const log = getLogger('idserver.oidc');

/** OAuth error (shape B) raised by the token endpoint. */
export const oauth = (status: number, error: string, description: string) => errorB(status, error, description);

export interface TokenRequest {
  realm: string;
  form: Record<string, string | undefined>;
  /** Basic credentials from the Authorization header, if any. */
  basic?: { clientId: string; secret: string };
  baseUrl: string;
  ipAddress?: string;
}

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: 'Bearer';
  id_token?: string;
  'not-before-policy': number;
  session_state?: string;
  scope: string;
}

const now = nowSeconds;
export const setting = (realm: RealmModel, key: string, dflt: number) => Number(realm.settings[key] ?? dflt);

/** Scope string: the client's default scopes that go into tokens, plus requested optional ones. */
export async function grantedScope(db: Db, client: ClientModel, requested: string | undefined): Promise<string> {
  const links = await db.models.ClientScopeClient.findAll({ where: { clientId: client.id } });
  const scopes = links.length ? await db.models.ClientScope.findAll({ where: { id: { [Op.in]: links.map((l) => l.scopeId) } } }) : [];
  const byId = new Map(scopes.map((s) => [s.id, s]));
  const want = new Set((requested ?? '').split(/\s+/).filter(Boolean));
  const out: string[] = [];
  for (const l of links) {
    const s = byId.get(l.scopeId);
    if (!s || s.protocol !== client.protocol) continue;
    const include = s.attributes['include.in.token.scope'] !== 'false';
    if ((l.defaultScope || want.has(s.name)) && include) out.push(s.name);
  }
  // Deterministic order; matches Keycloak's usual "profile email".
  out.sort((a, b) => b.localeCompare(a));
  return [...(want.has('openid') ? ['openid'] : []), ...out].join(' ');
}

async function signAccess(db: Db, realm: RealmModel, claims: JWTPayload): Promise<string> {
  const alg = String(realm.settings.defaultSignatureAlgorithm ?? 'RS256');
  const keys = await realmKeys(db, realm.id);
  const key = activeKey(keys, alg) ?? activeKey(keys, 'RS256');
  if (!key?.privateKey) throw errorC(500, 'No active signing key');
  return new SignJWT(claims).setProtectedHeader({ alg: key.algorithm, typ: 'JWT', kid: key.kid }).sign(key.privateKey);
}

async function signRefresh(db: Db, realm: RealmModel, claims: JWTPayload): Promise<string> {
  const key = activeKey(await realmKeys(db, realm.id), 'HS512');
  if (!key?.secret) throw errorC(500, 'No active HMAC key');
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: key.kid }).sign(key.secret);
}

/** What the tokens of one grant are issued for: the client, the user, the session (if any) and the granted scope. */
export interface Issuance {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  user: UserModel;
  session?: UserSessionModel;
  scope: string;
  req: TokenRequest;
}

/**
 * Claims of a non-lightweight access token and of the ID token, computed by the mapper engine
 * (src/services/token-claims.ts) from the protocol mappers of the client and its effective scopes.
 */
async function mappedClaims({ db, realm, client, user, session, scope, req }: Issuance) {
  const notes: Record<string, string> = { ...((session?.notes as Record<string, string> | undefined) ?? {}) };
  if (user.serviceAccountClientLink === client.id) {
    Object.assign(notes, {
      client_id: client.clientId,
      ...(req.ipAddress ? { clientHost: req.ipAddress, clientAddress: req.ipAddress } : {}),
    });
  }
  const requested = [scope, req.form.scope ?? ''].join(' ');
  return computeClaims(db, { realm, client, user, scope: requested, sessionId: session?.id, notes });
}

/** OIDC `at_hash`: left half of the SHA-256 of the access token, base64url. */
const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

/** Signs the tokens of a grant; the refresh token's type and lifetime follow the session (online, offline). */
export async function issue(t: Issuance, withRefresh: boolean): Promise<TokenResponse> {
  const { db, realm, client, user, session, scope, req } = t;
  const sessionId = session?.id;
  const iat = now();
  const iss = issuerOf(req.baseUrl, realm.name);
  const attributes = (client.settings.attributes ?? {}) as Record<string, string>;
  const lifespan = Number(attributes['access.token.lifespan'] ?? setting(realm, 'accessTokenLifespan', 300));
  const lightweight = attributes['client.use.lightweight.access.token.enabled'] === 'true';
  const base: JWTPayload = {
    exp: iat + lifespan,
    iat,
    jti: randomUUID(),
    iss,
    typ: 'Bearer',
    azp: client.clientId,
    ...(sessionId ? { sid: sessionId } : {}),
    scope,
  };
  const mapped = lightweight && !scope.split(' ').includes('openid') ? undefined : await mappedClaims(t);
  const claims = lightweight || !mapped ? base : { ...base, ...audClaim(mapped.accessAud), ...mapped.access, scope };
  const access_token = await signAccess(db, realm, claims);
  const offline = Boolean(session?.offline);
  const refreshLife = withRefresh && session && !offline ? secondsLeft(realm, session, iat) : 0;
  const res: TokenResponse = {
    access_token,
    expires_in: lifespan,
    refresh_expires_in: refreshLife,
    token_type: 'Bearer',
    'not-before-policy': setting(realm, 'notBefore', 0),
    scope,
  };
  if (withRefresh && sessionId) {
    const exp = offline ? {} : { exp: iat + refreshLife };
    res.refresh_token = await signRefresh(db, realm, {
      ...exp,
      iat,
      jti: randomUUID(),
      iss,
      aud: iss,
      sub: user.id,
      typ: offline ? 'Offline' : 'Refresh',
      azp: client.clientId,
      sid: sessionId,
      scope,
    });
  }
  if (scope.split(' ').includes('openid')) {
    const idClaims = mapped ?? (await mappedClaims(t));
    const aud = audClaim([client.clientId, ...idClaims.idAud.filter((a) => a !== client.clientId)]);
    res.id_token = await signAccess(db, realm, {
      exp: iat + lifespan,
      iat,
      jti: randomUUID(),
      iss,
      ...aud,
      sub: user.id,
      typ: 'ID',
      azp: client.clientId,
      ...(sessionId ? { sid: sessionId } : {}),
      at_hash: atHash(access_token),
      ...idClaims.id,
    });
  }
  if (sessionId) res.session_state = sessionId;
  return res;
}

export interface VerifiedToken {
  realm: RealmModel;
  userId: string;
  /** Internal id of the client the token was issued to (`azp`). */
  clientId: string;
  sessionId?: string;
  /** The token's `allowed-origins` claim (the client's web origins), for CORS on the admin fronts. */
  allowedOrigins: string[];
}

/** The caller's user, client and session, read in one statement (bearer verification runs on every admin request). */
interface BearerRow {
  clientUuid: string;
  clientEnabled: boolean | number | null;
  userId: string | null;
  userRealm: string | null;
  enabled: boolean | number | null;
  notBefore: number | string | null;
  sessionId: string | null;
  sessionRealm: string | null;
  started: number | string | null;
  lastAccess: number | string | null;
  offline: boolean | number | null;
  rememberMe: boolean | number | null;
}

const BEARER_SQL = `SELECT c.id AS clientUuid, c.enabled AS clientEnabled, u.id AS userId, u.realm_id AS userRealm, u.enabled AS enabled, u.not_before AS notBefore,
  s.id AS sessionId, s.realm_id AS sessionRealm, s.started AS started, s.last_access AS lastAccess, s.offline AS offline,
  s.remember_me AS rememberMe
FROM client c
LEFT JOIN user_session s ON s.id = :sid
LEFT JOIN user_entity u ON u.id = COALESCE(:sub, s.user_id)
WHERE c.realm_id = :realm AND c.client_id = :azp`;

const truthy = (v: unknown) => v === true || v === 1 || v === '1';

/**
 * Verifies an admin bearer token: issuer realm (and, given the server's base URL, the whole issuer),
 * signature with the realm's keys, expiry, type,
 * not-before, live session, enabled user, existing and enabled client. Two statements: the realm, then user,
 * client and session together. Returns null when anything fails (→ 401).
 */
export async function verifyBearer(db: Db, token: string, baseUrl?: string): Promise<VerifiedToken | null> {
  try {
    const unverified = decodeJwt(token);
    const header = decodeProtectedHeader(token);
    const iss = String(unverified.iss ?? '');
    const realmName = decodeURIComponent(iss.slice(iss.lastIndexOf('/') + 1));
    const realm = realmName ? await db.models.Realm.findOne({ where: { name: realmName } }) : null;
    if (!realm || !header.alg) return null;
    const candidates = verificationKeys(await realmKeys(db, realm.id), header.alg, header.kid);
    let claims: JWTPayload | undefined;
    for (const k of candidates) {
      try {
        claims = (await jwtVerify(token, (k.publicKey ?? k.secret) as Uint8Array, { algorithms: [header.alg as string] })).payload;
        break;
      } catch {
        /* try the next key */
      }
    }
    if (claims?.typ !== 'Bearer') return null;
    // Keycloak's TokenVerifier.realmUrl: the issuer must be this server's URL of the realm (the
    // configured hostname, or in start-dev the request's own address), not whatever host minted it.
    if (baseUrl !== undefined && claims.iss !== issuerOf(baseUrl, realm.name)) {
      log.debug(`Bearer token rejected: issuer ${String(claims.iss)} is not ${issuerOf(baseUrl, realm.name)}`);
      return null;
    }
    const sid = claims.sid ? String(claims.sid) : null;
    const [row] = await db.sequelize.query<BearerRow>(BEARER_SQL, {
      replacements: { sid, sub: claims.sub ? String(claims.sub) : null, realm: realm.id, azp: String(claims.azp ?? '') },
      type: QueryTypes.SELECT,
    });
    // The client the token was issued to must still exist and be enabled (Keycloak refuses tokens of a disabled client).
    if (!row || !truthy(row.clientEnabled)) return null;
    if (sid) {
      const session = {
        started: Number(row.started),
        lastAccess: Number(row.lastAccess),
        offline: truthy(row.offline),
        rememberMe: truthy(row.rememberMe),
      } as UserSessionModel;
      if (!row.sessionId || row.sessionRealm !== realm.id || !isSessionActive(realm, session)) return null;
    }
    if (!row.userId || !truthy(row.enabled) || row.userRealm !== realm.id) return null;
    if (Number(claims.iat ?? 0) < Math.max(Number(row.notBefore ?? 0), setting(realm, 'notBefore', 0))) return null;
    const origins = claims['allowed-origins'];
    const allowedOrigins = Array.isArray(origins) ? origins.map(String) : [];
    return { realm, userId: row.userId, clientId: row.clientUuid, sessionId: row.sessionId ?? undefined, allowedOrigins };
  } catch (e) {
    log.debug(`Bearer token rejected: ${(e as Error).message}`);
    return null;
  }
}
