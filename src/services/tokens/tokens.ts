import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { lastKnownRealm, realmKeys, realmWithVersion, type VersionedRealm, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import type { CacheVersions } from '../../core/context';
import { errorB } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import { fastSelect } from '../../db/fast-select';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { signedClaims } from '../../auth/verified-tokens';
import { isSessionActive, secondsLeft } from '../sessions/session-store';
import { audClaim, clientLinkedScopes, computeClaims } from './token-claims';
import { checkPresentedToken, DPoPProofError } from './dpop';
import { type ClientCertificate, confirmations, type TokenBinding } from './token-binding';
import type { RealmKey } from '../../auth/keys';
import { encryptForClient, encryptionFor, oidcHash, signatureAlgorithm, signForClient, signingKey, signToken } from './signing';
import { REUSE_ID_CLAIM, revokesRefreshTokens } from './refresh-reuse';
import { sharedValue } from '../../core/shared-cache';
import { ldapProviders } from '../user-storage/ldap-store';
import { isStorageId, transientUserById } from '../user-storage/transient-users';

const log = getLogger('idserver.oidc');

/** OAuth error (shape B) raised by the token endpoint. */
export const oauth = (status: number, error: string, description: string) => errorB(status, error, description);

export interface TokenRequest {
  realm: string;
  form: Record<string, string | undefined>;
  /** Basic credentials from the Authorization header, if any. */
  basic?: { clientId: string; secret: string };
  /** The access token of an `Authorization: Bearer` header, if any (the UMA grant's requester). */
  bearer?: string;
  baseUrl: string;
  ipAddress?: string;
  /** The `DPoP` proof header, if any, and the request's absolute URL it must name (ADR 0038). */
  dpop?: string;
  url?: string;
  /** The client certificate the reverse proxy forwarded (only when the lookup option is set). */
  clientCert?: ClientCertificate;
  /** What the issued tokens are bound to (set by the token endpoint, token-binding.ts). */
  binding?: TokenBinding;
  /** A client policy's use-lightweight-access-token covers this request (Keycloak's session attribute of the same name). */
  lightweightAccessToken?: boolean;
}

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: 'Bearer' | 'DPoP';
  id_token?: string;
  'not-before-policy': number;
  session_state?: string;
  scope: string;
}

const now = nowSeconds;
export const setting = (realm: RealmModel, key: string, dflt: number) => Number(realm.settings[key] ?? dflt);

/** Scope string: the client's default scopes that go into tokens, plus requested optional ones. */
export async function grantedScope(db: Db, client: ClientModel, requested: string | undefined): Promise<string> {
  const { links, scopes } = await clientLinkedScopes(db, client);
  const byId = new Map(scopes.map((s) => [s.id, s]));
  const want = new Set((requested ?? '').split(/\s+/).filter(Boolean));
  const out: string[] = [];
  for (const l of links) {
    const s = byId.get(l.scopeId);
    if (!s || s.protocol !== client.protocol) continue;
    const include = s.attributes['include.in.token.scope'] !== 'false';
    // `organization:<alias>` / `organization:*` grant the organization scope under the requested name (Keycloak's OrganizationScope).
    const orgForm = s.name === 'organization' ? [...want].find((w) => w.startsWith('organization:')) : undefined;
    if ((l.defaultScope || want.has(s.name) || orgForm) && include) out.push(orgForm ?? s.name);
  }
  // Deterministic order; matches Keycloak's usual "profile email".
  out.sort((a, b) => b.localeCompare(a));
  return [...(want.has('openid') ? ['openid'] : []), ...out].join(' ');
}

/** Refresh tokens are internal: HS512 with the realm's active HMAC key (Keycloak's TokenCategory.INTERNAL). */
const signRefresh = (db: Db, realm: RealmModel, claims: JWTPayload) => signForClient(db, realm, undefined, 'internal', claims);

