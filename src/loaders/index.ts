import DataLoader from 'dataloader';
import type { Db } from '../db';
import type { ClientModel } from '../db/models/client';
import type { GroupModel } from '../db/models/group';
import type { RealmModel } from '../db/models/realm';
import type { RoleModel } from '../db/models/role';
import type { UserModel } from '../db/models/user';
import { effectiveRoleIdsForGroups, effectiveRoleIdsForUsers } from '../core/effective-roles';
import { clientLoaders } from './clients';
import { countLoaders } from './counts';
import { clientScopeLoaders } from './client-scopes';
import { groupLoaders } from './groups';
import { pageLoaders } from './pages';
import { roleLoaders } from './roles';
import { userLoaders } from './users';
import { byId, fastBy, listLoader } from './util';

export { byId, groupedBy } from './util';

/**
 * Per-request DataLoaders. A fresh set is built for every request (never shared), batch functions
 * return results in key order. After a write, services clear the keys they touched.
 */
export function createLoaders(db: Db) {
  const m = db.models;
  const roleById = byId<RoleModel>(m.Role);
  const roles = roleLoaders(db);
  const lists = {
    /** Roles of lists of ids (one promise per list; roleById caches). */
    rolesByIds: listLoader(roleById),
    /** Composite children of lists of role ids (one promise per list; childIdsByRole caches). */
    childIdsByRoles: listLoader(roles.childIdsByRole),
  };
  return {
    realmById: byId<RealmModel>(m.Realm),
    /** With each realm's cache version (ADR 23) in the same statement: `noteRealmVersion`. */
    realmByName: fastBy<RealmModel>(db, m.Realm, 'name', {
      cacheVersion: '(SELECT v.version FROM realm_cache_version v WHERE v.realm_id = t.id)',
    }),
    userById: fastBy<UserModel>(db, m.User),
    groupById: byId<GroupModel>(m.Group),
    roleById,
    clientById: byId<ClientModel>(m.Client),
    /** Effective (composite-expanded, group-inherited) role ids of a user. */
    effectiveRoleIdsByUser: new DataLoader<string, Set<string>>(async (ids) => {
      const map = await effectiveRoleIdsForUsers(db, [...ids]);
      return ids.map((id) => map.get(id) ?? new Set());
    }),
    /** Effective role ids of a group (own, ancestors', composites expanded). */
    effectiveRoleIdsByGroup: new DataLoader<string, Set<string>>(async (ids) => {
      const map = await effectiveRoleIdsForGroups(db, [...ids]);
      return ids.map((id) => map.get(id) ?? new Set());
    }),
    ...userLoaders(db),
    ...groupLoaders(db),
    ...roles,
    ...lists,
    ...clientScopeLoaders(db),
    ...clientLoaders(db),
    ...pageLoaders(db),
    ...countLoaders(db),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
