import { Op, col, fn, where, type WhereOptions } from 'sequelize';
import { canGroups, type GroupAccess, groupsAccess, mayViewSomeGroups, requireViewGroup } from '../../auth/fgap';
import { check, requireCap } from '../../auth/permissions';
import { TOP_LEVEL, type GroupModel } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { notFound } from '../../core/errors';
import { isEmptyPage, type Page, pageOf, slicePage, sqlPage } from '../../core/paging';
import { fastRows } from '../../loaders';
import type { PageKey } from '../../loaders/pages';
import { type GroupRep, toGroupRepresentation } from '../../representations/group';
import type { RequestContext } from '../../core/context';
import { escapeName, findGroupByPath, groupChain, pathOf } from './group-paths';

/**
 * Read side of groups (reference §5.2–5.8): lookups, listings, search with ancestor hierarchy,
 * counts, and the batched builder of Keycloak GroupRepresentations used by every group endpoint.
 */

export type { GroupAccess };

export interface GroupRepOptions {
  /** Omits attributes, realmRoles and clientRoles. */
  brief: boolean;
  /** Adds subGroupCount. */
  subGroupCount?: boolean;
  /** Adds the caller's access map. */
  access?: boolean;
}

/** The group with this id in the realm, or 404 with the given Keycloak message. */
export async function findGroup(
  ctx: RequestContext,
  realm: RealmModel,
  id: string,
  message = 'Could not find group by id',
): Promise<GroupModel> {
  const g = await ctx.loaders.groupById.load(id);
  // An organization's groups are reached under /organizations/{id}/groups only (ADR 39).
  if (!g || g.realmId !== realm.id || g.organizationId) throw notFound(message);
  return g;
}

interface RoleNames {
  realmRoles: string[];
  clientRoles: Record<string, string[]>;
}

/** Names of the direct role mappings of each group (client roles keyed by clientId), batched. */
async function roleNamesOf(ctx: RequestContext, groupIds: string[]): Promise<Map<string, RoleNames>> {
  const l = ctx.loaders;
  const idLists = await Promise.all(groupIds.map((id) => l.roleIdsByGroup.load(id)));
  const roles = await Promise.all([...new Set(idLists.flat())].map((id) => l.roleById.load(id)));
  const roleById = new Map(roles.filter((r) => r !== null).map((r) => [r.id, r]));
  const clientIds = [...new Set([...roleById.values()].map((r) => r.clientId).filter((c): c is string => Boolean(c)))];
  const clients = await Promise.all(clientIds.map((id) => l.clientById.load(id)));
  const clientName = new Map(clients.filter((c) => c !== null).map((c) => [c.id, c.clientId]));
  const out = new Map<string, RoleNames>();
  groupIds.forEach((gid, i) => {
    const names: RoleNames = { realmRoles: [], clientRoles: {} };
    for (const rid of idLists[i]) {
      const role = roleById.get(rid);
      if (!role) continue;
      if (!role.clientId) names.realmRoles.push(role.name);
      else {
        const cid = clientName.get(role.clientId);
        if (cid) names.clientRoles[cid] = [...(names.clientRoles[cid] ?? []), role.name];
      }
    }
    names.realmRoles.sort();
    for (const list of Object.values(names.clientRoles)) list.sort();
    out.set(gid, names);
  });
  return out;
}

/** Keycloak representations of many groups with a bounded number of queries (paths, counts, roles batched). */
export async function groupRepresentations(
  ctx: RequestContext,
  realm: RealmModel,
  groups: GroupModel[],
  opts: GroupRepOptions,
  knownPaths?: ReadonlyMap<string, string>,
): Promise<GroupRep[]> {
  for (const g of groups) ctx.loaders.groupById.prime(g.id, g);
  const ids = groups.map((g) => g.id);
  const [paths, counts, roles, access] = await Promise.all([
    Promise.all(groups.map((g) => knownPaths?.get(g.id) ?? pathOf(ctx, g))),
    opts.subGroupCount ? Promise.all(ids.map((id) => ctx.loaders.subGroupCountByGroup.load(id))) : undefined,
    opts.brief ? undefined : roleNamesOf(ctx, ids),
    opts.access ? groupsAccess(ctx, realm, ids) : undefined,
  ]);
  return groups.map((g, i) =>
    toGroupRepresentation(
      g,
      {
        path: paths[i],
        subGroupCount: counts?.[i],
        ...(roles?.get(g.id) ?? {}),
        access: access ? { ...access[i] } : undefined,
      },
      opts.brief,
    ),
  );
}

