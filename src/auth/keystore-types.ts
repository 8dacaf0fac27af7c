/** The shapes shared by the PKCS#12 (keystores.ts) and JKS (jks.ts) readers and writers. */

/** Contents of a keystore to write: one key entry (or one trusted certificate) plus trusted certificates. */
export interface KeystoreContent {
  alias: string;
  /** PKCS#8 DER; absent → `certificate` is written as a trusted certificate entry. */
  privateKey?: Buffer;
  certificate: Buffer;
  trusted: Array<{ alias: string; certificate: Buffer }>;
  keyPassword?: string;
  storePassword: string;
}

/** What a keystore holds under an alias. */
export interface KeystoreEntry {
  privateKey?: Buffer;
  certificate?: Buffer;
}

/** A keystore that cannot be loaded with the store password given. */
export class KeystoreLoadError extends Error {}
