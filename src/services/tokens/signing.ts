import { createHash, randomUUID } from 'node:crypto';
import {
  CompactEncrypt,
  compactDecrypt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
  importJWK,
} from 'jose';
import { KEY_PROVIDER_TYPE, type RealmKey } from '../../auth/keys';
import { activeKey, invalidateRealmKeys, realmKeys } from '../../auth/realm-keys';
import { errorB } from '../../core/errors';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { KEY_PROVIDER_FACTORIES } from '../components/key-providers';
import type { ComponentDraft } from '../components/config';
import { ClientJwtError, clientJwks } from './client-keys';

const log = getLogger('idserver.services.tokens.signing');

/**
 * What the realm signs, and with which key (Keycloak's DefaultTokenManager.signatureAlgorithm and
 * DefaultKeyManager.getActiveKey): a token's purpose names the client attribute that chooses its
 * algorithm (`access.token.signed.response.alg`, `id.token.signed.response.alg`,
 * `user.info.response.signature.alg`, `authorization.signed.response.alg`), else the realm's
 * `defaultSignatureAlgorithm`, else RS256; `admin` tokens (Keycloak's TokenCategory.ADMIN: the
 * k_logout / k_push_not_before messages to admin URLs) take the realm's default; internal tokens
 * (TokenCategory.INTERNAL: refresh tokens, codes, action tokens, organization invitations) are HS512. The key
 * is the realm's highest-priority ACTIVE key of that algorithm, its `kid` in the header. When the realm
 * has none, Keycloak's key providers create a fallback one (component `fallback-<alg>`, priority
 * -100) for the algorithms they generate (RS*, PS*, ES*, HS*, EdDSA); for any other algorithm the
 * request fails with Keycloak's message, as a 400, never a 500.
 */
export type TokenPurpose = 'access' | 'id' | 'logout' | 'userinfo' | 'authorization' | 'internal' | 'admin';

const ATTRIBUTE: Record<Exclude<TokenPurpose, 'internal' | 'admin'>, string> = {
  access: 'access.token.signed.response.alg',
  id: 'id.token.signed.response.alg',
  logout: 'id.token.signed.response.alg',
  userinfo: 'user.info.response.signature.alg',
  authorization: 'authorization.signed.response.alg',
};

const attrs = (client: Pick<ClientModel, 'settings'> | undefined) =>
  (client?.settings?.attributes as Record<string, string> | undefined) ?? {};

/** The algorithm a token of `purpose` is signed with for `client` (none: the realm's default). */
export function signatureAlgorithm(realm: RealmModel, client: Pick<ClientModel, 'settings'> | undefined, purpose: TokenPurpose): string {
  if (purpose === 'internal') return 'HS512';
  const chosen = purpose === 'admin' ? undefined : attrs(client)[ATTRIBUTE[purpose]];
  if (chosen && chosen !== 'unsigned') return chosen;
  const realmDefault = realm.settings?.defaultSignatureAlgorithm;
  return typeof realmDefault === 'string' && realmDefault ? realmDefault : 'RS256';
}

/** The fallback key provider Keycloak's factories create for an algorithm (their createFallbackKeys), if any. */
function fallbackConfig(alg: string): { providerId: string; config: Record<string, string[]> } | undefined {
  const priority = ['-100'];
  if (/^(RS|PS)(256|384|512)$/.test(alg)) return { providerId: 'rsa-generated', config: { priority, algorithm: [alg] } };
  const es: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };
  if (es[alg]) return { providerId: 'ecdsa-generated', config: { priority, ecdsaEllipticCurveKey: [es[alg]] } };
  if (/^HS(256|384|512)$/.test(alg)) return { providerId: 'hmac-generated', config: { priority, algorithm: [alg] } };
  if (alg === 'EdDSA') return { providerId: 'eddsa-generated', config: { priority, eddsaEllipticCurveKey: ['Ed25519'] } };
  return undefined;
}

/** Fallback keys being made on this node (realm id + algorithm), so that concurrent requests make one. */
const making = new Map<string, Promise<void>>();

