import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { readJks, writeJks } from './jks';
import { type KeystoreContent, type KeystoreEntry, KeystoreLoadError } from './keystore-types';

/**
 * Key material for client attribute certificates (config reference §2): RSA key pairs with
 * self-signed X.509 v1 certificates, and keystores in the formats Keycloak serves and accepts —
 * PKCS#12 (written and read here on node-forge's ASN.1 and PBE primitives) and JKS (./jks.ts).
 * Keys are PKCS#8 DER, certificates DER; no database access, no request context.
 */
const genKeyPair = promisify(generateKeyPair);

/** Keystore formats this server writes and reads (serverinfo-style names). */
export const KEYSTORE_FORMATS = ['JKS', 'PKCS12'] as const;
export type KeystoreFormat = (typeof KEYSTORE_FORMATS)[number];

/** The supported format for a case-insensitive name, or undefined. */
export function keystoreFormat(name: string | null | undefined): KeystoreFormat | undefined {
  const upper = (name ?? '').toUpperCase();
  return KEYSTORE_FORMATS.find((f) => f === upper);
}

export interface KeyAndCertificate {
  /** PKCS#8 DER */
  privateKey: Buffer;
  /** X.509 DER */
  certificate: Buffer;
}

const A = forge.asn1;
const U = A.Class.UNIVERSAL;
const T = A.Type;
type Asn1 = forge.asn1.Asn1;
const bin = (b: Buffer) => b.toString('binary');
const buf = (s: string) => Buffer.from(s, 'binary');
const seq = (v: Asn1[]) => A.create(U, T.SEQUENCE, true, v);
const set = (v: Asn1[]) => A.create(U, T.SET, true, v);
const oid = (o: string) => A.create(U, T.OID, false, A.oidToDer(o).getBytes());
const octets = (b: Buffer) => A.create(U, T.OCTETSTRING, false, bin(b));
const int = (n: number) => A.create(U, T.INTEGER, false, A.integerToDer(n).getBytes());
const explicit0 = (v: Asn1) => A.create(A.Class.CONTEXT_SPECIFIC, 0, true, [v]);
const der = (a: Asn1) => buf(A.toDer(a).getBytes());
/** node-forge functions its type declarations leave out. */
const pki = forge.pki as unknown as {
  getTBSCertificate(cert: forge.pki.Certificate): Asn1;
  pbe: { getCipher(oid: string, params: Asn1, password: string): forge.cipher.BlockCipher };
};

/**
 * A new RSA key pair and a self-signed X.509 v1 certificate (subject and issuer `CN=<subject>`,
 * serial = current milliseconds, SHA256withRSA, valid `years` from now), as Keycloak generates them.
 */
export async function generateKeyAndCertificate(subject: string, bits = 4096, years = 3): Promise<KeyAndCertificate> {
  const { privateKey, publicKey } = await genKeyPair('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromAsn1(A.fromDer(bin(publicKey)));
  const serial = Date.now().toString(16);
  cert.serialNumber = serial.length % 2 ? `0${serial}` : serial;
  const now = new Date();
  const notAfter = new Date(now);
  notAfter.setFullYear(now.getFullYear() + years);
  cert.validity.notBefore = now;
  cert.validity.notAfter = notAfter;
  const name = [{ name: 'commonName', value: subject }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  const tbs = pki.getTBSCertificate(cert);
  tbs.value = (tbs.value as Asn1[]).slice(1); // no [0] version element: an X.509 v1 certificate
  const signature = sign('sha256', der(tbs), createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }));
  const algorithm = seq([oid(forge.pki.oids.sha256WithRSAEncryption), A.create(U, T.NULL, false, '')]);
  const certificate = der(seq([tbs, algorithm, A.create(U, T.BITSTRING, false, `\u0000${bin(signature)}`)]));
  return { privateKey, certificate };
}

/** Base64 body of a PEM (BEGIN/END lines and whitespace removed). */
export const pemBody = (pem: string) => pem.replace(/-----(BEGIN|END)[^-]*-----/g, '').replace(/\s+/g, '');

/** DER of a PEM or bare base64 certificate; throws when it is not an X.509 certificate. */
export function parseCertificate(text: string): Buffer {
  const derBytes = Buffer.from(pemBody(text), 'base64');
  new X509Certificate(derBytes); // validates
  return derBytes;
}

/** SubjectPublicKeyInfo DER of a PEM public key (SPKI or PKCS#1); throws when unparsable. */
export function parsePublicKey(text: string): Buffer {
  const key = text.includes('-----BEGIN')
    ? createPublicKey(text)
    : createPublicKey({ key: Buffer.from(pemBody(text), 'base64'), format: 'der', type: 'spki' });
  return key.export({ type: 'spki', format: 'der' });
}

