import { Op } from 'sequelize';
import type { AuthExecutionModel } from '../../../db/models/authentication';
import type { OrganizationModel } from '../../../db/models/organization';
import type { UserModel } from '../../../db/models/user';
import { type OrganizationScope, organizationScopeOf, selectedOrganizationNote } from '../../organizations/organization-claims';
import { ATTEMPTED_USERNAME, authenticatorConfig, findUserForLogin, loginPage } from '../authenticators';
import type { Message } from '../authorize';
import type { Authenticator, LoginContext, Outcome, Page } from '../flow-engine';
import { canStartLogin, organizationLoginProviders, redirectTo } from './broker-redirect';
import { BROKER_NOTES } from './brokered-identity';

/**
 * The browser flow's `organization` authenticator (Keycloak 26's OrganizationAuthenticator, with
 * Organizations.resolveOrganization / resolveHomeBroker and OrganizationScope): the identity-first
 * username page (a `login_hint` skips it); the login's organization (the one noted for this login,
 * the scope's `organization:<alias>`, the user's membership, else the e-mail domain); the
 * select-organization page when plain `organization` is asked by a member of several; membership
 * required by the execution's config; a managed member's home provider, else an organization
 * provider matching the e-mail domain; an unknown user of an organization's domain is told so.
 */
export const ORG_NOTES = {
  /** Keycloak's auth note `kc.org` (OrganizationModel.ORGANIZATION_ATTRIBUTE): this login's organization. */
  AUTH: 'kc.org',
  /** Keycloak's client note `kc.org`: the organization the user picked, kept for the tokens (organizationSessionNotes). */
  SELECTED: 'client:kc.org',
} as const;

/** The select-organization page's field (Keycloak's OrganizationModel.ORGANIZATION_ATTRIBUTE). */
const ORGANIZATION_FIELD = 'kc.org';
const EMAIL_MATCH = 'kc.org.broker.redirect.mode.email-matches';
const DOMAIN_CONFIG = 'kc.org.domain';
/** Credential types that sign a user in on their own (Keycloak's first-factor credentials). */
const FIRST_FACTOR = ['password', 'webauthn-passwordless'];

const flag = (v: unknown) => v === true || v === 'true';

/** The part of an e-mail (or username) after its first `@`, lower-cased; none without one. */
function domainOf(email: string | null | undefined): string | undefined {
  const i = email ? email.indexOf('@') : -1;
  return i < 0 ? undefined : (email as string).slice(i + 1).toLowerCase() || undefined;
}

interface Membership {
  org: OrganizationModel;
  managed: boolean;
}

/** The user's organizations (by name), with whether the membership is managed. */
async function membershipsOf(ctx: LoginContext, userId: string): Promise<Membership[]> {
  const rows = await ctx.db.models.OrganizationMember.findAll({ where: { userId } });
  if (!rows.length) return [];
  const orgs = await ctx.db.models.Organization.findAll({
    where: { id: { [Op.in]: rows.map((r) => r.organizationId) } },
    order: [['name', 'ASC']],
  });
  return orgs.map((org) => ({ org, managed: rows.some((r) => r.organizationId === org.id && r.membershipType === 'MANAGED') }));
}

const enabledOrgsOf = async (ctx: LoginContext, user: UserModel | null) =>
  user ? (await membershipsOf(ctx, user.id)).filter((m) => m.org.enabled) : [];

async function isMember(ctx: LoginContext, org: OrganizationModel, user: UserModel): Promise<boolean> {
  return (await ctx.db.models.OrganizationMember.count({ where: { organizationId: org.id, userId: user.id } })) > 0;
}

/** Of these organizations, the first one having the domain (Organizations.resolveByDomain without wildcard domains). */
async function byDomain(ctx: LoginContext, orgs: OrganizationModel[], domain: string | undefined): Promise<OrganizationModel | null> {
  if (!domain || !orgs.length) return null;
  const rows = await ctx.db.models.OrganizationDomain.findAll({
    where: { realmId: ctx.realm.id, name: domain, organizationId: { [Op.in]: orgs.map((o) => o.id) } },
  });
  return orgs.find((o) => rows.some((r) => r.organizationId === o.id)) ?? null;
}