async function createFallbackKey(db: Db, realm: RealmModel, alg: string): Promise<boolean> {
  const fallback = fallbackConfig(alg);
  const factory = fallback && KEY_PROVIDER_FACTORIES.find((f) => f.id === fallback.providerId);
  if (!fallback || !factory) return false;
  const key = `${realm.id}:${alg}`;
  let pending = making.get(key);
  if (!pending) {
    pending = (async () => {
      const draft: ComponentDraft = {
        id: randomUUID(),
        realm,
        name: `fallback-${alg}`,
        parentId: realm.id,
        providerId: fallback.providerId,
        providerType: KEY_PROVIDER_TYPE,
        subType: null,
        config: fallback.config,
      };
      await factory.validate?.(draft);
      const { realm: _realm, ...row } = draft;
      await db.transaction(async () => {
        await db.models.Component.create({ ...row, realmId: realm.id });
      });
      invalidateRealmKeys(db, realm.id);
      log.warn(`Fallback key created: realm=${realm.name} algorithm=${alg} use=SIG`);
    })().finally(() => making.delete(key));
    making.set(key, pending);
  }
  await pending;
  return true;
}

/** The realm's active signing key of `alg`, a fallback key made when there is none; 400 with Keycloak's message otherwise. */
export async function signingKey(db: Db, realm: RealmModel, alg: string): Promise<RealmKey> {
  const usable = (k: RealmKey | undefined) => (k && k.use === 'SIG' && (k.privateKey || k.secret) ? k : undefined);
  const found = usable(activeKey(await realmKeys(db, realm), alg));
  if (found) return found;
  if (await createFallbackKey(db, realm, alg)) {
    const made = usable(activeKey(await realmKeys(db, { id: realm.id }), alg));
    if (made) return made;
  }
  const message = `Failed to find key: realm=${realm.name} algorithm=${alg} use=SIG`;
  // A 400 (the client's configuration asks for it), not a server fault: WARN, not ERROR. Keycloak's
  // DefaultKeyManager logs ERROR because it answers 500 (a RuntimeException).
  log.warn(message);
  throw errorB(400, 'invalid_request', message);
}

/** Signs `payload` as a JWT of `purpose` for `client` (no client: the realm's default algorithm), `typ` in the header; the key used too. */
export async function signToken(
  db: Db,
  realm: RealmModel,
  client: Pick<ClientModel, 'settings'> | undefined,
  purpose: TokenPurpose,
  payload: JWTPayload,
  typ = 'JWT',
): Promise<{ jwt: string; key: RealmKey }> {
  const key = await signingKey(db, realm, signatureAlgorithm(realm, client, purpose));
  const jwt = await new SignJWT(payload)
    .setProtectedHeader({ alg: key.algorithm, typ, kid: key.kid })
    .sign((key.privateKey ?? key.secret) as Uint8Array);
  return { jwt, key };
}

/** `signToken`'s JWT alone: what other families call (JARM responses, logout tokens, userinfo). */
export async function signForClient(
  db: Db,
  realm: RealmModel,
  client: Pick<ClientModel, 'settings'> | undefined,
  purpose: TokenPurpose,
  payload: JWTPayload,
  typ = 'JWT',
): Promise<string> {
  return (await signToken(db, realm, client, purpose, payload, typ)).jwt;
}

/**
 * OIDC's `at_hash` / `c_hash` / `s_hash` for a token signed with `key`: the left half of the hash of
 * the signature algorithm (SHA-256/384/512 by its size; EdDSA: SHA-512 for Ed25519, SHAKE256 for
 * Ed448, as Keycloak's JavaAlgorithm.getJavaAlgorithmForHash), base64url.
 */
