import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { type PolicyEffects, clientPoliciesOnAuthorization } from '../client-policies';
import { clientByClientId } from '../tokens/client-config-cache';
import { clientLinkedScopes } from '../tokens/token-claims';
import { clientRedirectUris, verifyRedirectUri } from './redirect-uris';
import { RequestProblem, resolveAuthorizationParams } from './request-object';
import { modeForInvalidResponseType, parseResponseMode, type ResponseMode, ResponseType } from './response-types';

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

export type { ResponseMode };

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
  /** The identity provider to redirect to at once (identity-provider-redirector). */
  kc_idp_hint?: string;
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
  | {
      kind: 'ok';
      client: ClientModel;
      request: AuthRequest;
      /** The authentication session's first notes, from client policies (auth-flow-enforcer's requested flow). */
      notes?: Record<string, string>;
    };

const PKCE_CHALLENGE = /^[0-9a-zA-Z\-._~]{43,128}$/;

/** Checks an authorization request's parameters against the realm and the client. */
export async function checkAuthorizationRequest(
  db: Db,
  realm: RealmModel,
  query: Record<string, string | undefined>,
  serverBase: string,
): Promise<AuthorizeCheck> {
  const page = (status: number, key: string, event: string, ...p: string[]): AuthorizeCheck => ({
    kind: 'page',
    status,
    message: { key, params: p },
    event,
  });
  if (!realm.enabled) return page(400, 'realmNotEnabledMessage', 'realm_disabled');
  const clientId = query.client_id;
  if (!clientId) return page(400, 'missingParameterMessage', 'invalid_request', 'client_id');
  // Kept per node under the realm's cache version (the token endpoint's read, client-auth.ts).
  const client = await clientByClientId(db, realm, clientId);
  if (!client) return page(400, 'clientNotFoundMessage', 'client_not_found');
  if (!client.enabled) return page(400, 'clientDisabledMessage', 'client_disabled');
  if (client.bearerOnly) return page(403, 'bearerOnlyMessage', 'not_allowed');
  if ((client.protocol || 'openid-connect') !== 'openid-connect') return page(400, 'wrongClientProtocolMessage', 'invalid_client');

  // PRE_AUTHORIZATION_REQUEST (secure-par-content) judges the query as sent; a refusal is an error page.
  const early = await clientPoliciesOnAuthorization(db, realm, client, query, 'PRE_AUTHORIZATION_REQUEST');
  if (early) return page(400, early.description, early.error);
  const resolved = await resolveAuthorizationParams(db, realm, client, query);
  if (resolved instanceof RequestProblem) return page(400, 'invalidRequestMessage', 'invalid_request');
  const checked = await checkRequestForClient(db, client, resolved.params, serverBase);
  if (checked.kind !== 'checked') return checked;
  const back = checked.back;
  if (!resolved.par && parRequired(realm, client)) return back('invalid_request', 'Pushed Authorization Request is only allowed.');
  const effects: PolicyEffects = {};
  const refused = await clientPoliciesOnAuthorization(db, realm, client, resolved.params, 'AUTHORIZATION_REQUEST', {
    rawParams: query,
    requestObject: resolved.requestObject,
    requestObjectEncrypted: resolved.requestObjectEncrypted,
    par: resolved.par,
    issuer: issuerOf(serverBase, realm.name),
    effects,
  });
  if (refused) return back(refused.error, refused.description);
  const flow = effects.authFlow;
  const notes = flow ? { [REQUESTED_FLOW_NOTE]: flow.alias, ...(flow.loa ? { [REQUESTED_FLOW_LOA_NOTE]: flow.loa } : {}) } : undefined;
  return { kind: 'ok', client, request: checked.request, ...(notes ? { notes } : {}) };
}

/** Keycloak's authentication-session notes of a flow a client policy asks for (auth-flow-enforcer): its alias and level. */
export const REQUESTED_FLOW_NOTE = 'requested-authentication-flow';
export const REQUESTED_FLOW_LOA_NOTE = 'authentication-flow-level-of-authentication';

/** Whether the client must push its authorization requests (`require.pushed.authorization.requests`). */
export function parRequired(_realm: RealmModel, client: ClientModel): boolean {
  return (client.settings.attributes as Record<string, string> | undefined)?.['require.pushed.authorization.requests'] === 'true';
}

type Back = (error: string, description?: string, event?: string, m?: ResponseMode) => Extract<AuthorizeCheck, { kind: 'redirect' }>;

/**
 * The checks of an authorization request once its client is known and its parameters resolved
 * (AuthorizationEndpointChecker): redirect URI, response type and mode, standard flow, scopes, PKCE.
 * The pushed-request endpoint runs them on what is pushed, before storing it.
 */
