import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { recordAdminEvent } from '../../core/admin-events';
import { nowSeconds } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA, errorC } from '../../core/errors';
import { isEmptyPage, pageOf } from '../../core/paging';
import type { OrganizationInvitationModel, OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';

/**
 * The stored invitations of an organization (Keycloak 26's OrganizationInvitationResource and
 * JpaInvitationManager): one row per mailed invitation (migration 0027), listed with filters, read,
 * deleted and resent (organization-invites.ts sends). The status is computed: PENDING until
 * `expiresAt`, EXPIRED after; an accepted invitation is deleted, so it is no longer listed.
 */
export type InvitationStatus = 'PENDING' | 'EXPIRED';

export interface InvitationRep {
  id: string;
  organizationId: string;
  email: string;
  firstName?: string;
  lastName?: string;
  sentDate: number;
  expiresAt: number;
  status: InvitationStatus;
}

export interface InvitationQuery {
  first?: number;
  max?: number;
  status?: string;
  email?: string;
  search?: string;
  firstName?: string;
  lastName?: string;
}

const notFound = () => errorA(404, 'Invitation not found');

/** The representation Keycloak renders (null names omitted, no invite link: 26.7 no longer exposes it). */
export function toInvitationRep(row: OrganizationInvitationModel, now = nowSeconds()): InvitationRep {
  return {
    id: row.id,
    organizationId: row.organizationId,
    email: row.email,
    ...(row.firstName != null ? { firstName: row.firstName } : {}),
    ...(row.lastName != null ? { lastName: row.lastName } : {}),
    sentDate: row.sentDate,
    expiresAt: row.expiresAt,
    status: row.expiresAt < now ? 'EXPIRED' : 'PENDING',
  };
}

/** `LOWER(col) LIKE '%text%'`, the text's LIKE characters escaped (the same on SQLite and MariaDB). */
function infix(ctx: RequestContext, column: string, text: string): WhereOptions {
  const pattern = ctx.db.sequelize.escape(`%${text.toLowerCase().replace(/[!%_]/g, '!$&')}%`);
  return Sequelize.literal(`LOWER(${column}) LIKE ${pattern} ESCAPE '!'`);
}

/**
 * GET /{realm}/organizations/{id}/invitations?first&max&status&email&search&firstName&lastName: the
 * organization's invitations by id; `status` PENDING or EXPIRED (another value: 400), `email`,
 * `firstName`, `lastName` infixes of their field, `search` an infix of any of the three.
 */
export async function listInvitations(ctx: RequestContext, org: OrganizationModel, q: InvitationQuery): Promise<InvitationRep[]> {
  const now = nowSeconds();
  const and: WhereOptions[] = [{ organizationId: org.id }];
  if (q.status !== undefined) {
    if (q.status === 'EXPIRED') and.push({ expiresAt: { [Op.lt]: now } });
    else if (q.status === 'PENDING') and.push({ expiresAt: { [Op.gte]: now } });
    else throw errorC(400, `Invalid status: ${q.status.slice(0, 64)}`);
  }
  if (q.email !== undefined) and.push(infix(ctx, 'email', q.email));
  if (q.firstName !== undefined) and.push(infix(ctx, 'first_name', q.firstName));
  if (q.lastName !== undefined) and.push(infix(ctx, 'last_name', q.lastName));
  if (q.search !== undefined) and.push({ [Op.or]: ['email', 'first_name', 'last_name'].map((c) => infix(ctx, c, q.search as string)) });
  const page = pageOf(q);
  if (isEmptyPage(page)) return [];
  const rows = await ctx.db.models.OrganizationInvitation.findAll({
    where: { [Op.and]: and },
    order: [['id', 'ASC']],
    offset: page.offset,
    ...(page.limit !== undefined ? { limit: page.limit } : {}),
  });
  return rows.map((r) => toInvitationRep(r, now));
}

/** The invitation `id` of the organization, or 404 `Invitation not found`. */
export async function invitationOf(ctx: RequestContext, org: OrganizationModel, id: string): Promise<OrganizationInvitationModel> {
  const row = await ctx.db.models.OrganizationInvitation.findOne({ where: { id, organizationId: org.id } });
  if (!row) throw notFound();
  return row;
}

/** GET /{realm}/organizations/{id}/invitations/{invitationId}. */
export async function getInvitation(ctx: RequestContext, org: OrganizationModel, id: string): Promise<InvitationRep> {
  return toInvitationRep(await invitationOf(ctx, org, id));
}

/** DELETE /{realm}/organizations/{id}/invitations/{invitationId}: its link stops working; admin event DELETE. */
export async function deleteInvitation(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, id: string): Promise<void> {
  await write(ctx, {}, async () => {
    const removed = await ctx.db.models.OrganizationInvitation.destroy({ where: { id, organizationId: org.id } });
    if (!removed) throw notFound();
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'ORGANIZATION_MEMBERSHIP',
      resourcePath: `organizations/${org.id}/invitations/${id}`,
    });
  });
}

/**
 * The row of a new invitation for `email`, in one transaction: a pending one for the same address
 * is a 409 `User already has a pending invitation` unless `replace` (invite-existing-user, resend),
 * an expired one is replaced; the unique index settles a race the same way.
 */
export async function storeInvitation(
  ctx: RequestContext,
  org: OrganizationModel,
  who: { id: string; email: string; firstName?: string | null; lastName?: string | null },
  lifespan: number,
  replace: boolean,
): Promise<OrganizationInvitationModel> {
  const pending = () => errorA(409, 'User already has a pending invitation');
  const now = nowSeconds();
  return write(ctx, { unique: pending }, async () => {
    const m = ctx.db.models;
    const existing = await m.OrganizationInvitation.findOne({ where: { organizationId: org.id, email: who.email } });
    if (existing) {
      if (existing.expiresAt >= now && !replace) throw pending();
      await existing.destroy();
    }
    return m.OrganizationInvitation.create({
      id: who.id,
      organizationId: org.id,
      email: who.email,
      firstName: who.firstName?.trim() ?? null,
      lastName: who.lastName?.trim() ?? null,
      sentDate: now,
      expiresAt: now + lifespan,
    });
  });
}

/** An invitation that is still pending, or null (deleted, accepted, expired or of another organization). */
export async function pendingInvitation(
  ctx: Pick<RequestContext, 'db'>,
  id: string,
  orgId: string,
): Promise<OrganizationInvitationModel | null> {
  const row = await ctx.db.models.OrganizationInvitation.findOne({ where: { id, organizationId: orgId } });
  return row && row.expiresAt >= nowSeconds() ? row : null;
}