/**
 * Wraps matched groups in copies of their ancestors up to the top level, merging shared ancestors (§5.2).
 * A match is kept only when the caller may view it and every one of its ancestors (Keycloak's
 * GroupUtils#populateGroupHierarchyFromSubGroups); one evaluation for all of them.
 */
async function withAncestors(ctx: RequestContext, realm: RealmModel, matches: GroupModel[], opts: GroupRepOptions): Promise<GroupRep[]> {
  const allChains = await Promise.all(matches.map((g) => groupChain(ctx, g)));
  const chainIds = [...new Set(allChains.flat().map((g) => g.id))];
  const viewable = await canGroups(ctx, realm, chainIds, 'view');
  const hidden = new Set(chainIds.filter((_, i) => !viewable[i]));
  const chains = hidden.size ? allChains.filter((chain) => chain.every((g) => !hidden.has(g.id))) : allChains;
  const nodes = new Map<string, GroupModel>();
  // Each node's path from the chain that reached it (so the representations need not walk it again).
  const paths = new Map<string, string>();
  for (const chain of chains) {
    let path = '';
    for (const g of chain) {
      path += `/${escapeName(g.name)}`;
      nodes.set(g.id, g);
      paths.set(g.id, path);
    }
  }
  const list = [...nodes.values()];
  const reps = await groupRepresentations(ctx, realm, list, opts, paths);
  const repOf = new Map(list.map((g, i) => [g.id, reps[i]]));
  const roots = new Map<string, GroupRep>();
  const linked = new Set<string>();
  for (const chain of chains) {
    roots.set(chain[0].id, repOf.get(chain[0].id) as GroupRep);
    for (let i = 1; i < chain.length; i++) {
      const key = `${chain[i - 1].id}>${chain[i].id}`;
      if (linked.has(key)) continue;
      linked.add(key);
      const parent = repOf.get(chain[i - 1].id) as GroupRep;
      (parent.subGroups as GroupRep[]).push(repOf.get(chain[i].id) as GroupRep);
    }
  }
  return sortByName([...roots.values()]);
}

const byName = (a: GroupRep, b: GroupRep) => {
  const x = String(a.name);
  const y = String(b.name);
  return x < y ? -1 : x > y ? 1 : 0;
};

function sortByName(reps: GroupRep[]): GroupRep[] {
  reps.sort(byName);
  for (const r of reps) sortByName(r.subGroups as GroupRep[]);
  return reps;
}

/** Name condition: case-insensitive substring, or exact (case-sensitive) match. */
export function nameCondition(search: string | undefined, exact?: boolean): WhereOptions[] {
  if (search === undefined) return [];
  if (exact) return [{ name: search }];
  return [where(fn('INSTR', fn('LOWER', col('name')), fn('LOWER', search)), Op.gt, 0)];
}

/** Parses `q=key:value key2:value2` (backslash escapes) as Keycloak's search query. */
export function parseSearchQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  const plain = (s: string) => s.replace(/\\(.)/g, '$1').trim();
  for (const m of q.matchAll(/((?:\\.|[^\\:])+):((?:\\.|[^\\ ])+)/g)) out[plain(m[1])] = plain(m[2]);
  return out;
}

