import { createLocalJWKSet, compactVerify, decodeProtectedHeader, importX509, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import type { ClientModel } from '../../db/models/client';

/**
 * The keys a client signs its JWTs with (request objects, client assertions), as Keycloak's
 * client key lookup: the client's JWKS (`use.jwks.string` + `jwks.string`, or `use.jwks.url` +
 * `jwks.url`, fetched when needed), its certificate (`jwt.credential.certificate`), or its secret
 * for the HS* algorithms. Only the signature is checked here; claims are the caller's.
 */
export class ClientJwtError extends Error {}

const FETCH_TIMEOUT_MS = 5000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

const attrs = (client: ClientModel) => (client.settings?.attributes as Record<string, string> | undefined) ?? {};

/** GETs a small document (a client's JWKS or request object) with a timeout and a size cap. */
export async function fetchSmallDocument(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch {
    throw new ClientJwtError(`Could not fetch ${url}`);
  }
  if (!res.ok) throw new ClientJwtError(`Could not fetch ${url}: ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new ClientJwtError(`Document too large: ${url}`);
  return text;
}

/** The client's JWKS (`jwks.string`, or `jwks.url` fetched now), if it has one. */
export async function clientJwks(client: ClientModel): Promise<JSONWebKeySet | undefined> {
  const a = attrs(client);
  try {
    if (a['use.jwks.string'] === 'true' && a['jwks.string']) return JSON.parse(a['jwks.string']) as JSONWebKeySet;
    if (a['use.jwks.url'] === 'true' && a['jwks.url']) return JSON.parse(await fetchSmallDocument(a['jwks.url'])) as JSONWebKeySet;
  } catch (e) {
    if (e instanceof ClientJwtError) throw e;
    throw new ClientJwtError('Invalid client JWKS');
  }
  return undefined;
}

/** The header and claims of a compact JWS signed by the client; throws `ClientJwtError` when it does not verify. */
export async function verifyClientJws(
  client: ClientModel,
  jws: string,
): Promise<{ header: JWSHeaderParameters; claims: Record<string, unknown> }> {
  let header: JWSHeaderParameters;
  try {
    header = decodeProtectedHeader(jws) as JWSHeaderParameters;
  } catch {
    throw new ClientJwtError('Invalid JWS');
  }
  const alg = header.alg;
  if (!alg || alg === 'none') throw new ClientJwtError('Signed algorithm not specified');
  try {
    let payload: Uint8Array;
    if (alg.startsWith('HS')) {
      if (!client.secret) throw new ClientJwtError('Client has no secret');
      payload = (await compactVerify(jws, new TextEncoder().encode(client.secret))).payload;
    } else {
      const jwks = await clientJwks(client);
      const cert = attrs(client)['jwt.credential.certificate'];
      if (jwks) payload = (await compactVerify(jws, createLocalJWKSet(jwks))).payload;
      else if (cert) payload = (await compactVerify(jws, await importX509(pemOf(cert), alg))).payload;
      else throw new ClientJwtError('Client has no keys');
    }
    const claims = JSON.parse(new TextDecoder().decode(payload)) as unknown;
    if (!claims || typeof claims !== 'object' || Array.isArray(claims)) throw new ClientJwtError('Invalid JWT claims');
    return { header, claims: claims as Record<string, unknown> };
  } catch (e) {
    if (e instanceof ClientJwtError) throw e;
    throw new ClientJwtError('Signature verification failed');
  }
}

const pemOf = (cert: string) =>
  cert.includes('BEGIN CERTIFICATE') ? cert : `-----BEGIN CERTIFICATE-----\n${cert.replace(/\s+/g, '')}\n-----END CERTIFICATE-----`;
