import {
  createLocalJWKSet,
  compactVerify,
  decodeProtectedHeader,
  importX509,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
} from 'jose';
import { LRUCache } from 'lru-cache';
import { clock } from '../../core/clock';
import type { ClientModel } from '../../db/models/client';
import { getLogger } from '../../logging';

/**
 * The keys a client signs its JWTs with (request objects, client assertions), as Keycloak's
 * client key lookup: the client's JWKS (`use.jwks.string` + `jwks.string`, or `use.jwks.url` +
 * `jwks.url`, fetched when needed), its certificate (`jwt.credential.certificate`), or its secret
 * for the HS* algorithms. Only the signature is checked here; claims are the caller's.
 */
export class ClientJwtError extends Error {}

const log = getLogger('idserver.services.tokens.client-keys');
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

/**
 * The JWKS documents fetched from clients' `jwks.url` (and identity providers' `jwksUrl`), per URL on this node, as Keycloak's
 * PublicKeyStorageManager keeps them (InfinispanPublicKeyStorageProvider over the `keys` cache): a
 * document is used again until a caller needs a key it lacks (an unknown `kid`, no key for an
 * encryption algorithm); then it is fetched again, at most once per `MIN_TIME_BETWEEN_FETCHES_MS`
 * (Keycloak's minTimeBetweenRequests, 10 s), and concurrent misses share one fetch. At most 1000
 * documents, each dropped after an hour unused (the `keys` cache's max-count and max-idle). What is
 * fetched is the client's own remote document, not database state: a changed `jwks.url` is another key.
 */
const MIN_TIME_BETWEEN_FETCHES_MS = 10_000;
const fetchedJwks = new LRUCache<string, { jwks: JSONWebKeySet; at: number }>({ max: 1000, ttl: 3_600_000, updateAgeOnGet: true });
const fetching = new Map<string, Promise<JSONWebKeySet>>();

function fetchJwks(url: string): Promise<JSONWebKeySet> {
  let running = fetching.get(url);
  if (!running) {
    running = (async () => {
      const text = await fetchSmallDocument(url);
      let jwks: JSONWebKeySet;
      try {
        jwks = JSON.parse(text) as JSONWebKeySet;
      } catch {
        throw new ClientJwtError('Invalid client JWKS');
      }
      if (!jwks || !Array.isArray(jwks.keys)) throw new ClientJwtError('Invalid client JWKS');
      fetchedJwks.set(url, { jwks, at: clock.now() });
      return jwks;
    })().finally(() => fetching.delete(url));
    fetching.set(url, running);
  }
  return running;
}

/**
 * The JWKS at `url`: the kept one when it has a key `wanted` accepts, else fetched (at most once per
 * 10 s); ClientJwtError when it cannot be fetched or read. Clients' `jwks.url` and identity
 * providers' `jwksUrl` (Keycloak keeps both in its PublicKeyStorageManager).
 */
export async function jwksAt(url: string, wanted: (key: JWK) => boolean): Promise<JSONWebKeySet> {
  const kept = fetchedJwks.get(url);
  if (kept?.jwks.keys.some(wanted)) return kept.jwks;
  if (kept && clock.now() < kept.at + MIN_TIME_BETWEEN_FETCHES_MS) {
    log.debug(`Not fetching ${url} again yet: fetched ${clock.now() - kept.at} ms ago`);
    return kept.jwks;
  }
  return fetchJwks(url);
}

/**
 * The client's JWKS (`jwks.string` or `jwks.url`), or undefined when it keeps none; ClientJwtError
 * when unreadable. A fetched one is kept (above) while it has a key `wanted` accepts.
 */
export async function clientJwks(client: ClientModel, wanted: (key: JWK) => boolean = () => true): Promise<JSONWebKeySet | undefined> {
  const a = attrs(client);
  try {
    if (a['use.jwks.string'] === 'true' && a['jwks.string']) return JSON.parse(a['jwks.string']) as JSONWebKeySet;
    if (a['use.jwks.url'] === 'true' && a['jwks.url']) return await jwksAt(a['jwks.url'], wanted);
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
      const jwks = await clientJwks(client, (k) => header.kid === undefined || k.kid === header.kid);
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
