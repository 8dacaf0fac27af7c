import type { JWTPayload } from 'jose';
import { Op } from 'sequelize';
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
 * ones too, bearer-only ones not) revokes a token it was issued. A refresh or offline token revokes
 * the client for the user (`revokeClient` below: its consent, its part in every session of the user,
 * a session left with no client), so no refresh token of the client refreshes and the access tokens of
 * the sessions it ended stop working; an access token is put in the
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
  let userId: string;
  try {
    const { user } = await tokenSession(db, realm, client, claims);
    ev.userId = userId = user.id;
  } catch (e) {
    if (!(e instanceof TokenCheckFailure)) throw e;
    throw await refuse(e.code, invalid(), e.reason);
  }
  if (typ === 'Refresh' || typ === 'Offline') {
    await revokeClient(db, realm, client, userId, typ === 'Offline');
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

/**
 * Keycloak's TokenRevocationEndpoint#revokeClient, for a refresh or offline token: the user's consent
 * to the client goes, the client leaves every online session of the user (an offline token: every
 * offline one too), and a session left without a client is removed. One transaction, five statements
 * at most whatever the number of sessions.
 */
async function revokeClient(db: Db, realm: RealmModel, client: ClientModel, userId: string, offline: boolean): Promise<void> {
  const m = db.models;
  await db.transaction(async () => {
    const consent = await m.UserConsent.findOne({ where: { userId, clientId: client.id }, attributes: ['id'] });
    if (consent) {
      await m.UserConsentClientScope.destroy({ where: { userConsentId: consent.id } });
      await m.UserConsent.destroy({ where: { id: consent.id } });
    }
    const sessions = await m.UserSession.findAll({
      where: { userId, realmId: realm.id, ...(offline ? {} : { offline: false }) },
      attributes: ['id'],
    });
    if (!sessions.length) return;
    const links = await m.ClientSession.findAll({
      where: { userSessionId: { [Op.in]: sessions.map((s) => s.id) } },
      attributes: ['userSessionId', 'clientId'],
    });
    const left = new Set(links.filter((l) => l.clientId !== client.id).map((l) => l.userSessionId));
    const detached = [...new Set(links.filter((l) => l.clientId === client.id).map((l) => l.userSessionId))];
    if (!detached.length) return;
    await m.ClientSession.destroy({ where: { userSessionId: { [Op.in]: detached }, clientId: client.id } });
    await removeSessions(
      db,
      detached.filter((id) => !left.has(id)),
    );
  });
}
