import type { Db } from '../../../db';
import type { RealmModel } from '../../../db/models/realm';
import { keptForRealm } from '../../tokens/client-config-cache';
import { authenticatorConfig, BROWSER_REGISTRY } from '../authenticators';
import { realmConfigStamp } from '../flow-definitions';
import type { Authenticator, LoginContext, Registry } from '../flow-engine';
import { organizationLoginProviders, redirectTo } from './broker-redirect';
import { BROKER_NOTES } from './brokered-identity';
import { supportsLogin } from './oidc-client';
import { organization } from './organization-login';

export { brokerEndpointUrl, brokerRedirect, canStartLogin } from './broker-redirect';

/**
 * The browser flow's authenticators that send a login to an identity provider:
 * identity-provider-redirector (`kc_idp_hint`, else its `defaultProvider` config; an unknown or
 * disabled provider falls through to the next step, as Keycloak) and organization (Keycloak 26's
 * identity-first login, organization-login.ts); the providers a login page offers.
 */
const flag = (v: unknown) => v === true || v === 'true';

/** identity-provider-redirector: kc_idp_hint, else the configured defaultProvider; nothing after a cancelled provider login. */
const idpRedirector: Authenticator = {
  async authenticate(ctx, exec) {
    if (ctx.data.notes[BROKER_NOTES.CANCELLED]) return { kind: 'attempted' };
    const hint = ctx.request.kc_idp_hint;
    if (hint) return redirectTo(ctx, hint);
    const dflt = (await authenticatorConfig(ctx, exec))?.defaultProvider;
    return dflt ? redirectTo(ctx, dflt) : { kind: 'attempted' };
  },
};

/** The browser flow's registry with the authenticators that send a login to an identity provider. */
export const LOGIN_REGISTRY: Registry = {
  authenticators: { ...BROWSER_REGISTRY.authenticators, 'identity-provider-redirector': idpRedirector, organization },
  conditions: BROWSER_REGISTRY.conditions,
};

/**
 * The providers a login page offers: enabled, not hidden, not link-only (organization ones only when
 * organizations are off). Kept per node under the realm's cache version (identity_provider and the
 * realm row raise it, migration 0013), as the flow definitions are.
 */
export function loginProviders(db: Db, realm: RealmModel): Promise<ReadonlyArray<{ alias: string; displayName: string | null }>> {
  const orgs = flag(realm.settings.organizationsEnabled);
  return keptForRealm(db, `login-providers:${realm.id}:${orgs}`, realmConfigStamp(realm), async () => {
    const rows = await db.models.IdentityProvider.findAll({ where: { realmId: realm.id, enabled: true }, order: [['alias', 'ASC']] });
    return rows
      .filter((r) => !r.linkOnly && !r.hideOnLogin && supportsLogin(r) && !(orgs && r.organizationId))
      .map((r) => ({ alias: r.alias, displayName: r.displayName ?? null }));
  });
}

/**
 * The login page's links to the providers (the realm's, or with `organizationId` that organization's
 * public ones): each starts this login's broker request (`/broker/{alias}/login`).
 */
export async function providerLinks(
  db: Db,
  realm: RealmModel,
  issuer: string,
  ctx: Pick<LoginContext, 'client' | 'authSession'>,
  organizationId?: string,
): Promise<Array<{ alias: string; displayName: string; url: string }>> {
  const q = new URLSearchParams({ client_id: ctx.client.clientId, tab_id: ctx.authSession.id, session_code: ctx.authSession.sessionCode });
  const providers = organizationId ? await organizationLoginProviders(db, realm, organizationId) : await loginProviders(db, realm);
  return providers.map((p) => ({
    alias: p.alias,
    displayName: p.displayName || p.alias,
    url: `${issuer}/broker/${encodeURIComponent(p.alias)}/login?${q}`,
  }));
}
