import { randomUUID } from 'node:crypto';
import { Attribute, Change } from 'ldapts';
import { Op } from 'sequelize';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { withAdmin } from './ldap-connection';
import type { Mapper } from './ldap-mapping';
import type { Provider } from './ldap-store';
import { type DirectoryGroup, directoryGroups, memberValuesOf, membersOf, providerUsers } from './memberships';
import { EMPTY_MEMBER, groupDn, isMembershipMapper, type MembershipSettings, membershipSettings } from './membership-config';
import { emptyResult, type SyncResult, withStatus } from './sync-result';

/**
 * Data sync of the membership mappers (GroupLDAPStorageMapper, RoleLDAPStorageMapper of Keycloak).
 * fedToKeycloak: the LDAP groups under `groups.dn` / `roles.dn` become Keycloak groups under
 * `groups.path` (LDAP groups that are members of others become their subgroups when
 * `preserve.group.inheritance` is on) or realm or client roles, and the memberships of the
 * provider's imported users follow LDAP (by member DN or UID, or by the users' memberOf).
 * keycloakToFed: the Keycloak groups or roles become LDAP groups whose members are their federated
 * users (and, nested, their subgroups' LDAP groups). Other mappers have no data: an empty result.
 */
type Counts = ReturnType<typeof emptyResult>;

/** A Keycloak group under the mapper's path: its id and its subgroups by name. */
interface KcGroup {
  id: string;
  name: string;
  children: KcGroup[];
}

async function pathGroupId(db: Db, realm: RealmModel, s: MembershipSettings): Promise<string> {
  let parent = TOP_LEVEL;
  for (const name of s.groupsPath.split('/').filter(Boolean)) {
    const g = await db.models.Group.findOne({ where: { realmId: realm.id, parentId: parent, name }, attributes: ['id'] });
    if (!g) throw new Error(`Group path '${s.groupsPath}' does not exist`);
    parent = g.id;
  }
  return parent;
}

/** The Keycloak groups under `parentId`, with their subgroups when `nested` (one statement per level). */
async function kcTree(db: Db, realm: RealmModel, parentId: string, nested: boolean): Promise<KcGroup[]> {
  const top = (await db.models.Group.findAll({ where: { realmId: realm.id, parentId } })).map((g) => ({
    id: g.id,
    name: g.name,
    children: [] as KcGroup[],
  }));
  if (!nested) return top;
  let level = top;
  while (level.length) {
    const byId = new Map(level.map((g) => [g.id, g]));
    const rows = await db.models.Group.findAll({ where: { realmId: realm.id, parentId: { [Op.in]: [...byId.keys()] } } });
    const next: KcGroup[] = [];
    for (const r of rows) {
      const g = { id: r.id, name: r.name, children: [] };
      byId.get(r.parentId)?.children.push(g);
      next.push(g);
    }
    level = next;
  }
  return top;
}

/** The LDAP groups as a forest: a group that is a member of another is its child (GroupTreeResolver). */
function forestOf(groups: DirectoryGroup[], nested: boolean): Array<{ group: DirectoryGroup; children: DirectoryGroup[] }> {
  const byDn = new Map(groups.map((g) => [g.dn.toLowerCase(), g]));
  const parentOf = new Map<DirectoryGroup, DirectoryGroup>();
  if (nested) {
    for (const g of groups) {
      for (const m of g.members) {
        const child = byDn.get(m.toLowerCase());
        if (!child || child === g) continue;
        if (parentOf.has(child))
          throw new Error(
            `Couldn't resolve groups from LDAP. Fix LDAP or skip preserve inheritance. Details: Group '${child.name}' detected to have multiple parents`,
          );
        parentOf.set(child, g);
      }
    }
    for (const g of groups) {
      const seen = new Set<DirectoryGroup>();
      for (let x: DirectoryGroup | undefined = g; x; x = parentOf.get(x)) {
        if (seen.has(x))
          throw new Error(`Couldn't resolve groups from LDAP. Fix LDAP or skip preserve inheritance. Details: Recursion detected`);
        seen.add(x);
      }
    }
  }
  return groups.map((group) => ({ group, children: groups.filter((c) => parentOf.get(c) === group) }));
}