/** Writes a keystore in the given format. */
export function writeKeystore(format: KeystoreFormat, content: KeystoreContent): Buffer {
  return format === 'JKS' ? writeJks(content) : writePkcs12(content);
}

/**
 * Reads the key (with `keyPassword`) and certificate under `alias` from a keystore. Throws
 * `KeystoreLoadError` when the store cannot be loaded with `storePassword`; a key that cannot be
 * recovered is left out, as Keycloak ignores that failure.
 */
export function readKeystore(
  format: KeystoreFormat,
  data: Buffer,
  alias: string,
  storePassword: string,
  keyPassword: string,
): KeystoreEntry {
  return format === 'JKS' ? readJks(data, alias, storePassword, keyPassword) : readPkcs12(data, alias, storePassword, keyPassword);
}

// --- PKCS#12 -----------------------------------------------------------------------------------

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  /** Java's "trusted key usage" bag attribute: marks a trusted certificate entry. */
  javaTrustedKeyUsage: '2.16.840.1.113894.746875.1.1',
  anyExtendedKeyUsage: '2.5.29.37.0',
  sha1: '1.3.14.3.2.26',
};

const MAC_DIGESTS: Record<string, { node: string; forge: () => forge.md.MessageDigest; size: number }> = {
  '1.3.14.3.2.26': { node: 'sha1', forge: () => forge.md.sha1.create(), size: 20 },
  '2.16.840.1.101.3.4.2.1': { node: 'sha256', forge: () => forge.md.sha256.create(), size: 32 },
  '2.16.840.1.101.3.4.2.2': { node: 'sha384', forge: () => forge.md.sha384.create(), size: 48 },
  '2.16.840.1.101.3.4.2.3': { node: 'sha512', forge: () => forge.md.sha512.create(), size: 64 },
};

const attribute = (type: string, value: Asn1) => seq([oid(type), set([value])]);
const friendlyName = (alias: string) => attribute(OID.friendlyName, A.create(U, T.BMPSTRING, false, alias));
const trustedUsage = () => attribute(OID.javaTrustedKeyUsage, oid(OID.anyExtendedKeyUsage));
const dataContent = (content: Buffer) => seq([oid(OID.data), explicit0(octets(content))]);
const certBag = (certificate: Buffer, attrs: Asn1[]) =>
  seq([oid(OID.certBag), explicit0(seq([oid(OID.x509Certificate), explicit0(octets(certificate))])), set(attrs)]);

function pkcs12Key(password: string, salt: Buffer, id: number, iterations: number, size: number, md: () => forge.md.MessageDigest): Buffer {
  return buf(forge.pkcs12.generateKey(password, forge.util.createBuffer(bin(salt)), id, iterations, size, md()).getBytes());
}

/** PKCS#12 as Java writes it: certificates (key certificate with localKeyId, trusted ones with Java's trust attribute), a shrouded key bag, an HMAC-SHA1 integrity MAC. */
function writePkcs12(c: KeystoreContent): Buffer {
  const localKeyId = attribute(OID.localKeyId, octets(createHash('sha1').update(c.certificate).digest()));
  const certs = [certBag(c.certificate, [friendlyName(c.alias), c.privateKey ? localKeyId : trustedUsage()])];
  for (const t of c.trusted) certs.push(certBag(t.certificate, [friendlyName(t.alias), trustedUsage()]));
  const contents = [dataContent(der(seq(certs)))];
  if (c.privateKey) {
    const info = A.fromDer(bin(c.privateKey));
    const encrypted = forge.pki.encryptPrivateKeyInfo(info, c.keyPassword ?? c.storePassword, { algorithm: '3des', count: 2048 });
    const keyBag = seq([oid(OID.shroudedKeyBag), explicit0(encrypted), set([friendlyName(c.alias), localKeyId])]);
    contents.push(dataContent(der(seq([keyBag]))));
  }
  const authSafe = der(seq(contents));
  const salt = randomBytes(20);
  const iterations = 2048;
  const macKey = pkcs12Key(c.storePassword, salt, 3, iterations, 20, MAC_DIGESTS[OID.sha1].forge);
  const mac = createHmac('sha1', macKey).update(authSafe).digest();
  const macData = seq([seq([seq([oid(OID.sha1), A.create(U, T.NULL, false, '')]), octets(mac)]), octets(salt), int(iterations)]);
  return der(seq([int(3), dataContent(authSafe), macData]));
}

