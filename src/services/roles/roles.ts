import { randomUUID } from 'node:crypto';
import { Op, col, fn, where as sqlWhere } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import type { GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import { badRequest, cannotParse, conflict, errorA, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { pageOf, slicePage, sqlPage } from '../../core/paging';
import { invalidate } from '../../loaders/invalidate';
import { type GroupRep, toGroupRepresentation } from '../../representations/group';
import { type RoleRep, roleAttributesFrom } from '../../representations/role';
import { type UserRep, toUserRepresentation } from '../../representations/user';
import { recordAdminEvent, roleResourcePath, roleResourceType } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { pathOf } from '../groups/group-paths';
import { dropManagementPermissions, roleSpec } from '../authz/admin-permissions';
import { locateRole, requireMapComposites, requireRoleAccess, resolveRoleOwner, roleReps, type RoleLocator } from './role-access';

/**
 * Realm roles and client roles — the seed's `{roleOwner}` family (`/roles` and
 * `/clients/{uuid}/roles`) and `roles-by-id`, one implementation parameterised by the owner
 * (reference §6.2–6.3). Composites live in role-composites.ts, permissions in role-access.ts.
 */

/** A RoleRepresentation body: `composites` of a create body name the children (realm names, client names by clientId). */
export type RoleInput = Omit<RoleRep, 'composites'> & { composites?: RoleComposites | null };

/** `composites` of a create body: realm role names and client role names by clientId (`application` is the legacy key). */
export interface RoleComposites {
  realm?: string[] | null;
  client?: Record<string, string[] | null> | null;
  application?: Record<string, string[] | null> | null;
}

const isNames = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.every((n) => typeof n === 'string'));
const isNameMap = (v: unknown) =>
  v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every(isNames));

/** Checks the shape of `composites` (wrong types → 400 `Cannot parse the JSON`, as Jackson does). */
function checkComposites(c: unknown): RoleComposites | null {
  if (c === null || c === undefined) return null;
  if (typeof c !== 'object' || Array.isArray(c)) throw cannotParse('mapping');
  const o = c as RoleComposites;
  if (Object.keys(o).some((k) => !['realm', 'client', 'application'].includes(k))) throw cannotParse('mapping');
  if (!isNames(o.realm) || !isNameMap(o.client) || !isNameMap(o.application)) throw cannotParse('mapping');
  return o as RoleComposites;
}

export interface RoleListQuery {
  search?: string;
  first?: number;
  max?: number;
  brief?: boolean;
}

const given = (n: number | undefined) => n !== undefined && n >= 0;
const lowerLike = (column: string, text: string) => sqlWhere(fn('LOWER', col(column)), { [Op.like]: `%${text.toLowerCase()}%` });

/** GET {roleOwner}: all roles, or a name/description search (paged), or a page when first and max are both given. */
export async function listRoles(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string | undefined,
  q: RoleListQuery = {},
): Promise<RoleRep[]> {
  const owner = await resolveRoleOwner(ctx, realm, clientUuid);
  await requireRoleAccess(ctx, owner, 'list');
  const page = pageOf(q);
  const search = q.search?.trim();
  let roles: RoleModel[];
  if (search) {
    roles = await ctx.db.models.Role.findAll({
      where: { containerId: owner.containerId, [Op.or]: [lowerLike('name', search), lowerLike('description', search)] },
      order: [['name', 'ASC']],
      ...sqlPage(page),
    });
  } else {
    // Without a search, Keycloak pages only when both first and max are given.
    const all = await ctx.loaders.rolesByContainer.load(owner.containerId);
    roles = given(q.first) && given(q.max) ? slicePage(all, page) : all;
  }
  return roleReps(ctx, roles, q.brief ?? true);
}

/** Resolves `composites` of a create body (`{realm: [names], client: {clientId: [names]}}`) to roles. */
async function compositesByName(ctx: RequestContext, realm: RealmModel, composites: RoleComposites): Promise<RoleModel[]> {
  const out: RoleModel[] = [];
  const { Role, Client } = ctx.db.models;
  const realmNames = composites?.realm ?? [];
  if (realmNames.length) {
    const found = await Role.findAll({ where: { containerId: realm.id, name: { [Op.in]: realmNames } } });
    for (const n of realmNames) {
      const r = found.find((x) => x.name === n);
      if (!r) throw errorA(404, `Realm Role with name ${n} does not exist`);
      out.push(r);
    }
  }
  const byClient = { ...(composites?.application ?? {}), ...(composites?.client ?? {}) };
  for (const [clientId, names] of Object.entries(byClient)) {
    if (!names?.length) continue;
    const client = await Client.findOne({ where: { realmId: realm.id, clientId } });
    if (!client) throw errorA(404, `Client with clientId ${clientId} does not exist`);
    const found = await Role.findAll({ where: { containerId: client.id, name: { [Op.in]: names } } });
    for (const n of names) {
      const r = found.find((x) => x.name === n);
      if (!r) throw errorA(404, `Client Role with name ${n} does not exist`);
      out.push(r);
    }
  }
  return [...new Map(out.map((r) => [r.id, r])).values()];
}

