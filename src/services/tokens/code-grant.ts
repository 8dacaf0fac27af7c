import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { type CodeData, consumeCode } from '../login/auth-sessions';
import { findActiveSession, removeSessions, touchSession } from '../sessions/session-store';
import { userWithVersion } from './client-config-cache';
import type { GrantCall } from './grants';
import { grantedScope, issue, oauth, type TokenResponse } from './tokens';
import { userOrTransient } from '../user-storage/transient-users';

/**
 * grant_type=authorization_code (Keycloak's AuthorizationCodeGrantType): the one-time code of a
 * browser login, bound to its client, its redirect_uri and its PKCE challenge, exchanged for the
 * tokens of the login's user session. A code used twice fails, and the session it was issued for
 * ends, so the tokens of the first exchange no longer refresh (RFC 6749 §4.1.2).
 */
const VERIFIER = /^[0-9a-zA-Z\-._~]{43,128}$/;

/** PKCE (RFC 7636 §4.6): the error description, or undefined when the verifier fits the challenge. */
function pkceError(data: CodeData, verifier: string | undefined): { code: string; text: string } | undefined {
  if (!data.codeChallenge) return undefined;
  if (!verifier) return { code: 'code_verifier_missing', text: 'PKCE code verifier not specified' };
  if (!VERIFIER.test(verifier)) return { code: 'invalid_code_verifier', text: 'PKCE invalid code verifier' };
  const computed = data.codeChallengeMethod === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed === data.codeChallenge ? undefined : { code: 'pkce_verification_failed', text: 'PKCE verification failed' };
}

/** POST .../token with grant_type=authorization_code. */
export async function authorizationCodeGrant(g: GrantCall): Promise<TokenResponse> {
  const { db, realm, client, req, ev } = g;
  ev.detail('grant_type', 'authorization_code').detail('client_auth_method', 'client-secret');
  const code = req.form.code;
  if (!code) throw await ev.fail('invalid_code', oauth(400, 'invalid_request', 'Missing parameter: code'));
  if (client.settings.standardFlowEnabled === false)
    throw await ev.fail('not_allowed', oauth(400, 'unauthorized_client', 'Client not allowed to exchange code'));
  const used = await consumeCode(db, realm, code);
  if (used.kind === 'reused') {
    // A replayed code: whoever holds it may be an attacker, so the login's session ends.
    await removeSessions(db, [used.row.userSessionId]);
    ev.sessionId = used.row.userSessionId;
    throw await ev.fail('invalid_code', oauth(400, 'invalid_grant', 'Code not valid'));
  }
  if (used.kind === 'unknown') throw await ev.fail('invalid_code', oauth(400, 'invalid_grant', 'Code not valid'));
  if (used.kind === 'expired') throw await ev.fail('expired_code', oauth(400, 'invalid_grant', 'Code is expired'));
  const row = used.row;
  const data = row.data as unknown as CodeData;
  ev.sessionId = row.userSessionId;
  ev.detail('code_id', row.id.slice(0, 16));
  if (row.clientId !== client.id) throw await ev.fail('invalid_code', oauth(400, 'invalid_grant', 'Auth error'));
  if ((data.redirectUri ?? '') !== (req.form.redirect_uri ?? ''))
    throw await ev.fail('invalid_code', oauth(400, 'invalid_grant', 'Incorrect redirect_uri'));
  const pkce = pkceError(data, req.form.code_verifier);
  if (pkce) throw await ev.fail(pkce.code, oauth(400, 'invalid_grant', pkce.text));
  // RFC 9449 §10 (Keycloak's DPoPUtil.validateDPoPJkt): a code bound to a DPoP key needs a proof of it.
  if (data.dpopJkt && !req.binding?.jkt) throw await ev.fail('invalid_request', oauth(400, 'invalid_request', 'DPoP Proof missing'));
  if (data.dpopJkt && data.dpopJkt !== req.binding?.jkt)
    throw await ev.fail('invalid_request', oauth(400, 'invalid_request', 'DPoP Proof public key thumbprint does not match dpop_jkt'));
  const session = await findActiveSession(db, realm, row.userSessionId);
  if (!session) throw await ev.fail('invalid_code', oauth(400, 'invalid_grant', 'Session not active'));
  const user = await userOrTransient(db, realm, session.userId, (id) => userWithVersion(db, id));
  ev.userId = session.userId;
  if (!user?.enabled) throw await ev.fail('user_disabled', oauth(400, 'invalid_grant', 'User disabled'));
  await touchSession(db, session, client.id);
  const scope = await grantedScope(db, client, data.scope);
  // The login's auth_time and nonce go into the ID token before it is signed (and encrypted, when the client asks).
  const idExtra = { auth_time: data.authTime, ...(data.nonce ? { nonce: data.nonce } : {}) };
  const form = { ...req.form, scope: data.scope };
  const res = await issue({ db, realm, client, user, session, scope, req: { ...req, form }, idExtra }, true);
  ev.detail('token_id', String(decodeJwt(res.access_token).jti ?? ''))
    .detail('refresh_token_id', res.refresh_token ? String(decodeJwt(res.refresh_token).jti ?? '') : undefined)
    .detail('refresh_token_type', 'Refresh')
    .detail('scope', scope);
  await ev.success();
  return res;
}
