import DataLoader from 'dataloader';
import { QueryTypes } from 'sequelize';
import type { Db } from '../db';

/**
 * Counts per parent for the counts a dashboard shows beside each row (a group's members, a role's
 * users): the counts of many parents in one `GROUP BY` statement.
 */
function countBy(db: Db, table: string, parent: string) {
  return new DataLoader<string, number>(async (ids) => {
    const rows = (await db.sequelize.query(
      `SELECT ${parent} AS parent, COUNT(*) AS n FROM ${table} WHERE ${parent} IN (:ids) GROUP BY ${parent}`,
      { replacements: { ids: [...ids] }, type: QueryTypes.SELECT },
    )) as Array<{ parent: string; n: number | string }>;
    const map = new Map(rows.map((r) => [r.parent, Number(r.n)]));
    return ids.map((id) => map.get(id) ?? 0);
  });
}

export function countLoaders(db: Db) {
  return {
    /** Direct members of a group. */
    memberCountByGroup: countBy(db, 'user_group_membership', 'group_id'),
    /** Users holding a role by a direct mapping (as GET /roles/{name}/users lists them). */
    userCountByRole: countBy(db, 'user_role_mapping', 'role_id'),
  };
}
