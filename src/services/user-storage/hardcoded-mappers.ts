import { Op } from 'sequelize';
import { errorB } from '../../core/errors';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { splitPath } from '../groups/group-paths';
import type { Mapper } from './ldap-mapping';
import type { Provider } from './ldap-store';

/**
 * The hardcoded-ldap-role-mapper and hardcoded-ldap-group-mapper of an LDAP provider: every user of
 * the provider has the mapper's role or group, and cannot lose it (Keycloak's
 * HardcodedLDAPRoleStorageMapper / HardcodedLDAPGroupStorageMapper proxies, which add it on every read
 * and refuse deleteRoleMapping / leaveGroup of it with a ModelException).
 *
 * Imported users hold it as a row that carries the mapper's id (migration 0040, ADR 47), so that every
 * reader (role mappings, effective roles, tokens, admin permissions, caches) sees it as it sees any
 * mapping: the row is written at import, for all the provider's imported users when the mapper is
 * created, and taken back (only the rows the mapper wrote) when it is deleted or re-pointed. Transient
 * users (import off) get it on read (transient-users.ts).
 */
export const HARDCODED_ROLE_MAPPER = 'hardcoded-ldap-role-mapper';
export const HARDCODED_GROUP_MAPPER = 'hardcoded-ldap-group-mapper';

export const isHardcodedMembershipMapper = (providerId: string) =>
  providerId === HARDCODED_ROLE_MAPPER || providerId === HARDCODED_GROUP_MAPPER;

/**
 * A role named as Keycloak's KeycloakModelUtils#getRoleFromString reads it: `clientId.role` for the
 * longest prefix before a dot that names a client of the realm (that client's role, or none), else the
 * realm role of that name. At most two statements.
 */
export async function roleIdFromString(db: Db, realm: RealmModel, name: string): Promise<string | undefined> {
  const prefixes: string[] = [];
  for (let i = name.lastIndexOf('.'); i >= 0; i = i === 0 ? -1 : name.lastIndexOf('.', i - 1)) prefixes.push(name.slice(0, i));
  const clients = prefixes.length
    ? await db.models.Client.findAll({ where: { realmId: realm.id, clientId: prefixes }, attributes: ['id', 'clientId'] })
    : [];
  const client = prefixes.map((p) => clients.find((c) => c.clientId === p)).find(Boolean);
  const role = client
    ? await db.models.Role.findOne({ where: { clientId: client.id, name: name.slice(client.clientId.length + 1) }, attributes: ['id'] })
    : await db.models.Role.findOne({ where: { realmId: realm.id, clientId: null, name }, attributes: ['id'] });
  return role?.id;
}

/** The id of the realm's group at a path (`/a/b`, `~/` escaping a slash in a name), one statement per level. */
export async function groupIdByPath(db: Db, realm: RealmModel, path: string): Promise<string | undefined> {
  let parentId = TOP_LEVEL;
  let id: string | undefined;
  for (const name of splitPath(path)) {
    const g = await db.models.Group.findOne({ where: { realmId: realm.id, parentId, name }, attributes: ['id'] });
    if (!g) return undefined;
    parentId = id = g.id;
  }
  return id;
}

/** What a hardcoded mapper gives, resolved now (a name that resolves to nothing gives nothing). */
export async function hardcodedTarget(
  db: Db,
  realm: RealmModel,
  m: Pick<Mapper, 'providerId' | 'config'>,
): Promise<{ roleId?: string; groupId?: string }> {
  if (m.providerId === HARDCODED_ROLE_MAPPER && m.config.role) return { roleId: await roleIdFromString(db, realm, m.config.role) };
  if (m.providerId === HARDCODED_GROUP_MAPPER && m.config.group) return { groupId: await groupIdByPath(db, realm, m.config.group) };
  return {};
}

/** The rows a newly imported user gets from its provider's hardcoded mappers (inside the caller's transaction). */
export async function grantHardcodedToUser(db: Db, realm: RealmModel, p: Provider, userId: string): Promise<void> {
  for (const m of p.mappers) {
    const t = await hardcodedTarget(db, realm, m);
    if (t.roleId) await db.models.UserRoleMapping.bulkCreate([{ userId, roleId: t.roleId, mapperId: m.id }], { ignoreDuplicates: true });
    if (t.groupId)
      await db.models.UserGroupMembership.bulkCreate([{ userId, groupId: t.groupId, mapperId: m.id }], { ignoreDuplicates: true });
  }
}

