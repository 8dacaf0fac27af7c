import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import type { IdentityProviderModel } from '../../../db/models/identity-provider';
import { jwksAt } from '../../tokens/client-keys';
import type { BrokeredIdentity } from './brokered-identity';

/**
 * The relying-party side of an OpenID Connect (or plain OAuth2) identity provider, as Keycloak's
 * OIDCIdentityProvider: the authorization request to `authorizationUrl`, the code exchange at
 * `tokenUrl` (client_secret_post or client_secret_basic), the ID token's checks (signature by the
 * keys of `jwksUrl`, kept per URL as clients' JWKS are, when `validateSignature`; issuer, audience,
 * azp, expiry, nonce), the userinfo call, and the claims as a brokered identity.
 */
export class BrokerError extends Error {}

const OIDC_PROVIDERS = new Set(['oidc', 'keycloak-oidc']);
const on = (v: string | undefined) => v === 'true';
const TIMEOUT_MS = 10_000;

/** Whether this server can log users in through the provider (OpenID Connect ones). */
export const supportsLogin = (idp: IdentityProviderModel) => OIDC_PROVIDERS.has(idp.providerId);

/** What the authorization request leaves in the login to check the callback against. */
export interface PendingRequest {
  state: string;
  nonce: string;
  verifier?: string;
}

/** The provider's authorization URL for this login (state, nonce, PKCE when `pkceEnabled`). */
export function authorizationUrl(
  idp: IdentityProviderModel,
  redirectUri: string,
  state: string,
  opts: { loginHint?: string; prompt?: string },
): { url: string; pending: PendingRequest } {
  const c = idp.config;
  if (!c.authorizationUrl) throw new BrokerError('The identity provider has no authorization URL');
  let url: URL;
  try {
    url = new URL(c.authorizationUrl);
  } catch {
    throw new BrokerError('The identity provider has an invalid authorization URL');
  }
  const scopes = (c.defaultScope ?? '').split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) scopes.unshift('openid');
  const nonce = randomBytes(16).toString('base64url');
  const q = url.searchParams;
  q.set('scope', scopes.join(' '));
  q.set('state', state);
  q.set('response_type', 'code');
  q.set('client_id', c.clientId ?? '');
  q.set('redirect_uri', redirectUri);
  if (!on(c.disableNonce)) q.set('nonce', nonce);
  if (c.prompt) q.set('prompt', c.prompt);
  else if (opts.prompt) q.set('prompt', opts.prompt);
  if (on(c.loginHint) && opts.loginHint) q.set('login_hint', opts.loginHint);
  const pending: PendingRequest = { state, nonce };
  if (on(c.pkceEnabled)) {
    const method = c.pkceMethod === 'S256' ? 'S256' : 'plain';
    const verifier = randomBytes(32).toString('base64url');
    pending.verifier = verifier;
    q.set('code_challenge', method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier);
    q.set('code_challenge_method', method);
  }
  return { url: url.toString(), pending };
}

async function postForm(idp: IdentityProviderModel, url: string, form: URLSearchParams): Promise<Record<string, unknown>> {
  const c = idp.config;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (c.clientAuthMethod === 'client_secret_basic') {
    const enc = (s: string) => encodeURIComponent(s);
    headers.authorization = `Basic ${Buffer.from(`${enc(c.clientId ?? '')}:${enc(c.clientSecret ?? '')}`).toString('base64')}`;
  } else {
    form.set('client_id', c.clientId ?? '');
    if (c.clientSecret) form.set('client_secret', c.clientSecret);
  }
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: form.toString(), signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new BrokerError(`The token endpoint could not be reached: ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok || !body) throw new BrokerError(`The token endpoint answered ${res.status}${body?.error ? ` (${String(body.error)})` : ''}`);
  return body;
}

async function getJson(url: string, bearer?: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    throw new BrokerError(`${url} could not be reached: ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok || !body || typeof body !== 'object') throw new BrokerError(`${url} answered ${res.status}`);
  return body;
}

/** The ID token's claims after Keycloak's checks (OIDCIdentityProvider.validateToken). */
async function validateIdToken(idp: IdentityProviderModel, idToken: string, pending: PendingRequest): Promise<JWTPayload> {
  const c = idp.config;
  let claims: JWTPayload;
  try {
    if (on(c.validateSignature)) {
      if (!c.jwksUrl || c.useJwksUrl === 'false') throw new BrokerError('No keys to check the ID token signature with');
      const kid = decodeProtectedHeader(idToken).kid;
      let keys: JSONWebKeySet;
      try {
        keys = await jwksAt(c.jwksUrl, (k) => kid === undefined || k.kid === kid);
      } catch (e) {
        throw new BrokerError(`The keys at ${c.jwksUrl} could not be read: ${(e as Error).message}`);
      }
      const jwks = createLocalJWKSet(keys);
      claims = (await jwtVerify(idToken, jwks, { clockTolerance: Number(c.allowedClockSkew ?? 0) || 0 })).payload;
    } else claims = decodeJwt(idToken);
  } catch (e) {
    if (e instanceof BrokerError) throw e;
    throw new BrokerError(`Invalid ID token: ${(e as Error).message}`);
  }
  const skew = Number(c.allowedClockSkew ?? 0) || 0;
  if (typeof claims.exp === 'number' && claims.exp + skew < Date.now() / 1000) throw new BrokerError('Token is no longer valid');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(c.clientId)) throw new BrokerError('Wrong audience from token.');
  if (typeof claims.azp === 'string' && claims.azp !== c.clientId) throw new BrokerError('Token issued for wrong client');
  const trusted = (c.issuer ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (trusted.length && !trusted.includes(String(claims.iss))) throw new BrokerError(`Wrong issuer from token. Got: ${claims.iss}`);
  if (!on(c.disableNonce) && claims.nonce !== pending.nonce) throw new BrokerError('Nonce does not match');
  return claims;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

/** Exchanges the callback's code at tokenUrl and builds the brokered identity of its tokens (and userinfo). */
export async function exchangeCode(
  idp: IdentityProviderModel,
  code: string,
  redirectUri: string,
  pending: PendingRequest,
): Promise<BrokeredIdentity> {
  const c = idp.config;
  if (!c.tokenUrl) throw new BrokerError('The identity provider has no token URL');
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  if (pending.verifier) form.set('code_verifier', pending.verifier);
  const tokens = await postForm(idp, c.tokenUrl, form);
  const idToken = str(tokens.id_token);
  const accessToken = str(tokens.access_token);
  if (!idToken) throw new BrokerError('No id_token in the token response');
  let claims: Record<string, unknown> = { ...(await validateIdToken(idp, idToken, pending)) };
  if (!on(c.disableUserInfo) && c.userInfoUrl && accessToken) {
    const info = await getJson(c.userInfoUrl, accessToken);
    if (info.sub !== claims.sub)
      throw new BrokerError('Mismatch between the subject in the id_token and the subject from the user_info endpoint');
    claims = { ...claims, ...info };
  }
  const id = str(claims.sub);
  if (!id) throw new BrokerError('The ID token has no subject');
  const email = str(claims.email);
  return {
    alias: idp.alias,
    id,
    username: str(claims.preferred_username) ?? email ?? id,
    email,
    firstName: str(claims.given_name),
    lastName: str(claims.family_name),
    claims,
    token: JSON.stringify(tokens),
    brokerSessionId: str(claims.sid) ? `${idp.alias}.${claims.sid}` : undefined,
  };
}
