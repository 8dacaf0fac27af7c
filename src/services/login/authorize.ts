import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { clientPoliciesOnAuthorization } from '../client-policies';
import { clientLinkedScopes } from '../tokens/token-claims';
import { clientRedirectUris, verifyRedirectUri } from './redirect-uris';

/**
 * The checks of an authorization request (GET/POST /realms/{realm}/protocol/openid-connect/auth), in
 * Keycloak's order (AuthorizationEndpoint, AuthorizationEndpointChecker): what is wrong with the client
 * or the redirect URI is shown on an error page (nothing may be sent to an unverified address); what
 * is wrong after that goes back to the verified redirect URI as `error` / `error_description`.
 */

/** A message of the login pages: a key of the catalogue (messages.ts) and its parameters. */
export interface Message {
  key: string;
  params?: string[];
}

export type ResponseMode = 'query' | 'fragment' | 'form_post';

/** The authorization request as the login keeps it (strings only: it is stored in the authentication session). */
export interface AuthRequest {
  client_id: string;
  /** The verified redirect URI the response goes to. */
  redirect_uri: string;
  /** The redirect_uri parameter as sent ('' when absent): the code exchange must repeat it. */
  redirect_uri_param: string;
  response_type: string;
  response_mode: ResponseMode;
  state?: string;
  nonce?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  prompt?: string;
  max_age?: string;
  login_hint?: string;
  ui_locales?: string;
  /** An application-initiated action (`ALIAS` or `ALIAS:parameter`, kc-action.ts). */
  kc_action?: string;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code's tokens must be bound to. */
  dpop_jkt?: string;
  [key: string]: string | undefined;
}

export type AuthorizeCheck =
  | { kind: 'page'; status: number; message: Message; event: string }
  | {
      kind: 'redirect';
      client: ClientModel;
      redirectUri: string;
      mode: ResponseMode;
      state?: string;
      error: string;
      description?: string;
      event: string;
    }
  | { kind: 'ok'; client: ClientModel; request: AuthRequest };

const PKCE_CHALLENGE = /^[0-9a-zA-Z\-._~]{43,128}$/;
const RESPONSE_MODES = new Set(['query', 'fragment', 'form_post']);

/** Checks an authorization request's parameters against the realm and the client. */
export async function checkAuthorizationRequest(
  db: Db,
  realm: RealmModel,
  params: Record<string, string | undefined>,
  serverBase: string,
): Promise<AuthorizeCheck> {
  const page = (status: number, key: string, event: string, ...p: string[]): AuthorizeCheck => ({
    kind: 'page',
    status,
    message: { key, params: p },
    event,
  });
  if (!realm.enabled) return page(400, 'realmNotEnabledMessage', 'realm_disabled');
  const clientId = params.client_id;
  if (!clientId) return page(400, 'missingParameterMessage', 'invalid_request', 'client_id');
  const client = await db.models.Client.findOne({ where: { realmId: realm.id, clientId } });
  if (!client) return page(400, 'clientNotFoundMessage', 'client_not_found');
  if (!client.enabled) return page(400, 'clientDisabledMessage', 'client_disabled');
  if (client.bearerOnly) return page(403, 'bearerOnlyMessage', 'not_allowed');
  if ((client.protocol || 'openid-connect') !== 'openid-connect') return page(400, 'wrongClientProtocolMessage', 'invalid_client');

  const scope = params.scope ?? '';
  const openid = scope.split(' ').includes('openid');
  const redirectUri = verifyRedirectUri(params.redirect_uri, clientRedirectUris(client, serverBase), openid);
  if (!redirectUri) return page(400, 'invalidParameterMessage', 'invalid_redirect_uri', 'redirect_uri');

  const state = params.state;
  const modeParam = params.response_mode;
  const mode: ResponseMode = modeParam && RESPONSE_MODES.has(modeParam) ? (modeParam as ResponseMode) : 'query';
  const back = (error: string, description?: string, event = 'invalid_request', m: ResponseMode = mode): AuthorizeCheck => ({
    kind: 'redirect',
    client,
    redirectUri,
    mode: m,
    state,
    error,
    description,
    event,
  });
  const responseType = params.response_type;
  if (!responseType) return back('invalid_request', 'Missing parameter: response_type', 'invalid_request', 'query');
  // Only the authorization code flow is served (no implicit or hybrid response types yet).
  if (responseType !== 'code') return back('unsupported_response_type', undefined, 'invalid_request', 'query');
  if (modeParam && !RESPONSE_MODES.has(modeParam))
    return back('invalid_request', 'Invalid parameter: response_mode', 'invalid_request', 'query');
  if (client.settings.standardFlowEnabled === false)
    return back(
      'unauthorized_client',
      'Client is not allowed to initiate browser login with given response_type. Standard flow is disabled for the client.',
      'not_allowed',
    );
  if (params.request) return back('request_not_supported', 'Request objects are not supported');
  if (params.request_uri) return back('request_uri_not_supported', 'Request URIs are not supported');

  const requested = scope.split(' ').filter((s) => s && s !== 'openid');
  if (requested.length) {
    const { links, scopes } = await clientLinkedScopes(db, client);
    const linked = new Set(scopes.filter((s) => links.some((l) => l.scopeId === s.id)).map((s) => s.name));
    if (requested.some((s) => !linked.has(s))) return back('invalid_scope', `Invalid scopes: ${scope}`);
  }

  const pkce = checkPkce(client, params.code_challenge, params.code_challenge_method);
  if (pkce) return back('invalid_request', pkce);
  const refused = await clientPoliciesOnAuthorization(db, realm, client, params);
  if (refused) return back(refused.error, refused.description);

  const request: AuthRequest = {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    redirect_uri_param: params.redirect_uri ?? '',
    response_type: responseType,
    response_mode: mode,
  };
  for (const k of ['state', 'nonce', 'scope', 'code_challenge', 'prompt', 'login_hint', 'ui_locales', 'kc_action', 'dpop_jkt'] as const) {
    if (params[k] !== undefined && params[k] !== '') request[k] = params[k];
  }
  if (params.code_challenge) request.code_challenge_method = params.code_challenge_method || 'plain';
  if (params.max_age !== undefined && /^\d{1,9}$/.test(params.max_age)) request.max_age = params.max_age;
  return { kind: 'ok', client, request };
}

/** PKCE parameters (RFC 7636 §4): the error description, or undefined when they are acceptable. */
function checkPkce(client: ClientModel, challenge: string | undefined, method: string | undefined): string | undefined {
  const attrs = (client.settings.attributes ?? {}) as Record<string, string>;
  const required = attrs['pkce.code.challenge.method'];
  if (required) {
    if (!method) return 'Missing parameter: code_challenge_method';
    if (method !== required) return 'Invalid parameter: code challenge method is not matching the configured one';
    if (!challenge) return 'Missing parameter: code_challenge';
    if (!PKCE_CHALLENGE.test(challenge)) return 'Invalid parameter: code_challenge';
    return undefined;
  }
  if (!challenge && method) return 'Missing parameter: code_challenge';
  if (!challenge) return undefined;
  if (method && method !== 'S256' && method !== 'plain') return 'Invalid parameter: code_challenge_method';
  if (!PKCE_CHALLENGE.test(challenge)) return 'Invalid parameter: code_challenge';
  return undefined;
}
