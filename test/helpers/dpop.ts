import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import forge from 'node-forge';
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

/** A self-signed TLS client certificate (node-forge) with the subject `CN=<cn>, O=idserver-test`: its PEM, DER and `x5t#S256`. */
export function clientCertificate(cn: string): { pem: string; der: Buffer; x5t: string; dn: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = randomBytes(8)
    .toString('hex')
    .replace(/^[89a-f]/, '1');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 3_600_000);
  const attrs = [
    { name: 'organizationName', value: 'idserver-test' },
    { name: 'commonName', value: cn },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(key, forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { pem, der, x5t: createHash('sha256').update(der).digest('base64url'), dn: `CN=${cn},O=idserver-test` };
}