/** What the tokens of one grant are issued for: the client, the user, the session (if any) and the granted scope. */
export interface Issuance {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  user: UserModel;
  session?: UserSessionModel;
  scope: string;
  req: TokenRequest;
  /** Claims of the login the ID token carries besides the mapped ones (the code grant's nonce and auth_time). */
  idExtra?: JWTPayload;
  /**
   * The ID token's last change before it is signed, given its claims and the signing key (the front
   * channel's hashes of what travels with it and the detached signature's claims).
   */
  idFinish?: (claims: JWTPayload, key: RealmKey) => JWTPayload;
  /** The tokens' `iat` (a refresh counted its use at it, refresh-reuse.ts); now when not given. */
  iat?: number;
  /**
   * The refresh token's `reuse_id` while the realm revokes refresh tokens: a refresh passes on its
   * token's (null: it had none); a login (undefined) starts a new chain.
   */
  reuseId?: string | null;
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

/** Keycloak's Constants.REUSE_ID claim of a refresh token, while the realm revokes refresh tokens. */
function reuseClaim(realm: RealmModel, reuseId: string | null | undefined): JWTPayload {
  if (!revokesRefreshTokens(realm) || reuseId === null) return {};
  return { [REUSE_ID_CLAIM]: reuseId ?? randomUUID() };
}

/** Signs the tokens of a grant; the refresh token's type and lifetime follow the session (online, offline). */
export async function issue(t: Issuance, withRefresh: boolean): Promise<TokenResponse> {
  const { db, realm, client, user, session, scope, req } = t;
  const sessionId = session?.id;
  const iat = t.iat ?? now();
  const iss = issuerOf(req.baseUrl, realm.name);
  const attributes = (client.settings.attributes ?? {}) as Record<string, string>;
  const lifespan = Number(attributes['access.token.lifespan'] ?? setting(realm, 'accessTokenLifespan', 300));
  const lightweight = attributes['client.use.lightweight.access.token.enabled'] === 'true' || req.lightweightAccessToken === true;
  const cnf = confirmations(client, req.binding);
  const dpop = Boolean(cnf.access?.jkt);
  const base: JWTPayload = {
    exp: iat + lifespan,
    iat,
    jti: randomUUID(),
    iss,
    typ: dpop ? 'DPoP' : 'Bearer',
    azp: client.clientId,
    ...(sessionId ? { sid: sessionId } : {}),
    scope,
  };
  const mapped = lightweight && !scope.split(' ').includes('openid') ? undefined : await mappedClaims(t);
  const claims = lightweight || !mapped ? base : { ...base, ...audClaim(mapped.accessAud), ...mapped.access, scope };
  if (cnf.access) claims.cnf = cnf.access;
  const access_token = await signForClient(db, realm, client, 'access', claims);
  const offline = Boolean(session?.offline);
  const refreshLife = withRefresh && session && !offline ? secondsLeft(realm, session, iat) : 0;
  const res: TokenResponse = {
    access_token,
    expires_in: lifespan,
    refresh_expires_in: refreshLife,
    token_type: dpop ? 'DPoP' : 'Bearer',
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
      // Keycloak's AbstractPairwiseSubMapper is an OIDCRefreshTokenMapper too: the refresh token carries the pairwise sub.
      sub: mapped?.pairwiseSub ?? user.id,
      typ: offline ? 'Offline' : 'Refresh',
      azp: client.clientId,
      sid: sessionId,
      scope,
      ...(cnf.refresh ? { cnf: cnf.refresh } : {}),
      ...reuseClaim(realm, t.reuseId),
    });
  }
  if (scope.split(' ').includes('openid')) {
    const idClaims = mapped ?? (await mappedClaims(t));
    const aud = audClaim([client.clientId, ...idClaims.idAud.filter((a) => a !== client.clientId)]);
    const alg = signatureAlgorithm(realm, client, 'id');
    const key = await signingKey(db, realm, alg);
    const idPayload: JWTPayload = {
      exp: iat + lifespan,
      iat,
      jti: randomUUID(),
      iss,
      ...aud,
      sub: user.id,
      typ: 'ID',
      azp: client.clientId,
      ...(sessionId ? { sid: sessionId } : {}),
      at_hash: oidcHash(key, access_token),
      ...idClaims.id,
      ...t.idExtra,
    };
    const { jwt } = await signToken(db, realm, client, 'id', t.idFinish ? t.idFinish(idPayload, key) : idPayload);
    // Keycloak's encodeAndEncrypt: the signed ID token in a JWE to the client's key when it asks for one.
    const encryption = encryptionFor(client, 'id');
    res.id_token = encryption ? await encryptForClient(client, jwt, encryption) : jwt;
  }
  if (sessionId) res.session_state = sessionId;
  return res;
}

/** How an admin request presents its token: the Authorization scheme and, for DPoP, the proof and what it must name. */
export interface BearerSender {
  scheme: 'Bearer' | 'DPoP';
  proof?: string;
  method: string;
  url: string;
}

export interface VerifiedToken {
  realm: RealmModel;
  userId: string;
  /** Internal id of the client the token was issued to (`azp`). */
  clientId: string;
  sessionId?: string;
  /** The token's `allowed-origins` claim (the client's web origins), for CORS on the admin fronts. */
  allowedOrigins: string[];
  /**
   * Cache versions read in the bearer statement (ADR 23): the caller's realm, the caller, and the
   * target realm when one was named.
   */
  versions: CacheVersions;
  /** The target realm named by the caller (`targetRealm`), when it exists: its id and cache version. */
  target?: { id: string; name: string; version: number };
  /** The caller when it is a transient federated user (ADR 46): read from its directory, not from user_entity. */
  transientUser?: UserModel;
}

