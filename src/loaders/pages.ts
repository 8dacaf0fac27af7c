import DataLoader from 'dataloader';
import type { Db } from '../db';
import { fastSelect } from '../db/fast-select';
import type { GroupModel } from '../db/models/group';
import { fastRows } from './util';

/**
 * One page of a per-parent list: `offset` rows skipped, at most `limit` returned (undefined: all),
 * with the list's own filters (a name search). A key names the parent by `id`; the rest is the variant.
 */
export interface PageKey {
  id: string;
  offset: number;
  limit?: number;
  /** Name filter: case-insensitive substring, or exact with `exact`. */
  search?: string;
  exact?: boolean;
}

const variantOf = (k: PageKey) => JSON.stringify([k.offset, k.limit ?? null, k.search ?? null, k.exact ?? false]);
const keyOf = (k: PageKey) => `${k.id}\u0000${variantOf(k)}`;

/** One ranked relation: `parent` → `child` ids from `from`, ordered by `order` within each parent, `search` on `name`. */
interface Relation {
  parent: string;
  child: string;
  from: string;
  order: string;
  name: string;
}

/**
 * A loader of pages of a relation: the same page of many parents in one statement, with
 * `ROW_NUMBER() OVER (PARTITION BY parent ORDER BY ...)` (SQLite ≥ 3.25, MySQL 8, MariaDB ≥ 10.2,
 * TiDB), so a page of each of N parents is one query rather than N. Keys asking for different
 * pages or searches are grouped: one statement per distinct variant.
 */
function pagedIds(db: Db, rel: Relation) {
  return paged<string>(async (variant, ids) => {
    const { sql, params } = rankedSql(rel, variant, ids);
    // One of a few texts per relation (filter and upper bound vary), each kept prepared by fastSelect.
    const rows = await fastSelect<{ parent: string; child: string }>(
      db.sequelize,
      `SELECT t.parent AS parent, t.child AS child FROM (${sql}) t WHERE t.rn > :offset${variant.limit === undefined ? '' : ' AND t.rn <= :last'} ORDER BY t.parent, t.rn`,
      params,
    );
    return rows.map((r) => ({ parent: r.parent, value: r.child }));
  });
}

/** The ranked rows of a relation for one page variant: (parent, child, rn) of the parents `ids`, filtered by name. */
function rankedSql(rel: Relation, k: PageKey, ids: string[]): { sql: string; params: Record<string, unknown> } {
  const filter =
    k.search === undefined ? '' : k.exact ? ` AND ${rel.name} = :search` : ` AND INSTR(LOWER(${rel.name}), LOWER(:search)) > 0`;
  return {
    sql: `SELECT ${rel.parent} AS parent, ${rel.child} AS child, ROW_NUMBER() OVER (PARTITION BY ${rel.parent} ORDER BY ${rel.order}) AS rn
             FROM ${rel.from}
             WHERE ${rel.parent} IN (:ids)${filter}`,
    params: { ids, offset: k.offset, last: k.offset + (k.limit ?? 0), search: k.search ?? null },
  };
}

/**
 * The batching of the page loaders: keys asking for the same page variant are one call of `read` over
 * their distinct parents, which yields (parent, value) pairs in page order.
 */
function paged<V>(read: (variant: PageKey, ids: string[]) => Promise<Array<{ parent: string; value: V }>>) {
  return new DataLoader<PageKey, V[], string>(
    async (keys) => {
      const out = new Map<string, V[]>();
      const byVariant = new Map<string, PageKey[]>();
      for (const k of keys) byVariant.set(variantOf(k), [...(byVariant.get(variantOf(k)) ?? []), k]);
      for (const group of byVariant.values()) {
        const rows = await read(group[0], [...new Set(group.map((k) => k.id))]);
        for (const k of group) out.set(keyOf(k), []);
        for (const r of rows) out.get(keyOf({ ...group[0], id: r.parent }))?.push(r.value);
      }
      return keys.map((k) => out.get(keyOf(k)) ?? []);
    },
    { cacheKeyFn: keyOf },
  );
}

const CHILDREN: Relation = { parent: 'g.parent_id', child: 'g.id', from: 'keycloak_group g', order: 'g.name', name: 'g.name' };

/**
 * Pages of a group's direct subgroups as rows (model instances), in one statement for any number of
 * parents: the ranked ids and the rows they name read together, rather than ids first and the rows by a
 * second statement. Siblings have unique names, so (parent, name) is the ranking's order.
 */
function childPages(db: Db) {
  return paged<GroupModel>(async (variant, ids) => {
    const { sql, params } = rankedSql(CHILDREN, variant, ids);
    const upper = variant.limit === undefined ? '' : ' AND p.rn <= :last';
    const rows = await fastRows<GroupModel>(
      db,
      db.models.Group,
      `t.id IN (SELECT p.child FROM (${sql}) p WHERE p.rn > :offset${upper})`,
      params,
      'ORDER BY t.parent_id, t.name',
    );
    return rows.map((g) => ({ parent: g.parentId, value: g }));
  });
}

/** Paged relation loaders (see `pagedIds`). */
export function pageLoaders(db: Db) {
  return {
    /** Direct member ids of a group, ordered by username. */
    memberIdsPageByGroup: pagedIds(db, {
      parent: 'm.group_id',
      child: 'm.user_id',
      from: 'user_group_membership m JOIN user_entity u ON u.id = m.user_id',
      order: 'u.username',
      name: 'u.username',
    }),
    /** Direct subgroups of a group, ordered by name, optionally searched by name. */
    childPageByGroup: childPages(db),
    /** Ids of the groups a user is a direct member of, ordered by name, optionally searched by name. */
    groupIdsPageByUser: pagedIds(db, {
      parent: 'm.user_id',
      child: 'm.group_id',
      from: 'user_group_membership m JOIN keycloak_group g ON g.id = m.group_id AND g.organization_id IS NULL',
      order: 'g.name',
      name: 'g.name',
    }),
    /** Ids of the users holding a role by a direct mapping, ordered by username. */
    userIdsPageByRole: pagedIds(db, {
      parent: 'm.role_id',
      child: 'm.user_id',
      from: 'user_role_mapping m JOIN user_entity u ON u.id = m.user_id',
      order: 'u.username',
      name: 'u.username',
    }),
    /** Ids of the groups holding a role by a direct mapping, ordered by name. */
    groupIdsPageByRole: pagedIds(db, {
      parent: 'm.role_id',
      child: 'm.group_id',
      from: 'group_role_mapping m JOIN keycloak_group g ON g.id = m.group_id',
      order: 'g.name',
      name: 'g.name',
    }),
  };
}
