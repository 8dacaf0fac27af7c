import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { keyId } from '../../auth/keys';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { type HttpError, errorB, errorC, notFound } from '../../core/errors';
import { getLogger } from '../../logging';
import { activeKey, realmKeys } from '../../auth/realm-keys';
import { recordAdminEvent } from '../../core/admin-events';
import { invalidate } from '../../loaders/invalidate';
import { requireClientAccess } from './clients';
import type { RequestContext } from '../../core/context';
import {
  KEYSTORE_FORMATS,
  type KeystoreFormat,
  generateKeyAndCertificate,
  keystoreFormat,
  parseCertificate,
  parsePublicKey,
  readKeystore,
  writeKeystore,
} from '../../auth/keystores';
import { KeystoreLoadError } from '../../auth/keystore-types';

/**
 * Client attribute certificates — `/clients/{id}/certificates/{attr}` (config reference §2). `{attr}`
 * is an attribute-name prefix (`jwt.credential`, `saml.signing`, `saml.encryption`, ...); the data
 * lives in the client attributes `<attr>.certificate`, `<attr>.private.key`, `<attr>.public.key` and
 * `<attr>.kid` (base64 DER bodies, private key PKCS#8). Key generation runs before the write
 * transaction; generate-and-download stores only the certificate. Admin events never carry keys.
 */
const log = getLogger('idserver.services.client-certificates');

/** Keycloak's CertificateRepresentation (fields omitted when unset). */
export interface CertificateRep {
  privateKey?: string;
  publicKey?: string;
  certificate?: string;
  kid?: string;
}

/** Keycloak's KeyStoreConfig (body of download and generate-and-download). */
export interface KeyStoreConfig {
  format?: string | null;
  keyAlias?: string | null;
  keyPassword?: string | null;
  storePassword?: string | null;
  realmCertificate?: boolean | null;
  realmAlias?: string | null;
  keySize?: number | null;
  validity?: number | null;
}

/** The multipart fields of `.../upload` and `.../upload-certificate`. */
export interface CertificateUpload {
  keystoreFormat?: string;
  keyAlias?: string;
  keyPassword?: string;
  storePassword?: string;
  file?: Buffer;
}

const FIELDS = { certificate: 'certificate', privateKey: 'private.key', publicKey: 'public.key', kid: 'kid' } as const;
const OIDC = 'openid-connect';

const attributesOf = (client: ClientModel): Record<string, string> => ({
  ...((client.settings?.attributes as Record<string, string> | undefined) ?? {}),
});

function readInfo(client: ClientModel, attr: string): CertificateRep {
  const a = attributesOf(client);
  const out: CertificateRep = {};
  for (const k of ['privateKey', 'publicKey', 'certificate', 'kid'] as const) {
    const v = a[`${attr}.${FIELDS[k]}`];
    if (v != null && v !== '') out[k] = v;
  }
  return out;
}

/** The first signing key of a JWKS as `{publicKey, kid}` (base64 SPKI DER), or undefined. */
function jwksSigningKey(jwks: string): CertificateRep | undefined {
  const parsed = JSON.parse(jwks) as { keys?: Array<JsonWebKey & { use?: string; kid?: string }> };
  for (const jwk of parsed?.keys ?? []) {
    if (jwk.use && jwk.use !== 'sig') continue;
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      return { publicKey: key.export({ type: 'spki', format: 'der' }).toString('base64'), kid: jwk.kid ?? keyId(key) };
    } catch {
      // not a public key this server understands: try the next one
    }
  }
  return undefined;
}