/**
 * The caller's realm, client, user and session, the cache versions of the realm and the user, and the
 * target realm's id and version, read in one statement (bearer verification runs on every admin request).
 */
interface BearerRow {
  realmId: string;
  realmVersion: number | string | null;
  clientUuid: string | null;
  clientEnabled: boolean | number | null;
  userId: string | null;
  /** The session's user id, else the token's subject: a StorageId names a transient user (no user_entity row). */
  subjectId: string | null;
  userRealm: string | null;
  enabled: boolean | number | null;
  notBefore: number | string | null;
  userVersion: number | string | null;
  sessionId: string | null;
  sessionRealm: string | null;
  started: number | string | null;
  lastAccess: number | string | null;
  offline: boolean | number | null;
  rememberMe: boolean | number | null;
  targetId: string | null;
  targetVersion: number | string | null;
  /** Set when the token's id is in the revoked-token store (POST .../revoke of an access token). */
  revokedId: string | null;
  /** 1 when the client requires DPoP (`dpop.bound.access.tokens`), read off its stored settings. */
  clientDpop: number | string | null;
}

const BEARER_SQL = `SELECT r.id AS realmId, rv.version AS realmVersion, c.id AS clientUuid, c.enabled AS clientEnabled,
  u.id AS userId, COALESCE(s.user_id, :sub) AS subjectId, u.realm_id AS userRealm, u.enabled AS enabled, u.not_before AS notBefore, uv.version AS userVersion,
  s.id AS sessionId, s.realm_id AS sessionRealm, s.started AS started, s.last_access AS lastAccess, s.offline AS offline,
  s.remember_me AS rememberMe, tr.id AS targetId, tv.version AS targetVersion, rt.id AS revokedId,
  CASE WHEN c.settings LIKE '%"dpop.bound.access.tokens":"true"%' THEN 1 ELSE 0 END AS clientDpop
FROM realm r
LEFT JOIN realm_cache_version rv ON rv.realm_id = r.id
LEFT JOIN client c ON c.realm_id = r.id AND c.client_id = :azp
LEFT JOIN user_session s ON s.id = :sid
LEFT JOIN user_entity u ON u.id = COALESCE(s.user_id, :sub)
LEFT JOIN user_cache_version uv ON uv.user_id = u.id
LEFT JOIN realm tr ON tr.name = :target
LEFT JOIN realm_cache_version tv ON tv.realm_id = tr.id
LEFT JOIN revoked_token rt ON rt.id = :jti AND rt.expires_at >= :now
WHERE r.name = :realmName`;

const truthy = (v: unknown) => v === true || v === 1 || v === '1';
const version = (v: number | string | null) => (v === null || v === undefined ? -1 : Number(v));

/**
 * Verifies an admin bearer token: issuer realm (and, given the server's base URL, the whole issuer),
 * signature with the realm's keys, expiry, type, not-before, not revoked, live session, enabled user,
 * existing and enabled client. Returns null when anything fails (→ 401).
 *
 * Warm, this is one statement: the realm's row and keys come from this node's cache (ADR 23) and the
 * bearer statement reads the realm's current cache version with the caller's rows; when the version
 * moved (a write through any node), the realm and its keys are read again and the token checked anew.
 * `targetRealm` (the realm named in the request path) is looked up in the same statement.
 */
export async function verifyBearer(
  db: Db,
  token: string,
  baseUrl?: string,
  targetRealm?: string,
  sender?: BearerSender,
): Promise<VerifiedToken | null> {
  try {
    const unverified = decodeJwt(token);
    const header = decodeProtectedHeader(token);
    const iss = String(unverified.iss ?? '');
    const realmName = decodeURIComponent(iss.slice(iss.lastIndexOf('/') + 1));
    if (!realmName || !header.alg) return null;
    const known = lastKnownRealm(db, realmName);
    const first = known ? await verifyWith(db, token, header, { baseUrl, targetRealm, sender }, known, false) : 'stale';
    if (first !== 'stale') return first;
    // No cached realm, or the cached one is out of date: read it (and its keys) and check again.
    const fresh = await realmWithVersion(db, realmName);
    if (!fresh) return null;
    const second = await verifyWith(db, token, header, { baseUrl, targetRealm, sender }, fresh, true);
    return second === 'stale' ? null : second;
  } catch (e) {
    log.debug(`Bearer token rejected: ${(e as Error).message}`);
    return null;
  }
}

/**
 * Checks the token against `realm` as known: 'stale' when it came from the cache and the database
 * holds a newer version (a realm read afresh is used as read: it is at most as old as before caching).
 */
