import {
  X509Certificate,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type * as Forge from 'node-forge';
import { getLogger } from '../logging';
import { KeystoreLoadError } from './keystore-types';
import { keystoreFormat, readKeystore } from './keystores';

const log = getLogger('idserver.keys');

/**
 * Realm keys as Keycloak keeps them: key-provider components whose config holds the generated
 * material (`privateKey` and `certificate` as base64 DER/PEM body, or `secret` for HMAC/AES).
 */
export const KEY_PROVIDER_TYPE = 'org.keycloak.keys.KeyProvider';

const genKeyPair = promisify(generateKeyPair);

/** Keycloak's kid for an asymmetric key: base64url SHA-256 of the DER SubjectPublicKeyInfo. */
export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

const pemBody = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** Creates a self-signed X.509 certificate (10 years, CN = subject) for a key pair; base64 DER. */
export function selfSignedCertificate(privateKeyPem: string, publicKeyPem: string, subject: string): string {
  const forge = require('node-forge') as typeof Forge; // loaded on first use: most processes make no certificate
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const attrs = [{ name: 'commonName', value: subject }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  // forge lays out the certificate; the signature is Node's (native RSA): forge's own `cert.sign` runs
  // RSA in JavaScript, ~80 ms of the event loop per realm created.
  cert.signatureOid = cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  const pki = forge.pki as typeof forge.pki & { getTBSCertificate(c: Forge.pki.Certificate): Forge.asn1.Asn1 };
  cert.tbsCertificate = pki.getTBSCertificate(cert);
  const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, privateKeyPem).toString('binary');
  return forge.util.encode64(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes());
}

/**
 * A self-signed X.509 v1 certificate (10 years, CN = subject, ecdsa-with-SHA256) for an EC key pair,
 * as Keycloak's generated ECDSA/ECDH providers make with `ecGenerateCertificate`
 * (CertificateUtils#generateV1SelfSignedCertificate); base64 DER. forge cannot hold an EC public key,
 * so the structure is laid out from its ASN.1 helpers around Node's own SubjectPublicKeyInfo and
 * signed by Node.
 */
export function selfSignedEcCertificate(privateKey: KeyObject, subject: string): string {
  const forge = require('node-forge') as typeof Forge;
  const { asn1 } = forge;
  const { UNIVERSAL } = asn1.Class;
  const T = asn1.Type;
  const seq = (items: Forge.asn1.Asn1[]) => asn1.create(UNIVERSAL, T.SEQUENCE, true, items);
  const oid = (dotted: string) => asn1.create(UNIVERSAL, T.OID, false, asn1.oidToDer(dotted).getBytes());
  const name = seq([
    asn1.create(UNIVERSAL, T.SET, true, [seq([oid('2.5.4.3'), asn1.create(UNIVERSAL, T.UTF8, false, forge.util.encodeUtf8(subject))])]),
  ]);
  const now = Date.now();
  const time = (ms: number) => asn1.create(UNIVERSAL, T.UTCTIME, false, asn1.dateToUtcTime(new Date(ms)));
  const ecdsaWithSha256 = seq([oid('1.2.840.10045.4.3.2')]);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const tbs = seq([
    asn1.create(UNIVERSAL, T.INTEGER, false, Buffer.from(`01${randomBytes(8).toString('hex')}`, 'hex').toString('binary')),
    ecdsaWithSha256,
    name,
    seq([time(now - 60_000), time(now + 10 * 365 * 24 * 3600 * 1000)]),
    name,
    asn1.fromDer(spki.toString('binary')),
  ]);
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, privateKey);
  const cert = seq([tbs, ecdsaWithSha256, asn1.create(UNIVERSAL, T.BITSTRING, false, `\0${signature.toString('binary')}`)]);
  return Buffer.from(asn1.toDer(cert).getBytes(), 'binary').toString('base64');
}

export interface GeneratedComponent {
  name: string;
  providerId: string;
  config: Record<string, string[]>;
}

