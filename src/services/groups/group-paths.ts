import { Op } from 'sequelize';
import type { RealmModel } from '../../db/models/realm';
import { TOP_LEVEL, type GroupModel } from '../../db/models/group';
import { errorA } from '../../core/errors';
import type { RequestContext } from '../../core/context';

/**
 * Group paths: `/` + names from the root joined by `/`; a `/` inside a name is escaped as `~/`.
 * Paths are derived (never stored), so renames and moves need no rewrite.
 */
export const escapeName = (name: string) => name.replace(/\//g, '~/');

/** Splits a path into names, honouring the `~/` escape; leading and trailing `/` optional. */
export function splitPath(path: string): string[] {
  let p = path.startsWith('/') ? path.slice(1) : path;
  if (p.endsWith('/') && !p.endsWith('~/')) p = p.slice(0, -1);
  if (!p) return [];
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '~' && p[i + 1] === '/') {
      cur += '/';
      i++;
    } else if (p[i] === '/') {
      out.push(cur);
      cur = '';
    } else cur += p[i];
  }
  out.push(cur);
  return out;
}

/**
 * The ancestors of a group, root first, ending with the group itself (loader-batched per level). A
 * top-level group's is known at once: no promise, for the page of them every listing starts with.
 */
export function groupChain(ctx: RequestContext, group: GroupModel): GroupModel[] | Promise<GroupModel[]> {
  return group.parentId && group.parentId !== TOP_LEVEL ? ancestorsThen(ctx, group) : [group];
}

async function ancestorsThen(ctx: RequestContext, group: GroupModel): Promise<GroupModel[]> {
  const chain = [group];
  let cur = group;
  while (cur.parentId && cur.parentId !== TOP_LEVEL) {
    const parent = await ctx.loaders.groupById.load(cur.parentId);
    if (!parent || chain.includes(parent)) break;
    chain.unshift(parent);
    cur = parent;
  }
  return chain;
}

/** Path of a group by id (`/a/b`). */
export async function groupPath(ctx: RequestContext, groupId: string): Promise<string> {
  const g = await ctx.loaders.groupById.load(groupId);
  if (!g) return '';
  return pathOf(ctx, g);
}

/** Path of a group (`/a/b`); a top-level group's at once. */
export function pathOf(ctx: RequestContext, group: GroupModel): string | Promise<string> {
  const chain = groupChain(ctx, group);
  return Array.isArray(chain) ? pathOfChain(chain) : chain.then(pathOfChain);
}

/** The path of a group from its chain (root first). */
const pathOfChain = (chain: GroupModel[]) => `/${chain.map((g) => escapeName(g.name)).join('/')}`;

/** Finds a group by path in a realm, or null. */
export async function findGroupByPath(ctx: RequestContext, realm: RealmModel, path: string): Promise<GroupModel | null> {
  const names = splitPath(path);
  if (!names.length) return null;
  let parentId = TOP_LEVEL;
  let found: GroupModel | null = null;
  for (const name of names) {
    found = await ctx.db.models.Group.findOne({ where: { realmId: realm.id, parentId, name } });
    if (!found) return null;
    parentId = found.id;
  }
  return found;
}

/** Replaces the realm's default groups with the groups at the given paths (realm PUT `defaultGroups`). */
export async function setDefaultGroupsByPath(ctx: RequestContext, realm: RealmModel, paths: string[]): Promise<void> {
  const ids: string[] = [];
  for (const p of paths) {
    const g = await findGroupByPath(ctx, realm, p);
    if (!g) throw errorA(400, `Default group ${p} does not exist`);
    ids.push(g.id);
  }
  await ctx.db.models.RealmDefaultGroup.destroy({ where: { realmId: realm.id } });
  await ctx.db.models.RealmDefaultGroup.bulkCreate([...new Set(ids)].map((groupId) => ({ realmId: realm.id, groupId })));
}

/**
 * Ids of the given groups and all their descendants, one query per tree level. With `lock`, rows
 * are read with FOR UPDATE (MySQL), so a concurrent child insert under the subtree waits for us.
 */
export async function subtreeIds(ctx: RequestContext, rootIds: string[], lock = false): Promise<string[]> {
  const all = new Set(rootIds);
  let frontier = [...rootIds];
  while (frontier.length) {
    const rows = await ctx.db.models.Group.findAll({ attributes: ['id'], where: { parentId: { [Op.in]: frontier } }, lock });
    frontier = rows.map((r) => r.id).filter((id) => !all.has(id));
    for (const id of frontier) all.add(id);
  }
  return [...all];
}

/** Ids of a group and its ancestors up to the top level, read fresh from the database (not the loader). */
export async function ancestorIds(ctx: RequestContext, groupId: string): Promise<string[]> {
  const out: string[] = [];
  let cur: string | null = groupId;
  while (cur && cur !== TOP_LEVEL && !out.includes(cur)) {
    out.push(cur);
    const row: GroupModel | null = await ctx.db.models.Group.findByPk(cur, { attributes: ['id', 'parentId'] });
    cur = row ? row.parentId : null;
  }
  return out;
}
