import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { Db } from '../db';
import type { ClientScopeModel, ProtocolMapperModel } from '../db/models/client';
import { byId, fastIdLists, groupedBy } from './util';

/** Client-scope loaders: scopes by id, protocol mappers of scopes (clients: loaders/clients.ts), scope-mapped role ids by owner. */
export function clientScopeLoaders(db: Db) {
  const m = db.models;
  return {
    clientScopeById: byId<ClientScopeModel>(m.ClientScope),
    /** Protocol mappers of each client scope, ordered by name. */
    mappersByScope: new DataLoader<string, ProtocolMapperModel[]>(async (ids) => {
      const rows = await m.ProtocolMapper.findAll({ where: { clientScopeId: { [Op.in]: [...ids] } }, order: [['name', 'ASC']] });
      return groupedBy(rows, (r) => r.clientScopeId as string, ids);
    }),
    /** Role ids directly scope-mapped to each owner (client UUID or client scope id). */
    scopeRoleIdsByOwner: fastIdLists(db, m.ScopeMapping, 'ownerId', 'roleId'),
  };
}
