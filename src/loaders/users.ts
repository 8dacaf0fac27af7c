import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { Db } from '../db';
import { groupedBy } from './util';

/** User loaders: attributes, required actions, direct group ids, direct role ids. */
export function userLoaders(db: Db) {
  const m = db.models;
  return {
    /** name → values; values in insertion order (attribute row ids sort in creation order). */
    attributesByUser: new DataLoader<string, Record<string, string[]>>(async (ids) => {
      const rows = await m.UserAttribute.findAll({
        where: { userId: { [Op.in]: [...ids] } },
        order: [
          ['name', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      return groupedBy(rows, (r) => r.userId, ids).map((list) => {
        const out: Record<string, string[]> = {};
        for (const r of list) {
          out[r.name] ??= [];
          out[r.name].push(r.value);
        }
        return out;
      });
    }),
    requiredActionsByUser: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.UserRequiredAction.findAll({ where: { userId: { [Op.in]: [...ids] } } });
      return groupedBy(rows, (r) => r.userId, ids).map((list) => list.map((r) => r.requiredAction));
    }),
    groupIdsByUser: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.UserGroupMembership.findAll({ where: { userId: { [Op.in]: [...ids] } } });
      return groupedBy(rows, (r) => r.userId, ids).map((list) => list.map((r) => r.groupId));
    }),
    roleIdsByUser: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.UserRoleMapping.findAll({ where: { userId: { [Op.in]: [...ids] } } });
      return groupedBy(rows, (r) => r.userId, ids).map((list) => list.map((r) => r.roleId));
    }),
    credentialTypesByUser: new DataLoader<string, string[]>(async (ids) => {
      const rows = await m.Credential.findAll({ where: { userId: { [Op.in]: [...ids] } }, attributes: ['userId', 'type'] });
      return groupedBy(rows, (r) => r.userId, ids).map((list) => [...new Set(list.map((r) => r.type))]);
    }),
  };
}
