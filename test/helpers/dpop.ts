import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type KeyLike, SignJWT } from 'jose';

/** A DPoP key pair (RFC 9449) a test client signs its proofs with, and its JWK thumbprint (`cnf.jkt`). */
export interface DPoPKey {
  privateKey: KeyLike;
  jwk: JWK;
  jkt: string;
  alg: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DPoPKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey: privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256'), alg };
}

/** The test servers' public base (startTestServer's hostname): what `htu` names. */
export const BASE = 'http://localhost:8080';

/**
 * A DPoP proof for `htm` `htu` (a path is put under BASE); `accessToken` adds `ath`. `header` and
 * `claims` override or add fields (a claim set to undefined is left out).
 */
export async function dpopProof(
  key: DPoPKey,
  htm: string,
  htu: string,
  opts: { accessToken?: string; header?: Record<string, unknown>; claims?: Record<string, unknown> } = {},
): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: randomUUID(),
    htm,
    htu: htu.startsWith('/') ? `${BASE}${htu}` : htu,
    iat: Math.floor(Date.now() / 1000),
    ...(opts.accessToken ? { ath: createHash('sha256').update(opts.accessToken).digest('base64url') } : {}),
    ...opts.claims,
  };
  for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
  return new SignJWT(claims)
    .setProtectedHeader({ typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...opts.header } as never)
    .sign(key.privateKey);
}

/** The payload of a JWT, unverified. */
export const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
