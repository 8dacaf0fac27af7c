import { X509Certificate, createPrivateKey, createPublicKey, generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { generateRsa, keystoreKey, selfSignedCertificate, selfSignedEcCertificate } from '../../auth/keys';
import type { ConfigPropertyRep } from '../../representations/config-property';
import { type ComponentDraft, type ComponentFactory, ConfigCheck, invalidConfig, prop } from './config';

/**
 * Key provider factories (`org.keycloak.keys.KeyProvider`, config reference §7): their config
 * properties as Keycloak 26.3 declares them and `validateConfiguration`, which generates the key
 * material generated providers keep in undeclared (so hidden and unwritable) config keys.
 */
const genKeyPair = promisify(generateKeyPair);

const PRIORITY = prop('priority', 'Priority', 'Priority for the provider', 'String', { defaultValue: '0' });
const ENABLED = prop('enabled', 'Enabled', 'Set if the keys are enabled', 'boolean', { defaultValue: 'true' });
const ACTIVE = prop('active', 'Active', 'Set if the keys can be used for signing', 'boolean', { defaultValue: 'true' });
const KEY_SIZE = prop('keySize', 'Key size', 'Size for the generated keys', 'List', {
  defaultValue: '2048',
  options: ['1024', '2048', '4096'],
});
const RS_ALG = prop('algorithm', 'Algorithm', 'Intended algorithm for the key', 'List', {
  defaultValue: 'RS256',
  options: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
});
const RS_ENC_ALG = prop('algorithm', 'Algorithm', 'Intended algorithm for the key encryption', 'List', {
  defaultValue: 'RSA-OAEP',
  options: ['RSA1_5', 'RSA-OAEP', 'RSA-OAEP-256'],
});
const HS_ALG = prop('algorithm', 'Algorithm', 'Intended algorithm for the key', 'List', {
  defaultValue: 'HS512',
  options: ['HS256', 'HS384', 'HS512'],
});
const HS_SIZE = prop('secretSize', 'Secret size', 'Size in bytes for the generated secret', 'List', {
  defaultValue: '128',
  options: ['16', '24', '32', '64', '128', '256', '512'],
});
const AES_SIZE = prop(
  'secretSize',
  'AES Key size',
  'Size in bytes for the generated AES key. Size 16 is for AES-128, Size 24 for AES-192, and Size 32 for AES-256. WARN: Bigger keys than 128 are not allowed on some JDK implementations',
  'List',
  { defaultValue: '16', options: ['16', '24', '32'] },
);
const PRIVATE_KEY = prop('privateKey', 'Private RSA Key', 'Private RSA Key encoded in PEM format', 'File', { secret: true });
const CERTIFICATE = prop('certificate', 'X509 Certificate', 'X509 Certificate encoded in PEM format', 'File');
const EC_CERT = prop(
  'ecGenerateCertificate',
  'Generate Certificate',
  'If a certificate should be build on creation. If the certificate is build, it will be available in the realm JWK for the key in the claim x5c and corresponding thumbprints may be available in the claims like x5t or x5t#S256.',
  'boolean',
  { defaultValue: false },
);
const CURVES = ['P-256', 'P-384', 'P-521'];
const ECDSA_CURVE = prop('ecdsaEllipticCurveKey', 'Elliptic Curve', 'Elliptic Curve used in ECDSA', 'List', {
  defaultValue: 'P-256',
  options: CURVES,
});
const ECDH_CURVE = prop('ecdhEllipticCurveKey', 'Elliptic Curve', 'Elliptic Curve used in ECDH', 'List', {
  defaultValue: 'P-256',
  options: CURVES,
});
const ECDH_ALG = prop('ecdhAlgorithm', 'Algorithm', 'Algorithm for processing the Content Encryption Key', 'List', {
  defaultValue: 'ECDH-ES',
  options: ['ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A192KW', 'ECDH-ES+A256KW'],
});
const EDDSA_CURVE = prop('eddsaEllipticCurveKey', 'Elliptic Curve', 'Elliptic Curve used in EdDSA', 'List', {
  defaultValue: 'Ed25519',
  options: ['Ed25519', 'Ed448'],
});
const BASE = [PRIORITY, ENABLED, ACTIVE];

const first = (d: ComponentDraft, key: string) => d.config[key]?.[0];
const put = (d: ComponentDraft, key: string, value: string) => {
  d.config[key] = [value];
};
const checkBase = (d: ComponentDraft) => new ConfigCheck(d.config).long(PRIORITY).boolean(ENABLED).boolean(ACTIVE);
const pemBody = (text: string) => text.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** Bits of a stored PKCS#8 RSA private key, or 0 when unreadable. */
function rsaBits(pkcs8: string | undefined): number {
  if (!pkcs8) return 0;
  try {
    return createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' }).asymmetricKeyDetails?.modulusLength ?? 0;
  } catch {
    return 0;
  }
}

function generatedRsa(id: string, helpText: string, alg: ConfigPropertyRep): ComponentFactory {
  return {
    id,
    helpText,
    properties: [...BASE, KEY_SIZE, alg],
    async validate(d) {
      checkBase(d).list(KEY_SIZE).list(alg);
      const size = Number(first(d, 'keySize') ?? 2048);
      if (first(d, 'privateKey') && first(d, 'certificate') && rsaBits(first(d, 'privateKey')) === size) return;
      const { privateKey, certificate } = await generateRsa(d.realm.name, size);
      put(d, 'privateKey', privateKey);
      put(d, 'certificate', certificate);
    },
  };
}

function importedRsa(id: string, helpText: string, alg: ConfigPropertyRep): ComponentFactory {
  return {
    id,
    helpText,
    properties: [...BASE, PRIVATE_KEY, CERTIFICATE, alg],
    validate(d) {
      checkBase(d).single(PRIVATE_KEY, true).single(CERTIFICATE).list(alg);
      let privatePem: string;
      let publicDer: string;
      try {
        const raw = first(d, 'privateKey') as string;
        const key = raw.includes('-----BEGIN')
          ? createPrivateKey(raw)
          : createPrivateKey({ key: Buffer.from(pemBody(raw), 'base64'), format: 'der', type: 'pkcs8' });
        if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
        privatePem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
        publicDer = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
        put(d, 'privateKey', pemBody(privatePem));
      } catch {
        throw invalidConfig('Failed to decode private key');
      }
      const cert = first(d, 'certificate');
      if (cert === undefined) {
        const publicPem = createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString();
        put(d, 'certificate', selfSignedCertificate(privatePem, publicPem, d.realm.name));
        return;
      }
      let x: X509Certificate;
      try {
        x = new X509Certificate(Buffer.from(pemBody(cert), 'base64'));
      } catch {
        throw invalidConfig('Failed to decode certificate');
      }
      if (x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') !== publicDer) {
        throw invalidConfig('Certificate does not match private key');
      }
      const now = Date.now();
      if (now < Date.parse(x.validFrom) || now > Date.parse(x.validTo)) throw invalidConfig('Certificate is not valid');
      put(d, 'certificate', pemBody(cert));
    },
  };
}

function generatedSecret(
  id: string,
  helpText: string,
  size: ConfigPropertyRep,
  defaultSize: number,
  extra: ConfigPropertyRep[],
): ComponentFactory {
  return {
    id,
    helpText,
    properties: [...BASE, size, ...extra],
    validate(d) {
      const check = checkBase(d).list(size);
      for (const p of extra) check.list(p);
      const secret = first(d, 'secret');
      const current = secret ? Buffer.from(secret, 'base64url').length : 0;
      const wanted = Number(first(d, 'secretSize') ?? (secret ? current : defaultSize));
      if (secret && current === wanted) {
        if (first(d, 'secretSize') === undefined && current !== defaultSize) put(d, 'secretSize', String(current));
        return;
      }
      put(d, 'secret', randomBytes(wanted).toString('base64url'));
      put(d, 'kid', randomUUID());
    },
  };
}

/** A generated EC/OKP provider: `<prefix>PrivateKey` / `<prefix>PublicKey` hold base64 DER (PKCS#8, SPKI). */
function generatedCurve(
  id: string,
  helpText: string,
  prefix: string,
  curve: ConfigPropertyRep,
  extra: ConfigPropertyRep[],
): ComponentFactory {
  return {
    id,
    helpText,
    properties: [...BASE, curve, ...extra],
    async validate(d) {
      const check = checkBase(d).list(curve);
      for (const p of extra) {
        if (p.type === 'boolean') check.boolean(p);
        else check.list(p);
      }
      const wanted = first(d, curve.name) ?? String(curve.defaultValue);
      const stored = first(d, `${prefix}PrivateKey`);
      // ecGenerateCertificate: a certificate for the key pair, made once (Keycloak's GeneratedEcdsaKeyProvider).
      const certify = () => {
        if (prefix === 'eddsa' || first(d, 'ecGenerateCertificate') !== 'true' || first(d, 'certificate')) return;
        const key = createPrivateKey({
          key: Buffer.from(first(d, `${prefix}PrivateKey`) as string, 'base64'),
          format: 'der',
          type: 'pkcs8',
        });
        put(d, 'certificate', selfSignedEcCertificate(key, d.realm.name));
      };
      if (stored && curveOf(stored) === wanted) {
        certify();
        return;
      }
      // New keys: a certificate of the old ones would not match them.
      delete d.config.certificate;
      const { privateKey, publicKey } =
        prefix === 'eddsa'
          ? await genKeyPair(wanted.toLowerCase() as 'ed25519', {
              publicKeyEncoding: { type: 'spki', format: 'der' },
              privateKeyEncoding: { type: 'pkcs8', format: 'der' },
            })
          : await genKeyPair('ec', {
              namedCurve: wanted,
              publicKeyEncoding: { type: 'spki', format: 'der' },
              privateKeyEncoding: { type: 'pkcs8', format: 'der' },
            });
      put(d, `${prefix}PrivateKey`, privateKey.toString('base64'));
      put(d, `${prefix}PublicKey`, publicKey.toString('base64'));
      if (!d.config[curve.name]) put(d, curve.name, wanted);
      certify();
    },
  };
}

const NIST: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** The curve of a stored PKCS#8 key as the config names it (P-256 …, Ed25519, Ed448). */
function curveOf(pkcs8: string): string | undefined {
  try {
    const key = createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
    if (key.asymmetricKeyType === 'ed25519') return 'Ed25519';
    if (key.asymmetricKeyType === 'ed448') return 'Ed448';
    const named = key.asymmetricKeyDetails?.namedCurve;
    return named ? (NIST[named] ?? named) : undefined;
  } catch {
    return undefined;
  }
}

const KEYSTORE_PROPS = [
  ...BASE,
  prop('keystore', 'Keystore', 'Path to keys file', 'String'),
  prop('keystorePassword', 'Keystore Password', 'Password for the keys', 'Password', { secret: true }),
  prop('keystoreType', 'Keystore Type', 'Keystore type. This parameter is optional.', 'List', { options: ['JKS', 'PKCS12', 'BCFKS'] }),
  prop('keyAlias', 'Key Alias', 'Alias for the private key', 'String'),
  prop('keyPassword', 'Key Password', 'Password for the private key', 'Password', { secret: true }),
  RS_ALG,
  prop('keyUse', 'Key use', 'Whether the key should be used for signing or encryption.', 'List', {
    defaultValue: 'sig',
    options: ['sig', 'enc'],
  }),
];

/** The KeyProvider factories, ordered by id. */
export const KEY_PROVIDER_FACTORIES: ComponentFactory[] = [
  generatedSecret('aes-generated', 'Generates AES secret key', AES_SIZE, 16, []),
  generatedCurve('ecdh-generated', 'Generates ECDH keys', 'ecdh', ECDH_CURVE, [EC_CERT, ECDH_ALG]),
  generatedCurve('ecdsa-generated', 'Generates ECDSA keys', 'ecdsa', ECDSA_CURVE, [EC_CERT]),
  generatedCurve('eddsa-generated', 'Generates EdDSA keys', 'eddsa', EDDSA_CURVE, []),
  generatedSecret('hmac-generated', 'Generates HMAC secret key', HS_SIZE, 128, [HS_ALG]),
  {
    id: 'java-keystore',
    helpText: 'Loads keys from a Java keys file',
    properties: KEYSTORE_PROPS,
    validate(d) {
      const check = checkBase(d);
      for (const name of ['keystore', 'keystorePassword', 'keyAlias', 'keyPassword']) {
        check.single(KEYSTORE_PROPS.find((p) => p.name === name) as ConfigPropertyRep, true);
      }
      check.single(KEYSTORE_PROPS.find((p) => p.name === 'keystoreType') as ConfigPropertyRep);
      // The file is read now, as Keycloak's factory loads the key to validate the configuration.
      try {
        keystoreKey(d.config, { componentId: '', providerId: 'java-keystore', priority: 0, status: 'ACTIVE' });
      } catch (e) {
        throw invalidConfig(`Failed to load keys. ${(e as Error).message}`);
      }
    },
  },
  importedRsa('rsa', 'RSA key provider that can optionally generated a self-signed certificate', RS_ALG),
  importedRsa('rsa-enc', 'RSA for key encryption provider that can optionally generated a self-signed certificate', RS_ENC_ALG),
  generatedRsa('rsa-enc-generated', 'Generates RSA keys for key encryption and creates a self-signed certificate', RS_ENC_ALG),
  generatedRsa('rsa-generated', 'Generates RSA keys and creates a self-signed certificate', RS_ALG),
];