const roleHasNoName = () => errorC(400, 'role has no name');
const roleExists = (name: string) => conflict(`Role with name ${name} already exists`);

/** POST {roleOwner}: creates a role (with `composites` by name). Returns the name for the Location header. */
export async function createRole(ctx: RequestContext, realm: RealmModel, clientUuid: string | undefined, rep: RoleInput): Promise<string> {
  const owner = await resolveRoleOwner(ctx, realm, clientUuid);
  await requireRoleAccess(ctx, owner, 'manage');
  const name = rep.name;
  if (typeof name !== 'string' || !name.trim()) throw roleHasNoName();
  const composites = checkComposites(rep.composites);
  const { Role, CompositeRole } = ctx.db.models;
  const id = randomUUID();
  await write(ctx, { unique: () => roleExists(name) }, async () => {
    await Role.create({
      id,
      realmId: realm.id,
      clientId: owner.kind === 'client' ? owner.client.id : null,
      containerId: owner.containerId,
      name,
      description: rep.description ?? null,
      attributes: roleAttributesFrom(rep.attributes),
    });
    if (composites) {
      const children = await compositesByName(ctx, realm, composites);
      await requireMapComposites(ctx, realm, children, { clientId: owner.kind === 'client' ? owner.client.id : null });
      if (children.length) await CompositeRole.bulkCreate(children.map((c) => ({ compositeId: id, childId: c.id })));
    }
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: owner.kind === 'client' ? 'CLIENT_ROLE' : 'REALM_ROLE',
      resourcePath: roleResourcePath({ name, clientUuid: owner.kind === 'client' ? owner.client.id : undefined }),
      representation: rep,
    });
  });
  invalidate.role(ctx.loaders, id, owner.containerId);
  ctx.log.info(`Role ${name} created in ${owner.kind === 'client' ? `client ${owner.client.clientId}` : 'realm'} ${realm.name}`);
  return name;
}

/** GET {roleOwner}/{name}, GET roles-by-id/{id}: the full role representation. */
export async function getRole(ctx: RequestContext, realm: RealmModel, loc: RoleLocator): Promise<RoleRep> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  const [rep] = await roleReps(ctx, [role], false);
  return rep;
}

/** PUT {roleOwner}/{name}, PUT roles-by-id/{id}: rename, description (always), attributes (when given). */
export async function updateRole(ctx: RequestContext, realm: RealmModel, loc: RoleLocator, rep: RoleInput): Promise<void> {
  const { role } = await locateRole(ctx, realm, loc, 'manage');
  if (rep.name !== undefined && rep.name !== null && (typeof rep.name !== 'string' || !rep.name.trim())) throw roleHasNoName();
  const newName = typeof rep.name === 'string' ? rep.name : role.name;
  await write(ctx, { unique: () => roleExists(newName) }, async () => {
    const values: { name: string; description: string | null; attributes?: Record<string, string[]> } = {
      name: newName,
      description: rep.description ?? null,
    };
    if (rep.attributes !== undefined && rep.attributes !== null) values.attributes = roleAttributesFrom(rep.attributes);
    await ctx.db.models.Role.update(values, { where: { id: role.id } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: roleResourceType(role),
      resourcePath: roleResourcePath(loc),
      representation: rep,
    });
  });
  invalidate.role(ctx.loaders, role.id, role.containerId);
}

/** DELETE {roleOwner}/{name}, DELETE roles-by-id/{id}: removes the role from composites, mappings and scope mappings too. */
export async function deleteRole(ctx: RequestContext, realm: RealmModel, loc: RoleLocator): Promise<void> {
  const { role } = await locateRole(ctx, realm, loc, 'manage');
  if (role.id === realm.settings.defaultRoleId) throw badRequest(`${role.name} is default role of the realm and cannot be removed.`);
  const m = ctx.db.models;
  await ctx.db.transaction(async () => {
    // The row first (FOR UPDATE): a write linking this role holds it shared (lockLinkedRoles), so
    // either it commits before the links are removed below, or it waits and finds the role gone.
    await m.Role.findByPk(role.id, { attributes: ['id'], lock: true });
    await m.CompositeRole.destroy({ where: { [Op.or]: [{ compositeId: role.id }, { childId: role.id }] } });
    await m.UserRoleMapping.destroy({ where: { roleId: role.id } });
    await m.GroupRoleMapping.destroy({ where: { roleId: role.id } });
    await m.ScopeMapping.destroy({ where: { roleId: role.id } });
    // Its fine-grained permissions go with it (Keycloak's role-removed listener).
    await dropManagementPermissions(ctx, realm, [roleSpec(role.id)]);
    await m.Role.destroy({ where: { id: role.id } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: roleResourceType(role),
      resourcePath: roleResourcePath(loc),
    });
  });
  // Gone from every composite and mapping too.
  invalidate.role(ctx.loaders, role.id, role.containerId);
  invalidate.roleMappings(ctx.loaders);
  ctx.log.info(`Role ${role.name} deleted in realm ${realm.name}`);
}

