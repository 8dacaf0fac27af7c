import type { JWTPayload } from 'jose';
import { HttpError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { Claims } from '../../representations/token';
import { publicRealm } from './oidc-metadata';
import { computeClaims, webOrigins } from './token-claims';
import {
  checkActive,
  checkNotBeforeAndRevocation,
  sessionNotes,
  TokenCheckFailure,
  tokenClient,
  tokenSession,
  verifiedPayload,
} from './token-check';
import { checkPresentedToken, DPoPProofError } from './dpop';
import { type ClientCertificate, requiresCertificateBinding } from './token-binding';
import { TokenEvent } from './token-events';
import { encryptForClient, encryptionFor, signatureAlgorithm, signForClient } from './signing';

/**
 * The OpenID Connect userinfo endpoint (issue 14; Keycloak's UserInfoEndpoint): the claims the
 * protocol mappers of the token's client and scopes put into userinfo (`userinfo.token.claim`), and
 * `sub`, for a valid access token of the realm with the `openid` scope, a live user session and an
 * enabled user. As JSON, or as a JWT signed with the client's `user.info.response.signature.alg`.
 * Errors are Keycloak's Bearer challenges (RFC 6750 §3): the status and a `WWW-Authenticate` header,
 * no body. A USER_INFO_REQUEST event (or its _ERROR variant) is recorded for each checked token.
 */

/**
 * A userinfo error: the status and the `WWW-Authenticate: Bearer realm="…"[, error="…",
 * error_description="…"]` challenge. `cors` says which origins may read it: any (`all`, before the
 * client is known) or the client's web origins.
 */
export class BearerChallenge extends HttpError {
  constructor(
    status: number,
    readonly challenge: string,
    readonly cors: 'all' | string[],
    error?: string,
  ) {
    super(status, error ? { error } : {});
  }
}

/** A challenge for `realm` with an OAuth error (the status follows the error, as Keycloak's OAuth2Error does). */
function challenge(
  scheme: 'Bearer' | 'DPoP' | undefined,
  realm: string,
  cors: 'all' | string[],
  error?: string,
  description?: string,
): BearerChallenge {
  const quoted = (v: string) => v.replace(/["\\]/g, '');
  const parts = [`realm="${quoted(realm)}"`];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${quoted(description)}"`);
  const status = !error ? 401 : error === 'invalid_request' ? 400 : error === 'insufficient_scope' ? 403 : 401;
  return new BearerChallenge(status, `${scheme ?? 'Bearer'} ${parts.join(', ')}`, cors, error);
}

export interface UserinfoRequest {
  realm: string;
  /** The access token: the Bearer header's, or (POST) the form's `access_token`. */
  token?: string;
  /** Why the request is malformed before any token is looked at (two ways of sending the token, a repeated parameter). */
  malformed?: string;
  baseUrl: string;
  ipAddress?: string;
  /** The Authorization header's scheme (a form's token counts as Bearer); challenges answer in it. */
  scheme?: 'Bearer' | 'DPoP';
  /** The `DPoP` proof header, the request's method and absolute URL, the forwarded client certificate (ADR 0038). */
  dpop?: string;
  method?: string;
  url?: string;
  clientCert?: ClientCertificate;
}

export interface UserinfoAnswer {
  /** JSON claims, or the signed JWT when the client asks for signed userinfo. */
  claims?: Claims;
  jwt?: string;
  /** Origins that may read the answer (the client's web origins). */
  origins: string[];
}

/** Descriptions Keycloak gives the session and user failures (the others are described by their code). */
const DESCRIPTION: Record<string, string> = { user_not_found: 'User not found', user_disabled: 'User disabled' };

/** GET|POST /realms/{realm}/protocol/openid-connect/userinfo. */
export async function userinfo(db: Db, req: UserinfoRequest): Promise<UserinfoAnswer> {
  const realm = await publicRealm(db, req.realm);
  if (req.malformed) throw challenge(req.scheme, realm.name, 'all', 'invalid_request', req.malformed);
  const ev = new TokenEvent(db, realm, 'USER_INFO_REQUEST', req.ipAddress).detail('auth_method', 'validate_access_token');
  const refuse = async (code: string, c: BearerChallenge, reason?: string) => {
    ev.detail('reason', reason);
    return ev.fail(code, c);
  };
  if (!req.token) throw await refuse('invalid_token', challenge(req.scheme, realm.name, 'all'), 'Missing token');
  const claims = await verifiedPayload(db, realm, req.token);
  const verificationFailed = (origins: 'all' | string[], reason: string) =>
    refuse('invalid_token', challenge(req.scheme, realm.name, origins, 'invalid_token', 'Token verification failed'), reason);
  if (!claims) throw await verificationFailed('all', 'Invalid token signature');
  if (claims.iss !== issuerOf(req.baseUrl, realm.name)) throw await verificationFailed('all', 'Invalid token issuer');
  if (claims.typ !== 'Bearer' && claims.typ !== 'DPoP') throw await verificationFailed('all', 'Invalid token type');
  try {
    checkActive(claims);
  } catch (e) {
    throw await verificationFailed('all', (e as Error).message);
  }
  if (
    !String(claims.scope ?? '')
      .split(' ')
      .includes('openid')
  )
    throw await refuse(
      'access_denied',
      challenge(req.scheme, realm.name, 'all', 'insufficient_scope', 'Missing openid scope'),
      'Missing openid scope',
    );
  return answer(db, realm, req, claims, ev);
}

/** The checks that need the token's client, then the claims. */
async function answer(db: Db, realm: RealmModel, req: UserinfoRequest, claims: JWTPayload, ev: TokenEvent): Promise<UserinfoAnswer> {
  let client: ClientModel;
  try {
    client = await tokenClient(db, realm, claims);
  } catch (e) {
    if ((e as TokenCheckFailure).code === 'client_disabled') {
      // Keycloak finds a disabled client, allows its origins, then refuses it after the token checks.
      const found = await db.models.Client.findOne({ where: { realmId: realm.id, clientId: String(claims.azp) } });
      ev.clientId = found?.clientId ?? null;
      throw await ev.fail(
        'client_disabled',
        challenge(req.scheme, realm.name, found ? webOrigins(found) : 'all', 'invalid_token', 'Client disabled'),
      );
    }
    throw await ev.fail('client_not_found', challenge(req.scheme, realm.name, 'all', 'invalid_token', 'Client not found'));
  }
  try {
    // Keycloak's withDPoPVerifier, part of the token's verification: a refusal allows every origin.
    await checkPresentedToken(db, claims, client, {
      scheme: req.scheme ?? 'Bearer',
      accessToken: req.token ?? '',
      proof: req.dpop,
      method: req.method ?? 'GET',
      url: req.url ?? '',
    });
  } catch (e) {
    if (!(e instanceof DPoPProofError)) throw e;
    ev.detail('reason', e.message);
    throw await ev.fail('invalid_token', challenge(req.scheme, realm.name, 'all', 'invalid_token', 'Token verification failed'));
  }
  const origins = webOrigins(client);
  const refuse = async (code: string, description: string, reason?: string) => {
    ev.detail('reason', reason);
    return ev.fail(code, challenge(req.scheme, realm.name, origins, 'invalid_token', description));
  };
  try {
    await checkNotBeforeAndRevocation(db, realm, client, claims);
  } catch (e) {
    throw await refuse('invalid_token', 'Token verification failed', (e as Error).message);
  }
  if ((client.protocol || 'openid-connect') !== 'openid-connect')
    throw await refuse('invalid_client', 'Wrong client protocol', 'Wrong client protocol');
  ev.clientId = client.clientId;
  ev.sessionId = typeof claims.sid === 'string' ? claims.sid : null;
  let found: Awaited<ReturnType<typeof tokenSession>>;
  try {
    found = await tokenSession(db, realm, client, claims);
  } catch (e) {
    if (!(e instanceof TokenCheckFailure)) throw e;
    if (e.code === 'user_disabled' || e.code === 'user_not_found') ev.userId = typeof claims.sub === 'string' ? claims.sub : null;
    throw await refuse(e.code, DESCRIPTION[e.code] ?? e.code);
  }
  const { session, user } = found;
  ev.userId = user.id;
  ev.detail('username', user.username);
  // RFC 8705 §3: a certificate-bound token only with its certificate (Keycloak's MtlsHoKTokenUtil).
  if (
    requiresCertificateBinding(client) &&
    (!req.clientCert || (claims.cnf as Record<string, unknown> | undefined)?.['x5t#S256'] !== req.clientCert.x5t)
  ) {
    const text = 'Client certificate missing, or its thumbprint and one in the refresh token did NOT match';
    throw await refuse('not_allowed', text, text);
  }
  const scope = String(claims.scope ?? '');
  const mapped = await computeClaims(db, { realm, client, user, scope, sessionId: session.id, notes: sessionNotes(session, user, client) });
  const out: Claims = { sub: user.id, ...mapped.userinfo };
  const attributes = (client.settings.attributes ?? {}) as Record<string, string>;
  const alg = attributes['user.info.response.signature.alg'];
  const encryption = encryptionFor(client, 'userinfo');
  // Keycloak's UserInfoEndpoint: with a signature algorithm, a JWT (iss, aud) signed so and, when the
  // client asks for encryption too, in a JWE to its key; with encryption alone, the JSON claims in a
  // JWE; both answered as application/jwt.
  if (alg && alg !== 'unsigned') {
    const signed = await signForClient(db, realm, client, 'userinfo', {
      ...out,
      iss: issuerOf(req.baseUrl, realm.name),
      aud: client.clientId,
    } as JWTPayload);
    const jwt = encryption ? await encryptForClient(client, signed, encryption) : signed;
    ev.detail('signature_required', 'true').detail('signature_algorithm', signatureAlgorithm(realm, client, 'userinfo'));
    await ev.success();
    return { jwt, origins };
  }
  ev.detail('signature_required', 'false');
  if (encryption) {
    const jwt = await encryptForClient(client, JSON.stringify(out), encryption, null);
    await ev.success();
    return { jwt, origins };
  }
  await ev.success();
  return { claims: out, origins };
}