/** Creates the missing Keycloak groups of the LDAP forest under the path group; returns LDAP DN → Keycloak group id. */
async function syncGroupTree(
  db: Db,
  realm: RealmModel,
  s: MembershipSettings,
  groups: DirectoryGroup[],
  drop: boolean,
  r: Counts,
): Promise<Map<string, string>> {
  const forest = forestOf(groups, s.nested);
  const childrenOf = new Map(forest.map((x) => [x.group, x.children]));
  const hasParent = new Set(forest.flatMap((x) => x.children));
  const ids = new Map<string, string>();
  const place = async (parentId: string, level: DirectoryGroup[]) => {
    const existing = await db.models.Group.findAll({ where: { realmId: realm.id, parentId } });
    const byName = new Map(existing.map((g) => [g.name, g.id]));
    for (const g of level) {
      let id = byName.get(g.name);
      if (id) r.updated++;
      else {
        id = randomUUID();
        await db.models.Group.create({ id, realmId: realm.id, parentId, name: g.name, description: null, attributes: {} });
        byName.set(g.name, id);
        r.added++;
      }
      ids.set(g.dn.toLowerCase(), id);
      await place(id, childrenOf.get(g) ?? []);
    }
    if (!drop) return;
    const keep = new Set(level.map((g) => g.name));
    const gone = existing.filter((g) => !keep.has(g.name)).map((g) => g.id);
    if (!gone.length) return;
    await dropGroups(db, realm, gone);
    r.removed += gone.length;
  };
  await place(
    await pathGroupId(db, realm, s),
    groups.filter((g) => !hasParent.has(g)),
  );
  return ids;
}

async function dropGroups(db: Db, realm: RealmModel, ids: string[]): Promise<void> {
  const children = (await db.models.Group.findAll({ where: { realmId: realm.id, parentId: { [Op.in]: ids } }, attributes: ['id'] })).map(
    (g) => g.id,
  );
  if (children.length) await dropGroups(db, realm, children);
  await db.models.UserGroupMembership.destroy({ where: { groupId: { [Op.in]: ids } } });
  await db.models.GroupRoleMapping.destroy({ where: { groupId: { [Op.in]: ids } } });
  await db.models.Group.destroy({ where: { id: { [Op.in]: ids } } });
}

/** The realm or client of a role mapper: null for realm roles. */
async function roleClientId(db: Db, realm: RealmModel, m: Mapper): Promise<string | null> {
  if (m.config['use.realm.roles.mapping'] !== 'false') return null;
  const client = await db.models.Client.findOne({
    where: { realmId: realm.id, clientId: m.config['client.id'] ?? '' },
    attributes: ['id'],
  });
  if (!client) throw new Error(`Can't found requested client with clientId: ${m.config['client.id']}`);
  return client.id;
}

/** Creates the missing roles named by the LDAP groups; returns LDAP DN → role id. */
async function syncRoles(db: Db, realm: RealmModel, m: Mapper, groups: DirectoryGroup[], r: Counts): Promise<Map<string, string>> {
  const clientId = await roleClientId(db, realm, m);
  const byName = new Map((await db.models.Role.findAll({ where: { realmId: realm.id, clientId } })).map((x) => [x.name, x.id]));
  const ids = new Map<string, string>();
  for (const g of groups) {
    let id = byName.get(g.name);
    if (id) r.updated++;
    else {
      id = randomUUID();
      await db.models.Role.create({
        id,
        realmId: realm.id,
        clientId,
        containerId: clientId ?? realm.id,
        name: g.name,
        description: null,
        attributes: {},
      });
      byName.set(g.name, id);
      r.added++;
    }
    ids.set(g.dn.toLowerCase(), id);
  }
  return ids;
}

