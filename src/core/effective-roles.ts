import type { Db } from '../db';
import { fastSelect } from '../db/fast-select';
import { TOP_LEVEL } from '../db/models/group';

/**
 * Effective roles: direct mappings, roles of the groups and of their ancestors, and composite
 * expansion — for any number of users or groups in ONE recursive SQL query (SQLite ≥ 3.8.3,
 * MariaDB ≥ 10.2, MySQL ≥ 8). UNION (not UNION ALL) makes cycles in the composite graph terminate.
 */
type Row = { owner_id: string; role_id: string };

function collect(rows: Row[], owners: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>(owners.map((o) => [o, new Set<string>()]));
  for (const r of rows) out.get(r.owner_id)?.add(r.role_id);
  return out;
}

/**
 * The recursion every effective-role query shares: `grp` climbs from the seed groups of each owner to
 * their ancestors, `eff` adds the groups' role mappings to the owner's direct ones (if any) and
 * expands composites.
 */
const effectiveRolesCte = (groupSeed: string, directSeed?: string) => `WITH RECURSIVE
       grp(owner_id, group_id) AS (
         ${groupSeed}
         UNION
         SELECT grp.owner_id, g.parent_id FROM grp JOIN keycloak_group g ON g.id = grp.group_id WHERE g.parent_id <> :top
       ),
       eff(owner_id, role_id) AS (
         ${directSeed ? `${directSeed}\n         UNION\n         ` : ''}SELECT grp.owner_id, m.role_id FROM grp JOIN group_role_mapping m ON m.group_id = grp.group_id
         UNION
         SELECT eff.owner_id, c.child_id FROM eff JOIN composite_role c ON c.composite_id = eff.role_id
       )`;

/** Users: direct mappings, groups and their ancestors. */
const USERS_CTE = effectiveRolesCte(
  'SELECT user_id, group_id FROM user_group_membership WHERE user_id IN (:ids)',
  'SELECT user_id, role_id FROM user_role_mapping WHERE user_id IN (:ids)',
);

/** The statements below are constants, so that each is prepared once and kept (db/fast-select.ts). */
const USERS_SQL = `${USERS_CTE}\n     SELECT owner_id, role_id FROM eff`;

const GROUPS_SQL = `${effectiveRolesCte('SELECT id, id FROM keycloak_group WHERE id IN (:ids)')}\n     SELECT owner_id, role_id FROM eff`;

const COMPOSITES_SQL = `WITH RECURSIVE eff(owner_id, role_id) AS (
       SELECT id, id FROM role WHERE id IN (:ids)
       UNION
       SELECT eff.owner_id, c.child_id FROM eff JOIN composite_role c ON c.composite_id = eff.role_id
     )
     SELECT owner_id, role_id FROM eff`;

const CLIENT_ROLE_NAMES_SQL = `${USERS_CTE}
     SELECT r.name FROM eff
       JOIN role r ON r.id = eff.role_id
       JOIN client cl ON cl.id = r.client_id
     WHERE cl.realm_id = :realm AND cl.client_id = :client`;

const ANY_ADMIN_ROLE_SQL = `${USERS_CTE}
     SELECT 1 AS one FROM eff
       JOIN role r ON r.id = eff.role_id
       LEFT JOIN client cl ON cl.id = r.client_id
     WHERE (cl.realm_id = :realm AND (cl.client_id = 'realm-management' OR (:master = 1 AND cl.client_id LIKE '%-realm')))
        OR (:master = 1 AND r.client_id IS NULL AND r.container_id = :realm AND r.name IN ('admin', 'create-realm'))
     LIMIT 1`;

/** Effective role ids for each user (direct, via groups and their ancestors, composites expanded). */
export async function effectiveRoleIdsForUsers(db: Db, userIds: string[]): Promise<Map<string, Set<string>>> {
  if (!userIds.length) return new Map();
  const rows = await fastSelect<Row>(db.sequelize, USERS_SQL, { ids: userIds, top: TOP_LEVEL });
  return collect(rows, userIds);
}

/** Effective role ids for each group (own and ancestors' mappings, composites expanded). */
export async function effectiveRoleIdsForGroups(db: Db, groupIds: string[]): Promise<Map<string, Set<string>>> {
  if (!groupIds.length) return new Map();
  const rows = await fastSelect<Row>(db.sequelize, GROUPS_SQL, { ids: groupIds, top: TOP_LEVEL });
  return collect(rows, groupIds);
}

