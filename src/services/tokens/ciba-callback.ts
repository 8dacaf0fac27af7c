import { decodeProtectedHeader } from 'jose';
import { realmKeys, verificationKeys } from '../../auth/realm-keys';
import { signedClaims } from '../../auth/verified-tokens';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { cibaPolicy, clientAttribute, postJson } from './ciba-channel';
import { type CibaRow, cibaRequestByResultToken, removeCibaRequest, settleCibaRequest } from './ciba-store';
import { clientByClientId } from './client-auth';
import { publicRealm } from './oidc-metadata';
import { TokenEvent } from './token-events';
import { oauth } from './tokens';

/**
 * POST /realms/{realm}/protocol/openid-connect/ext/ciba/auth/callback (ADR 0044), as Keycloak's
 * BackchannelAuthenticationCallbackEndpoint: the authentication device answers a request with the
 * bearer token it was given and `{"status": "SUCCEED" | "UNAUTHORIZED" | "CANCELLED"}` (other members
 * are kept as the callback's additional parameters). SUCCEED approves the request, the others deny
 * it (LOGIN_ERROR not_allowed / consent_denied); a client in ping mode is then notified at its
 * `ciba.backchannel.client.notification.endpoint`.
 */
const log = getLogger('idserver.services.tokens.ciba');

export interface CibaCallback {
  realm: string;
  bearer?: string;
  body: unknown;
  baseUrl: string;
  ipAddress?: string;
}

const invalidToken = (status: number) => oauth(status, 'invalid_token', 'Invalid token');
const STATUSES = new Set(['SUCCEED', 'UNAUTHORIZED', 'CANCELLED']);

/** Keycloak's verifyAuthenticationRequest: the token is the realm's, for the realm, current, and names a pending request. */
async function verifiedRequest(db: Db, realm: RealmModel, token: string, baseUrl: string, ev: TokenEvent): Promise<CibaRow> {
  const iss = issuerOf(baseUrl, realm.name);
  let claims: Record<string, unknown> | undefined;
  try {
    const alg = String(decodeProtectedHeader(token).alg ?? '');
    const kid = decodeProtectedHeader(token).kid;
    claims = await signedClaims(token, alg, verificationKeys(await realmKeys(db, realm), alg, kid), realm);
  } catch {
    claims = undefined;
  }
  const aud = Array.isArray(claims?.aud) ? claims.aud : [claims?.aud];
  if (
    !claims ||
    claims.iss !== iss ||
    !aud.includes(iss) ||
    !claims.sub ||
    claims.typ !== 'CIBA-Channel' ||
    typeof claims.jti !== 'string'
  ) {
    await ev.error('invalid_token');
    throw invalidToken(403);
  }
  const row = await cibaRequestByResultToken(db, realm.id, claims.jti);
  if (!row) throw invalidToken(403);
  if (row.status !== 'pending') {
    await removeCibaRequest(db, row);
    throw invalidToken(403);
  }
  const issuedFor = typeof claims.azp === 'string' ? await clientByClientId(db, realm, claims.azp) : null;
  if (!issuedFor?.enabled) throw oauth(400, 'invalid_request', 'Invalid token recipient');
  if (issuedFor.id !== row.clientId) throw oauth(400, 'invalid_request', 'Token recipient mismatch');
  ev.clientId = issuedFor.clientId;
  return row;
}

/** Keycloak's sendClientNotificationRequest: POST {auth_req_id} to the client with its notification token. */
async function notifyClient(endpoint: string | undefined, row: CibaRow, ev: TokenEvent): Promise<void> {
  if (!endpoint) {
    await ev.error('invalid_request');
    throw oauth(400, 'invalid_request', 'Client notification endpoint not set for the client with the ping mode');
  }
  let status = 0;
  try {
    status = await postJson(endpoint, { auth_req_id: row.notification?.authReqId }, row.notification?.token ?? '');
  } catch (e) {
    log.warn(`CIBA client notification endpoint ${endpoint} not reachable: ${(e as Error).message}`);
  }
  if (status !== 200 && status !== 204) {
    await ev.error('invalid_request');
    throw oauth(400, 'invalid_request', 'Failed to send request to client notification endpoint');
  }
}

/** POST .../ext/ciba/auth/callback. */
export async function backchannelCallback(db: Db, req: CibaCallback): Promise<void> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'LOGIN', req.ipAddress);
  if (!req.bearer) throw invalidToken(401);
  const row = await verifiedRequest(db, realm, req.bearer, req.baseUrl, ev);
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const status = body.status;
  if (typeof status !== 'string' || !STATUSES.has(status)) {
    await ev.error('invalid_request');
    throw oauth(400, 'invalid_request', 'Invalid authentication status');
  }
  const callbackParams: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (k !== 'status' && typeof v === 'string') callbackParams[k] = v;
  if (status !== 'SUCCEED') await ev.error(status === 'CANCELLED' ? 'not_allowed' : 'consent_denied');
  const settled = await settleCibaRequest(db, row, status === 'SUCCEED' ? 'approved' : 'denied', { ...row.data, callbackParams });
  if (!settled) throw invalidToken(403);
  const client = await db.models.Client.findByPk(row.clientId);
  if (client && cibaPolicy(realm, client).mode === 'ping') {
    await notifyClient(clientAttribute(client, 'ciba.backchannel.client.notification.endpoint'), row, ev);
  }
}