const fail = (m = 'error loading keystore'): never => {
  throw new KeystoreLoadError(m);
};
const children = (a: Asn1 | undefined): Asn1[] => (a && Array.isArray(a.value) ? (a.value as Asn1[]) : fail());
const bytesOf = (a: Asn1 | undefined): string => (a && typeof a.value === 'string' ? a.value : fail());
const oidOf = (a: Asn1 | undefined) => A.derToOid(bytesOf(a));

/** Content octets of an OCTET STRING (which BER may split into constructed chunks). */
function octetsOf(a: Asn1 | undefined): string {
  if (!a) return fail();
  return Array.isArray(a.value) ? (a.value as Asn1[]).map(octetsOf).join('') : bytesOf(a);
}

function verifyMac(pfx: Asn1[], authSafe: string, password: string): void {
  const macData = pfx[2];
  if (!macData) return;
  const [digestInfo, saltA, iterA] = children(macData);
  const [algId, digestA] = children(digestInfo);
  const digest = MAC_DIGESTS[oidOf(children(algId)[0])] ?? fail();
  const iterations = iterA ? A.derToInteger(bytesOf(iterA)) : 1;
  const key = pkcs12Key(password, buf(bytesOf(saltA)), 3, iterations, digest.size, digest.forge);
  const mac = createHmac(digest.node, key).update(buf(authSafe)).digest();
  if (!mac.equals(buf(bytesOf(digestA)))) fail();
}

/** SafeContents DER of one AuthenticatedSafe ContentInfo (plain data, or encryptedData decrypted with the store password). */
function safeContentsOf(contentInfo: Asn1, password: string): string {
  const [typeA, content] = children(contentInfo);
  const type = oidOf(typeA);
  if (type === OID.data) return octetsOf(children(content)[0]);
  if (type !== OID.encryptedData) return fail();
  const encInfo = children(children(children(content)[0])[1]); // EncryptedData.encryptedContentInfo
  const [algOid, params] = children(encInfo[1]);
  const cipher = pki.pbe.getCipher(oidOf(algOid), params, password);
  cipher.update(forge.util.createBuffer(octetsOf(encInfo[2])));
  if (!cipher.finish()) fail();
  return cipher.output.getBytes();
}

function readPkcs12(data: Buffer, alias: string, storePassword: string, keyPassword: string): KeystoreEntry {
  const keys = new Map<string, { name?: string; key: Buffer | null }>();
  const certs: Array<{ name?: string; keyId?: string; certificate: Buffer }> = [];
  try {
    const pfx = children(A.fromDer(bin(data), false));
    const authSafe = octetsOf(children(children(pfx[1])[1])[0]);
    verifyMac(pfx, authSafe, storePassword);
    for (const contentInfo of children(A.fromDer(authSafe, false))) {
      for (const bag of children(A.fromDer(safeContentsOf(contentInfo, storePassword), false))) {
        const [typeA, valueA, attrsA] = children(bag);
        const attrs = new Map<string, Asn1>();
        for (const at of attrsA ? children(attrsA) : []) attrs.set(oidOf(children(at)[0]), children(children(at)[1])[0]);
        const nameA = attrs.get(OID.friendlyName);
        const name = nameA ? bytesOf(nameA) : undefined; // forge decodes BMPStrings
        const keyId = attrs.has(OID.localKeyId) ? bytesOf(attrs.get(OID.localKeyId)) : undefined;
        const type = oidOf(typeA);
        const value = children(valueA)[0];
        if (type === OID.certBag) {
          const [certType, certValue] = children(value);
          if (oidOf(certType) === OID.x509Certificate) certs.push({ name, keyId, certificate: buf(octetsOf(children(certValue)[0])) });
        } else if (type === OID.shroudedKeyBag || type === OID.keyBag) {
          let key: Buffer | null = null;
          try {
            const info = type === OID.keyBag ? value : forge.pki.decryptPrivateKeyInfo(value, keyPassword);
            key = info ? der(info) : null;
          } catch {
            key = null;
          }
          keys.set(keyId ?? `name:${name}`, { name, key });
        }
      }
    }
  } catch (e) {
    if (e instanceof KeystoreLoadError) throw e;
    fail();
  }
  const same = (n?: string) => n !== undefined && n.toLowerCase() === alias.toLowerCase();
  const keyEntry = [...keys.entries()].find(([, k]) => same(k.name));
  const cert = certs.find((c) => keyEntry && c.keyId !== undefined && c.keyId === keyEntry[0]) ?? certs.find((c) => same(c.name));
  return { privateKey: keyEntry?.[1].key ?? undefined, certificate: cert?.certificate };
}
