import { randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { issuerOf } from '../../../core/issuer';
import type { Db } from '../../../db';
import type { IdentityProviderModel } from '../../../db/models/identity-provider';
import type { RealmModel } from '../../../db/models/realm';
import { keptForRealm } from '../../tokens/client-config-cache';
import { ATTEMPTED_USERNAME, authenticatorConfig, BROWSER_REGISTRY, findUserForLogin, loginPage } from '../authenticators';
import { realmConfigStamp } from '../flow-definitions';
import type { Authenticator, LoginContext, Outcome, Registry } from '../flow-engine';
import { BROKER_NOTES } from './brokered-identity';
import { authorizationUrl, BrokerError, supportsLogin } from './oidc-client';

/**
 * Sending a login to an identity provider: the request (state bound to the login's tab, kept with
 * the nonce and PKCE verifier in the login's notes), and the browser flow's authenticators that do
 * it: identity-provider-redirector (`kc_idp_hint`, else its `defaultProvider` config; an unknown or
 * disabled provider falls through to the next step, as Keycloak) and organization (Keycloak 26's
 * identity-first login: an e-mail whose domain is an organization's goes to that organization's
 * provider with `kc.org.broker.redirect.mode.email-matches` and a matching `kc.org.domain`).
 */
const flag = (v: unknown) => v === true || v === 'true';

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

async function redirectTo(ctx: LoginContext, alias: string, loginHint?: string): Promise<Outcome> {
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

/** The enabled organization whose domain the e-mail has (or the member's organization), if any. */
async function organizationOf(db: Db, realm: RealmModel, domain: string | undefined, userId: string | undefined) {
  if (domain) {
    const d = await db.models.OrganizationDomain.findOne({ where: { realmId: realm.id, name: domain } });
    if (d) return { id: d.organizationId, domain };
  }
  if (userId) {
    const m = await db.models.OrganizationMember.findOne({ where: { userId } });
    if (m) return { id: m.organizationId, domain };
  }
  return undefined;
}

/** organization: the identity-first username page; a matching organization provider takes the login over. */
const organization: Authenticator = {
  async authenticate(ctx, exec) {
    if (!flag(ctx.realm.settings.organizationsEnabled) || ctx.user || ctx.data.notes[BROKER_NOTES.CANCELLED]) return { kind: 'attempted' };
    return { kind: 'challenge', page: loginPage(ctx, exec, 'username') };
  },
  async action(ctx) {
    const { db, realm } = ctx;
    const username = typeof ctx.form?.username === 'string' ? ctx.form.username.trim() : '';
    if (!username) return { kind: 'attempted' };
    ctx.data.notes[ATTEMPTED_USERNAME] = username;
    const user = await findUserForLogin(ctx, username);
    const email = username.includes('@') ? username : (user?.email ?? undefined);
    const domain = email?.split('@').pop()?.toLowerCase();
    const org = await organizationOf(db, realm, domain, user?.id);
    const enabled = org ? await db.models.Organization.findOne({ where: { id: org.id, enabled: true }, attributes: ['id'] }) : null;
    if (!org || !enabled) return { kind: 'attempted' };
    const brokers = await db.models.IdentityProvider.findAll({ where: { realmId: realm.id, organizationId: { [Op.eq]: org.id } } });
    const matching = brokers.filter(
      (b) =>
        canStartLogin(b) &&
        flag(b.config['kc.org.broker.redirect.mode.email-matches']) &&
        org.domain !== undefined &&
        (b.config['kc.org.domain'] === org.domain || b.config['kc.org.domain'] === 'ANY'),
    );
    if (matching.length !== 1) return { kind: 'attempted' };
    return redirectTo(ctx, matching[0].alias, username);
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

/** The login page's links to the providers: each starts this login's broker request (`/broker/{alias}/login`). */
export async function providerLinks(
  db: Db,
  realm: RealmModel,
  issuer: string,
  ctx: Pick<LoginContext, 'client' | 'authSession'>,
): Promise<Array<{ alias: string; displayName: string; url: string }>> {
  const q = new URLSearchParams({ client_id: ctx.client.clientId, tab_id: ctx.authSession.id, session_code: ctx.authSession.sessionCode });
  return (await loginProviders(db, realm)).map((p) => ({
    alias: p.alias,
    displayName: p.displayName || p.alias,
    url: `${issuer}/broker/${encodeURIComponent(p.alias)}/login?${q}`,
  }));
}
