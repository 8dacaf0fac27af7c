import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { markActionTokenUsed } from '../login/action-token-store';
import { ClientJwtError, verifyClientJws } from './client-keys';
import { oauth } from './tokens';

/**
 * Client authentication with a signed JWT (RFC 7523 `private_key_jwt` / `client_secret_jwt`;
 * Keycloak's JWTClientAuthenticator and JWTClientSecretAuthenticator): `client_assertion_type`
 * jwt-bearer and a `client_assertion` whose `iss` and `sub` are the client, `aud` the realm's
 * issuer or one of its OIDC endpoints, not expired, signed with the client's keys (its JWKS or
 * certificate for `client-jwt`, its secret for `client-secret-jwt`), and whose `jti` is used once on
 * every node (kept in the used-token rows until `exp`).
 */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Whether a request authenticates its client with an assertion. */
export const hasClientAssertion = (form: Record<string, unknown>) => typeof form.client_assertion_type === 'string';

/** The client a `client_assertion` authenticates; 401 unauthorized_client with Keycloak's reason otherwise. */
export async function authenticateByAssertion(
  db: Db,
  realm: RealmModel,
  form: Record<string, unknown>,
  baseUrl: string,
): Promise<ClientModel> {
  const failed = (why: string) => oauth(401, 'unauthorized_client', `Client authentication with signed JWT failed: ${why}`);
  if (form.client_assertion_type !== JWT_BEARER)
    throw oauth(400, 'invalid_client', 'Parameter client_assertion_type is missing or invalid');
  const assertion = typeof form.client_assertion === 'string' ? form.client_assertion : '';
  if (!assertion) throw oauth(400, 'invalid_client', 'client_assertion parameter missing');
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(assertion) as Record<string, unknown>;
  } catch {
    throw failed('Invalid client assertion');
  }
  const clientId = typeof claims.sub === 'string' ? claims.sub : undefined;
  if (!clientId) throw failed("Can't identify client. Subject missing on JWT token");
  if (typeof form.client_id === 'string' && form.client_id !== clientId) throw failed('client_id parameter does not match sub claim');
  const client = await db.models.Client.findOne({ where: { realmId: realm.id, clientId } });
  if (!client?.enabled) throw oauth(401, 'invalid_client', 'Invalid client or Invalid client credentials');
  const type = String(client.settings?.clientAuthenticatorType ?? 'client-secret');
  if (type !== 'client-jwt' && type !== 'client-secret-jwt') throw failed('Client is not configured for signed JWT authentication');
  let verified: { header: { alg?: string }; claims: Record<string, unknown> };
  try {
    verified = await verifyClientJws(client, assertion);
  } catch (e) {
    if (e instanceof ClientJwtError) throw failed('Signature on JWT token failed validation');
    throw e;
  }
  const alg = String(verified.header.alg);
  if ((type === 'client-jwt') === alg.startsWith('HS')) throw failed('Invalid signature algorithm');
  // Keycloak's JWTClientValidator.validateSignatureAlgorithm: the client's `token.endpoint.auth.signing.alg`, when set, is the only one.
  const expected = (client.settings?.attributes as Record<string, string> | undefined)?.['token.endpoint.auth.signing.alg'];
  if (expected && expected !== alg) throw oauth(400, 'invalid_client', 'invalid signature algorithm');
  if (claims.iss !== clientId) throw failed('Issuer mismatch');
  const issuer = issuerOf(baseUrl, realm.name);
  const aud = Array.isArray(claims.aud) ? claims.aud.map(String) : claims.aud == null ? [] : [String(claims.aud)];
  if (!aud.some((a) => a === issuer || a.startsWith(`${issuer}/protocol/openid-connect/`))) throw failed('Invalid token audience');
  const exp = Number(claims.exp);
  if (!Number.isFinite(exp) || exp < nowSeconds()) throw failed('Token is not active');
  const jti = typeof claims.jti === 'string' ? claims.jti : '';
  if (!jti) throw failed('Token reuse detected');
  const key = `ca:${createHash('sha256').update(`${client.id}:${jti}`).digest('base64url')}`;
  if (!(await markActionTokenUsed(db, realm, key, exp))) throw failed('Token reuse detected');
  return client;
}