const PAGE = 500;

/**
 * A hardcoded mapper created or changed: its role or group for every user the provider has imported
 * that lacks it (in pages of ids; a user that has it already keeps its own row). Inside the caller's
 * transaction.
 */
export async function grantHardcodedToProvider(
  db: Db,
  realm: RealmModel,
  mapper: { id: string; parentId: string | null; providerId: string; config: Record<string, string[]> | null },
): Promise<void> {
  if (!mapper.parentId || !isHardcodedMembershipMapper(mapper.providerId)) return;
  const config = Object.fromEntries(Object.entries(mapper.config ?? {}).map(([k, v]) => [k, v[0] ?? '']));
  const t = await hardcodedTarget(db, realm, { providerId: mapper.providerId, config });
  if (!t.roleId && !t.groupId) return;
  const m = db.models;
  for (let after = ''; ; ) {
    const users = await m.User.findAll({
      where: { realmId: realm.id, federationLink: mapper.parentId, id: { [Op.gt]: after } },
      attributes: ['id'],
      order: [['id', 'ASC']],
      limit: PAGE,
    });
    if (!users.length) return;
    const ids = users.map((u) => u.id);
    if (t.roleId) {
      const rows = ids.map((userId) => ({ userId, roleId: t.roleId as string, mapperId: mapper.id }));
      await m.UserRoleMapping.bulkCreate(rows, { ignoreDuplicates: true });
    } else {
      const rows = ids.map((userId) => ({ userId, groupId: t.groupId as string, mapperId: mapper.id }));
      await m.UserGroupMembership.bulkCreate(rows, { ignoreDuplicates: true });
    }
    if (users.length < PAGE) return;
    after = ids[ids.length - 1];
  }
}

/** A hardcoded mapper deleted or changed: the rows it wrote go (an admin's own rows stay). Inside the caller's transaction. */
export async function withdrawHardcoded(db: Db, mapperIds: string[]): Promise<void> {
  if (!mapperIds.length) return;
  await db.models.UserRoleMapping.destroy({ where: { mapperId: { [Op.in]: mapperIds } } });
  await db.models.UserGroupMembership.destroy({ where: { mapperId: { [Op.in]: mapperIds } } });
}

/**
 * Refuses the removal of a role or group that a hardcoded mapper of the user's provider gives:
 * Keycloak's ModelException, which the role-mapper and user resources answer as 400 with the message
 * as `error` and `error_description`.
 */
export async function refuseHardcodedRemoval(
  db: Db,
  realm: RealmModel,
  p: Provider,
  t: { kind: 'role'; roleId: string } | { kind: 'group'; groupId: string },
): Promise<void> {
  for (const m of p.mappers) {
    if (m.providerId !== (t.kind === 'role' ? HARDCODED_ROLE_MAPPER : HARDCODED_GROUP_MAPPER)) continue;
    const target = await hardcodedTarget(db, realm, m);
    if (t.kind === 'role' && target.roleId === t.roleId) {
      const msg = "Not possible to delete role. It's hardcoded by LDAP mapper";
      throw errorB(400, msg, msg);
    }
    if (t.kind === 'group' && target.groupId === t.groupId) {
      const msg = "Not possible to delete group. It's hardcoded by LDAP mapper";
      throw errorB(400, msg, msg);
    }
  }
}

/** A user given a role or group by an admin keeps it as the admin's own: a mapper's row becomes a plain one. */
export async function adoptHardcodedRows(
  db: Db,
  user: Pick<UserModel, 'id' | 'federationLink'>,
  t: { roleIds?: string[]; groupId?: string },
): Promise<void> {
  if (!user.federationLink) return;
  if (t.roleIds?.length)
    await db.models.UserRoleMapping.update(
      { mapperId: null },
      { where: { userId: user.id, roleId: { [Op.in]: t.roleIds }, mapperId: { [Op.ne]: null } } },
    );
  if (t.groupId)
    await db.models.UserGroupMembership.update(
      { mapperId: null },
      { where: { userId: user.id, groupId: t.groupId, mapperId: { [Op.ne]: null } } },
    );
}