/** Generates an RSA key pair with a self-signed certificate; config values as Keycloak stores them. */
export async function generateRsa(subject: string, bits = 2048): Promise<{ privateKey: string; certificate: string }> {
  const { privateKey, publicKey } = await genKeyPair('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKey: pemBody(privateKey), certificate: selfSignedCertificate(privateKey, publicKey, subject) };
}

/** The four default key providers of a new realm (rsa-generated, rsa-enc-generated, hmac-generated-hs512, aes-generated). */
export async function defaultKeyProviders(realmName: string): Promise<GeneratedComponent[]> {
  const [sig, enc] = await Promise.all([generateRsa(realmName), generateRsa(realmName)]);
  return [
    {
      name: 'rsa-generated',
      providerId: 'rsa-generated',
      config: { priority: ['100'], keyUse: ['SIG'], privateKey: [sig.privateKey], certificate: [sig.certificate] },
    },
    {
      name: 'rsa-enc-generated',
      providerId: 'rsa-enc-generated',
      config: {
        priority: ['100'],
        keyUse: ['ENC'],
        algorithm: ['RSA-OAEP'],
        privateKey: [enc.privateKey],
        certificate: [enc.certificate],
      },
    },
    {
      name: 'hmac-generated-hs512',
      providerId: 'hmac-generated',
      config: { priority: ['100'], algorithm: ['HS512'], secret: [randomBytes(128).toString('base64url')], kid: [randomUUID()] },
    },
    {
      name: 'aes-generated',
      providerId: 'aes-generated',
      config: { priority: ['100'], secret: [randomBytes(16).toString('base64url')], kid: [randomUUID()] },
    },
  ];
}

export type KeyStatus = 'ACTIVE' | 'PASSIVE' | 'DISABLED';

/** One usable key of a realm, derived from a key-provider component. */
export interface RealmKey {
  componentId: string;
  providerId: string;
  priority: number;
  kid: string;
  status: KeyStatus;
  type: 'RSA' | 'OCT' | 'EC' | 'OKP';
  algorithm: string;
  use: 'SIG' | 'ENC';
  privateKey?: KeyObject;
  publicKey?: KeyObject;
  secret?: Buffer;
  /** base64 DER */
  certificate?: string;
  /** base64 DER SubjectPublicKeyInfo */
  publicKeyDer?: string;
  validTo?: number;
}

export interface KeyComponent {
  id: string;
  providerId: string;
  config: Record<string, string[]>;
}

const first = (c: Record<string, string[]>, k: string) => c[k]?.[0];

function statusOf(config: Record<string, string[]>): KeyStatus {
  if (first(config, 'enabled') === 'false') return 'DISABLED';
  if (first(config, 'active') === 'false') return 'PASSIVE';
  return 'ACTIVE';
}

const keyCache = new Map<string, RealmKey>();

/** Turns a key-provider component into its key (parsed keys are cached by component id and config). */
export function componentKey(c: KeyComponent): RealmKey | undefined {
  const cacheKey = `${c.id}:${createHash('sha1').update(JSON.stringify(c.config)).digest('hex')}`;
  const cached = keyCache.get(cacheKey);
  if (cached) return cached;
  const config = c.config;
  const base = { componentId: c.id, providerId: c.providerId, priority: Number(first(config, 'priority') ?? 0), status: statusOf(config) };
  let key: RealmKey | undefined;
  if (c.providerId === 'rsa-generated' || c.providerId === 'rsa' || c.providerId === 'rsa-enc-generated' || c.providerId === 'rsa-enc') {
    const pk = first(config, 'privateKey');
    if (!pk) return undefined;
    const privateKey = createPrivateKey({ key: Buffer.from(pk, 'base64'), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey);
    const enc = c.providerId.startsWith('rsa-enc');
    const certificate = first(config, 'certificate');
    let validTo: number | undefined;
    if (certificate) {
      const x = new X509Certificate(Buffer.from(certificate, 'base64'));
      validTo = new Date(x.validTo).getTime();
    }
    key = {
      ...base,
      kid: first(config, 'kid') ?? keyId(publicKey),
      type: 'RSA',
      algorithm: first(config, 'algorithm') ?? (enc ? 'RSA-OAEP' : 'RS256'),
      use: enc ? 'ENC' : 'SIG',
      privateKey,
      publicKey,
      certificate,
      publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      validTo,
    };
  } else if (c.providerId === 'hmac-generated' || c.providerId === 'aes-generated') {
    const secret = first(config, 'secret');
    if (!secret) return undefined;
    const hmac = c.providerId === 'hmac-generated';
    key = {
      ...base,
      kid: first(config, 'kid') ?? c.id,
      type: 'OCT',
      algorithm: hmac ? (first(config, 'algorithm') ?? 'HS512') : 'AES',
      use: hmac ? 'SIG' : 'ENC',
      secret: Buffer.from(secret, 'base64url'),
    };
  } else if (c.providerId in CURVE_PROVIDERS) {
    key = curveKey(c, base);
  } else if (c.providerId === 'java-keystore') {
    try {
      key = keystoreKey(c.config, base);
    } catch (e) {
      // Keycloak logs the provider's failure and goes on without its key.
      log.warn(`Key provider ${c.id} (java-keystore): Failed to load keys. ${(e as Error).message}`);
      return undefined;
    }
  }
  if (key) keyCache.set(cacheKey, key);
  return key;
}

/** Generated EC/OKP providers: the config key prefix of their base64 DER key pair. */
const CURVE_PROVIDERS: Record<string, string> = { 'ecdsa-generated': 'ecdsa', 'ecdh-generated': 'ecdh', 'eddsa-generated': 'eddsa' };
const ES_ALG: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };

/** The key of an ecdsa-, ecdh- or eddsa-generated component (kid derived from the public key, as for RSA). */
function curveKey(c: KeyComponent, base: Pick<RealmKey, 'componentId' | 'providerId' | 'priority' | 'status'>): RealmKey | undefined {
  const prefix = CURVE_PROVIDERS[c.providerId];
  const pk = first(c.config, `${prefix}PrivateKey`);
  if (!pk) return undefined;
  const privateKey = createPrivateKey({ key: Buffer.from(pk, 'base64'), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const curve = first(c.config, `${prefix}EllipticCurveKey`) ?? (prefix === 'eddsa' ? 'Ed25519' : 'P-256');
  const algorithm =
    prefix === 'eddsa' ? 'EdDSA' : prefix === 'ecdh' ? (first(c.config, 'ecdhAlgorithm') ?? 'ECDH-ES') : (ES_ALG[curve] ?? 'ES256');
  // ecGenerateCertificate: the certificate the provider made (ECDSA and ECDH keys).
  const certificate = prefix === 'eddsa' ? undefined : first(c.config, 'certificate');
  return {
    ...base,
    ...(certificate ? { certificate, validTo: new Date(new X509Certificate(Buffer.from(certificate, 'base64')).validTo).getTime() } : {}),
    kid: first(c.config, 'kid') ?? keyId(publicKey),
    type: prefix === 'eddsa' ? 'OKP' : 'EC',
    algorithm,
    use: prefix === 'ecdh' ? 'ENC' : 'SIG',
    privateKey,
    publicKey,
    publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

/** Keycloak's order: priority descending, ties by component id ascending. */
export function sortKeys(keys: RealmKey[]): RealmKey[] {
  return [...keys].sort((a, b) => b.priority - a.priority || a.componentId.localeCompare(b.componentId));
}

/** What each algorithm of a java-keystore provider needs: Node's key type(s), the key's type and use. */
const KEYSTORE_ALGORITHMS: Record<string, { keyTypes: string[]; type: RealmKey['type']; use: RealmKey['use'] }> = {
  ...Object.fromEntries(
    ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'].map((a) => [
      a,
      { keyTypes: ['rsa'], type: 'RSA' as const, use: 'SIG' as const },
    ]),
  ),
  ...Object.fromEntries(
    ['RSA-OAEP', 'RSA1_5', 'RSA-OAEP-256'].map((a) => [a, { keyTypes: ['rsa'], type: 'RSA' as const, use: 'ENC' as const }]),
  ),
  ...Object.fromEntries(['ES256', 'ES384', 'ES512'].map((a) => [a, { keyTypes: ['ec'], type: 'EC' as const, use: 'SIG' as const }])),
  ...Object.fromEntries(
    ['ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A192KW', 'ECDH-ES+A256KW'].map((a) => [
      a,
      { keyTypes: ['ec'], type: 'EC' as const, use: 'ENC' as const },
    ]),
  ),
  EdDSA: { keyTypes: ['ed25519', 'ed448'], type: 'OKP', use: 'SIG' },
};

/** Keycloak's KeystoreUtil#getKeystoreType: the configured type, else the file's extension, else JKS. */
function keystoreTypeOf(configured: string | undefined, path: string): string {
  if (configured) return configured.toUpperCase();
  const ext = path.toLowerCase().split('.').pop();
  if (ext === 'p12' || ext === 'pfx' || ext === 'pkcs12') return 'PKCS12';
  if (ext === 'bcfks') return 'BCFKS';
  return 'JKS';
}

/**
 * The key of a java-keystore provider (Keycloak's JavaKeystoreKeyProvider): the private key and
 * certificate under `keyAlias` of the JKS or PKCS#12 file at `keystore`, read with `keystorePassword`
 * and `keyPassword`, for the provider's `algorithm` (RS256 by default, RSA-OAEP for `keyUse` enc).
 * Throws with Keycloak's reason ("File not found on server. …", "Key in the keystore cannot be
 * recovered. …"), which the component validation answers after "Failed to load keys. ".
 */
export function keystoreKey(
  config: Record<string, string[]>,
  base: Pick<RealmKey, 'componentId' | 'providerId' | 'priority' | 'status'>,
): RealmKey {
  const path = first(config, 'keystore') ?? '';
  const keyUse = first(config, 'keyUse');
  const algorithm = first(config, 'algorithm') ?? (keyUse?.toUpperCase() === 'ENC' ? 'RSA-OAEP' : 'RS256');
  const wanted = KEYSTORE_ALGORITHMS[algorithm];
  if (!wanted) throw new Error(`Keys for algorithm ${algorithm} are not supported.`);
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' || err.code === 'EISDIR') throw new Error(`File not found on server. ${path} (No such file or directory)`);
    throw new Error(`IO error on server. ${err.message}`);
  }
  const type = keystoreTypeOf(first(config, 'keystoreType'), path);
  const format = keystoreFormat(type);
  if (!format) throw new Error(`KeyStore error on server. ${type} not found`);
  if (keyUse && keyUse.toUpperCase() !== wanted.use) {
    throw new Error(`Key in the keystore cannot be recovered. Invalid use ${keyUse} for algorithm ${algorithm}.`);
  }
  const alias = first(config, 'keyAlias') ?? '';
  let entry: ReturnType<typeof readKeystore>;
  try {
    entry = readKeystore(format, data, alias, first(config, 'keystorePassword') ?? '', first(config, 'keyPassword') ?? '');
  } catch (e) {
    if (e instanceof KeystoreLoadError) throw new Error('IO error on server. keystore password was incorrect');
    throw new Error(`IO error on server. ${(e as Error).message}`);
  }
  if (!entry.privateKey) {
    throw new Error(
      entry.certificate
        ? `Key in the keystore cannot be recovered. Invalid ${algorithm} key for alias ${alias}. Key is not PrivateKeyEntry.`
        : `Key in the keystore cannot be recovered. Alias ${alias} does not exists in the keystore.`,
    );
  }
  if (!entry.certificate) throw new Error('Key in the keystore cannot be recovered. Invalid null certificate in the entry.');
  const privateKey = createPrivateKey({ key: entry.privateKey, format: 'der', type: 'pkcs8' });
  if (!wanted.keyTypes.includes(privateKey.asymmetricKeyType ?? '')) {
    throw new Error(
      `Algorithm not available on server. Invalid ${algorithm} key for alias ${alias}. Algorithm is ${String(privateKey.asymmetricKeyType).toUpperCase()}.`,
    );
  }
  const x = new X509Certificate(entry.certificate);
  const publicKey = x.publicKey;
  return {
    ...base,
    kid: first(config, 'kid') ?? keyId(publicKey),
    type: wanted.type,
    algorithm,
    use: wanted.use,
    privateKey,
    publicKey,
    certificate: entry.certificate.toString('base64'),
    publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    validTo: new Date(x.validTo).getTime(),
  };
}
