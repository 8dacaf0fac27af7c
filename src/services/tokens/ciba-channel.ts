import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';

/**
 * The CIBA policy of a realm and a client (Keycloak's CibaConfig) and the two outbound HTTP calls of
 * CIBA: the authentication request to the authentication device (HttpAuthenticationChannelProvider)
 * and the ping notification to the client (BackchannelAuthenticationCallbackEndpoint). Both are JSON
 * POSTs with a bearer token and a timeout, so a slow peer cannot hold a request for long.
 */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

/** The algorithms a signed authentication request may use: asymmetric ones (Keycloak refuses HS* and none). */
export const CIBA_REQUEST_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

const TIMEOUT_MS = 10_000;

export interface CibaPolicy {
  mode: 'poll' | 'ping' | string;
  expiresIn: number;
  interval: number;
  userHint: string;
}

const attributesOf = (o: { settings?: Record<string, unknown> | null }) =>
  ((o.settings?.attributes as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;

const intOr = (v: unknown, dflt: number) => {
  const n = Number(v);
  return v !== undefined && v !== null && v !== '' && Number.isInteger(n) ? n : dflt;
};

/** The realm's CIBA policy (attributes cibaBackchannelTokenDeliveryMode, cibaExpiresIn, cibaInterval, cibaAuthRequestedUserHint), the client's delivery mode over it. */
export function cibaPolicy(realm: RealmModel, client: ClientModel): CibaPolicy {
  const ra = attributesOf(realm);
  const ca = attributesOf(client);
  const clientMode =
    typeof ca['ciba.backchannel.token.delivery.mode'] === 'string' ? String(ca['ciba.backchannel.token.delivery.mode']).trim() : '';
  const realmMode = typeof ra.cibaBackchannelTokenDeliveryMode === 'string' ? ra.cibaBackchannelTokenDeliveryMode.trim() : '';
  return {
    mode: clientMode || realmMode || 'poll',
    expiresIn: intOr(ra.cibaExpiresIn, 120),
    interval: intOr(ra.cibaInterval, 5),
    userHint:
      typeof ra.cibaAuthRequestedUserHint === 'string' && ra.cibaAuthRequestedUserHint ? ra.cibaAuthRequestedUserHint : 'login_hint',
  };
}

/** Whether the client may use CIBA (`oidc.ciba.grant.enabled`). */
export const cibaGrantEnabled = (client: ClientModel) => String(attributesOf(client)['oidc.ciba.grant.enabled']) === 'true';

/** The client's attribute, if set. */
export const clientAttribute = (client: ClientModel, key: string): string | undefined => {
  const v = attributesOf(client)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** POSTs JSON with a bearer token; answers the status. Throws when the peer cannot be reached in time. */
export async function postJson(url: string, body: unknown, bearer: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
    redirect: 'manual',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await res.arrayBuffer().catch(() => undefined);
  return res.status;
}

/** The authentication channel's URI is usable (Keycloak's checkAuthenticationChannel). */
export const usableChannel = (uri: string | undefined): uri is string => Boolean(uri && /^https?:\/\//.test(uri));
