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
import { fastBy, listLoader } from './util';

export { byId, fastRows, fastRowsText, groupedBy } from './util';

/** The loaders in groups built together (a group's loaders may share caches); each group by its factory. */
function factories(db: Db) {
  const m = db.models;
  return {
    core: () => ({
      realmById: fastBy<RealmModel>(db, m.Realm),
      /** With each realm's cache version (ADR 23) in the same statement: `noteRealmVersion`. */
      realmByName: fastBy<RealmModel>(db, m.Realm, 'name', {
        cacheVersion: '(SELECT v.version FROM realm_cache_version v WHERE v.realm_id = t.id)',
      }),
      userById: fastBy<UserModel>(db, m.User),
      groupById: fastBy<GroupModel>(db, m.Group),
      clientById: fastBy<ClientModel>(db, m.Client),
    }),
    effective: () => ({
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
    }),
    roles: () => {
      // With whether the role has composites (its representation's `composite`), in the same statement.
      const roleById = fastBy<RoleModel>(db, m.Role, undefined, {
        hasComposites: 'EXISTS (SELECT 1 FROM composite_role c WHERE c.composite_id = t.id)',
      });
      const roles = roleLoaders(db);
      return {
        roleById,
        ...roles,
        /** Roles of lists of ids (one promise per list; roleById caches). */
        rolesByIds: listLoader(roleById),
        /** Composite children of lists of role ids (one promise per list; childIdsByRole caches). */
        childIdsByRoles: listLoader(roles.childIdsByRole),
      };
    },
    users: () => userLoaders(db),
    groups: () => groupLoaders(db),
    clientScopes: () => clientScopeLoaders(db),
    clients: () => clientLoaders(db),
    pages: () => pageLoaders(db),
    counts: () => countLoaders(db),
  };
}

type Factories = ReturnType<typeof factories>;
type Built<F> = { [K in keyof F]: F[K] extends () => infer R ? R : never }[keyof F];
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
export type Loaders = Intersection<Built<Factories>>;

/** Per database: an object whose getters build a loader's group on first use, the prototype of every request's set. */
const prototypes = new WeakMap<Db, object>();

function prototypeFor(db: Db): object {
  let proto = prototypes.get(db);
  if (proto) return proto;
  proto = {};
  for (const make of Object.values(factories(db)) as Array<() => Record<string, unknown>>) {
    // The group's names, learnt once from a throwaway instance (building loaders touches no database).
    for (const name of Object.keys(make())) {
      Object.defineProperty(proto, name, {
        get(this: Record<string, unknown>) {
          // Built for this request on first use; its own properties then hide these getters.
          for (const [k, loader] of Object.entries(make()))
            Object.defineProperty(this, k, { value: loader, enumerable: true, writable: true });
          return this[name];
        },
        enumerable: false,
        configurable: true,
      });
    }
  }
  prototypes.set(db, proto);
  return proto;
}

/**
 * Per-request DataLoaders. A fresh set is built for every request (never shared), batch functions
 * return results in key order. After a write, services clear the keys they touched.
 *
 * A request uses a handful of the ~60 loaders, so each group of them is built when the request first
 * uses one of its loaders (building them all was ~4 % of a GET /users/{id}, issue 12). Loaders not yet
 * built hold nothing, so `Object.values` (invalidate.everything) sees exactly those that may hold rows.
 */
export function createLoaders(db: Db): Loaders {
  return Object.create(prototypeFor(db)) as Loaders;
}
