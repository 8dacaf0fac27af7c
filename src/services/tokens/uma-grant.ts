import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { nowSeconds } from '../../core/clock';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { contextAttributes, loadAuthzIdentity, loadAuthzModel } from '../authz/authz-model';
import {
  type AuthzIndex,
  AuthzRequestError,
  type EvaluationOutcome,
  evaluateAuthorization,
  type PermissionRequest,
  parsePermissionParameter,
  type RptPermission,
  rptPermissions,
} from '../authz/evaluation';
import { uriMatches } from '../authz/resources';
import { createSession, findActiveSession } from '../sessions/session-store';
import { computeClaims } from './token-claims';
import { clientErrorCode, TokenEvent } from './token-events';
import { grantedScope, issue, oauth, type TokenRequest, type TokenResponse, verifyBearer } from './tokens';

/**
 * The UMA grant (`grant_type=urn:ietf:params:oauth:grant-type:uma-ticket`) as Keycloak's
 * PermissionGrantType and AuthorizationTokenService answer it, without permission tickets:
 * - The requester is the holder of a bearer access token (any client, public ones included), or a
 *   confidential client authenticating itself (then the subject is its service account).
 * - `audience` names the resource server (its clientId), `permission` (repeatable) what is asked as
 *   `resource#scope1,scope2` (a resource id or name; `permission_resource_format=uri` for a URI), `scope`
 *   adds scopes to every permission; no permission asks for everything. `claim_token` with format
 *   `urn:ietf:params:oauth:token-type:jwt` pushes claims (not from public clients); `rpt` carries the
 *   permissions of an earlier RPT over.
 * - Granted: an RPT (the requester's access token with `authorization.permissions` and the resource
 *   server in its audience) and a refresh token, `upgraded` telling whether an earlier RPT's
 *   permissions are all kept; `response_mode=decision` answers `{"result": true}`, `permissions` the
 *   list (`response_include_resource_name=false` leaves out `rsname`, `response_permissions_limit`
 *   caps it). Nothing granted: 403 `access_denied` / `not_authorized`.
 * The PERMISSION_TOKEN event records a success (and a bad bearer token as its error).
 */

export const UMA_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:uma-ticket';
const JWT_CLAIMS = 'urn:ietf:params:oauth:token-type:jwt';
const ID_TOKEN_CLAIMS = 'http://openid.net/specs/openid-connect-core-1_0.html#IDToken';

export interface UmaCall {
  db: Db;
  realm: RealmModel;
  req: TokenRequest;
  /** The token endpoint's client authentication (for a requester without a bearer token). */
  authenticateClient: () => Promise<ClientModel>;
}

/** Who asks: the client, the subject, the session to issue the RPT in (created on success when null) and the token claims. */
interface Requester {
  client: ClientModel;
  user: UserModel;
  session: UserSessionModel | null;
  claims: JWTPayload;
  scope: string;
}