/** OrganizationScope#resolveOrganizations during a login (no client session yet): enabled organizations only. */
async function scopeOrganizations(ctx: LoginContext, scope: OrganizationScope, user: UserModel | null): Promise<OrganizationModel[]> {
  if (scope.kind === 'SINGLE') {
    const org = await ctx.db.models.Organization.findOne({ where: { realmId: ctx.realm.id, alias: scope.alias, enabled: true } });
    return org && (!user || (await isMember(ctx, org, user))) ? [org] : [];
  }
  const orgs = (await enabledOrgsOf(ctx, user)).map((m) => m.org);
  return scope.kind === 'ALL' || orgs.length === 1 ? orgs : [];
}

/** Organizations.resolveOrganization: the organization this login runs in, if any. */
async function resolveOrganization(ctx: LoginContext, user: UserModel | null, domain?: string): Promise<OrganizationModel | null> {
  const { db, realm } = ctx;
  const emailDomain = domain ?? domainOf(user?.email);
  const scope = organizationScopeOf(ctx.request.scope ?? '');
  const noted = ctx.data.notes[ORG_NOTES.AUTH];
  let candidates: OrganizationModel[] = [];
  if (noted) {
    const org = await db.models.Organization.findByPk(noted);
    candidates = org && org.realmId === realm.id ? [org] : [];
  } else if (scope) candidates = await scopeOrganizations(ctx, scope, user);
  if (candidates.length === 1) {
    if (!user || (await isMember(ctx, candidates[0], user))) return candidates[0];
    return byDomain(ctx, candidates, emailDomain);
  }
  if (scope && user) return byDomain(ctx, candidates, emailDomain);
  const memberships = await enabledOrgsOf(ctx, user);
  if (memberships.length === 1) return memberships[0].org;
  if (!memberships.length) {
    // Any organization of the domain (idserver: an enabled one; Keycloak's getByDomainName does not ask).
    if (!emailDomain) return null;
    const d = await db.models.OrganizationDomain.findOne({ where: { realmId: realm.id, name: emailDomain } });
    return d ? db.models.Organization.findOne({ where: { id: d.organizationId, enabled: true } }) : null;
  }
  return (
    memberships.find((m) => m.managed)?.org ??
    byDomain(
      ctx,
      memberships.map((m) => m.org),
      emailDomain,
    )
  );
}

/** The organization of this step: the one posted from the select-organization page (then kept as picked), else resolved. */
async function organizationFor(ctx: LoginContext, user: UserModel | null, domain?: string): Promise<OrganizationModel | null> {
  const alias = ctx.form?.[ORGANIZATION_FIELD];
  if (!alias) {
    const org = await resolveOrganization(ctx, user, domain);
    // Signed in by the SSO cookie: the organization resolved is the one the tokens map.
    if (org && isSso(ctx)) ctx.data.notes[ORG_NOTES.SELECTED] = org.id;
    return org;
  }
  const org = await ctx.db.models.Organization.findOne({ where: { realmId: ctx.realm.id, alias } });
  if (org) ctx.data.notes[ORG_NOTES.SELECTED] = org.id;
  return org;
}

/** The user the step is about: the one known, else the one the username names (the login's organization is then forgotten). */
async function resolveUser(ctx: LoginContext, username: string | undefined): Promise<UserModel | null> {
  if (ctx.user) return ctx.user;
  if (!username) return null;
  const user = await findUserForLogin(ctx, username);
  delete ctx.data.notes[ORG_NOTES.AUTH];
  ctx.user = user;
  return user;
}

/** On to the next step with the username noted (the forms then show it). */
function attempted(ctx: LoginContext, username?: string): Outcome {
  const name = username ?? ctx.user?.username;
  if (name) ctx.data.notes[ATTEMPTED_USERNAME] = name;
  return { kind: 'attempted' };
}

/** Whether the cookie authenticator found the SSO session and left the organization to finish it (Keycloak's SSO_AUTH note). */
const isSso = (ctx: LoginContext) => Boolean(ctx.data.notes.SSO_SESSION);

