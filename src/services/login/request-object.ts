import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { ClientJwtError, fetchSmallDocument, verifyClientJws } from '../tokens/client-keys';
import { decryptWithRealmKey, RealmDecryptionError } from '../tokens/signing';
import { consumePushedRequest, isParRequestUri } from './par-store';

/**
 * The parameters of an authorization request (Keycloak's AuthorizationEndpointRequestParserProcessor):
 * the query, then a pushed request (`request_uri` of the PAR endpoint, RFC 9126) or a request object
 * (`request`, or a `request_uri` among the client's `request.uris`; RFC 9101), whose parameters win
 * over the query's. A request object is verified with the client's keys (JWKS, certificate, or its
 * secret for HS*) and the client's `request.object.signature.alg`; `request.object.required` says
 * whether the client must send one. A request object may come encrypted to the realm's encryption key
 * (JWE around the signed JWT), as Keycloak decrypts it.
 */
export interface ResolvedParams {
  params: Record<string, string>;
  /** The verified request object's claims, when there was one. */
  requestObject?: Record<string, unknown>;
  /** Whether that request object came encrypted to the realm. */
  requestObjectEncrypted?: boolean;
  /** Whether the parameters came from a pushed request. */
  par: boolean;
}

/** Why an authorization request's parameters cannot be used (Keycloak's parser exceptions). */
export class RequestProblem {
  constructor(
    readonly problem: string,
    readonly error: 'invalid_request' | 'invalid_request_object' = 'invalid_request',
  ) {}
}

const attrs = (client: ClientModel) => (client.settings?.attributes as Record<string, string> | undefined) ?? {};
const fail = (problem: string, error: RequestProblem['error'] = 'invalid_request') => new RequestProblem(problem, error);
/** JWT claims that are not authorization parameters. */
const NOT_PARAMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);

/** The claims of a request object as authorization parameters (strings; objects as JSON, as Keycloak's parser). */
export function asParams(claims: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(claims)) {
    if (NOT_PARAMS.has(k) || v === null || v === undefined) continue;
    out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** A verified request object: its claims, and whether it came encrypted to the realm (secure-request-object's `encryption-required`). */
export interface RequestObject {
  claims: Record<string, unknown>;
  encrypted: boolean;
}

/** The claims of a signed (or, as the client's `request.object.signature.alg` allows, unsigned) request object, or the problem. */
async function verifiedClaims(
  client: ClientModel,
  jwt: string,
  bad: (m: string) => RequestProblem,
): Promise<Record<string, unknown> | RequestProblem> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(jwt).alg;
  } catch {
    return bad("Failed to verify signature on 'request' object");
  }
  if (!alg) return bad('Request object signed algorithm not specified');
  const wanted = attrs(client)['request.object.signature.alg'];
  if (wanted && wanted !== 'any' && wanted !== alg)
    return bad('Request object signed with different algorithm than client requested algorithm');
  if (alg === 'none') {
    if (wanted !== 'none') return bad("Failed to verify signature on 'request' object");
    try {
      return decodeJwt(jwt) as Record<string, unknown>;
    } catch {
      return bad("Failed to verify signature on 'request' object");
    }
  }
  try {
    return (await verifyClientJws(client, jwt)).claims;
  } catch (e) {
    if (e instanceof ClientJwtError) return bad("Failed to verify signature on 'request' object");
    throw e;
  }
}

/**
 * The content of a request object encrypted to the realm (Keycloak's AuthzEndpointRequestObjectParser
 * validator and DefaultTokenManager.decodeClientJWT): the JWE's `alg` and `enc` must be the client's
 * `request.object.encryption.alg` / `.enc` when set; it is decrypted with the realm's encryption key;
 * a nested signed JWT is then verified as a plain request object is; other content is read as JSON
 * claims, unsigned, so (as an `alg: none` object here) only for a client whose
 * `request.object.signature.alg` is `none` (Keycloak reads them for any client).
 */
