import DataLoader from 'dataloader';
import { Op, fn, col } from 'sequelize';
import type { Db } from '../db';
import type { GroupModel } from '../db/models/group';
import { groupedBy } from './util';

/** Group loaders: children, child counts, direct member ids, direct role ids. */
export function groupLoaders(db: Db) {
  const m = db.models;
  return {
    /** Direct children of a group, ordered by name. */
    childrenByGroup: new DataLoader<string, GroupModel[]>(async (ids) => {
      const rows = await m.Group.findAll({ where: { parentId: { [Op.in]: [...ids] } }, order: [['name', 'ASC']] });
      return groupedBy(rows, (r) => r.parentId, ids);
    }),
    subGroupCountByGroup: new DataLoader<string, number>(async (ids) => {
      const rows = (await m.Group.findAll({
        attributes: ['parentId', [fn('COUNT', col('id')), 'n']],
        where: { parentId: { [Op.in]: [...ids] } },
        group: ['parentId'],
        raw: true,
      })) as unknown as Array<{ parentId: string; n: number | string }>;
      const map = new Map(rows.map((r) => [r.parentId, Number(r.n)]));
      return ids.map((id) => map.get(id) ?? 0);
    }),
    memberIdsByGroup: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.UserGroupMembership.findAll({ where: { groupId: { [Op.in]: [...ids] } } });
      return groupedBy(rows, (r) => r.groupId, ids).map((list) => list.map((r) => r.userId));
    }),
    roleIdsByGroup: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.GroupRoleMapping.findAll({ where: { groupId: { [Op.in]: [...ids] } } });
      return groupedBy(rows, (r) => r.groupId, ids).map((list) => list.map((r) => r.roleId));
    }),
  };
}
