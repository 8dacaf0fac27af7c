import { decodeJwt } from 'jose';
import { nowSeconds } from '../../core/clock';
import { type PolicyEffects, clientPoliciesOnBackchannel } from '../client-policies';
import { grantConsent } from '../login/consent';
import { createSession } from '../sessions/session-store';
import { cibaGrantEnabled } from './ciba-channel';
import { cibaRequestByAuthReqId, claimPoll, consumeCibaRequest } from './ciba-store';
import { type GrantCall, mayGoOffline } from './grants';
import { effectiveClientScopes } from './token-claims';
import { grantedScope, issue, oauth, type TokenResponse } from './tokens';

export { CIBA_GRANT_TYPE } from './ciba-channel';

/**
 * grant_type=urn:openid:params:grant-type:ciba (ADR 0044), as Keycloak's CibaGrantType: the client
 * polls with its `auth_req_id`; the answer is `expired_token` past the request's expiry,
 * `slow_down` when polled again within `interval`, `access_denied` when the device refused,
 * `authorization_pending` until it approved, then the tokens of a new user session (event
 * AUTHREQID_TO_TOKEN), after which the auth_req_id is used up. The user's consent to the client
 * gains the scopes shown on the consent screen, as Keycloak's grant records it.
 */
const AUTH_REQ_ID = /^[A-Za-z0-9_-]{43}$/;

/** POST .../token with grant_type=urn:openid:params:grant-type:ciba. */
export async function cibaGrant(g: GrantCall): Promise<TokenResponse> {
  const { db, realm, client, req, ev } = g;
  ev.detail('grant_type', 'urn:openid:params:grant-type:ciba');
  if (!cibaGrantEnabled(client)) {
    ev.detail('reason', 'Client not allowed OIDC CIBA Grant');
    throw await ev.fail('not_allowed', oauth(400, 'invalid_grant', 'Client not allowed OIDC CIBA Grant'));
  }
  const authReqId = req.form.auth_req_id;
  if (!authReqId) {
    ev.detail('reason', 'Missing parameter: auth_req_id');
    throw await ev.fail('invalid_code', oauth(400, 'invalid_request', 'Missing parameter: auth_req_id'));
  }
  if (!AUTH_REQ_ID.test(authReqId)) throw oauth(400, 'invalid_grant', 'Invalid Auth Req ID');
  const effects: PolicyEffects = {};
  const refused = await clientPoliciesOnBackchannel(db, realm, client, 'BACKCHANNEL_TOKEN_REQUEST', req.form, {
    binding: req.binding,
    clientCert: req.clientCert,
    effects,
  });
  if (effects.lightweightAccessToken) req.lightweightAccessToken = true;
  if (refused) {
    ev.detail('reason', 'client_policy_error').detail('client_policy_error', refused.error);
    throw await ev.fail(refused.error, oauth(400, 'invalid_grant', refused.description));
  }
  const row = await cibaRequestByAuthReqId(db, realm.id, authReqId);
  if (!row) throw oauth(400, 'invalid_grant', 'Invalid auth_req_id');
  if (row.clientId !== client.id) {
    ev.detail('reason', 'unauthorized client');
    throw await ev.fail('invalid_oauth2_device_code', oauth(400, 'invalid_grant', 'unauthorized client'));
  }
  const now = nowSeconds();
  if (now >= row.expiresAt) throw oauth(400, 'expired_token', 'authentication timed out');
  if (!(await claimPoll(db, row, now))) throw oauth(400, 'slow_down', 'too early to access');
  if (row.status === 'denied') throw oauth(400, 'access_denied', 'not authorized');
  if (row.status === 'pending') {
    throw oauth(400, 'authorization_pending', "The authorization request is still pending as the end-user hasn't yet been authenticated.");
  }
  const user = await db.models.User.findByPk(row.userId);
  if (!user || user.realmId !== realm.id) throw await ev.fail('username_missing', oauth(400, 'invalid_grant', 'Could not identify user'));
  ev.userId = user.id;
  if (!user.enabled) throw await ev.fail('user_disabled', oauth(400, 'invalid_grant', 'User disabled'));
  if ((await db.models.UserRequiredAction.count({ where: { userId: user.id } })) > 0) {
    ev.detail('reason', 'Account is not fully set up');
    throw await ev.fail('resolve_required_actions', oauth(400, 'invalid_grant', 'Account is not fully set up'));
  }
  const scope = await grantedScope(db, client, row.scope);
  const offline = scope.split(' ').includes('offline_access');
  if (offline && !(await mayGoOffline(db, realm, user)))
    throw await ev.fail('not_allowed', oauth(400, 'not_allowed', 'Offline tokens not allowed for the user or client'));
  // Of two exchanges at once, the one whose DELETE removed the row goes on.
  if (!(await consumeCibaRequest(db, row))) throw oauth(400, 'invalid_grant', 'Invalid auth_req_id');
  const authTime = nowSeconds();
  const session = await createSession(db, realm, {
    user,
    client,
    ipAddress: req.ipAddress,
    offline,
    authMethod: 'openid-connect',
    notes: { AUTH_TIME: String(authTime) },
  });
  const shown = (await effectiveClientScopes(db, client, row.scope)).filter((s) => s.attributes?.['display.on.consent.screen'] !== 'false');
  await grantConsent(db, user, client, shown);
  ev.sessionId = session.id;
  ev.detail('consent', 'consent_granted').detail('code_id', session.id);
  // auth_time in the ID token before it is signed (and encrypted): Keycloak sets the session's AUTH_TIME note when the grant logs the user in.
  const form = { ...req.form, scope: row.scope };
  const res = await issue({ db, realm, client, user, session, scope, req: { ...req, form }, idExtra: { auth_time: authTime } }, true);
  ev.detail('token_id', String(decodeJwt(res.access_token).jti ?? ''))
    .detail('refresh_token_id', res.refresh_token ? String(decodeJwt(res.refresh_token).jti ?? '') : undefined)
    .detail('refresh_token_type', offline ? 'Offline' : 'Refresh')
    .detail('scope', scope);
  await ev.success();
  return res;
}