/** The identity-first username page; a user known already goes on (after an SSO cookie, to the end, once an organization is picked). */
async function initialChallenge(ctx: LoginContext, exec: AuthExecutionModel, message?: Message): Promise<Outcome> {
  if (!ctx.user) return { kind: 'challenge', page: loginPage(ctx, exec, 'username', message ? ({ message } as Partial<Page>) : {}) };
  if (isSso(ctx)) return (await selectOrganization(ctx, exec, ctx.user)) ?? { kind: 'success' };
  return attempted(ctx, ctx.user.username);
}

/** shouldUserSelectOrganization: plain `organization` asked, nothing picked yet, a member of several organizations. */
async function selectOrganization(ctx: LoginContext, exec: AuthExecutionModel, user: UserModel | null): Promise<Outcome | undefined> {
  if (!user || organizationScopeOf(ctx.request.scope ?? '')?.kind !== 'ANY' || ctx.data.notes[ORG_NOTES.SELECTED]) return undefined;
  // idserver lists the enabled ones (Keycloak's ProfileBean lists every membership, a disabled organization too).
  const orgs = await enabledOrgsOf(ctx, user);
  if (orgs.length < 2) return undefined;
  delete ctx.data.notes[ORG_NOTES.AUTH];
  const organizations = orgs.map((m) => ({ alias: m.org.alias, name: m.org.name }));
  return { kind: 'challenge', page: { page: 'select-organization', executionId: exec.id, organizations } };
}

/** isMembershipRequired: with `requiresUserMembership`, a known user outside the organization stops at a 403 page. */
async function membershipRequired(
  ctx: LoginContext,
  exec: AuthExecutionModel,
  org: OrganizationModel | null,
  user: UserModel | null,
): Promise<Outcome | undefined> {
  if (!user || !flag((await authenticatorConfig(ctx, exec))?.requiresUserMembership)) return undefined;
  let target = org;
  const scope = organizationScopeOf(ctx.request.scope ?? '');
  if (!target && scope?.kind === 'SINGLE') target = (await scopeOrganizations(ctx, scope, null))[0] ?? null;
  if (target && (await isMember(ctx, target, user))) return undefined;
  const message = target ? { key: 'notMemberOfOrganization', params: [target.name] } : { key: 'notMemberOfAnyOrganization' };
  return { kind: 'challenge', page: { page: 'error', status: 403, message } };
}

/** Whether the user can sign in without a provider (a password, a passkey, a federation provider's password). */
async function hasFirstFactor(ctx: LoginContext, user: UserModel): Promise<boolean> {
  if (user.federationLink) return true;
  return (await ctx.db.models.Credential.count({ where: { userId: user.id, type: { [Op.in]: FIRST_FACTOR } } })) > 0;
}

/** resolveHomeBroker: the providers a managed member of an enabled organization is linked to that belong to it. */
async function homeBrokers(ctx: LoginContext, user: UserModel | null): Promise<string[]> {
  const managed = (await enabledOrgsOf(ctx, user)).filter((m) => m.managed).map((m) => m.org.id);
  if (!user || !managed.length) return [];
  const links = await ctx.db.models.FederatedIdentity.findAll({ where: { userId: user.id }, attributes: ['identityProvider'] });
  if (!links.length) return [];
  const idps = await ctx.db.models.IdentityProvider.findAll({
    where: { realmId: ctx.realm.id, alias: { [Op.in]: links.map((l) => l.identityProvider) }, organizationId: { [Op.in]: managed } },
    attributes: ['alias'],
    order: [['alias', 'ASC']],
  });
  return idps.map((i) => i.alias);
}

/**
 * tryRedirectBroker: never for a user with a first-factor credential; a managed member's one home
 * provider; else the organization's provider redirecting e-mails of exactly that domain, else one for
 * any of the organization's domains.
 */
