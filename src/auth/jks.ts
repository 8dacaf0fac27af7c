import { createHash, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { type KeystoreContent, type KeystoreEntry, KeystoreLoadError } from './keystore-types';

/**
 * Sun's JKS keystore format, written and read by hand (ADR 0011): big-endian, magic 0xFEEDFEED,
 * version 2, then entries — 1 = private key (EncryptedPrivateKeyInfo under Sun's KeyProtector
 * algorithm, plus the certificate chain), 2 = trusted certificate — each with an alias (Java
 * "modified UTF-8", lower-cased as Java's JKS does) and a creation time in milliseconds; last, a
 * SHA-1 integrity digest over password (UTF-16BE) + "Mighty Aphrodite" + everything before it.
 */
const MAGIC = 0xfeedfeed;
const KEY_PROTECTOR_OID = '1.3.6.1.4.1.42.2.17.1.1';
const WHITENER = Buffer.from('Mighty Aphrodite', 'utf8');

const utf16be = (s: string) => {
  const b = Buffer.alloc(s.length * 2);
  for (let i = 0; i < s.length; i++) b.writeUInt16BE(s.charCodeAt(i), i * 2);
  return b;
};
const sha1 = (...parts: Buffer[]) => {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Sun's key-protector keystream: SHA-1(password ‖ previous digest), starting from the salt. */
function keystream(password: Buffer, salt: Buffer, length: number): Buffer {
  const out: Buffer[] = [];
  let prev = salt;
  let size = 0;
  while (size < length) {
    prev = sha1(password, prev);
    out.push(prev);
    size += prev.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

const xor = (a: Buffer, b: Buffer) => Buffer.from(a.map((v, i) => v ^ b[i]));

/** Protects a PKCS#8 key as an EncryptedPrivateKeyInfo (salt ‖ key XOR keystream ‖ SHA-1(password ‖ key)). */
function protectKey(pkcs8: Buffer, password: string): Buffer {
  const pw = utf16be(password);
  const salt = randomBytes(20);
  const protectedKey = Buffer.concat([salt, xor(pkcs8, keystream(pw, salt, pkcs8.length)), sha1(pw, pkcs8)]);
  const A = forge.asn1;
  const info = A.create(A.Class.UNIVERSAL, A.Type.SEQUENCE, true, [
    A.create(A.Class.UNIVERSAL, A.Type.SEQUENCE, true, [
      A.create(A.Class.UNIVERSAL, A.Type.OID, false, A.oidToDer(KEY_PROTECTOR_OID).getBytes()),
      A.create(A.Class.UNIVERSAL, A.Type.NULL, false, ''),
    ]),
    A.create(A.Class.UNIVERSAL, A.Type.OCTETSTRING, false, protectedKey.toString('binary')),
  ]);
  return Buffer.from(A.toDer(info).getBytes(), 'binary');
}

/** Recovers a PKCS#8 key protected by `protectKey`; null for a wrong password or another algorithm. */
function recoverKey(encrypted: Buffer, password: string): Buffer | null {
  try {
    const A = forge.asn1;
    const [alg, data] = A.fromDer(encrypted.toString('binary')).value as forge.asn1.Asn1[];
    const algOid = A.derToOid((alg.value as forge.asn1.Asn1[])[0].value as string);
    if (algOid !== KEY_PROTECTOR_OID) return null;
    const p = Buffer.from(data.value as string, 'binary');
    if (p.length < 41) return null;
    const pw = utf16be(password);
    const salt = p.subarray(0, 20);
    const body = p.subarray(20, p.length - 20);
    const key = xor(body, keystream(pw, salt, body.length));
    return sha1(pw, key).equals(p.subarray(p.length - 20)) ? key : null;
  } catch {
    return null;
  }
}

class Writer {
  private parts: Buffer[] = [];
  u16(n: number) {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    this.parts.push(b);
  }
  u32(n: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    this.parts.push(b);
  }
  u64(n: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(n));
    this.parts.push(b);
  }
  utf(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u16(b.length);
    this.parts.push(b);
  }
  bytes(b: Buffer) {
    this.u32(b.length);
    this.parts.push(b);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Writes a JKS keystore: a key entry (or trusted certificate) under `alias`, then the trusted certificates. */
export function writeJks(c: KeystoreContent): Buffer {
  const w = new Writer();
  w.u32(MAGIC);
  w.u32(2);
  w.u32(1 + c.trusted.length);
  const now = Date.now();
  if (c.privateKey) {
    w.u32(1);
    w.utf(c.alias.toLowerCase());
    w.u64(now);
    w.bytes(protectKey(c.privateKey, c.keyPassword ?? c.storePassword));
    w.u32(1);
    w.utf('X.509');
    w.bytes(c.certificate);
  } else {
    w.u32(2);
    w.utf(c.alias.toLowerCase());
    w.u64(now);
    w.utf('X.509');
    w.bytes(c.certificate);
  }
  for (const t of c.trusted) {
    w.u32(2);
    w.utf(t.alias.toLowerCase());
    w.u64(now);
    w.utf('X.509');
    w.bytes(t.certificate);
  }
  const body = w.done();
  return Buffer.concat([body, sha1(utf16be(c.storePassword), WHITENER, body)]);
}

class Reader {
  pos = 0;
  constructor(private readonly b: Buffer) {}
  private need(n: number) {
    if (this.pos + n > this.b.length) throw new KeystoreLoadError('error loading keystore');
  }
  u16() {
    this.need(2);
    this.pos += 2;
    return this.b.readUInt16BE(this.pos - 2);
  }
  u32() {
    this.need(4);
    this.pos += 4;
    return this.b.readUInt32BE(this.pos - 4);
  }
  skip(n: number) {
    this.need(n);
    this.pos += n;
  }
  utf() {
    const n = this.u16();
    this.need(n);
    this.pos += n;
    return this.b.subarray(this.pos - n, this.pos).toString('utf8');
  }
  bytes() {
    const n = this.u32();
    this.need(n);
    this.pos += n;
    return this.b.subarray(this.pos - n, this.pos);
  }
}

/** Reads the key and certificate under `alias` from a JKS keystore, verifying its integrity digest. */
export function readJks(data: Buffer, alias: string, storePassword: string, keyPassword: string): KeystoreEntry {
  const fail = () => new KeystoreLoadError('error loading keystore');
  if (data.length < 32) throw fail();
  const body = data.subarray(0, data.length - 20);
  if (!sha1(utf16be(storePassword), WHITENER, body).equals(data.subarray(data.length - 20))) throw fail();
  const r = new Reader(body);
  if (r.u32() !== MAGIC) throw fail();
  const version = r.u32();
  if (version !== 1 && version !== 2) throw fail();
  const certificate = () => {
    if (version === 2) r.utf();
    return Buffer.from(r.bytes());
  };
  const wanted = alias.toLowerCase();
  const found: KeystoreEntry = {};
  const count = r.u32();
  for (let i = 0; i < count; i++) {
    const tag = r.u32();
    const name = r.utf().toLowerCase();
    r.skip(8);
    if (tag === 1) {
      const encrypted = Buffer.from(r.bytes());
      const chain: Buffer[] = [];
      for (let n = r.u32(); n > 0; n--) chain.push(certificate());
      if (name === wanted) {
        found.privateKey = recoverKey(encrypted, keyPassword) ?? undefined;
        found.certificate = chain[0];
      }
    } else if (tag === 2) {
      const cert = certificate();
      if (name === wanted) found.certificate = cert;
    } else throw fail();
  }
  return found;
}
