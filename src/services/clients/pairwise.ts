import { createHash, randomBytes } from 'node:crypto';
import { errorB, type HttpError } from '../../core/errors';
import type { ClientModel } from '../../db/models/client';

/**
 * The pairwise subject mapper `oidc-sha256-pairwise-sub-mapper` (Keycloak's SHA256PairwiseSubMapper
 * with PairwiseSubMapperValidator): a client's users get a `sub` of their own per sector — the host
 * of the mapper's `sectorIdentifierUri`, or the one host of the client's redirect URIs — derived
 * from the user id and the mapper's salt, so clients of one sector see the same `sub`, others not.
 */
export const PAIRWISE_MAPPER = 'oidc-sha256-pairwise-sub-mapper';

const invalid = (msg: string): HttpError => errorB(400, msg, msg);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** The client's redirect URIs, relative ones resolved against its root URL. */
function redirectUris(client: Pick<ClientModel, 'settings'>): string[] {
  const root = typeof client.settings?.rootUrl === 'string' ? client.settings.rootUrl : '';
  return list(client.settings?.redirectUris).map((u) => (u.startsWith('/') && root ? `${root.replace(/\/+$/, '')}${u}` : u));
}

const hostOf = (uri: string): string | undefined => {
  try {
    return new URL(uri).hostname || undefined;
  } catch {
    return undefined;
  }
};

/** The sector identifier: the sector URI's host, else the single host of the redirect URIs. */
function sectorOf(config: Record<string, string>, client: Pick<ClientModel, 'settings'>): string | undefined {
  if (config.sectorIdentifierUri) return hostOf(config.sectorIdentifierUri);
  const hosts = [
    ...new Set(
      redirectUris(client)
        .map(hostOf)
        .filter((h): h is string => Boolean(h)),
    ),
  ];
  return hosts.length === 1 ? hosts[0] : undefined;
}

/** The pairwise `sub` of `userId` for the client (Java's UUID.nameUUIDFromBytes of SHA-256(sector + id + salt)), or undefined. */
export function pairwiseSub(config: Record<string, string>, client: Pick<ClientModel, 'settings'>, userId: string): string | undefined {
  const sector = sectorOf(config, client);
  if (!sector) return undefined;
  const digest = createHash('sha256')
    .update(`${sector}${userId}${config.pairwiseSubAlgorithmSalt ?? ''}`, 'utf8')
    .digest();
  const md5 = createHash('md5').update(digest).digest();
  md5[6] = (md5[6] & 0x0f) | 0x30;
  md5[8] = (md5[8] & 0x3f) | 0x80;
  const hex = md5.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The redirect URIs a sector identifier document lists (a JSON array of strings), or undefined when it cannot be had. */
async function fetchSectorRedirects(uri: string): Promise<string[] | undefined> {
  try {
    const res = await fetch(uri, { redirect: 'error', signal: AbortSignal.timeout(5000), headers: { Accept: 'application/json' } });
    if (!res.ok) return undefined;
    const body = (await res.json()) as unknown;
    return Array.isArray(body) && body.every((u) => typeof u === 'string') ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates a pairwise mapper of `client` as Keycloak's PairwiseSubMapperValidator (400 with its
 * messages) and gives it a salt when it has none (`config` is changed in place).
 */
export async function checkPairwiseMapper(client: Pick<ClientModel, 'settings'>, config: Record<string, string>): Promise<void> {
  const uris = redirectUris(client);
  const sectorUri = config.sectorIdentifierUri;
  if (!sectorUri) {
    const hosts = new Set(uris.map(hostOf).filter(Boolean));
    if (hosts.size === 0) throw invalid('Client redirect URIs must contain a valid host component.');
    if (hosts.size > 1)
      throw invalid('Without a configured Sector Identifier URI, client redirect URIs must not contain multiple host components.');
  } else {
    let parsed: URL;
    try {
      parsed = new URL(sectorUri);
    } catch {
      throw invalid('Malformed Sector Identifier URI.');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalid('Malformed Sector Identifier URI.');
    const listed = await fetchSectorRedirects(sectorUri);
    if (!listed) throw invalid('Failed to get redirect URIs from the Sector Identifier URI.');
    if (!uris.every((u) => listed.includes(u)))
      throw invalid('Client redirect URIs does not match redirect URIs fetched from the Sector Identifier URI.');
  }
  if (!config.pairwiseSubAlgorithmSalt) config.pairwiseSubAlgorithmSalt = randomBytes(16).toString('base64');
}
