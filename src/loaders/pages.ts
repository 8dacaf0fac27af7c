import DataLoader from 'dataloader';
import type { Db } from '../db';
import { fastSelect } from '../db/fast-select';

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
  return new DataLoader<PageKey, string[], string>(
    async (keys) => {
      const out = new Map<string, string[]>();
      const byVariant = new Map<string, PageKey[]>();
      for (const k of keys) byVariant.set(variantOf(k), [...(byVariant.get(variantOf(k)) ?? []), k]);
      for (const group of byVariant.values()) {
        const { offset, limit, search, exact } = group[0];
        const ids = [...new Set(group.map((k) => k.id))];
        const filter =
          search === undefined ? '' : exact ? ` AND ${rel.name} = :search` : ` AND INSTR(LOWER(${rel.name}), LOWER(:search)) > 0`;
        const upper = limit === undefined ? '' : ' AND t.rn <= :last';
        // One of a few texts per relation (filter and upper bound vary), each kept prepared by fastSelect.
        const rows = await fastSelect<{ parent: string; child: string }>(
          db.sequelize,
          `SELECT t.parent AS parent, t.child AS child FROM (
             SELECT ${rel.parent} AS parent, ${rel.child} AS child, ROW_NUMBER() OVER (PARTITION BY ${rel.parent} ORDER BY ${rel.order}) AS rn
             FROM ${rel.from}
             WHERE ${rel.parent} IN (:ids)${filter}
           ) t WHERE t.rn > :offset${upper} ORDER BY t.parent, t.rn`,
          { ids, offset, last: offset + (limit ?? 0), search: search ?? null },
        );
        for (const k of group) out.set(keyOf(k), []);
        for (const r of rows) out.get(keyOf({ ...group[0], id: r.parent }))?.push(r.child);
      }
      return keys.map((k) => out.get(keyOf(k)) ?? []);
    },
    { cacheKeyFn: keyOf },
  );
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
    /** Direct subgroup ids of a group, ordered by name, optionally searched by name. */
    childIdsPageByGroup: pagedIds(db, { parent: 'g.parent_id', child: 'g.id', from: 'keycloak_group g', order: 'g.name', name: 'g.name' }),
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