export async function checkRequestForClient(
  db: Db,
  client: ClientModel,
  params: Record<string, string | undefined>,
  serverBase: string,
): Promise<Exclude<AuthorizeCheck, { kind: 'ok' }> | { kind: 'checked'; request: AuthRequest; back: Back }> {
  const scope = params.scope ?? '';
  const openid = scope.split(' ').includes('openid');
  const redirectUri = verifyRedirectUri(params.redirect_uri, clientRedirectUris(client, serverBase), openid);
  if (!redirectUri)
    return {
      kind: 'page' as const,
      status: 400,
      message: { key: 'invalidParameterMessage', params: ['redirect_uri'] },
      event: 'invalid_redirect_uri',
    };

  const state = params.state;
  const modeParam = params.response_mode;
  let mode: ResponseMode = 'query';
  const back = (error: string, description?: string, event = 'invalid_request', m: ResponseMode = mode) => ({
    kind: 'redirect' as const,
    client,
    redirectUri,
    mode: m,
    state,
    error,
    description,
    event,
  });
  // AuthorizationEndpointChecker.checkResponseType: an error about the type itself goes back in the
  // mode asked for when it is one (parseWhenInvalidResponseType), later ones in the parsed mode.
  const responseType = params.response_type;
  if (!responseType)
    return back('invalid_request', 'Missing parameter: response_type', 'invalid_request', modeForInvalidResponseType(modeParam));
  const type = ResponseType.parse(responseType);
  if (!type) return back('unsupported_response_type', undefined, 'invalid_request', modeForInvalidResponseType(modeParam));
  const parsedMode = parseResponseMode(modeParam, type);
  if (!parsedMode) return back('invalid_request', 'Invalid parameter: response_mode');
  mode = parsedMode;
  if (type.implicitOrHybrid && mode === 'query')
    return back('invalid_request', "Response_mode 'query' not allowed for implicit or hybrid flow");
  const attrs = (client.settings.attributes ?? {}) as Record<string, string>;
  if (
    type.implicitOrHybrid &&
    mode === 'query.jwt' &&
    !(attrs['authorization.encrypted.response.alg']?.trim() && attrs['authorization.encrypted.response.enc']?.trim())
  )
    return back('invalid_request', "Response_mode 'query.jwt' is allowed only when the authorization response token is encrypted");
  const notAllowed = (why: string) =>
    back('unauthorized_client', `Client is not allowed to initiate browser login with given response_type. ${why}`, 'not_allowed');
  if ((type.has('code') || type.has('none')) && client.settings.standardFlowEnabled === false)
    return notAllowed('Standard flow is disabled for the client.');
  if (type.implicitOrHybrid && client.settings.implicitFlowEnabled !== true) return notAllowed('Implicit flow is disabled for the client.');
  if (type.implicitOrHybrid && attrs['dpop.bound.access.tokens'] === 'true')
    return back(
      'unauthorized_client',
      'DPoP is not supported for implicit and hybrid flows. Client requires DPoP bound access tokens.',
      'not_allowed',
    );

  const requested = scope.split(' ').filter((s) => s && s !== 'openid');
  if (requested.length) {
    const { links, scopes } = await clientLinkedScopes(db, client);
    const linked = new Set(scopes.filter((s) => links.some((l) => l.scopeId === s.id)).map((s) => s.name));
    // `organization:*` and `organization:<alias>` are forms of the `organization` scope (Keycloak's OrganizationScope);
    // an alias must name an enabled organization of the realm.
    const known = async (s: string) => {
      if (linked.has(s)) return true;
      if (!s.startsWith('organization:') || !linked.has('organization')) return false;
      const alias = s.slice('organization:'.length);
      if (alias === '*') return true;
      return Boolean(
        alias && (await db.models.Organization.findOne({ where: { realmId: client.realmId, alias, enabled: true }, attributes: ['id'] })),
      );
    };
    for (const s of requested) if (!(await known(s))) return back('invalid_scope', `Invalid scopes: ${scope}`);
  }

  // checkOIDCParams: an ID token needs a nonce (a plain OAuth2 `token` request needs none).
  if (type.has('id_token') && params.nonce === undefined) return back('invalid_request', 'Missing parameter: nonce');
  // PKCE binds codes: the implicit flow has none to bind.
  const pkce = type.implicit ? undefined : checkPkce(client, params.code_challenge, params.code_challenge_method);
  if (pkce) return back('invalid_request', pkce);

  const request: AuthRequest = {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    redirect_uri_param: params.redirect_uri ?? '',
    response_type: type.toString(),
    response_mode: mode,
  };
  for (const k of [
    'state',
    'nonce',
    'scope',
    'code_challenge',
    'prompt',
    'login_hint',
    'ui_locales',
    'kc_action',
    'kc_idp_hint',
    'dpop_jkt',
    'acr_values',
    'claims',
  ] as const) {
    if (params[k] !== undefined && params[k] !== '') request[k] = params[k];
  }
  if (params.code_challenge) request.code_challenge_method = params.code_challenge_method || 'plain';
  if (params.max_age !== undefined && /^\d{1,9}$/.test(params.max_age)) request.max_age = params.max_age;
  return { kind: 'checked', request, back };
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