/** Expands role ids through composites: for each input role, the role itself and all its descendants. */
export async function expandComposites(db: Db, roleIds: Iterable<string>): Promise<Map<string, Set<string>>> {
  const ids = [...new Set(roleIds)];
  if (!ids.length) return new Map();
  const rows = await fastSelect<Row>(db.sequelize, COMPOSITES_SQL, { ids });
  return collect(rows, ids);
}

/** Names of the roles of one client that a user effectively holds (the admin-permission check), in one query. */
export async function effectiveClientRoleNames(db: Db, userId: string, realmId: string, clientId: string): Promise<Set<string>> {
  const rows = await fastSelect<{ name: string }>(db.sequelize, CLIENT_ROLE_NAMES_SQL, {
    ids: [userId],
    realm: realmId,
    client: clientId,
    top: TOP_LEVEL,
  });
  return new Set(rows.map((r) => r.name));
}

/** Names of realm roles (of `realmId`) a user effectively holds, in one query. */
export async function effectiveRealmRoleNames(db: Db, userId: string, realmId: string): Promise<Set<string>> {
  const map = await effectiveRoleIdsForUsers(db, [userId]);
  const ids = [...(map.get(userId) ?? [])];
  if (!ids.length) return new Set();
  const rows = await db.models.Role.findAll({ where: { id: ids, containerId: realmId, clientId: null }, attributes: ['name'] });
  return new Set(rows.map((r) => r.name));
}

/**
 * Whether a user effectively holds any admin role: a role of its realm's `realm-management` client,
 * or, for a master-realm user, a master realm role `admin`/`create-realm` or a role of any
 * `<realm>-realm` client. One query, stopping at the first match.
 */
export async function holdsAnyAdminRole(db: Db, userId: string, realmId: string, isMaster: boolean): Promise<boolean> {
  const rows = await fastSelect<{ one: number }>(db.sequelize, ANY_ADMIN_ROLE_SQL, {
    ids: [userId],
    realm: realmId,
    master: isMaster ? 1 : 0,
    top: TOP_LEVEL,
  });
  return rows.length > 0;
}

/*
 * The same three questions about a set of effective role ids already known (a transient federated
 * user, ADR 46, whose roles come from its directory rather than from mapping rows).
 */

const CLIENT_ROLE_NAMES_AMONG_SQL = `SELECT r.name FROM role r JOIN client cl ON cl.id = r.client_id
     WHERE r.id IN (:ids) AND cl.realm_id = :realm AND cl.client_id = :client`;

const ANY_ADMIN_ROLE_AMONG_SQL = `SELECT 1 AS one FROM role r
       LEFT JOIN client cl ON cl.id = r.client_id
     WHERE r.id IN (:ids) AND ((cl.realm_id = :realm AND (cl.client_id = 'realm-management' OR (:master = 1 AND cl.client_id LIKE '%-realm')))
        OR (:master = 1 AND r.client_id IS NULL AND r.container_id = :realm AND r.name IN ('admin', 'create-realm')))
     LIMIT 1`;

/** Names of the roles of one client among the given role ids (one statement). */
export async function clientRoleNamesAmong(db: Db, roleIds: Set<string>, realmId: string, clientId: string): Promise<Set<string>> {
  if (!roleIds.size) return new Set();
  const rows = await fastSelect<{ name: string }>(db.sequelize, CLIENT_ROLE_NAMES_AMONG_SQL, {
    ids: [...roleIds],
    realm: realmId,
    client: clientId,
  });
  return new Set(rows.map((r) => r.name));
}

/** Names of the realm roles of `realmId` among the given role ids (one statement). */
export async function realmRoleNamesAmong(db: Db, roleIds: Set<string>, realmId: string): Promise<Set<string>> {
  if (!roleIds.size) return new Set();
  const rows = await db.models.Role.findAll({ where: { id: [...roleIds], containerId: realmId, clientId: null }, attributes: ['name'] });
  return new Set(rows.map((r) => r.name));
}

/** Whether the given role ids hold an admin role, as `holdsAnyAdminRole` asks it (one statement). */
export async function anyAdminRoleAmong(db: Db, roleIds: Set<string>, realmId: string, isMaster: boolean): Promise<boolean> {
  if (!roleIds.size) return false;
  const rows = await fastSelect<{ one: number }>(db.sequelize, ANY_ADMIN_ROLE_AMONG_SQL, {
    ids: [...roleIds],
    realm: realmId,
    master: isMaster ? 1 : 0,
  });
  return rows.length > 0;
}
