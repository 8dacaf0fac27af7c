import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA, errorC } from '../../core/errors';
import { isEmptyPage, pageOf } from '../../core/paging';
import { batchLoad } from '../../loaders/batch';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import type { OrganizationRep } from '../../representations/organization';
import type { UserRep } from '../../representations/user';
import { renderUsers } from '../users/users';
import { organizationRepresentations, requireOrganizations } from './organizations';
import { removeMemberRows } from './organization-rows';

/**
 * Members of an organization (Keycloak 26's OrganizationMemberResource): add an existing user, list
 * with search and membership type, count, read, remove, and the organizations of a user. Members
 * are rows of `organization_member` (ADR 30); the checks of the organization resolved by the front
 * (manage-realm, organizations on) come first.
 */
export type MembershipType = 'MANAGED' | 'UNMANAGED';
export type MemberRep = UserRep & { membershipType: MembershipType };

const httpNotFound = () => errorC(404, 'HTTP 404 Not Found');

/** A user id of a request body as Keycloak reads it: trimmed, surrounding double quotes dropped. */
export const bodyId = (raw: string) => raw.trim().replace(/^"|"$/g, '');

export async function userInRealm(ctx: RequestContext, realm: RealmModel, id: string): Promise<UserModel | null> {
  if (!id) return null;
  const user = await ctx.loaders.userById.load(id);
  return user && user.realmId === realm.id ? user : null;
}

/** The organization's representation recorded with membership events (brief, as Keycloak's). */
async function eventOrgRep(ctx: RequestContext, org: OrganizationModel): Promise<OrganizationRep> {
  return (await organizationRepresentations(ctx, [org], true))[0];
}

function membershipDetails(user: UserModel): Record<string, string> {
  const details: Record<string, string> = { username: user.username };
  if (user.email) details.email = user.email;
  return details;
}

/**
 * POST /{realm}/organizations/{id}/members (body: the user id, JSON string or bare): the user joins as
 * an UNMANAGED member. Unknown user → 400 `User does not exist`; already a member → 409. Returns the user id.
 */
export async function addOrganizationMember(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, raw: string): Promise<string> {
  const user = await userInRealm(ctx, realm, bodyId(raw));
  if (!user) throw errorA(400, 'User does not exist');
  const already = () => errorA(409, 'User is already a member of the organization.');
  await write(ctx, { unique: already, foreignKey: () => errorA(400, 'User does not exist') }, async () => {
    const m = ctx.db.models;
    if (await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } })) throw already();
    await m.OrganizationMember.create({ organizationId: org.id, userId: user.id, membershipType: 'UNMANAGED' });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'ORGANIZATION_MEMBERSHIP',
      resourcePath: `organizations/${org.id}/members`,
      representation: await eventOrgRep(ctx, org),
      details: membershipDetails(user),
    });
  });
  return user.id;
}

export interface MemberQuery {
  search?: string;
  exact?: boolean;
  first?: number;
  max?: number;
  membershipType?: string;
}

function membershipTypeOf(v: string | undefined): MembershipType | undefined {
  if (v === undefined) return undefined;
  const t = v.toUpperCase();
  if (t !== 'MANAGED' && t !== 'UNMANAGED') throw errorC(400, 'HTTP 400 Bad Request');
  return t;
}

/** Members as MemberRepresentations: the full (or brief) user representation plus `membershipType`. */
export async function memberRepresentations(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  users: UserModel[],
  brief = false,
): Promise<MemberRep[]> {
  if (!users.length) return [];
  const rows = await ctx.db.models.OrganizationMember.findAll({ where: { organizationId: org.id, userId: users.map((u) => u.id) } });
  const types = new Map(rows.map((r) => [r.userId, r.membershipType]));
  const reps = await renderUsers(ctx, realm, users, { mode: brief ? 'brief' : 'full' });
  return reps.map((rep, i) => {
    const membershipType = types.get(users[i].id) ?? 'UNMANAGED';
    // A managed member of a disabled organization cannot log in: Keycloak shows it disabled.
    const enabled = !org.enabled && membershipType === 'MANAGED' ? { enabled: false } : {};
    return { ...rep, ...enabled, membershipType };
  });
}

/**
 * GET /{realm}/organizations/{id}/members: by username, `first` 0, `max` 10; `search` matches
 * username, e-mail, first or last name (substring, or whole with `exact=true`); `membershipType`.
 * The calls of one tick (GraphQL `Organization.members` of a list) are one membership and one user
 * statement for all their organizations.
 */
export async function listOrganizationMembers(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  o: MemberQuery = {},
): Promise<MemberRep[]> {
  const type = membershipTypeOf(o.membershipType);
  const page = pageOf(o, { defaultMax: 10, negativeMax: 'all' });
  if (isEmptyPage(page)) return [];
  const name = `org-members:${realm.id}:${JSON.stringify([type, o.search, o.exact === true, page])}`;
  const users = await batchLoad(ctx.memo, name, (orgIds: readonly string[]) => membersOf(ctx, realm, orgIds, type, o, page), org.id);
  return memberRepresentations(ctx, realm, org, users);
}

