import type { JWTPayload } from 'jose';
import { HttpError } from '../../core/errors';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { clientPoliciesOnRevoke } from '../client-policies';
import { webOrigins } from './token-claims';
import type { ClientCertificate } from './token-binding';
import { authenticatePresentedClient, type PresentedClient, presentedClientId } from './client-auth';
import { publicRealm } from './oidc-metadata';
import { removeSessions } from '../sessions/session-store';
import { revokeTokenId } from './revoked-tokens';
import { TokenCheckFailure, tokenSession, verifiedPayload } from './token-check';
import { clientErrorCode, TokenEvent } from './token-events';
import { oauth } from './tokens';

/**
 * Token revocation (RFC 7009; Keycloak's TokenRevocationEndpoint): an authenticated client (public
 * ones too, bearer-only ones not) revokes a token it was issued. A refresh or offline token ends the
 * client's part in its user session (and the session when no client is left in it), so it no longer
 * refreshes and the access tokens of that session stop working; an access token is put in the
 * revoked-token store until it would have expired. A token that does not verify, or whose session is
 * gone, is answered 200 with Keycloak's `invalid_token` body, as Keycloak does. REVOKE_GRANT events.
 */

export interface RevocationRequest extends PresentedClient {
  realm: string;
  /** Parameters sent more than once. */
  repeated: string[];
  ipAddress?: string;
  /** The `DPoP` proof header, the request's absolute URL and the forwarded client certificate (client policies, ADR 0038). */
  dpop?: string;
  url?: string;
  clientCert?: ClientCertificate;
}

/** A refused revocation, with the origins that may read the answer (the client's, once it is known). */
export class RevocationError extends HttpError {
  constructor(
    err: HttpError,
    readonly origins: 'all' | string[],
  ) {
    super(err.status, err.body);
  }
}

/** Token types Keycloak revokes. */
const REVOCABLE = new Set(['Refresh', 'Offline', 'Bearer', 'DPoP']);

/** POST /realms/{realm}/protocol/openid-connect/revoke: the client's web origins (for CORS) on success. */
export async function revoke(db: Db, req: RevocationRequest): Promise<{ origins: string[] }> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'REVOKE_GRANT', req.ipAddress);
  ev.clientId = presentedClientId(req);
  if (!realm.enabled) throw new RevocationError(oauth(403, 'access_denied', 'Realm not enabled'), 'all');
  let client: ClientModel;
  try {
    client = await authenticatePresentedClient(db, realm, req);
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    await ev.error(clientErrorCode(e));
    throw new RevocationError(e, 'all');
  }
  const origins = webOrigins(client);
  const refuse = async (code: string | null, err: HttpError, reason?: string) => {
    ev.detail('reason', reason);
    if (code) await ev.error(code);
    return new RevocationError(err, origins);
  };
  if (client.bearerOnly) throw await refuse(null, oauth(400, 'invalid_client', 'Bearer-only not allowed'));
  if (req.repeated.length) throw await refuse(null, oauth(400, 'invalid_request', 'duplicated parameter'));
  // TOKEN_REVOKE client policies (dpop-bind-enforcer, holder-of-key-enforcer), before the token is looked at.
  const form = req.form as Record<string, string | undefined>;
  const policy = await clientPoliciesOnRevoke(db, realm, client, form, {
    revocation: { dpop: req.dpop, url: req.url ?? '' },
    clientCert: req.clientCert,
  });
  if (policy) {
    ev.detail('client_policy_error', policy.error).detail('client_policy_error_detail', policy.description);
    throw await refuse(policy.error, oauth(policy.status, policy.error, policy.description), 'client_policy_error');
  }
  const token = req.form.token;
  if (typeof token !== 'string')
    throw await refuse('invalid_request', oauth(400, 'invalid_request', 'Token not provided'), 'Token not provided');
  const invalid = () => oauth(200, 'invalid_token', 'Invalid token');
  const claims = await verifiedPayload(db, realm, token);
  if (!claims) throw await refuse('invalid_token', invalid());
  const typ = String(claims.typ ?? '');
  if (!REVOCABLE.has(typ))
    throw await refuse('invalid_token_type', oauth(400, 'unsupported_token_type', 'Unsupported token type'), 'Unsupported token type');
  if (typeof claims.azp !== 'string') throw await refuse('invalid_token', invalid(), 'Issued for not set');
  if (claims.azp !== client.clientId)
    throw await refuse('invalid_request', oauth(400, 'invalid_request', 'Unmatching clients'), 'Unmatching clients');
  try {
    const { user } = await tokenSession(db, realm, client, claims);
    ev.userId = user.id;
  } catch (e) {
    if (!(e instanceof TokenCheckFailure)) throw e;
    throw await refuse(e.code, invalid(), e.reason);
  }
  if (typ === 'Refresh' || typ === 'Offline') {
    await endClientSession(db, realm, client, String(claims.sid));
    ev.sessionId = String(claims.sid);
    ev.detail('revoked_client', client.clientId).detail('refresh_token_id', str(claims.jti)).detail('refresh_token_type', typ);
  } else {
    await revokeAccessToken(db, claims);
    ev.detail('token_id', str(claims.jti));
  }
  await ev.success();
  return { origins };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The access token's id goes to the revoked-token store until the token expires. */
async function revokeAccessToken(db: Db, claims: JWTPayload): Promise<void> {
  if (typeof claims.jti !== 'string') return;
  await revokeTokenId(db, claims.jti, typeof claims.exp === 'number' ? claims.exp : undefined);
}

/** Removes the client's part in the user session, and the session itself when no client is left in it (one transaction). */
async function endClientSession(db: Db, realm: RealmModel, client: ClientModel, sessionId: string): Promise<void> {
  await db.transaction(async () => {
    await db.models.ClientSession.destroy({ where: { userSessionId: sessionId, clientId: client.id } });
    const left = await db.models.ClientSession.count({ where: { userSessionId: sessionId, realmId: realm.id } });
    if (!left) await removeSessions(db, [sessionId]);
  });
}
