import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import type { Db } from '../db';
import type { ProtocolMapperModel } from '../db/models/client';
import type { UserModel } from '../db/models/user';
import { groupedBy } from './util';

/** A client's link to a client scope, with the scope's name and protocol. */
export interface ClientScopeLink {
  id: string;
  name: string;
  protocol: string;
  defaultScope: boolean;
  attributes: Record<string, string>;
}

/** Client loaders: scope links (joined with their scopes), protocol mappers, service-account user. */
export function clientLoaders(db: Db) {
  const m = db.models;
  return {
    /** Default and optional client-scope links of each client, ordered by scope name. */
    scopeLinksByClient: new DataLoader<string, ClientScopeLink[]>(async (ids) => {
      const links = await m.ClientScopeClient.findAll({ where: { clientId: { [Op.in]: [...ids] } } });
      const scopeIds = [...new Set(links.map((l) => l.scopeId))];
      const scopes = scopeIds.length ? await m.ClientScope.findAll({ where: { id: { [Op.in]: scopeIds } } }) : [];
      const byId = new Map(scopes.map((s) => [s.id, s]));
      return groupedBy(links, (l) => l.clientId, ids).map((list) =>
        list
          .filter((l) => byId.has(l.scopeId))
          .map((l) => {
            const s = byId.get(l.scopeId) as (typeof scopes)[number];
            return { id: s.id, name: s.name, protocol: s.protocol, defaultScope: Boolean(l.defaultScope), attributes: s.attributes ?? {} };
          })
          .sort((a, b) => a.name.localeCompare(b.name)),
      );
    }),
    /** Protocol mappers of each client, ordered by name. */
    mappersByClient: new DataLoader<string, ProtocolMapperModel[]>(async (ids) => {
      const rows = await m.ProtocolMapper.findAll({ where: { clientId: { [Op.in]: [...ids] } }, order: [['name', 'ASC']] });
      return groupedBy(rows, (r) => r.clientId as string, ids);
    }),
    /** The service-account user of each client (by `serviceAccountClientLink`), or null. */
    serviceAccountByClient: new DataLoader<string, UserModel | null>(async (ids) => {
      const rows = await m.User.findAll({ where: { serviceAccountClientLink: { [Op.in]: [...ids] } } });
      const map = new Map(rows.map((u) => [u.serviceAccountClientLink as string, u]));
      return ids.map((id) => map.get(id) ?? null);
    }),
  };
}