type Form = Record<string, string | string[] | undefined>;
const first = (form: Form, key: string) => {
  const v = form[key];
  return Array.isArray(v) ? v[0] : v;
};
const all = (form: Form, key: string) => {
  const v = form[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** The holder of the bearer token (Keycloak's Tokens#getAccessToken: signature, expiry, session, user, client). */
async function bearerRequester(db: Db, realm: RealmModel, req: TokenRequest, token: string, ev: TokenEvent): Promise<Requester> {
  const verified = await verifyBearer(db, token, req.baseUrl);
  const claims = verified && verified.realm.id === realm.id ? decodeJwt(token) : null;
  const [client, user, session] =
    verified && claims
      ? await Promise.all([
          db.models.Client.findByPk(verified.clientId),
          db.models.User.findByPk(verified.userId),
          verified.sessionId ? findActiveSession(db, realm, verified.sessionId) : null,
        ])
      : [null, null, null];
  if (!claims || !client || !user) {
    try {
      ev.clientId = String(decodeJwt(token).azp ?? '') || null;
    } catch {
      /* not a JWT: no client to name */
    }
    await ev.error('invalid_token');
    throw oauth(401, 'invalid_grant', 'Invalid bearer token');
  }
  ev.clientId = client.clientId;
  ev.userId = user.id;
  return { client, user, session, claims, scope: String(claims.scope ?? '') };
}

/** A confidential client asking for itself: its service account (ClientCredentialsGrantType's checks). */
async function clientRequester(call: UmaCall, ev: TokenEvent): Promise<Requester> {
  const { db, realm, req } = call;
  ev.clientId = req.basic?.clientId ?? (first(req.form, 'client_id') as string | undefined) ?? null;
  let client: ClientModel;
  try {
    client = await call.authenticateClient();
  } catch (e) {
    await ev.error(clientErrorCode(e));
    throw e;
  }
  if (client.publicClient)
    throw await ev.fail('invalid_client', oauth(400, 'unauthorized_client', 'Public client not allowed to retrieve service account'));
  if (!client.serviceAccountsEnabled)
    throw await ev.fail('invalid_client', oauth(400, 'unauthorized_client', 'Client not enabled to retrieve service account'));
  const user = await db.models.User.findOne({ where: { realmId: realm.id, serviceAccountClientLink: client.id } });
  if (!user?.enabled) throw await ev.fail('user_disabled', oauth(400, 'invalid_request', 'User for this service account is disabled'));
  ev.userId = user.id;
  const scope = await grantedScope(db, client, undefined);
  const mapped = await computeClaims(db, { realm, client, user, scope, notes: { client_id: client.clientId } });
  const claims: JWTPayload = { sub: user.id, azp: client.clientId, typ: 'Bearer', ...mapped.access, scope };
  return { client, user, session: null, claims, scope };
}

/** Claims pushed with `claim_token` (format `urn:ietf:params:oauth:token-type:jwt`: base64url JSON). */
function pushedClaims(form: Form, client: ClientModel): Record<string, string[]> {
  const token = first(form, 'claim_token');
  if (token === undefined) return {};
  const format = first(form, 'claim_token_format') ?? ID_TOKEN_CLAIMS;
  if (client.publicClient) throw oauth(403, 'invalid_grant', 'Public clients are not allowed to send claims');
  if (format === ID_TOKEN_CLAIMS) return {};
  if (format !== JWT_CLAIMS) throw oauth(400, 'invalid_request', `Claim token format [${format}] not supported`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw oauth(400, 'invalid_request', 'Invalid claims');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw oauth(400, 'invalid_request', 'Invalid claims');
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (v == null) continue;
    out[k] = (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x)));
  }
  return out;
}

/** An earlier RPT (`rpt`): its signature must verify with the realm's keys; expired, its permissions are not carried over. */
async function previousRpt(db: Db, realm: RealmModel, token: string | undefined): Promise<JWTPayload | null> {
  if (token === undefined) return null;
  const invalid = () => oauth(403, 'invalid_rpt', 'RPT signature is invalid');
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalid();
  }
  for (const k of verificationKeys(await realmKeys(db, realm), String(header.alg ?? ''), header.kid)) {
    try {
      // Only the signature counts here (Keycloak's tokens().decode); expiry decides below whether permissions carry over.
      const opts = { algorithms: [String(header.alg)], currentDate: new Date(0) };
      return (await jwtVerify(token, (k.publicKey ?? k.secret) as Uint8Array, opts)).payload;
    } catch {
      /* try the next key */
    }
  }
  throw invalid();
}

/** The RPT's permissions (`authorization.permissions`) of a token payload. */
function permissionsIn(token: JWTPayload | null): RptPermission[] {
  const list = (token?.authorization as { permissions?: unknown } | undefined)?.permissions;
  return Array.isArray(list) ? (list as RptPermission[]) : [];
}

/** The `permission` parameters as engine requests (resource by id or name, or by URI with `permission_resource_format=uri`). */
function requestsOf(form: Form, ix: AuthzIndex, rpt: JWTPayload | null): PermissionRequest[] {
  const extraScopes = (first(form, 'scope') ?? '').split(' ').filter(Boolean);
  const byUri = first(form, 'permission_resource_format') === 'uri';
  const matching = first(form, 'permission_resource_matching_uri') === 'true';
  const out: PermissionRequest[] = [];
  for (const raw of all(form, 'permission')) {
    const p = parsePermissionParameter(raw);
    const scopes = [...(p.scopes ?? []), ...extraScopes];
    if (byUri && p.resource) {
      const uri = p.resource;
      const found = ix.resources.filter((r) => (r.rep.uris ?? []).some((u) => (matching ? uriMatches(u, uri) : u === uri)));
      if (!found.length) throw new AuthzRequestError('invalid_resource', `Resource with id [${uri}] does not exist.`);
      for (const r of found) out.push({ resource: r.id, scopes });
    } else out.push({ ...p, scopes });
  }
  const active = rpt && Number(rpt.exp ?? 0) > nowSeconds();
  if (active)
    for (const p of permissionsIn(rpt)) if (p.rsid && ix.resourceById.has(p.rsid)) out.push({ resource: p.rsid, scopes: p.scopes ?? [] });
  return out;
}

/** Re-signs a token issued by `issue` with the same key and more claims (the RPT's `authorization`, its audience). */
async function resign(db: Db, realm: RealmModel, token: string, change: (claims: JWTPayload) => JWTPayload): Promise<string> {
  const header = decodeProtectedHeader(token);
  const key = (await realmKeys(db, realm)).find((k) => k.kid === header.kid && k.algorithm === header.alg);
  if (!key) throw oauth(500, 'server_error', 'Unexpected error while evaluating permissions');
  return new SignJWT(change(decodeJwt(token)))
    .setProtectedHeader({ alg: String(header.alg), typ: 'JWT', kid: key.kid })
    .sign((key.privateKey ?? key.secret) as Uint8Array);
}

const withAudience = (aud: unknown, clientId: string) => {
  const list = aud === undefined ? [] : Array.isArray(aud) ? aud.map(String) : [String(aud)];
  if (!list.includes(clientId)) list.push(clientId);
  return list.length === 1 ? list[0] : list;
};