export function oidcHash(key: Pick<RealmKey, 'algorithm' | 'publicKey'>, value: string): string {
  let digest: Buffer;
  if (key.algorithm === 'EdDSA') {
    digest =
      key.publicKey?.asymmetricKeyType === 'ed448'
        ? createHash('shake256', { outputLength: 114 }).update(value).digest()
        : createHash('sha512').update(value).digest();
  } else {
    const bits = key.algorithm.match(/(256|384|512)$/)?.[1] ?? '256';
    digest = createHash(`sha${bits}`).update(value).digest();
  }
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/**
 * The client's encryption choice for ID tokens or userinfo (Keycloak's `*.encrypted.response.alg` and
 * `.enc`; the content algorithm defaults to A128CBC-HS256), or undefined when it asks for none.
 */
export function encryptionFor(client: Pick<ClientModel, 'settings'>, purpose: 'id' | 'userinfo'): { alg: string; enc: string } | undefined {
  const a = attrs(client);
  const prefix = purpose === 'id' ? 'id.token' : 'user.info';
  const alg = a[`${prefix}.encrypted.response.alg`];
  if (!alg) return undefined;
  return { alg, enc: a[`${prefix}.encrypted.response.enc`] || 'A128CBC-HS256' };
}

/**
 * Encrypts a signed JWT to the client (Keycloak's DefaultTokenManager.encodeAndEncrypt): with the
 * first key of the client's JWKS meant for encryption with that algorithm (`use` enc or none, `alg`
 * that one or none), header `alg`, `enc`, the key's `kid` and `cty: JWT` for a nested JWT (none for
 * plain JSON content: an encrypted, unsigned userinfo answer). A client without such a key gets a
 * 400 `can not get encryption KEK` (Keycloak's UserInfoEndpoint answers so), not a token it cannot read.
 */
export async function encryptForClient(
  client: ClientModel,
  content: string,
  choice: { alg: string; enc: string },
  cty: string | null = 'JWT',
): Promise<string> {
  const noKey = () => errorB(400, 'invalid_request', 'can not get encryption KEK');
  const fits = (k: JWK) =>
    (k.use === undefined || k.use === 'enc') && (k.alg === undefined || k.alg === choice.alg) && k.kty === kindOf(choice.alg);
  let jwks: JSONWebKeySet | undefined;
  try {
    jwks = await clientJwks(client, fits);
  } catch (e) {
    if (e instanceof ClientJwtError) throw noKey();
    throw e;
  }
  const jwk = jwks?.keys?.find(fits);
  if (!jwk) throw noKey();
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK(jwk, choice.alg);
  } catch {
    throw noKey();
  }
  const header = { alg: choice.alg, enc: choice.enc, ...(cty ? { cty } : {}), ...(jwk.kid ? { kid: jwk.kid } : {}) };
  try {
    return await new CompactEncrypt(new TextEncoder().encode(content)).setProtectedHeader(header).encrypt(key);
  } catch (e) {
    throw errorB(400, 'invalid_request', `Failed to encrypt token: ${(e as Error).message}`);
  }
}

/** The JWK key type an encryption algorithm needs. */
const kindOf = (alg: string) => (alg.startsWith('RSA') ? 'RSA' : alg.startsWith('ECDH') ? 'EC' : 'oct');

/** Key management algorithms a JWE to the realm may use (Keycloak's CEK management providers); others are not tried. */
const REALM_JWE_ALGS = ['RSA-OAEP', 'RSA-OAEP-256', 'RSA1_5', 'ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A192KW', 'ECDH-ES+A256KW'];

/** A JWE the realm cannot open: Keycloak's message (DefaultTokenManager.decodeClientJWT). */
export class RealmDecryptionError extends Error {}

/**
 * Decrypts a compact JWE sent to the realm (Keycloak's DefaultTokenManager.decodeClientJWT): with
 * the private key of the realm's encryption (`enc`) key its `kid` names, else of the realm's
 * highest-priority encryption key (ACTIVE or PASSIVE; a DISABLED key decrypts nothing). The content,
 * as text. `RealmDecryptionError` when no key fits or the JWE does not decrypt.
 */
export async function decryptWithRealmKey(db: Db, realm: RealmModel, jwe: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwe).kid;
  } catch {
    throw new RealmDecryptionError('Failed to decrypt JWT');
  }
  const keys = (await realmKeys(db, realm)).filter((k) => k.use === 'ENC' && k.status !== 'DISABLED' && k.privateKey);
  const key = kid === undefined ? keys.find((k) => k.publicKey) : keys.find((k) => k.kid === kid);
  if (!key?.privateKey) throw new RealmDecryptionError('Could not find private key for decrypting token');
  try {
    const { plaintext } = await compactDecrypt(jwe, key.privateKey, { keyManagementAlgorithms: REALM_JWE_ALGS });
    return new TextDecoder().decode(plaintext);
  } catch {
    throw new RealmDecryptionError('Failed to decrypt JWT');
  }
}
