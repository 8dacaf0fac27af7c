import type { RequestContext } from '../../core/context';
import { errorA } from '../../core/errors';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { splitPath } from '../groups/group-paths';

/**
 * What the users and groups of an import refer to by name (realm roles, client roles by clientId,
 * groups by path), read once per import with a fixed number of statements and resolved in memory,
 * so an import of thousands of users costs no more reads than one of ten.
 */

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Role ids by name: realm roles, and client roles by clientId. */
export interface RoleIndex {
  /**
   * The ids of a representation's `realmRoles` and `clientRoles` (`{clientId: [names]}`), without
   * duplicates; an unknown name is a 400 with the message of the single role mapping import.
   */
  ids(realmRoles: unknown, clientRoles: unknown): string[];
}

/** Every role and client of the realm, in two statements. Read it after the import created its roles. */
export async function loadRoleIndex(ctx: RequestContext, realm: RealmModel): Promise<RoleIndex> {
  const m = ctx.db.models;
  const clients = await m.Client.findAll({ where: { realmId: realm.id }, attributes: ['id', 'clientId'] });
  const roles = await m.Role.findAll({ where: { realmId: realm.id }, attributes: ['id', 'name', 'containerId'] });
  const clientUuid = new Map(clients.map((c) => [c.clientId, c.id]));
  const roleId = new Map(roles.map((r) => [`${r.containerId}\u0000${r.name}`, r.id]));
  const find = (out: Set<string>, containerId: string, list: string[], what: string) => {
    for (const n of list) {
      const id = roleId.get(`${containerId}\u0000${n}`);
      if (!id) throw errorA(400, `${what} ${n} does not exist`);
      out.add(id);
    }
  };
  return {
    ids(realmRoles, clientRoles) {
      const out = new Set<string>();
      find(out, realm.id, names(realmRoles), 'Realm role');
      if (clientRoles && typeof clientRoles === 'object' && !Array.isArray(clientRoles)) {
        for (const [clientId, list] of Object.entries(clientRoles)) {
          const wanted = names(list);
          if (!wanted.length) continue;
          const uuid = clientUuid.get(clientId);
          if (!uuid) throw errorA(400, `Client ${clientId} does not exist`);
          find(out, uuid, wanted, `Client role of ${clientId}`);
        }
      }
      return [...out];
    },
  };
}

/** Group ids by path (`/parent/child`, `~/` escaping a `/` in a name). */
export interface GroupPaths {
  /** The ids of a user representation's `groups`; an unknown path is POST /users' 400 `Could not create user`. */
  ids(paths: unknown): string[];
}

/** Every group of the realm, in one statement. Read it after the import created its groups. */
export async function loadGroupPaths(ctx: RequestContext, realm: RealmModel): Promise<GroupPaths> {
  const rows = await ctx.db.models.Group.findAll({ where: { realmId: realm.id }, attributes: ['id', 'parentId', 'name'] });
  const children = new Map<string, Map<string, string>>();
  for (const g of rows) {
    const byName = children.get(g.parentId) ?? new Map<string, string>();
    children.set(g.parentId, byName);
    byName.set(g.name, g.id);
  }
  const find = (path: string): string | undefined => {
    const parts = splitPath(path);
    let id: string | undefined = parts.length ? TOP_LEVEL : undefined;
    for (const name of parts) id = id === undefined ? undefined : children.get(id)?.get(name);
    return id;
  };
  return {
    ids(paths) {
      if (!Array.isArray(paths)) return [];
      const out = new Set<string>();
      for (const p of paths) {
        const id = typeof p === 'string' ? find(p) : undefined;
        if (!id) throw errorA(400, 'Could not create user');
        out.add(id);
      }
      return [...out];
    },
  };
}