/** The RPT and its refresh token, in the requester's session (a new one for a client asking for itself). */
async function issueRpt(
  call: UmaCall,
  ev: TokenEvent,
  who: Requester,
  target: ClientModel,
  permissions: RptPermission[],
  rpt: JWTPayload | null,
) {
  const { db, realm, req } = call;
  const session =
    who.session ??
    (await createSession(db, realm, {
      user: who.user,
      client: who.client,
      ipAddress: req.ipAddress,
      offline: false,
      authMethod: 'openid-connect',
      notes: { clientId: who.client.clientId },
    }));
  ev.sessionId = session.id;
  // The form's `scope` names authorization scopes here, not client scopes for the token's mappers.
  const tokenReq = { ...req, form: { ...req.form, scope: undefined } };
  const res = await issue({ db, realm, client: who.client, user: who.user, session, scope: who.scope, req: tokenReq }, true);
  const authorization = { permissions };
  const access_token = await resign(db, realm, res.access_token, (c) => ({
    ...c,
    aud: withAudience(c.aud, target.clientId),
    authorization,
  }));
  const refresh_token = res.refresh_token ? await resign(db, realm, res.refresh_token, (c) => ({ ...c, authorization })) : undefined;
  const kept = new Set(permissions.map((p) => p.rsid));
  const upgraded = rpt !== null && permissionsIn(rpt).every((p) => kept.has(p.rsid));
  const { id_token: _omitted, ...rest } = res;
  return { ...rest, access_token, ...(refresh_token ? { refresh_token } : {}), upgraded };
}

/** Keycloak's isGranted: something granted, and with an earlier RPT every asked permission among the granted ones. */
function isGranted(outcome: EvaluationOutcome, asked: number, rpt: JWTPayload | null): boolean {
  if (rpt && asked > 0 && outcome.decisions.some((d) => d.evaluated && !d.granted)) return false;
  return outcome.permissions.length > 0;
}

/** POST /realms/{realm}/protocol/openid-connect/token with the UMA grant (see the file header). */
export async function umaGrant(call: UmaCall): Promise<TokenResponse> {
  const { db, realm, req } = call;
  const form = req.form as Form;
  const ev = new TokenEvent(db, realm, 'PERMISSION_TOKEN', req.ipAddress);
  ev.detail('auth_method', 'oauth_credentials');
  const who = req.bearer ? await bearerRequester(db, realm, req, req.bearer, ev) : await clientRequester(call, ev);
  const audience = first(form, 'audience');
  ev.detail('audience', audience);
  const asked = all(form, 'permission');
  if (asked.length) ev.detail('permission', asked.join('|'));
  const rpt = await previousRpt(db, realm, first(form, 'rpt'));
  if (first(form, 'ticket') !== undefined) throw oauth(403, 'invalid_ticket', 'Ticket verification failed');
  if (!audience) throw oauth(400, 'invalid_request', 'You must provide the issuedFor');
  const target = await db.models.Client.findOne({ where: { realmId: realm.id, clientId: audience } });
  if (!target) throw oauth(400, 'invalid_request', 'Unknown resource server id.');
  const ix = await loadAuthzModel(db, target.id);
  if (!ix) throw oauth(400, 'invalid_request', 'Client does not support permissions');
  const attributes = { ...contextAttributes(realm, req.ipAddress), ...pushedClaims(form, who.client) };
  const { identity, realm: lookups } = await loadAuthzIdentity(db, ix, {
    realm,
    userId: who.user.id,
    isUser: true,
    client: { id: who.client.id, clientId: who.client.clientId },
    claims: who.claims as Record<string, unknown>,
  });
  let outcome: EvaluationOutcome;
  let requests: PermissionRequest[];
  try {
    requests = requestsOf(form, ix, rpt);
    outcome = evaluateAuthorization(ix, { identity, realm: lookups, permissions: requests, attributes, validateScopes: true });
  } catch (e) {
    if (e instanceof AuthzRequestError) throw oauth(400, e.error, e.description);
    throw e;
  }
  if (!isGranted(outcome, asked.length, rpt)) throw oauth(403, 'access_denied', 'not_authorized');
  const includeName = first(form, 'response_include_resource_name') !== 'false';
  const limitText = first(form, 'response_permissions_limit');
  const limit = limitText === undefined ? undefined : Number.parseInt(limitText, 10);
  if (limitText !== undefined && Number.isNaN(limit)) throw oauth(400, 'invalid_request', 'Invalid response_permissions_limit');
  let permissions = rptPermissions(outcome.decisions, includeName);
  if (limit !== undefined) permissions = permissions.slice(0, Math.max(limit, 0));
  const mode = first(form, 'response_mode');
  let body: unknown;
  if (mode === 'decision') body = { result: true };
  else if (mode === 'permissions') body = permissions;
  else if (mode !== undefined) throw oauth(400, 'invalid_request', 'Invalid response_mode');
  else body = await issueRpt(call, ev, who, target, permissions, rpt);
  await ev.success();
  // The decision and permissions modes answer other JSON than a token response (the router renders any body).
  return body as TokenResponse;
}
