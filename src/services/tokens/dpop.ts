import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK, type JWTPayload } from 'jose';
import { QueryTypes } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import { isUniqueViolation } from '../../core/db-errors';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';

/**
 * DPoP proofs (RFC 9449; Keycloak's DPoPUtil, ADR 0038): a proof is a JWT of type `dpop+jwt`,
 * signed with an asymmetric algorithm by the private half of the public key in its header, naming
 * the request's method (`htm`) and URL (`htu`, without query), issued in the last 10 s (15 s of
 * clock skew either way), used once: its `jti` and `htu` are hashed into table `used_dpop_proof`
 * (migration 0026), whose primary key refuses a second use on any node sharing the database. With an
 * access token (userinfo, the admin API), `ath` must be its SHA-256. A bound token carries the key's
 * thumbprint (`cnf.jkt`) and the type `DPoP`.
 */

/** Keycloak's asymmetric signature providers, as discovery lists them (`dpop_signing_alg_values_supported`). */
export const DPOP_ALGORITHMS = ['PS384', 'RS384', 'EdDSA', 'ES384', 'ES256', 'RS256', 'ES512', 'PS256', 'PS512', 'RS512'];

const LIFETIME = 10;
const CLOCK_SKEW = 15;

/** A refused proof; the message is Keycloak's (the token endpoint answers it as `error_description`). */
export class DPoPProofError extends Error {}

/** What an accepted proof tells: the JWK SHA-256 thumbprint of its key. */
export interface DPoPProof {
  jkt: string;
}

/** The request a proof must match. */
export interface DPoPRequest {
  /** The `DPoP` header (undefined when absent). */
  proof?: string;
  method: string;
  /** The request's absolute URL; its query is ignored. */
  url: string;
  /** The access token presented with the proof (resource requests: `ath` is checked). */
  accessToken?: string;
}

/** Whether the client requires DPoP-bound tokens (attribute `dpop.bound.access.tokens`). */
export const requiresDPoP = (client: Pick<ClientModel, 'settings'>): boolean =>
  (client.settings?.attributes as Record<string, string> | undefined)?.['dpop.bound.access.tokens'] === 'true';

/** The `cnf.jkt` a token (access or refresh) is bound to, if any. */
export function boundJkt(claims: JWTPayload): string | undefined {
  const cnf = claims.cnf as { jkt?: unknown } | undefined;
  return cnf && typeof cnf === 'object' && typeof cnf.jkt === 'string' ? cnf.jkt : undefined;
}

/** A URL without query and fragment (WHATWG parsing puts scheme and host in lower case), or null when not absolute. */
function normalized(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

const fail = (message: string) => new DPoPProofError(message);
const blank = (v: unknown) => typeof v !== 'string' || !v.trim();

/** The proof's key: public, of a supported type. */
async function proofKey(header: Record<string, unknown>) {
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== 'object') throw fail('No JWK in DPoP header');
  if ('d' in jwk || 'p' in jwk || 'k' in jwk)
    throw fail(jwk.kty === 'oct' ? 'Unsupported key type in DPoP header' : 'Private key is present in DPoP header');
  try {
    return { jwk, key: await importJWK(jwk, String(header.alg)) };
  } catch {
    throw fail('Unsupported key type in DPoP header');
  }
}

