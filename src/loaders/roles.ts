import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { Db } from '../db';
import type { RoleModel } from '../db/models/role';
import { fastIdLists, groupedBy } from './util';

/** Role loaders: direct composite children; the roles of a container (realm id or client id), by name. */
export function roleLoaders(db: Db) {
  const m = db.models;
  return {
    childIdsByRole: fastIdLists(db, m.CompositeRole, 'compositeId', 'childId'),
    /** All roles of each container (realm roles: the realm id; client roles: the client id), ordered by name. */
    rolesByContainer: new DataLoader<string, RoleModel[]>(async (ids) => {
      const rows = await m.Role.findAll({ where: { containerId: { [Op.in]: [...ids] } }, order: [['name', 'ASC']] });
      return groupedBy(rows, (r) => r.containerId, ids);
    }),
  };
}
