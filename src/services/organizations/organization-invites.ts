import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { nowSeconds } from '../../core/clock';
import { errorA, errorC } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { formatLifespan, sendMail, smtpSettingsOf } from '../events/email';
import { signToken } from '../tokens/signing';
import { invitationOf, storeInvitation } from './organization-invitations';

/**
 * Invitations to an organization (Keycloak 26's OrganizationInvitationResource): the invitation is
 * stored (organization-invitations.ts) and mailed through the realm's SMTP settings with a link
 * carrying a signed invitation token (`typ` ORGIVT, `jti` the invitation's id, `org_id`, `eml`,
 * `reduri`, expiring with the invitation after the realm's admin action-token lifespan). An existing
 * user gets a link to the realm's action-token endpoint (src/services/login/org-invitation-token.ts
 * accepts it), an unknown address a link to the registration page.
 */
const log = getLogger('idserver.services.organization-invites');

const ACCOUNT = 'account';

interface Invitee {
  id?: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The signed invitation token (Keycloak's InviteOrgActionToken claims, HS512 as every action token), its id the invitation's. */
async function invitationToken(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, who: Invitee, jti: string, exp: number) {
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const claims: JWTPayload = {
    jti,
    iat: nowSeconds(),
    exp,
    iss: issuer,
    aud: issuer,
    ...(who.id ? { sub: who.id } : {}),
    typ: 'ORGIVT',
    azp: ACCOUNT,
    eml: who.email,
    org_id: org.id,
    reduri: org.redirectUrl || `${issuer}/account/`,
  };
  return (await signToken(ctx.db, realm, undefined, 'internal', claims)).jwt;
}

/**
 * Stores the invitation and mails it; a failed send is Keycloak's 500 `Failed to send invite email`
 * and leaves no invitation behind. `replace`: a pending invitation of the address gives way.
 */
async function sendInvitation(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  who: Invitee,
  sub: string,
  replace = false,
): Promise<void> {
  const lifespan = Number(realm.settings.actionTokenGeneratedByAdminLifespan ?? 43200);
  const row = await storeInvitation(ctx, org, { ...who, id: randomUUID() }, lifespan, replace);
  const token = await invitationToken(ctx, realm, org, who, row.id, row.expiresAt);
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const link = who.id
    ? `${issuer}/login-actions/action-token?${new URLSearchParams({ key: token })}`
    : `${issuer}/protocol/openid-connect/registrations?${new URLSearchParams({ response_type: 'code', client_id: ACCOUNT, token })}`;
  const greeting = who.firstName && who.lastName ? `Hello ${who.firstName} ${who.lastName},\n\n` : '';
  try {
    await sendMail(smtpSettingsOf(realm), {
      to: who.email,
      subject: `Invitation to join the ${org.name} organization`,
      text:
        `${greeting}You have been invited to become a member of the organization "${org.name}". ` +
        `Open the link below to accept.\n\n${link}\n\nThe link is valid for ${formatLifespan(lifespan)}.\n\n` +
        'If you do not want to join, you can ignore this message.\n',
    });
  } catch (e) {
    log.error(`Failed to send invite email: ${(e as Error).message}`);
    await ctx.db.models.OrganizationInvitation.destroy({ where: { id: row.id } });
    throw errorA(500, 'Failed to send invite email');
  }
  await ctx.db.transaction(() =>
    recordAdminEvent(ctx, realm, {
      operationType: 'ACTION',
      resourceType: 'ORGANIZATION_MEMBERSHIP',
      resourcePath: `organizations/${org.id}/${sub}`,
    }),
  );
}

/**
 * POST /{realm}/organizations/{id}/members/invite-user (form: email, firstName, lastName): invites
 * the user with that e-mail, or sends a registration link to an unknown address. A pending
 * invitation of the address is a 409 (checked first, as Keycloak does), an expired one is replaced.
 */
export async function inviteUser(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  form: { email?: string; firstName?: string; lastName?: string },
): Promise<void> {
  return invite(ctx, realm, org, form, 'members/invite-user', false);
}

/**
 * POST /{realm}/organizations/{id}/invitations/{invitationId}/resend: the invitation is sent again
 * to its address and names, as a new invitation (new id, new expiry) in its place.
 */
export async function resendInvitation(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, id: string): Promise<void> {
  const old = await invitationOf(ctx, org, id);
  const form = { email: old.email, firstName: old.firstName ?? undefined, lastName: old.lastName ?? undefined };
  return invite(ctx, realm, org, form, `invitations/${id}/resend`, true);
}

async function invite(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  form: { email?: string; firstName?: string; lastName?: string },
  sub: string,
  replace: boolean,
): Promise<void> {
  if (!form.email?.trim()) throw errorA(400, 'Email is required to invite a member');
  const email = form.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw errorA(400, 'Invalid email format');
  const m = ctx.db.models;
  if (!replace) {
    const existing = await m.OrganizationInvitation.findOne({ where: { organizationId: org.id, email } });
    if (existing && existing.expiresAt >= nowSeconds()) throw errorA(409, 'User already has a pending invitation');
  }
  const user = await m.User.findOne({ where: { realmId: realm.id, email } });
  if (user) {
    const member = await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } });
    if (member) throw errorA(409, 'User already a member of the organization');
    return sendInvitation(ctx, realm, org, { id: user.id, email, firstName: user.firstName, lastName: user.lastName }, sub, replace);
  }
  const named = form.firstName != null && form.lastName != null;
  const who = { email, ...(named ? { firstName: form.firstName, lastName: form.lastName } : {}) };
  return sendInvitation(ctx, realm, org, who, sub, replace);
}

/** POST /{realm}/organizations/{id}/members/invite-existing-user (form: id): invites an existing user. */
export async function inviteExistingUser(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  id: string | undefined,
): Promise<void> {
  if (!id?.trim()) throw errorC(400, 'To invite a member you need to provide the user id');
  const user = await ctx.loaders.userById.load(id);
  if (!user || user.realmId !== realm.id) throw errorA(400, 'User does not exist');
  if (!user.email) throw errorA(500, 'Failed to send invite email');
  return sendInvitation(
    ctx,
    realm,
    org,
    { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName },
    'members/invite-existing-user',
    true,
  );
}