/** Verifies a DPoP proof for the request; throws `DPoPProofError` with Keycloak's message when it fails. */
export async function verifyDPoPProof(db: Db, r: DPoPRequest): Promise<DPoPProof> {
  if (!r.proof?.trim()) throw fail('DPoP proof is missing');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(r.proof) as Record<string, unknown>;
  } catch {
    throw fail('DPoP header verification failure');
  }
  if (header.typ !== 'dpop+jwt') throw fail(`Invalid or missing type in DPoP header: ${String(header.typ ?? null)}`);
  if (typeof header.alg !== 'string' || !DPOP_ALGORITHMS.includes(header.alg))
    throw fail(`Unsupported DPoP algorithm: ${String(header.alg)}`);
  const { jwk, key } = await proofKey(header);
  let claims: JWTPayload;
  try {
    const { payload } = await compactVerify(r.proof, key, { algorithms: [header.alg] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
    if (!claims || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('Invalid token');
  } catch {
    throw fail('DPoP verification failure: Invalid token signature');
  }
  if (typeof claims.iat !== 'number' || blank(claims.jti) || blank(claims.htm) || blank(claims.htu))
    throw fail('DPoP mandatory claims are missing');
  const htu = normalized(String(claims.htu));
  if (htu === null) throw fail('Malformed HTTP URL in DPoP proof');
  if (htu !== normalized(r.url)) throw fail('DPoP HTTP URL mismatch');
  if (claims.htm !== r.method) throw fail('DPoP HTTP method mismatch');
  const now = nowSeconds();
  if (!(claims.iat <= now + CLOCK_SKEW && claims.iat >= now - LIFETIME - CLOCK_SKEW)) throw fail('DPoP proof is not active');
  await markUsed(db, `${String(claims.jti)}\n${String(claims.htu)}`, Math.floor(claims.iat) + LIFETIME + CLOCK_SKEW, now);
  if (r.accessToken !== undefined) {
    if (typeof claims.ath !== 'string') throw fail('No access token hash in DPoP proof');
    if (claims.ath !== createHash('sha256').update(r.accessToken).digest('base64url')) throw fail('DPoP proof access token hash mismatch');
  }
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** Records the proof as used; refuses it when it was (one insert wins on the primary key, on any node). */
async function markUsed(db: Db, key: string, expiresAt: number, now: number): Promise<void> {
  const id = createHash('sha256').update(key).digest('hex');
  try {
    await db.sequelize.query('INSERT INTO used_dpop_proof (id, expires_at) VALUES (:id, :expiresAt)', {
      replacements: { id, expiresAt },
      type: QueryTypes.INSERT,
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw fail('DPoP proof has already been used');
    throw e;
  }
  await db.sequelize.query('DELETE FROM used_dpop_proof WHERE expires_at < :now', { replacements: { now }, type: QueryTypes.DELETE });
}

/**
 * Keycloak's DPoPBindingCheck: the token's `cnf.jkt` is the proof's key. Throws with Keycloak's
 * message when the token is not bound or bound to another key.
 */
export function checkBinding(claims: JWTPayload, proof: DPoPProof): void {
  const cnf = claims.cnf as { jkt?: unknown } | undefined;
  if (!cnf || typeof cnf !== 'object') throw fail('No DPoP confirmation in access token');
  if (typeof cnf.jkt !== 'string') throw fail('No DPoP key thumbprint in access token');
  if (cnf.jkt !== proof.jkt) throw fail("DPoP confirmation doesn't match DPoP proof");
}

/** The `Authorization` header's scheme and token: `Bearer` (any case) or `DPoP` (exact, as the spec); else undefined. */
export function authorizationHeader(value: string | undefined): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  const parts = (value ?? '').trim().split(/\s+/);
  if (parts.length !== 2 || !parts[1]) return undefined;
  if (/^bearer$/i.test(parts[0])) return { scheme: 'Bearer', token: parts[1] };
  if (parts[0] === 'DPoP') return { scheme: 'DPoP', token: parts[1] };
  return undefined;
}

/**
 * Keycloak's withDPoPVerifier for a presented access token: a `DPoP` token only with the `DPoP`
 * scheme and the scheme only with such a token; a client requiring DPoP only with the scheme; with
 * the scheme, a valid proof (with `ath`) whose key the token is bound to. Throws `DPoPProofError`.
 */
export async function checkPresentedToken(
  db: Db,
  claims: JWTPayload,
  client: Pick<ClientModel, 'settings'> | null,
  r: DPoPRequest & { scheme: 'Bearer' | 'DPoP'; accessToken: string },
): Promise<void> {
  const dpopScheme = r.scheme === 'DPoP';
  if (!dpopScheme && claims.typ === 'DPoP') throw fail('The access token type is DPoP but Authorization Header is not DPoP');
  if (dpopScheme && claims.typ !== 'DPoP') throw fail('The access token type is not DPoP but Authorization Header is DPoP');
  if (!client) throw fail('Client not found');
  if (requiresDPoP(client) && !dpopScheme) throw fail('This client requires DPoP, but no DPoP Authorization header is present');
  if (dpopScheme) checkBinding(claims, await verifyDPoPProof(db, r));
}