export interface PageQuery {
  first?: number;
  max?: number;
  brief?: boolean;
}

/** Holders of a role: first 0, max 100; a negative max is the default too. */
const holdersPage = (q: PageQuery) => pageOf(q, { defaultMax: 100, negativeMax: 'default' });

/** The models behind loaded ids that exist in the realm, in the order of the ids. */
const inRealm = <T extends { realmId: string }>(realm: RealmModel, rows: Array<T | null | Error>): T[] =>
  rows.filter((r): r is T => !!r && !(r instanceof Error) && r.realmId === realm.id);

/**
 * GET {roleOwner}/{name}/users: users with a direct mapping of the role, by username (first 0, max
 * 100). The page of every role of one request tick is one statement (`userIdsPageByRole`).
 */
export async function roleUsers(ctx: RequestContext, realm: RealmModel, loc: RoleLocator, q: PageQuery = {}): Promise<UserRep[]> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  await requireCap(ctx, realm, 'queryUsers');
  const page = holdersPage(q);
  const userIds = await ctx.loaders.userIdsPageByRole.load({ id: role.id, offset: page.offset, limit: page.limit });
  const users = inRealm(realm, await ctx.loaders.userById.loadMany(userIds));
  const ids = users.map((u) => u.id);
  const brief = q.brief ?? false;
  const [attributes, actions, credentials] = await Promise.all([
    ctx.loaders.attributesByUser.loadMany(ids),
    brief ? [] : ctx.loaders.requiredActionsByUser.loadMany(ids),
    brief ? [] : ctx.loaders.credentialTypesByUser.loadMany(ids),
  ]);
  const list = <T>(v: T | Error | undefined, d: T): T => (v === undefined || v instanceof Error ? d : v);
  return users.map((u, i) => {
    const types = list(credentials[i], [] as string[]);
    return toUserRepresentation(
      u,
      {
        attributes: list(attributes[i], {}),
        requiredActions: list(actions[i], []),
        totp: types.includes('otp'),
        disableableCredentialTypes: types.includes('otp') ? ['otp'] : [],
      },
      brief ? 'member' : 'full',
    );
  });
}

/** realmRoles / clientRoles (by clientId) of groups, for full group representations. */
async function groupRoleNames(ctx: RequestContext, groups: GroupModel[]) {
  const roleIds = await ctx.loaders.roleIdsByGroup.loadMany(groups.map((g) => g.id));
  const allIds = [...new Set(roleIds.flatMap((r) => (Array.isArray(r) ? r : [])))];
  const roles = (await ctx.loaders.roleById.loadMany(allIds)).filter((r): r is RoleModel => !!r && !(r instanceof Error));
  const clientIds = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const clients = await ctx.loaders.clientById.loadMany(clientIds);
  const clientName = new Map(clientIds.map((id, i) => [id, (clients[i] as { clientId?: string } | null)?.clientId ?? id]));
  const byId = new Map(roles.map((r) => [r.id, r]));
  return groups.map((_, i) => {
    const own = (Array.isArray(roleIds[i]) ? (roleIds[i] as string[]) : []).map((id) => byId.get(id)).filter((r): r is RoleModel => !!r);
    const clientRoles: Record<string, string[]> = {};
    for (const r of own.filter((x) => x.clientId)) {
      const key = clientName.get(r.clientId as string) as string;
      clientRoles[key] = [...(clientRoles[key] ?? []), r.name];
    }
    return { realmRoles: own.filter((r) => !r.clientId).map((r) => r.name), clientRoles };
  });
}

/**
 * GET {roleOwner}/{name}/groups: groups with a direct mapping of the role, by name (first 0, max
 * 100, brief by default). The page of every role of one request tick is one statement.
 */
export async function roleGroups(ctx: RequestContext, realm: RealmModel, loc: RoleLocator, q: PageQuery = {}): Promise<GroupRep[]> {
  const { role } = await locateRole(ctx, realm, loc, 'view');
  const page = holdersPage(q);
  const groupIds = await ctx.loaders.groupIdsPageByRole.load({ id: role.id, offset: page.offset, limit: page.limit });
  const groups = inRealm(realm, await ctx.loaders.groupById.loadMany(groupIds));
  const brief = q.brief ?? true;
  const paths = await Promise.all(groups.map((g) => pathOf(ctx, g)));
  const roles = brief ? [] : await groupRoleNames(ctx, groups);
  return groups.map((g, i) => toGroupRepresentation(g, { path: paths[i], ...(brief ? {} : roles[i]) }, brief));
}
