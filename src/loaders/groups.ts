import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { Db } from '../db';
import type { GroupModel } from '../db/models/group';
import { fastCounts, fastIdLists, groupedBy } from './util';

/** Group loaders: children, child counts, direct member ids, direct role ids. */
export function groupLoaders(db: Db) {
  const m = db.models;
  return {
    /** Direct children of a group, ordered by name. */
    childrenByGroup: new DataLoader<string, GroupModel[]>(async (ids) => {
      const rows = await m.Group.findAll({ where: { parentId: { [Op.in]: [...ids] } }, order: [['name', 'ASC']] });
      return groupedBy(rows, (r) => r.parentId, ids);
    }),
    subGroupCountByGroup: fastCounts(db, m.Group, 'parentId'),
    memberIdsByGroup: fastIdLists(db, m.UserGroupMembership, 'groupId', 'userId'),
    roleIdsByGroup: fastIdLists(db, m.GroupRoleMapping, 'groupId', 'roleId'),
  };
}
