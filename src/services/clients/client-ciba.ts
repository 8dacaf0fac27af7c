import { isIP } from 'node:net';
import type { RealmModel } from '../../db/models/realm';

/**
 * The CIBA settings of a client, checked on every client write (admin REST and GraphQL create and
 * update, client registration), as Keycloak's CibaClientValidation (run by its client validation
 * whether or not the CIBA grant is enabled on the client):
 * - the delivery mode (`ciba.backchannel.token.delivery.mode`, else the realm's
 *   `cibaBackchannelTokenDeliveryMode`, else poll) is poll or ping;
 * - ping needs `ciba.backchannel.client.notification.endpoint`;
 * - that endpoint, if set, is an http(s) URL, https where the realm's `sslRequired` asks for it;
 * - `ciba.backchannel.auth.request.signing.alg`, if set, is `none` or an asymmetric algorithm.
 * Empty attribute values count as unset (Keycloak drops empty client attributes on write).
 */

const SUPPORTED_MODES = new Set(['poll', 'ping']);
/** Asymmetric JWS algorithms (Keycloak's SignatureProvider#isAsymmetricAlgorithm); `none` is accepted too. */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']);
const ENDPOINT = 'backchannel_client_notification_endpoint';

const present = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * Whether an address is local in Keycloak's SslRequired sense (any-local, loopback or site-local).
 * Host names are not resolved: `localhost` is local, any other name external.
 */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  const kind = isIP(host);
  if (kind === 4) {
    const [a, b] = host.split('.').map(Number);
    return a === 127 || a === 0 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  if (kind === 6) return host === '::1' || host === '::' || /^fe[c-f]/.test(host);
  return false;
}

/** The realm's `sslRequired` applied to a host (Keycloak's SslRequired#isRequired). */
function sslRequiredFor(realm: RealmModel, hostname: string): boolean {
  const mode = String(realm.settings?.sslRequired ?? 'external').toLowerCase();
  if (mode === 'all') return true;
  if (mode === 'none') return false;
  return !isLocalHost(hostname);
}

/** Keycloak's UriUtils#checkUrl of the notification endpoint: the problem, if any. */
function endpointProblem(realm: RealmModel, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `The url [${ENDPOINT}] is malformed`;
  }
  const protocol = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') return `Invalid protocol/scheme for url [${ENDPOINT}]`;
  if (protocol !== 'https' && sslRequiredFor(realm, parsed.hostname)) return `The url [${ENDPOINT}] requires secure connections`;
  return undefined;
}

/** The messages of what is wrong with a client's CIBA attributes (none: nothing). */
export function cibaSettingsProblems(realm: RealmModel, attrs: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const realmAttrs = (realm.settings?.attributes ?? {}) as Record<string, unknown>;
  const clientMode = attrs['ciba.backchannel.token.delivery.mode'];
  const realmMode = realmAttrs.cibaBackchannelTokenDeliveryMode;
  const mode = present(clientMode) ? clientMode : present(realmMode) ? realmMode : 'poll';
  if (!SUPPORTED_MODES.has(mode)) errors.push('Unsupported requested CIBA Backchannel Token Delivery Mode');
  const endpoint = attrs['ciba.backchannel.client.notification.endpoint'];
  if (mode === 'ping' && !present(endpoint))
    errors.push('CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode');
  if (present(endpoint)) {
    const problem = endpointProblem(realm, endpoint);
    if (problem) errors.push(problem);
  }
  const alg = attrs['ciba.backchannel.auth.request.signing.alg'];
  if (present(alg) && alg !== 'none' && !ASYMMETRIC.has(alg)) {
    errors.push('Unsupported requested CIBA Backchannel Authentication Request Signing Algorithm');
  }
  return errors;
}