async function verifyWith(
  db: Db,
  token: string,
  header: { alg?: string; kid?: string },
  { baseUrl, targetRealm, sender }: { baseUrl?: string; targetRealm?: string; sender?: BearerSender },
  realm: VersionedRealm,
  fresh: boolean,
): Promise<VerifiedToken | null | 'stale'> {
  const candidates = verificationKeys(await realmKeys(db, realm), header.alg as string, header.kid);
  const claims = await signedClaims(token, header.alg as string, candidates, realm);
  const sid = claims?.sid ? String(claims.sid) : null;
  const [row] = await fastSelect<BearerRow>(db.sequelize, BEARER_SQL, {
    realmName: realm.name,
    sid,
    sub: claims?.sub ? String(claims.sub) : null,
    azp: String(claims?.azp ?? ''),
    target: targetRealm ?? null,
    jti: typeof claims?.jti === 'string' ? claims.jti : null,
    now: nowSeconds(),
  });
  if (!row) return null;
  const realmVersion = version(row.realmVersion);
  if (row.realmId !== realm.id) return fresh ? null : 'stale';
  if (realmVersion !== realm.cacheVersion && !fresh) return 'stale';
  if (claims?.typ !== 'Bearer' && claims?.typ !== 'DPoP') return null;
  // Keycloak's TokenRevocationCheck on admin bearer tokens: an access token revoked through any node.
  if (row.revokedId) return null;
  // Keycloak's TokenVerifier.realmUrl: the issuer must be this server's URL of the realm (the
  // configured hostname, or in start-dev the request's own address), not whatever host minted it.
  if (baseUrl !== undefined && claims.iss !== issuerOf(baseUrl, realm.name)) {
    log.debug(`Bearer token rejected: issuer ${String(claims.iss)} is not ${issuerOf(baseUrl, realm.name)}`);
    return null;
  }
  // The client the token was issued to must still exist and be enabled (Keycloak refuses tokens of a disabled client).
  if (!row.clientUuid || !truthy(row.clientEnabled)) return null;
  if (sid) {
    const session = {
      started: Number(row.started),
      lastAccess: Number(row.lastAccess),
      offline: truthy(row.offline),
      rememberMe: truthy(row.rememberMe),
    } as UserSessionModel;
    if (!row.sessionId || row.sessionRealm !== realm.id || !isSessionActive(realm, session)) return null;
  }
  // A transient federated user (ADR 46) has no row: its directory entry is read, as GET /users/{id} reads it.
  const transient = !row.userId && row.subjectId && isStorageId(row.subjectId) ? await bearerTransientUser(db, realm, row) : undefined;
  if (transient)
    Object.assign(row, { userId: transient.id, enabled: transient.enabled ? 1 : 0, userRealm: transient.realmId, notBefore: 0 });
  if (!row.userId || !truthy(row.enabled) || row.userRealm !== realm.id) return null;
  if (Number(claims.iat ?? 0) < Math.max(Number(row.notBefore ?? 0), setting(realm, 'notBefore', 0))) return null;
  const origins = claims['allowed-origins'];
  const allowedOrigins = Array.isArray(origins) ? origins.map(String) : [];
  const versions = { realms: new Map([[realm.id, realmVersion]]), users: new Map<string, number>() };
  if (row.userVersion !== null) versions.users.set(row.userId, version(row.userVersion));
  const target =
    row.targetId && targetRealm !== undefined ? { id: row.targetId, name: targetRealm, version: version(row.targetVersion) } : undefined;
  if (target && target.version >= 0) versions.realms.set(target.id, target.version);
  // Keycloak's BearerTokenAuthenticator with withDPoPVerifier, last (the proof is used up here).
  const client = { settings: { attributes: truthy(row.clientDpop) ? { 'dpop.bound.access.tokens': 'true' } : {} } };
  try {
    await checkPresentedToken(db, claims, client, { scheme: 'Bearer', method: '', url: '', ...sender, accessToken: token });
  } catch (e) {
    if (!(e instanceof DPoPProofError)) throw e;
    log.debug(`Bearer token rejected: ${e.message}`);
    return null;
  }
  return {
    realm,
    userId: row.userId,
    clientId: row.clientUuid,
    sessionId: row.sessionId ?? undefined,
    allowedOrigins,
    versions,
    target,
    ...(transient ? { transientUser: transient } : {}),
  };
}

/**
 * The transient user a bearer token's session or subject names: the realm's providers as this node
 * keeps them under the realm's version just read (the same entry `cachedProviders` keeps), then one
 * directory lookup by username.
 */
async function bearerTransientUser(db: Db, realm: RealmModel, row: BearerRow): Promise<UserModel | undefined> {
  const providers = await sharedValue(`ldap-providers:${realm.id}`, `r${version(row.realmVersion)}`, () => ldapProviders(db, realm));
  return (await transientUserById(db, realm, row.subjectId as string, providers)) ?? undefined;
}