/** Replaces the four attributes of `attr` (and, for OIDC, the JWKS-string settings) in one transaction with an admin event. */
async function store(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
  action: string,
  info: CertificateRep,
  extra: Record<string, string | null> = {},
): Promise<void> {
  await ctx.db.transaction(async () => {
    const fresh = await ctx.db.models.Client.findByPk(client.id, { lock: true });
    if (!fresh) throw notFound('Could not find client');
    const a = attributesOf(fresh);
    for (const k of ['privateKey', 'publicKey', 'certificate', 'kid'] as const) {
      const v = info[k];
      if (v) a[`${attr}.${FIELDS[k]}`] = v;
      else delete a[`${attr}.${FIELDS[k]}`];
    }
    for (const [k, v] of Object.entries(extra)) {
      if (v === null) delete a[k];
      else a[k] = v;
    }
    fresh.settings = { ...fresh.settings, attributes: a };
    await fresh.save();
    const { privateKey: _secret, ...shown } = info;
    await recordAdminEvent(ctx, realm, {
      operationType: 'ACTION',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}/certificates/${attr}/${action}`,
      representation: shown,
    });
  });
  invalidate.client(ctx.loaders, client.id);
}

const NO_JWKS = { 'use.jwks.string': null, 'jwks.string': null };
const jwksReset = (client: ClientModel) => (client.protocol === OIDC ? NO_JWKS : {});

/** The key info of `attr` (GET /clients/{id}/certificates/{attr}); an OIDC client using a JWKS string shows its signing key. */
export async function getClientCertificate(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
): Promise<CertificateRep> {
  await requireClientAccess(ctx, realm, client, 'view');
  const a = attributesOf(client);
  if (client.protocol === OIDC && a['use.jwks.string'] === 'true' && a['jwks.string']) {
    try {
      return jwksSigningKey(a['jwks.string']) ?? {};
    } catch {
      return {};
    }
  }
  return readInfo(client, attr);
}

/** Generates an RSA key pair and self-signed certificate and stores both (POST .../certificates/{attr}/generate). */
export async function generateClientCertificate(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
): Promise<CertificateRep> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const pair = await generateKeyAndCertificate(client.clientId);
  const info = { privateKey: pair.privateKey.toString('base64'), certificate: pair.certificate.toString('base64') };
  await store(ctx, realm, client, attr, 'generate', info, jwksReset(client));
  return info;
}

const unsupportedFormat = () => errorC(406, `Not supported keystore format. Supported keystore formats: [${KEYSTORE_FORMATS.join(', ')}]`);
const passwordMissing = (what: 'key' | 'store', op: string) =>
  errorB(400, 'password-missing', `Need to specify a ${what} password for jks ${op}`);

async function realmCertificate(ctx: RequestContext, realm: RealmModel): Promise<Buffer | undefined> {
  const key = activeKey(await realmKeys(ctx.db, realm), 'RS256');
  return key?.certificate ? Buffer.from(key.certificate, 'base64') : undefined;
}

function formatOf(config: KeyStoreConfig): KeystoreFormat {
  const format = keystoreFormat(config.format);
  if (!format) throw unsupportedFormat();
  return format;
}

async function keystoreOf(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  config: KeyStoreConfig,
  key: { privateKey?: Buffer; certificate: Buffer },
): Promise<Buffer> {
  const format = formatOf(config);
  const trusted: Array<{ alias: string; certificate: Buffer }> = [];
  if (config.realmCertificate !== false) {
    const cert = await realmCertificate(ctx, realm);
    if (cert) trusted.push({ alias: config.realmAlias || realm.name, certificate: cert });
  }
  return writeKeystore(format, {
    alias: config.keyAlias || client.clientId,
    privateKey: key.privateKey,
    certificate: key.certificate,
    trusted,
    keyPassword: config.keyPassword ?? undefined,
    storePassword: config.storePassword ?? '',
  });
}

/** The stored key and certificate as a keystore (POST .../certificates/{attr}/download). */
export async function downloadClientKeystore(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
  config: KeyStoreConfig,
): Promise<Buffer> {
  await requireClientAccess(ctx, realm, client, 'view');
  formatOf(config);
  const info = readInfo(client, attr);
  if (!info.privateKey && !info.certificate) throw notFound('keypair not generated for client');
  if (info.privateKey && config.keyPassword == null) throw passwordMissing('key', 'download');
  if (config.storePassword == null) throw passwordMissing('store', 'download');
  if (!info.certificate) throw notFound('keypair not generated for client');
  return keystoreOf(ctx, realm, client, config, {
    privateKey: info.privateKey ? Buffer.from(info.privateKey, 'base64') : undefined,
    certificate: Buffer.from(info.certificate, 'base64'),
  });
}

/** Generates a key pair and certificate, returns them as a keystore and stores only the certificate (POST .../generate-and-download). */
export async function generateAndDownloadClientKeystore(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
  config: KeyStoreConfig,
): Promise<Buffer> {
  await requireClientAccess(ctx, realm, client, 'configure');
  formatOf(config);
  if (config.keyPassword == null) throw passwordMissing('key', 'generation and download');
  if (config.storePassword == null) throw passwordMissing('store', 'generation and download');
  const custom = (config.keySize ?? 0) > 0 && (config.validity ?? 0) > 0;
  const bits = custom ? Number(config.keySize) : 4096;
  const years = custom ? Number(config.validity) : 3;
  if (bits < 512 || bits > 8192) throw errorB(400, 'invalid-key-size', 'The key size must be between 512 and 8192 bits');
  if (years > 1000) throw errorB(400, 'invalid-validity', 'The validity must be at most 1000 years');
  const pair = await generateKeyAndCertificate(client.clientId, bits, years);
  const keystore = await keystoreOf(ctx, realm, client, config, pair);
  await store(ctx, realm, client, attr, 'generate-and-download', { certificate: pair.certificate.toString('base64') }, jwksReset(client));
  return keystore;
}

const badRequest = (msg: string): HttpError => errorC(400, msg);

/** Reads what an upload names: a PEM certificate, a PEM public key, a JWKS, or a key and certificate from a keystore. */
function uploadedInfo(upload: CertificateUpload): { info: CertificateRep; jwks?: string } {
  const format = upload.keystoreFormat;
  if (!format) throw badRequest('keystoreFormat cannot be null');
  const file = upload.file;
  if (!file || file.length === 0) throw badRequest('file cannot be empty');
  const text = () => file.toString('utf8');
  try {
    if (format === 'Certificate PEM') return { info: { certificate: parseCertificate(text()).toString('base64') } };
    if (format === 'Public Key PEM') return { info: { publicKey: parsePublicKey(text()).toString('base64') } };
  } catch {
    throw badRequest(format === 'Certificate PEM' ? 'Could not parse the certificate' : 'Could not parse the public key');
  }
  if (format === 'JSON Web Key Set') {
    let key: CertificateRep | undefined;
    try {
      key = jwksSigningKey(text());
    } catch {
      throw badRequest('Could not parse the JSON Web Key Set');
    }
    if (!key) throw errorB(400, 'certificate-not-found', 'Certificate or key with given alias not found in the keystore');
    return { info: key, jwks: text() };
  }
  const ks = keystoreFormat(format);
  if (!ks) throw badRequest('error loading keystore');
  let entry: ReturnType<typeof readKeystore>;
  try {
    entry = readKeystore(ks, file, upload.keyAlias ?? '', upload.storePassword ?? '', upload.keyPassword ?? '');
  } catch (e) {
    if (!(e instanceof KeystoreLoadError)) log.warn(`Keystore upload failed: ${(e as Error).message}`);
    throw badRequest('error loading keystore');
  }
  if (!entry.privateKey && !entry.certificate) {
    throw errorB(400, 'certificate-not-found', 'Certificate or key with given alias not found in the keystore');
  }
  const info: CertificateRep = {};
  if (entry.privateKey) info.privateKey = entry.privateKey.toString('base64');
  if (entry.certificate) info.certificate = entry.certificate.toString('base64');
  return { info };
}

/** Stores an uploaded certificate (and private key, if the keystore has one) (POST .../upload, .../upload-certificate). */
export async function uploadClientCertificate(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  attr: string,
  upload: CertificateUpload,
  action: 'upload' | 'upload-certificate' = 'upload',
): Promise<CertificateRep> {
  await requireClientAccess(ctx, realm, client, 'configure');
  const { info, jwks } = uploadedInfo(upload);
  if (jwks !== undefined && client.protocol === OIDC) {
    await store(ctx, realm, client, attr, action, {}, { 'use.jwks.string': 'true', 'jwks.string': jwks });
  } else {
    await store(ctx, realm, client, attr, action, info, jwksReset(client));
  }
  return info;
}