async function tryRedirectBroker(
  ctx: LoginContext,
  org: OrganizationModel,
  user: UserModel | null,
  username: string | undefined,
  domain: string | undefined,
): Promise<Outcome | undefined> {
  if (user && (await hasFirstFactor(ctx, user))) return undefined;
  const home = await homeBrokers(ctx, user);
  if (home.length === 1) return redirectTo(ctx, home[0], user?.email ?? undefined);
  const d = domain ?? domainOf(user?.email);
  if (!d) return undefined;
  const brokers = (
    await ctx.db.models.IdentityProvider.findAll({ where: { realmId: ctx.realm.id, organizationId: org.id }, order: [['alias', 'ASC']] })
  ).filter((b) => canStartLogin(b) && flag(b.config?.[EMAIL_MATCH]));
  const exact = brokers.find((b) => String(b.config?.[DOMAIN_CONFIG] ?? '').toLowerCase() === d);
  if (exact) return redirectTo(ctx, exact.alias, username);
  const any = brokers.find((b) => b.config?.[DOMAIN_CONFIG] === 'ANY');
  if (!any) return undefined;
  const own = await ctx.db.models.OrganizationDomain.count({ where: { organizationId: org.id, name: d } });
  return own ? redirectTo(ctx, any.alias, username) : undefined;
}

/** The decision of Keycloak's OrganizationAuthenticator#action(context, username). */
async function decide(ctx: LoginContext, exec: AuthExecutionModel, username: string | undefined): Promise<Outcome> {
  const user = await resolveUser(ctx, username);
  const domain = domainOf(username);
  const org = await organizationFor(ctx, user, domain);
  if (!org) {
    const next = (await selectOrganization(ctx, exec, user)) ?? (await membershipRequired(ctx, exec, null, user));
    if (next) return next;
    delete ctx.data.notes[ORG_NOTES.AUTH];
    return attempted(ctx, username);
  }
  ctx.data.notes[ORG_NOTES.AUTH] = org.id;
  const next = (await membershipRequired(ctx, exec, org, user)) ?? (await tryRedirectBroker(ctx, org, user, username, domain));
  if (next) return next;
  if (!user) {
    // unknownUserChallenge: the identity-first page again, saying so when the e-mail's domain is the organization's;
    // with public providers of the organization, those instead of the realm's, and no registration link.
    const message = domain ? { key: 'organizationDomainNoAccount', params: [org.name] } : undefined;
    const own = (await organizationLoginProviders(ctx.db, ctx.realm, org.id)).length > 0;
    const extra = { username, ...(message ? { message } : {}), ...(own ? { organizationId: org.id } : {}) };
    return { kind: 'challenge', page: loginPage(ctx, exec, 'username', extra as Partial<Page>) };
  }
  // AuthenticationFlowError.INVALID_USER (Errors.USER_NOT_FOUND).
  if (!user.enabled) return { kind: 'failure', error: 'user_not_found' };
  // Re-authenticating by the SSO cookie in the organization's scope: done.
  return isSso(ctx) ? { kind: 'success' } : attempted(ctx);
}

/** Whether the realm has organizations on and at least one organization (Organizations.isEnabledAndOrganizationsPresent). */
async function enabledAndPresent(ctx: LoginContext): Promise<boolean> {
  if (!flag(ctx.realm.settings.organizationsEnabled)) return false;
  return (await ctx.db.models.Organization.findOne({ where: { realmId: ctx.realm.id }, attributes: ['id'] })) !== null;
}

/** organization: Keycloak's OrganizationAuthenticator (see the top of this file). */
export const organization: Authenticator = {
  async authenticate(ctx, exec) {
    if (ctx.data.notes[BROKER_NOTES.CANCELLED] || !(await enabledAndPresent(ctx))) return { kind: 'attempted' };
    const hint = ctx.request.login_hint || undefined;
    const org = await resolveOrganization(ctx, null);
    if (!hint && !org) return initialChallenge(ctx, exec);
    if (org) ctx.data.notes[ORG_NOTES.AUTH] = org.id;
    return decide(ctx, exec, hint);
  },
  async action(ctx, exec) {
    const username = typeof ctx.form?.username === 'string' ? ctx.form.username.trim() : '';
    if (!ctx.user && !username) return initialChallenge(ctx, exec, { key: 'invalidUsernameMessage' });
    return decide(ctx, exec, username || undefined);
  },
};

/** The user-session note that keeps the organization picked in this login for the client's tokens, if one was. */
export function organizationSessionNotes(ctx: Pick<LoginContext, 'data' | 'client'>): Record<string, string> {
  const picked = ctx.data.notes[ORG_NOTES.SELECTED];
  return picked ? { [selectedOrganizationNote(ctx.client.id)]: picked } : {};
}