/** The member pages of several organizations: memberships in one statement, matching users in another. */
async function membersOf(
  ctx: RequestContext,
  realm: RealmModel,
  orgIds: readonly string[],
  type: MembershipType | undefined,
  o: MemberQuery,
  page: { offset: number; limit?: number },
): Promise<UserModel[][]> {
  const rows = await ctx.db.models.OrganizationMember.findAll({
    where: { organizationId: [...new Set(orgIds)], ...(type ? { membershipType: type } : {}) },
    attributes: ['organizationId', 'userId'],
  });
  if (!rows.length) return orgIds.map(() => []);
  const esc = (v: string) => ctx.db.sequelize.escape(v);
  const and: WhereOptions[] = [{ realmId: realm.id, id: [...new Set(rows.map((r) => r.userId))] }];
  if (o.search !== undefined) {
    const v = o.search.toLowerCase();
    const p = esc(o.exact ? v : `%${v.replace(/[!%_]/g, '!$&')}%`);
    const op = o.exact ? `= ${p}` : `LIKE ${p} ESCAPE '!'`;
    and.push(Sequelize.literal(`(LOWER(username) ${op} OR LOWER(email) ${op} OR LOWER(first_name) ${op} OR LOWER(last_name) ${op})`));
  }
  const users = await ctx.db.models.User.findAll({ where: { [Op.and]: and }, order: [['username', 'ASC']] });
  return orgIds.map((id) => {
    const of = new Set(rows.filter((r) => r.organizationId === id).map((r) => r.userId));
    const mine = users.filter((u) => of.has(u.id));
    return mine.slice(page.offset, page.limit === undefined ? undefined : page.offset + page.limit);
  });
}

/** GET /{realm}/organizations/{id}/members/count (one statement for the calls of one tick). */
export function countOrganizationMembers(ctx: RequestContext, org: OrganizationModel): Promise<number> {
  return batchLoad(
    ctx.memo,
    'org-member-counts',
    async (ids: readonly string[]) => {
      const rows = (await ctx.db.models.OrganizationMember.count({
        where: { organizationId: [...new Set(ids)] },
        group: ['organization_id'],
      })) as unknown as Array<{ organization_id?: string; organizationId?: string; count: number }>;
      const by = new Map(rows.map((r) => [r.organizationId ?? r.organization_id, Number(r.count)]));
      return ids.map((id) => by.get(id) ?? 0);
    },
    org.id,
  );
}

/** The member `userId` of the organization, or 404 `HTTP 404 Not Found` (blank id: 400 `id cannot be null`). */
async function memberOf(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, userId: string): Promise<UserModel> {
  if (!userId.trim()) throw errorA(400, 'id cannot be null');
  const user = await userInRealm(ctx, realm, userId);
  if (!user) throw httpNotFound();
  const row = await ctx.db.models.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } });
  if (!row) throw httpNotFound();
  return user;
}

/** GET /{realm}/organizations/{id}/members/{userId}. */
export async function getOrganizationMember(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  userId: string,
): Promise<MemberRep> {
  const user = await memberOf(ctx, realm, org, userId);
  return (await memberRepresentations(ctx, realm, org, [user]))[0];
}

/** DELETE /{realm}/organizations/{id}/members/{userId}: an unmanaged member leaves, a managed one is deleted. */
export async function removeOrganizationMember(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  userId: string,
): Promise<void> {
  const user = await memberOf(ctx, realm, org, userId);
  await write(ctx, {}, async () => {
    const rows = await ctx.db.models.OrganizationMember.findAll({ where: { organizationId: org.id, userId: user.id } });
    if (!rows.length) throw errorA(400, 'Not a member of the organization');
    await removeMemberRows(ctx, org, rows);
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'ORGANIZATION_MEMBERSHIP',
      resourcePath: `organizations/${org.id}/members/${user.id}`,
      representation: await eventOrgRep(ctx, org),
      details: membershipDetails(user),
    });
  });
}

/**
 * GET /{realm}/organizations/members/{userId}/organizations and .../{id}/members/{userId}/organizations:
 * the organizations the user is a member of, by name, brief by default. Unknown user → 404.
 */
export async function organizationsOfUser(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
  brief = true,
): Promise<OrganizationRep[]> {
  await requireOrganizations(ctx, realm);
  if (!userId.trim()) throw errorA(400, 'id cannot be null');
  const user = await userInRealm(ctx, realm, userId);
  if (!user) throw httpNotFound();
  const orgs = await ctx.db.models.Organization.findAll({
    where: {
      realmId: realm.id,
      [Op.and]: [
        Sequelize.literal(`id IN (SELECT organization_id FROM organization_member WHERE user_id = ${ctx.db.sequelize.escape(user.id)})`),
      ],
    },
    order: [['name', 'ASC']],
  });
  return organizationRepresentations(ctx, orgs, brief);
}
