import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { activeKey, realmKeys, verificationKeys } from '../../auth/realm-keys';
import type { Db } from '../../db';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { errorA, errorC, serverError } from '../../core/errors';
import { issuerOf } from '../../core/issuer';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { formatLifespan, sendMail, smtpSettingsOf } from '../events/email';

/**
 * Invitations to an organization (Keycloak 26's OrganizationInvitationResource): an e-mail through
 * the realm's SMTP settings with a link carrying a signed invitation token (`typ` ORGIVT, `org_id`,
 * `eml`, `reduri`, the realm's admin action-token lifespan). An existing user gets a link to the
 * realm's action-token endpoint, an unknown address a link to the registration page.
 * `acceptOrganizationInvitation` accepts an existing user's token; the endpoint does not call it yet.
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

/** The signed invitation token (Keycloak's InviteOrgActionToken claims). */
async function invitationToken(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, who: Invitee, lifespan: number) {
  const key = activeKey(await realmKeys(ctx.db, realm), 'RS256');
  if (!key?.privateKey) throw serverError();
  const issuer = issuerOf(ctx.baseUrl, realm.name);
  const iat = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({
    typ: 'ORGIVT',
    azp: ACCOUNT,
    eml: who.email,
    org_id: org.id,
    reduri: org.redirectUrl || `${issuer}/account/`,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifespan)
    .setIssuer(issuer)
    .setAudience(issuer);
  if (who.id) jwt.setSubject(who.id);
  return jwt.sign(key.privateKey);
}

/** Mails the invitation; a failed send is Keycloak's 500 `Failed to send invite email`. */
async function sendInvitation(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, who: Invitee, sub: string): Promise<void> {
  const lifespan = Number(realm.settings.actionTokenGeneratedByAdminLifespan ?? 43200);
  const token = await invitationToken(ctx, realm, org, who, lifespan);
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
    throw errorA(500, 'Failed to send invite email');
  }
  await ctx.db.transaction(() =>
    recordAdminEvent(ctx, realm, {
      operationType: 'ACTION',
      resourceType: 'ORGANIZATION_MEMBERSHIP',
      resourcePath: `organizations/${org.id}/members/${sub}`,
    }),
  );
}

/**
 * POST /{realm}/organizations/{id}/members/invite-user (form: email, firstName, lastName): invites
 * the user with that e-mail, or sends a registration link to an unknown address.
 */
export async function inviteUser(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  form: { email?: string; firstName?: string; lastName?: string },
): Promise<void> {
  if (!form.email?.trim()) throw errorA(400, 'Email is required to invite a member');
  const email = form.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw errorA(400, 'Invalid email format');
  const user = await ctx.db.models.User.findOne({ where: { realmId: realm.id, email } });
  if (user) {
    const member = await ctx.db.models.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } });
    if (member) throw errorA(409, 'User already a member of the organization');
    return sendInvitation(ctx, realm, org, { id: user.id, email, firstName: user.firstName, lastName: user.lastName }, 'invite-user');
  }
  const named = form.firstName != null && form.lastName != null;
  return sendInvitation(
    ctx,
    realm,
    org,
    { email, ...(named ? { firstName: form.firstName, lastName: form.lastName } : {}) },
    'invite-user',
  );
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
    'invite-existing-user',
  );
}

export interface AcceptedInvitation {
  organizationId: string;
  userId: string;
  /** Where the member goes next: the organization's redirect URL, else the account console. */
  redirectUri: string;
}

/**
 * Accepts an invitation link's token for an existing user (Keycloak's InviteOrgActionTokenHandler),
 * for the action-token endpoint of the browser login to call with the `key` of a link: the token
 * must be an ORGIVT token signed by the realm and not expired, name an organization of the realm
 * and a user of the realm whose e-mail it was sent to; the user then joins as an UNMANAGED member
 * (already one: nothing changes). Throws a 400 with the reason otherwise. Not yet wired to the
 * endpoint (src/services/login/action-tokens.ts).
 */
export async function acceptOrganizationInvitation(db: Db, realm: RealmModel, baseUrl: string, token: string): Promise<AcceptedInvitation> {
  const issuer = issuerOf(baseUrl, realm.name);
  const invalid = (why: string) => errorA(400, `Invalid invitation: ${why}`);
  let claims: JWTPayload | undefined;
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw invalid('unreadable token');
  }
  for (const k of verificationKeys(await realmKeys(db, realm), 'RS256', kid)) {
    try {
      claims = (await jwtVerify(token, k.publicKey as never, { algorithms: ['RS256'], issuer })).payload;
      break;
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_JWT_EXPIRED') throw invalid('expired');
    }
  }
  if (!claims) throw invalid('not signed by the realm');
  if (claims.typ !== 'ORGIVT' || typeof claims.org_id !== 'string' || typeof claims.sub !== 'string') throw invalid('not an invitation');
  const m = db.models;
  const org = await m.Organization.findOne({ where: { id: claims.org_id, realmId: realm.id } });
  if (!org) throw invalid('organization not found');
  const user = await m.User.findOne({ where: { id: claims.sub, realmId: realm.id } });
  if (!user?.enabled) throw invalid('user not found or disabled');
  if (!user.email || user.email !== claims.eml) throw invalid('e-mail changed');
  await db.transaction(async () => {
    const member = await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } });
    if (!member) await m.OrganizationMember.create({ organizationId: org.id, userId: user.id, membershipType: 'UNMANAGED' });
  });
  const reduri = typeof claims.reduri === 'string' ? claims.reduri : `${issuer}/account/`;
  return { organizationId: org.id, userId: user.id, redirectUri: reduri };
}