async function decryptedClaims(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  jwe: string,
  bad: (m: string) => RequestProblem,
): Promise<Record<string, unknown> | RequestProblem> {
  let header: { alg?: string; enc?: string };
  try {
    header = decodeProtectedHeader(jwe) as { alg?: string; enc?: string };
  } catch {
    return bad('Failed to decrypt JWT');
  }
  const wantedAlg = attrs(client)['request.object.encryption.alg'];
  if (wantedAlg && wantedAlg !== header.alg)
    return bad('Request object encrypted with different algorithm than client requested algorithm');
  const wantedEnc = attrs(client)['request.object.encryption.enc'];
  if (wantedEnc && wantedEnc !== header.enc)
    return bad('Request object content encrypted with different algorithm than client requested algorithm');
  let content: string;
  try {
    content = (await decryptWithRealmKey(db, realm, jwe)).trim();
  } catch (e) {
    if (e instanceof RealmDecryptionError) return bad(e.message);
    throw e;
  }
  if (/^[\w-]+\.[\w-]*\.[\w-]*$/.test(content)) {
    const inner = await verifiedClaims(client, content, bad);
    // Keycloak: a nested JWT its validator refuses is read as JSON, which it is not.
    if (inner instanceof RequestProblem && /algorithm/.test(inner.problem)) return bad('Failed to deserialize JWT');
    return inner;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return bad('Failed to deserialize JWT');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return bad('Failed to deserialize JWT');
  // Unsigned claims, as an `alg: none` request object: only for a client whose request.object.signature.alg is `none`.
  if (attrs(client)['request.object.signature.alg'] !== 'none') return bad("Failed to verify signature on 'request' object");
  return parsed as Record<string, unknown>;
}

/** Verifies a request object of the client (signed, or encrypted to the realm around a signed one); its claims, or the problem. */
export async function parseRequestObject(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  jwt: string,
): Promise<RequestObject | RequestProblem> {
  const bad = (m: string) => fail(m, 'invalid_request_object');
  const encrypted = jwt.split('.').length === 5;
  const claims = encrypted ? await decryptedClaims(db, realm, client, jwt, bad) : await verifiedClaims(client, jwt, bad);
  if (claims instanceof RequestProblem) return claims;
  if ('request_uri' in claims) return bad('The request_uri claim should not be set in the request object');
  return { claims, encrypted };
}

/** Merges a request object's parameters over `params`; the problem when its client_id is another. */
function mergeObject(params: Record<string, string>, claims: Record<string, unknown>): Record<string, string> | RequestProblem {
  const fromObject = asParams(claims);
  if (fromObject.client_id && params.client_id && fromObject.client_id !== params.client_id) {
    return fail("The client_id parameter doesn't match the one from OIDC 'request' or 'request_uri'");
  }
  return { ...params, ...fromObject };
}

/** request.object.required: the problem when the client sent neither of the parameters it must use. */
export function requiredProblem(
  client: ClientModel,
  request: string | undefined,
  requestUri: string | undefined,
): RequestProblem | undefined {
  const required = attrs(client)['request.object.required'];
  if (required === 'request or request_uri' && !request && !requestUri)
    return fail("Client is required to use 'request' or 'request_uri' parameter.");
  if (required === 'request' && !request) return fail("Client is required to use 'request' parameter.");
  if (required === 'request_uri' && !requestUri) return fail("Client is required to use 'request_uri' parameter.");
  return undefined;
}

/** Whether `uri` is one of the client's `request.uris` (exact, or a trailing `*` wildcard). */
function allowedRequestUri(client: ClientModel, uri: string): boolean {
  const allowed = String(attrs(client)['request.uris'] ?? '')
    .split('##')
    .filter(Boolean);
  return allowed.some((a) => (a.endsWith('*') ? uri.startsWith(a.slice(0, -1)) : a === uri));
}

/** The parameters of an authorization request to the client, or the problem (shown as Keycloak's "Invalid Request" page). */
export async function resolveAuthorizationParams(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  query: Record<string, string | undefined>,
): Promise<ResolvedParams | RequestProblem> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params[k] = v;
  const { request, request_uri: requestUri } = params;
  if (request && requestUri) return fail("Illegal to use both 'request' and 'request_uri' parameters together");
  if (isParRequestUri(requestUri)) {
    const pushed = await consumePushedRequest(db, realm, requestUri);
    if ('problem' in pushed) return fail(pushed.problem);
    if (pushed.clientUuid !== client.id) return fail('PAR not found. not issued or used multiple times.');
    const merged = { ...params, ...pushed.params };
    if (!pushed.params.request) return { params: merged, par: true };
    const ro = await parseRequestObject(db, realm, client, pushed.params.request);
    if (ro instanceof RequestProblem) return ro;
    const withObject = mergeObject(merged, ro.claims);
    return withObject instanceof RequestProblem
      ? withObject
      : { params: withObject, requestObject: ro.claims, requestObjectEncrypted: ro.encrypted, par: true };
  }
  const required = requiredProblem(client, request, requestUri);
  if (required) return required;
  let jwt = request;
  if (!jwt && requestUri) {
    if (!allowedRequestUri(client, requestUri)) return fail("Specified 'request_uri' not allowed for this client.");
    try {
      jwt = (await fetchSmallDocument(requestUri)).trim();
    } catch {
      return fail("Could not fetch 'request_uri'");
    }
  }
  if (!jwt) return { params, par: false };
  const ro = await parseRequestObject(db, realm, client, jwt);
  if (ro instanceof RequestProblem) return ro;
  const merged = mergeObject(params, ro.claims);
  return merged instanceof RequestProblem
    ? merged
    : { params: merged, requestObject: ro.claims, requestObjectEncrypted: ro.encrypted, par: false };
}
