import type { ProviderConfiguration } from '../../representations/client-policy';
import { ClientPolicyViolation, type PolicyContext, type PolicyEvent } from './types';

/**
 * Executors that shape the rest of the request instead of judging it (ADR 0032): they set the
 * request's `effects` (lightweight access token, the flow a login runs), drop the refresh token of a
 * refresh's response, or ask an outside service whether an intent is bound to the client.
 */
interface Executor {
  run(conf: ProviderConfiguration, c: PolicyContext): void | Promise<void>;
}

const refuse = (error: string, detail: string) => new ClientPolicyViolation(error, detail);

/** The token events Keycloak's UseLightweightAccessTokenExecutor acts on (those idserver has). */
const TOKEN_EVENTS = new Set<PolicyEvent>([
  'TOKEN_REQUEST',
  'TOKEN_REFRESH',
  'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST',
  'SERVICE_ACCOUNT_TOKEN_REQUEST',
  'BACKCHANNEL_TOKEN_REQUEST',
]);

/** use-lightweight-access-token: the request's access token is lightweight, as for a client with `client.use.lightweight.access.token.enabled`. */
const useLightweightAccessToken: Executor = {
  run(_conf, c) {
    if (TOKEN_EVENTS.has(c.event) && c.effects) c.effects.lightweightAccessToken = true;
  },
};

/**
 * suppress-refresh-token-rotation (Keycloak's SuppressRefreshTokenRotationExecutor, TOKEN_REFRESH_RESPONSE):
 * the refresh's response carries no new refresh token (and so `refresh_expires_in` 0); the client
 * keeps using the one it has.
 */
const suppressRefreshTokenRotation: Executor = {
  run(_conf, c) {
    if (c.event !== 'TOKEN_REFRESH_RESPONSE' || !c.response) return;
    delete c.response.refresh_token;
    c.response.refresh_expires_in = 0;
  },
};

/**
 * auth-flow-enforcer (Keycloak's AuthenticationFlowSelectorExecutor, AUTHORIZATION_REQUEST): the login
 * runs the flow of alias `auth-flow-alias` instead of the client's override or the realm's browser
 * flow. Keycloak's direct grant reads the same note, but no policy event sets it there: a password
 * grant keeps its flow.
 */
const authFlowEnforcer: Executor = {
  run(conf, c) {
    if (c.event !== 'AUTHORIZATION_REQUEST' || !c.effects) return;
    const alias = conf['auth-flow-alias'];
    if (typeof alias !== 'string' || alias === '') return;
    const loa = conf['auth-flow-loa'];
    c.effects.authFlow = { alias, ...(loa != null && loa !== '' ? { loa: String(loa) } : {}) };
  },
};

/** The intent id of an authorization request: its `claims` → id_token → `intent-name`, essential, with a value. */
function intentId(conf: ProviderConfiguration, params: Record<string, string | undefined> | undefined): string {
  const claims = params?.claims;
  if (!claims) throw refuse('invalid_request', 'no claim for an intent value in an authorization request');
  const name = conf['intent-name'];
  if (typeof name !== 'string' || name === '') throw refuse('invalid_request', 'invalid intent name setting');
  let parsed: unknown;
  try {
    parsed = JSON.parse(claims);
  } catch {
    throw refuse('invalid_request', 'invalid claim for an intent value');
  }
  const idToken = (parsed as { id_token?: unknown } | null)?.id_token;
  const claim = idToken && typeof idToken === 'object' ? (idToken as Record<string, unknown>)[name] : undefined;
  if (claim == null || typeof claim !== 'object') throw refuse('invalid_request', 'no claim for an intent value for ID token');
  const { essential, value } = claim as { essential?: unknown; value?: unknown };
  if (essential !== true) throw refuse('invalid_request', 'not specifying a claim for an intent as essential claim');
  if (value == null || typeof value === 'object') throw refuse('invalid_request', 'invalid intent value');
  return String(value);
}

const BIND_CHECK_TIMEOUT_MS = 10_000;

/**
 * intent-client-bind-checker (Keycloak's IntentClientBindCheckExecutor, AUTHORIZATION_REQUEST): POSTs
 * `{"intent_id", "client_id"}` to `intent-client-bind-check-endpoint` and lets the request through
 * only when the answer is `{"is_bound": true}`.
 */
const intentClientBindChecker: Executor = {
  async run(conf, c) {
    if (c.event !== 'AUTHORIZATION_REQUEST') return;
    const endpoint = conf['intent-client-bind-check-endpoint'];
    if (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint))
      throw refuse('server_error', 'invalid Intent Client Bind Check Endpoint setting');
    const intent = intentId(conf, c.params);
    let bound: unknown;
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ intent_id: intent, client_id: c.client?.clientId }),
        redirect: 'error',
        signal: AbortSignal.timeout(BIND_CHECK_TIMEOUT_MS),
      });
      bound = ((await res.json()) as { is_bound?: unknown } | null)?.is_bound;
    } catch {
      throw refuse('invalid_request', 'checking intent bound with client failed');
    }
    if (typeof bound !== 'boolean') throw refuse('invalid_request', 'checking intent bound with client failed');
    if (!bound) throw refuse('invalid_request', 'The intent is not bound with the client');
  },
};

export const REQUEST_EXECUTORS: Record<string, Executor> = {
  'auth-flow-enforcer': authFlowEnforcer,
  'intent-client-bind-checker': intentClientBindChecker,
  'suppress-refresh-token-rotation': suppressRefreshTokenRotation,
  'use-lightweight-access-token': useLightweightAccessToken,
};