/** fedToKeycloak: groups or roles from LDAP, and their members among the provider's imported users. */
export async function syncMapperFromDirectory(db: Db, realm: RealmModel, p: Provider, m: Mapper): Promise<SyncResult> {
  if (!isMembershipMapper(m)) return withStatus(emptyResult());
  const s = membershipSettings(p.cfg, m);
  const groups = await directoryGroups(p, s);
  const users = await providerUsers(db, p);
  const members = await membersOf(p, s, groups, users);
  const r = emptyResult();
  await db.transaction(async () => {
    const drop = s.isGroup && m.config['drop.non.existing.groups.during.sync'] === 'true';
    const ids = s.isGroup ? await syncGroupTree(db, realm, s, groups, drop, r) : await syncRoles(db, realm, m, groups, r);
    const ours = users.map((u) => u.id);
    // LDAP_ONLY keeps the memberships in LDAP; the local rows mirror them so that every reader sees them (ADR 45).
    for (const g of groups) {
      const targetId = ids.get(g.dn.toLowerCase()) as string;
      const userIds = [...new Set(members.get(g) ?? [])];
      if (s.isGroup) {
        if (ours.length) await db.models.UserGroupMembership.destroy({ where: { groupId: targetId, userId: { [Op.in]: ours } } });
        if (userIds.length) await db.models.UserGroupMembership.bulkCreate(userIds.map((userId) => ({ userId, groupId: targetId })));
      } else {
        if (ours.length) await db.models.UserRoleMapping.destroy({ where: { roleId: targetId, userId: { [Op.in]: ours } } });
        if (userIds.length) await db.models.UserRoleMapping.bulkCreate(userIds.map((userId) => ({ userId, roleId: targetId })));
      }
    }
  });
  return withStatus(r);
}

/** The Keycloak side of keycloakToFed: each group or role with its member user ids and (nested groups) its subgroups. */
async function keycloakSide(
  db: Db,
  realm: RealmModel,
  s: MembershipSettings,
  m: Mapper,
): Promise<Array<{ name: string; userIds: string[]; children: string[] }>> {
  if (!s.isGroup) {
    const clientId = await roleClientId(db, realm, m);
    const roles = await db.models.Role.findAll({ where: { realmId: realm.id, clientId } });
    const rows = roles.length ? await db.models.UserRoleMapping.findAll({ where: { roleId: { [Op.in]: roles.map((x) => x.id) } } }) : [];
    return roles.map((x) => ({ name: x.name, userIds: rows.filter((y) => y.roleId === x.id).map((y) => y.userId), children: [] }));
  }
  const flat: KcGroup[] = [];
  const walk = (gs: KcGroup[]) => {
    for (const g of gs) {
      flat.push(g);
      walk(g.children);
    }
  };
  walk(await kcTree(db, realm, await pathGroupId(db, realm, s), s.nested));
  const rows = flat.length ? await db.models.UserGroupMembership.findAll({ where: { groupId: { [Op.in]: flat.map((g) => g.id) } } }) : [];
  return flat.map((g) => ({
    name: g.name,
    userIds: rows.filter((x) => x.groupId === g.id).map((x) => x.userId),
    children: g.children.map((c) => c.name),
  }));
}

/** keycloakToFed: each Keycloak group or role becomes an LDAP group whose members are its federated users' entries. */
export async function syncMapperToDirectory(db: Db, realm: RealmModel, p: Provider, m: Mapper): Promise<SyncResult> {
  if (!isMembershipMapper(m)) return withStatus(emptyResult());
  const s = membershipSettings(p.cfg, m);
  const wanted = await keycloakSide(db, realm, s, m);
  const memberValue = memberValuesOf(s, await providerUsers(db, p));
  const existing = new Set((await directoryGroups(p, s)).map((g) => g.name));
  const r = emptyResult();
  await withAdmin(p.cfg, async (c) => {
    for (const g of wanted) {
      const members = [
        ...g.userIds.map((id) => memberValue.get(id)).filter((x): x is string => Boolean(x)),
        ...g.children.map((name) => groupDn(s, name)),
      ];
      const value = members.length ? members : s.memberType === 'DN' ? [EMPTY_MEMBER] : [];
      const dn = groupDn(s, g.name);
      if (existing.has(g.name)) {
        await c.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type: s.memberAttr, values: value }) }));
        r.updated++;
      } else {
        await c.add(dn, { objectClass: s.classes, [s.nameAttr]: g.name, ...(value.length ? { [s.memberAttr]: value } : {}) });
        r.added++;
      }
    }
  });
  return withStatus(r);
}