/** Groups at any level having all the attributes with exactly those values, ordered by name. */
async function groupsByAttributes(
  ctx: RequestContext,
  realm: RealmModel,
  attrs: Record<string, string>,
  first?: number,
  max?: number,
): Promise<GroupModel[]> {
  const page = pageOf({ first, max });
  if (isEmptyPage(page)) return [];
  // Cheap textual pre-filter on the JSON column, then the exact check in memory.
  const pre = Object.entries(attrs).flatMap(([k, v]) =>
    [k, v].map((s) => where(fn('INSTR', col('attributes'), JSON.stringify(s)), Op.gt, 0)),
  );
  const rows = await ctx.db.models.Group.findAll({
    where: { realmId: realm.id, organizationId: null, [Op.and]: pre },
    order: [['name', 'ASC']],
  });
  const hits = rows.filter((g) => Object.entries(attrs).every(([k, v]) => (g.attributes[k] ?? []).includes(v)));
  return slicePage(hits, page);
}

export interface GroupListQuery {
  search?: string;
  q?: string;
  exact?: boolean;
  first?: number;
  max?: number;
  briefRepresentation?: boolean;
  populateHierarchy?: boolean;
  subGroupsCount?: boolean;
}

/** GET /{realm}/groups: top-level groups, or search/attribute matches wrapped in their ancestors. */
export async function listGroups(ctx: RequestContext, realm: RealmModel, query: GroupListQuery = {}): Promise<GroupRep[]> {
  await requireCap(ctx, realm, 'queryGroups');
  // Nothing to filter from when the caller may view no group at all (query-groups alone, no permissions in use).
  if (!(await mayViewSomeGroups(ctx, realm))) return [];
  const { Group } = ctx.db.models;
  let groups: GroupModel[];
  if (query.q !== undefined) {
    groups = await groupsByAttributes(ctx, realm, parseSearchQuery(query.q), query.first, query.max);
  } else {
    const page = pageOf(query);
    if (isEmptyPage(page)) return [];
    if (query.search === undefined) groups = await topLevelPage(ctx, realm, page);
    else {
      groups = await Group.findAll({
        where: { realmId: realm.id, organizationId: null, [Op.and]: nameCondition(query.search.trim(), query.exact) },
        order: [['name', 'ASC']],
        ...sqlPage(page),
      });
    }
  }
  const opts = { brief: query.briefRepresentation ?? true, subGroupCount: query.subGroupsCount ?? true, access: true };
  if (query.populateHierarchy ?? true) return withAncestors(ctx, realm, groups, opts);
  return groupRepresentations(ctx, realm, await viewableOnly(ctx, realm, groups), opts);
}

/**
 * A page of the realm's own top-level groups by name: the listing every console and tool opens with,
 * read as the loaders read groups (one kept statement, rows built without Sequelize's query pipeline).
 */
function topLevelPage(ctx: RequestContext, realm: RealmModel, page: Page): Promise<GroupModel[]> {
  // An offset needs a LIMIT before it in both dialects.
  const limit = page.limit !== undefined ? ' LIMIT :limit' : page.offset ? ` LIMIT ${Number.MAX_SAFE_INTEGER}` : '';
  const tail = `ORDER BY t.name${limit}${page.offset ? ' OFFSET :offset' : ''}`;
  return fastRows<GroupModel>(
    ctx.db,
    ctx.db.models.Group,
    't.realm_id = :realm AND t.parent_id = :top AND t.organization_id IS NULL',
    { realm: realm.id, top: TOP_LEVEL, limit: page.limit, offset: page.offset },
    tail,
  );
}

/** The groups the caller may view (GroupPermissions#canView(group)), in order; one evaluation for all. */
async function viewableOnly(ctx: RequestContext, realm: RealmModel, groups: GroupModel[]): Promise<GroupModel[]> {
  const viewable = await canGroups(
    ctx,
    realm,
    groups.map((g) => g.id),
    'view',
  );
  return groups.filter((_, i) => viewable[i]);
}

/**
 * GET /{realm}/groups/count: `{count}` of name matches (any level), top-level groups, or all groups. Not
 * filtered by the groups the caller may view (Keycloak counts every group for whoever may list them).
 */
