import { randomBytes } from 'node:crypto';
import { issuerOf } from '../../../core/issuer';
import type { Db } from '../../../db';
import type { IdentityProviderModel } from '../../../db/models/identity-provider';
import type { RealmModel } from '../../../db/models/realm';
import type { LoginContext, Outcome } from '../flow-engine';
import { BROKER_NOTES } from './brokered-identity';
import { authorizationUrl, BrokerError, supportsLogin } from './oidc-client';

/**
 * Sending a login to an identity provider: the request (state bound to the login's tab, kept with
 * the nonce and PKCE verifier in the login's notes), and the outcome of an authenticator that sends
 * it (identity-provider-redirector, organization).
 */

/** The callback URL a provider sends the browser back to. */
export const brokerEndpointUrl = (baseUrl: string, realm: RealmModel, alias: string) =>
  `${issuerOf(baseUrl, realm.name)}/broker/${encodeURIComponent(alias)}/endpoint`;

/** Whether a provider may start a login (enabled, not link-only, a protocol this server speaks). */
export const canStartLogin = (idp: IdentityProviderModel | null): idp is IdentityProviderModel =>
  Boolean(idp?.enabled && !idp.linkOnly && supportsLogin(idp));

/** The provider's authorization URL for this login; the pending request goes into the login's notes. */
export function brokerRedirect(
  ctx: Pick<LoginContext, 'data' | 'authSession' | 'client' | 'realm' | 'request'> & { baseUrl?: string },
  idp: IdentityProviderModel,
  loginHint?: string,
): string {
  const state = `${randomBytes(16).toString('base64url')}.${ctx.authSession.id}.${ctx.client.clientId}`;
  const { url, pending } = authorizationUrl(idp, brokerEndpointUrl(ctx.baseUrl ?? '', ctx.realm, idp.alias), state, {
    loginHint: loginHint ?? ctx.request.login_hint,
  });
  ctx.data.notes[BROKER_NOTES.PENDING] = JSON.stringify({ alias: idp.alias, ...pending });
  return url;
}

/** The authenticator outcome that sends the browser to the provider `alias` (attempted when it cannot start a login). */
export async function redirectTo(ctx: LoginContext, alias: string, loginHint?: string): Promise<Outcome> {
  const idp = await ctx.db.models.IdentityProvider.findOne({ where: { realmId: ctx.realm.id, alias } });
  if (!canStartLogin(idp)) return { kind: 'attempted' };
  try {
    return { kind: 'challenge', page: { page: 'redirect', location: brokerRedirect(ctx, idp, loginHint) } };
  } catch (e) {
    if (!(e instanceof BrokerError)) throw e;
    return {
      kind: 'failure',
      error: 'identity_provider_error',
      page: { page: 'error', status: 502, message: { key: 'couldNotSendAuthenticationRequestMessage' } },
    };
  }
}

/** An organization's providers a login page may offer: enabled, not hidden, not link-only, a protocol this server speaks. */
export async function organizationLoginProviders(db: Db, realm: RealmModel, organizationId: string) {
  const rows = await db.models.IdentityProvider.findAll({
    where: { realmId: realm.id, organizationId, enabled: true, hideOnLogin: false },
    order: [['alias', 'ASC']],
  });
  return rows.filter((r) => !r.linkOnly && supportsLogin(r)).map((r) => ({ alias: r.alias, displayName: r.displayName ?? null }));
}
