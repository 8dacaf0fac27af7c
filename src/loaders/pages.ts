import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { Db } from '../db';

/** One page of a per-parent list: `first` rows skipped, at most `max` returned (max < 0: all). */
export interface PageKey {
  id: string;
  first: number;
  max: number;
}

const pageKey = (k: PageKey) => `${k.id}\u0000${k.first}\u0000${k.max}`;

/**
 * Paged relation loaders: the same page of many parents in one statement, with
 * `ROW_NUMBER() OVER (PARTITION BY parent ORDER BY ...)` (SQLite ≥ 3.25, MySQL 8, MariaDB ≥ 10.2,
 * TiDB), so a page of each of N groups is one query rather than N. Keys asking for different pages
 * are grouped: one statement per distinct (first, max).
 */
export function pageLoaders(db: Db) {
  return {
    /** Direct member ids of a group, ordered by username, paged. */
    memberIdsPageByGroup: new DataLoader<PageKey, string[], string>(
      async (keys) => {
        const out = new Map<string, string[]>();
        const byPage = new Map<string, PageKey[]>();
        for (const k of keys) byPage.set(`${k.first}:${k.max}`, [...(byPage.get(`${k.first}:${k.max}`) ?? []), k]);
        for (const group of byPage.values()) {
          const { first, max } = group[0];
          const ids = [...new Set(group.map((k) => k.id))];
          const upper = max < 0 ? '' : ' AND t.rn <= :last';
          const rows = (await db.sequelize.query(
            `SELECT t.group_id AS groupId, t.user_id AS userId FROM (
               SELECT m.group_id, m.user_id, ROW_NUMBER() OVER (PARTITION BY m.group_id ORDER BY u.username) AS rn
               FROM user_group_membership m JOIN user_entity u ON u.id = m.user_id
               WHERE m.group_id IN (:ids)
             ) t WHERE t.rn > :first${upper} ORDER BY t.group_id, t.rn`,
            { replacements: { ids, first, last: first + max }, type: QueryTypes.SELECT },
          )) as Array<{ groupId: string; userId: string }>;
          for (const id of ids) out.set(pageKey({ id, first, max }), []);
          for (const r of rows) out.get(pageKey({ id: r.groupId, first, max }))?.push(r.userId);
        }
        return keys.map((k) => out.get(pageKey(k)) ?? []);
      },
      { cacheKeyFn: pageKey },
    ),
  };
}
