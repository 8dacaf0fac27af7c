import { HttpError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { clientPoliciesOnAuthorization } from '../client-policies';
import { authenticatePresentedClient } from '../tokens/client-auth';
import { publicRealm } from '../tokens/oidc-metadata';
import { TokenEvent } from '../tokens/token-events';
import { oauth } from '../tokens/tokens';
import { checkRequestForClient } from './authorize';
import { storePushedRequest } from './par-store';
import { RequestProblem, asParams, parseRequestObject, requiredProblem } from './request-object';

/**
 * POST /realms/{realm}/protocol/openid-connect/ext/par/request (RFC 9126, Keycloak's ParEndpoint):
 * an authenticated client pushes the parameters of an authorization request (or a request object
 * carrying them) and gets a single-use `request_uri` for the authorization endpoint, valid
 * `parRequestUriLifespan` seconds. The parameters are checked as the authorization endpoint would
 * (redirect URI, response type, scopes, PKCE) and the PUSHED_AUTHORIZATION_REQUEST client policies
 * run; a problem is 400 `{"error", "error_description"}`, a failed client authentication 401.
 */
export interface ParRequest {
  realm: string;
  form: Record<string, unknown>;
  basic?: { clientId: string; secret: string };
  baseUrl: string;
  ipAddress?: string;
}

/** Parameters that are the client's credentials, not the authorization request's: never stored. */
const CREDENTIALS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

async function authenticate(db: Db, realm: RealmModel, req: ParRequest): Promise<ClientModel> {
  try {
    const client = await authenticatePresentedClient(db, realm, req);
    if (client.bearerOnly) throw new Error('bearer-only');
    return client;
  } catch {
    throw oauth(401, 'invalid_request', 'Authentication failed.');
  }
}

/** Pushes an authorization request; answers `request_uri` and `expires_in` (event PUSHED_AUTHORIZATION_REQUEST, or its _ERROR). */
export async function pushAuthorizationRequest(db: Db, req: ParRequest): Promise<{ request_uri: string; expires_in: number }> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'PUSHED_AUTHORIZATION_REQUEST', req.ipAddress);
  ev.clientId = req.basic?.clientId ?? (typeof req.form.client_id === 'string' ? req.form.client_id : null);
  try {
    const out = await push(db, realm, req);
    await ev.success();
    return out;
  } catch (e) {
    if (e instanceof HttpError) await ev.error(String(e.body.error ?? 'invalid_request'));
    throw e;
  }
}

async function push(db: Db, realm: RealmModel, req: ParRequest): Promise<{ request_uri: string; expires_in: number }> {
  if (!realm.enabled) throw oauth(400, 'invalid_request', 'Realm not enabled');
  const client = await authenticate(db, realm, req);
  const form: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.form)) if (typeof v === 'string' && !CREDENTIALS.has(k)) form[k] = v;
  if ('request_uri' in form) throw oauth(400, 'invalid_request', 'It is not allowed to include request_uri to PAR.');
  if (form.client_id && form.client_id !== client.clientId) throw oauth(400, 'invalid_request', 'Invalid parameter: client_id');
  form.client_id = client.clientId;

  let params = form;
  let requestObject: Record<string, unknown> | undefined;
  if (form.request) {
    const ro = await parseRequestObject(db, realm, client, form.request);
    if (ro instanceof RequestProblem) throw oauth(400, ro.error, ro.problem);
    const claims = ro.claims;
    const fromObject = asParams(claims);
    if (fromObject.client_id && fromObject.client_id !== client.clientId) {
      throw oauth(400, 'invalid_request', "The client_id parameter doesn't match the one from OIDC 'request' or 'request_uri'");
    }
    params = { ...form, ...fromObject };
    requestObject = claims;
  }
  // A pushed request is what the request_uri then refers to: only `request` itself can be missing.
  const required = requiredProblem(client, form.request, 'pushed');
  if (required) throw oauth(400, 'invalid_request', required.problem);

  const checked = await checkRequestForClient(db, client, params, req.baseUrl);
  if (checked.kind === 'page') throw oauth(400, 'invalid_request', 'Invalid parameter: redirect_uri');
  if (checked.kind === 'redirect') {
    if (checked.error === 'unsupported_response_type') throw oauth(400, 'invalid_request', 'Unsupported response type');
    throw oauth(400, checked.error === 'invalid_scope' ? 'invalid_request' : checked.error, checked.description ?? checked.error);
  }
  const refused = await clientPoliciesOnAuthorization(db, realm, client, params, 'PUSHED_AUTHORIZATION_REQUEST', {
    rawParams: form,
    requestObject,
    issuer: issuerOf(req.baseUrl, realm.name),
  });
  if (refused) throw oauth(400, refused.error, refused.description);
  const { requestUri, expiresIn } = await storePushedRequest(db, realm, client, form);
  return { request_uri: requestUri, expires_in: expiresIn };
}