export async function countGroups(
  ctx: RequestContext,
  realm: RealmModel,
  query: { search?: string; top?: boolean } = {},
): Promise<{ count: number }> {
  await requireCap(ctx, realm, 'queryGroups');
  const cond = query.search !== undefined ? nameCondition(query.search.trim()) : query.top ? [{ parentId: TOP_LEVEL }] : [];
  const count = await ctx.db.models.Group.count({ where: { realmId: realm.id, organizationId: null, [Op.and]: cond } });
  return { count };
}

/** Full representation with subGroupCount and access, as GET /groups/{id} and group-by-path return it. */
async function fullGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<GroupRep> {
  await requireViewGroup(ctx, realm, group.id);
  return writtenGroup(ctx, realm, group);
}

/**
 * The full representation (subGroupCount, access) of a group the caller has just written, without a view
 * check: what POST /groups/{id}/children answers, and the GraphQL create and move mutations return.
 */
export async function writtenGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<GroupRep> {
  const [rep] = await groupRepresentations(ctx, realm, [group], { brief: false, subGroupCount: true, access: true });
  return rep;
}

/** GET /{realm}/groups/{id} (the group resolved first: 404 before the permission check), then view of the group. */
export async function getGroup(ctx: RequestContext, realm: RealmModel, group: GroupModel): Promise<GroupRep> {
  return fullGroup(ctx, realm, group);
}

/** GET /{realm}/group-by-path/{path}: 404 `Group path does not exist`, then group view. */
export async function getGroupByPath(ctx: RequestContext, realm: RealmModel, path: string): Promise<GroupRep> {
  const group = await findGroupByPath(ctx, realm, path);
  if (!group) throw notFound('Group path does not exist');
  return fullGroup(ctx, realm, group);
}

export interface ChildrenQuery {
  search?: string;
  exact?: boolean;
  first?: number;
  max?: number;
  briefRepresentation?: boolean;
  subGroupsCount?: boolean;
}

/** The groups with these ids that belong to the realm, in the order of the ids (batched through the loader). */
export async function groupsByIds(ctx: RequestContext, realm: RealmModel, ids: readonly string[]): Promise<GroupModel[]> {
  const groups = await ctx.loaders.groupById.loadMany([...ids]);
  return groups.filter((g): g is GroupModel => !!g && !(g instanceof Error) && g.realmId === realm.id);
}

/** A page of a group's children (rows and all, one statement), kept by the request's group loader too. */
async function childPage(ctx: RequestContext, realm: RealmModel, key: PageKey): Promise<GroupModel[]> {
  const children = (await ctx.loaders.childPageByGroup.load(key)).filter((g) => g.realmId === realm.id);
  for (const g of children) ctx.loaders.groupById.prime(g.id, g);
  return children;
}

/**
 * GET /{realm}/groups/{id}/children, and GraphQL `Group.subGroups`: direct children by name, first 0,
 * max 10, full representation by default. One statement per page for any number of parents. Needs view of
 * the parent; a caller who may not view every group gets the children he may view, paged after the
 * filter (Keycloak's GroupResource#getSubGroups), from one read of all the children.
 */
export async function listChildren(
  ctx: RequestContext,
  realm: RealmModel,
  group: GroupModel,
  query: ChildrenQuery = {},
): Promise<GroupRep[]> {
  await requireViewGroup(ctx, realm, group.id);
  const page = pageOf(query, { defaultMax: 10 });
  if (isEmptyPage(page)) return [];
  const filter = { search: query.search, exact: query.exact };
  let children: GroupModel[];
  if (await check(ctx, realm, 'viewUsers')) {
    children = await childPage(ctx, realm, { id: group.id, ...page, ...filter });
  } else {
    children = slicePage(await viewableOnly(ctx, realm, await childPage(ctx, realm, { id: group.id, offset: 0, ...filter })), page);
  }
  return groupRepresentations(ctx, realm, children, {
    brief: query.briefRepresentation ?? false,
    subGroupCount: query.subGroupsCount ?? true,
    access: true,
  });
}
