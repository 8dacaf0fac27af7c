import { randomUUID } from 'node:crypto';
import { Filter } from 'ldapts';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { ldapErrorCode, withAdmin } from './ldap-connection';
import type { LdapUser, Mapper } from './ldap-mapping';
import type { Provider } from './ldap-store';
import { attrOf, isMembershipMapper, type MembershipSettings, membershipSettings } from './membership-config';

/**
 * The memberships of one directory user as it is imported at login or by a search
 * (GroupLDAPStorageMapper#onImportUserFromLDAP and findKcGroupOrSyncFromLDAP of Keycloak, which
 * the READ_ONLY and LDAP_ONLY modes read live): the LDAP groups naming the user (or named by its
 * memberOf) become its groups (created under the groups path when missing) or roles. The LDAP
 * searches run before the write; a directory that fails leaves the user without them until the
 * next sync, with a warning.
 */
const log = getLogger('idserver.services.user-storage');

/** How deep LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY follows a chain of groups (a cycle ends sooner). */
const MAX_DEPTH = 32;

/** Names of the mapper's LDAP groups the user is a member of. */
async function groupNamesOf(p: Provider, s: MembershipSettings, u: LdapUser): Promise<string[]> {
  return withAdmin(p.cfg, async (c) => {
    if (s.fromMemberOf) {
      const { searchEntries } = await c.search(u.dn, { scope: 'base', attributes: [s.memberOfAttr] });
      const dns = new Set(attrOf(searchEntries[0] ?? {}, s.memberOfAttr).map((d) => d.toLowerCase()));
      if (!dns.size) return [];
      const all = await c.search(s.dn, { scope: 'sub', filter: s.filter, attributes: [s.nameAttr] });
      return all.searchEntries.filter((e) => dns.has(e.dn.toLowerCase())).map((e) => attrOf(e, s.nameAttr)[0]);
    }
    const value = s.memberType === 'DN' ? u.dn : u.username;
    const named = (values: string[]) =>
      c.search(s.dn, {
        scope: 'sub',
        filter: `(&${s.filter}(|${values.map((v) => `(${s.memberAttr}=${Filter.escape(v)})`).join('')}))`,
        attributes: [s.nameAttr],
      });
    const { searchEntries } = await named([value]);
    if (!s.recursive) return searchEntries.map((e) => attrOf(e, s.nameAttr)[0]);
    // The chain upwards, one search per level: the groups naming the groups found so far.
    const found = new Map(searchEntries.map((e) => [e.dn.toLowerCase(), e]));
    let level = searchEntries.map((e) => e.dn);
    for (let depth = 0; level.length && depth < MAX_DEPTH; depth++) {
      const next = (await named(level)).searchEntries.filter((e) => !found.has(e.dn.toLowerCase()));
      for (const e of next) found.set(e.dn.toLowerCase(), e);
      level = next.map((e) => e.dn);
    }
    return [...found.values()].map((e) => attrOf(e, s.nameAttr)[0]);
  }).then((names) => names.filter(Boolean));
}

/** The id of the Keycloak group of this name under the groups path (at any depth), created at its top when missing (unless `create` is false). */
async function groupIdFor(db: Db, realm: RealmModel, s: MembershipSettings, name: string, create = true): Promise<string | undefined> {
  let root = TOP_LEVEL;
  for (const part of s.groupsPath.split('/').filter(Boolean)) {
    const g = await db.models.Group.findOne({ where: { realmId: realm.id, parentId: root, name: part }, attributes: ['id'] });
    if (!g) return undefined;
    root = g.id;
  }
  for (const g of await db.models.Group.findAll({ where: { realmId: realm.id, name } })) {
    let parent = g.parentId;
    for (let i = 0; i < 100 && parent !== root && parent !== TOP_LEVEL; i++)
      parent = (await db.models.Group.findByPk(parent, { attributes: ['parentId'] }))?.parentId ?? TOP_LEVEL;
    if (parent === root) return g.id;
  }
  if (!create) return undefined;
  const id = randomUUID();
  await db.models.Group.create({ id, realmId: realm.id, parentId: root, name, description: null, attributes: {} });
  return id;
}

async function roleIdFor(db: Db, realm: RealmModel, m: Mapper, name: string, create = true): Promise<string | undefined> {
  let clientId: string | null = null;
  if (m.config['use.realm.roles.mapping'] === 'false') {
    const client = await db.models.Client.findOne({
      where: { realmId: realm.id, clientId: m.config['client.id'] ?? '' },
      attributes: ['id'],
    });
    if (!client) return undefined;
    clientId = client.id;
  }
  const role = await db.models.Role.findOne({ where: { realmId: realm.id, clientId, name }, attributes: ['id'] });
  if (role || !create) return role?.id;
  const id = randomUUID();
  await db.models.Role.create({
    id,
    realmId: realm.id,
    clientId,
    containerId: clientId ?? realm.id,
    name,
    description: null,
    attributes: {},
  });
  return id;
}

/** Gives a user just imported the groups and roles its provider's membership mappers find for it in LDAP. */
export async function importMemberships(db: Db, realm: RealmModel, p: Provider, user: UserModel, u: LdapUser): Promise<void> {
  const found: Array<{ m: Mapper; s: MembershipSettings; names: string[] }> = [];
  for (const m of p.mappers.filter(isMembershipMapper)) {
    const s = membershipSettings(p.cfg, m);
    try {
      const names = await groupNamesOf(p, s, u);
      if (names.length) found.push({ m, s, names });
    } catch (e) {
      log.warn(`LDAP mapper ${m.name}: memberships of ${u.username} not imported: ${ldapErrorCode(e)}`);
    }
  }
  if (!found.length) return;
  await db.transaction(async () => {
    for (const { m, s, names } of found) {
      for (const name of names) {
        if (s.isGroup) {
          const groupId = await groupIdFor(db, realm, s, name);
          if (groupId) await db.models.UserGroupMembership.bulkCreate([{ userId: user.id, groupId }], { ignoreDuplicates: true });
        } else {
          const roleId = await roleIdFor(db, realm, m, name);
          if (roleId) await db.models.UserRoleMapping.bulkCreate([{ userId: user.id, roleId }], { ignoreDuplicates: true });
        }
      }
    }
  });
}

/** Which of these names are LDAP groups of the mapper (one search). */
async function existingGroupNames(p: Provider, s: MembershipSettings, names: string[]): Promise<Set<string>> {
  if (!names.length) return new Set();
  const filter = `(&${s.filter}(|${names.map((n) => `(${s.nameAttr}=${Filter.escape(n)})`).join('')}))`;
  const found = await withAdmin(
    p.cfg,
    async (c) => (await c.search(s.dn, { scope: 'sub', filter, attributes: [s.nameAttr] })).searchEntries,
  );
  return new Set(found.map((e) => attrOf(e, s.nameAttr)[0]).filter(Boolean));
}

/** Names of the user's groups (groups mapper) or directly mapped roles of the mapper's container (roles mapper). */
async function localNames(db: Db, realm: RealmModel, m: Mapper, s: MembershipSettings, userId: string): Promise<Map<string, string>> {
  if (s.isGroup) {
    const rows = await db.models.UserGroupMembership.findAll({ where: { userId }, attributes: ['groupId'] });
    if (!rows.length) return new Map();
    const groups = await db.models.Group.findAll({ where: { id: rows.map((r) => r.groupId) }, attributes: ['id', 'name'] });
    return new Map(groups.map((g) => [g.name, g.id]));
  }
  const rows = await db.models.UserRoleMapping.findAll({ where: { userId }, attributes: ['roleId'] });
  if (!rows.length) return new Map();
  const roles = await db.models.Role.findAll({
    where: { id: rows.map((r) => r.roleId), realmId: realm.id },
    attributes: ['id', 'name', 'clientId'],
  });
  const wantClient = m.config['use.realm.roles.mapping'] === 'false';
  let clientId: string | null = null;
  if (wantClient) {
    const client = await db.models.Client.findOne({
      where: { realmId: realm.id, clientId: m.config['client.id'] ?? '' },
      attributes: ['id'],
    });
    if (!client) return new Map();
    clientId = client.id;
  }
  return new Map(roles.filter((r) => (r.clientId ?? null) === clientId).map((r) => [r.name, r.id]));
}

/**
 * At each login of an imported user, the memberships of its READ_ONLY and LDAP_ONLY mappers are made
 * to match LDAP (Keycloak reads them from LDAP on every access): groups or roles the directory now
 * gives the user are added, and memberships in the mapper's LDAP groups that no longer name the user
 * are removed. A membership in a group LDAP does not have (a local join in READ_ONLY) stays, and so do
 * IMPORT mappers' memberships (Keycloak keeps those in its database too). A directory that fails leaves
 * them as they were, with a warning.
 */
export async function refreshMemberships(db: Db, realm: RealmModel, p: Provider, user: UserModel, u: LdapUser): Promise<void> {
  const plans: Array<{ m: Mapper; s: MembershipSettings; add: string[]; remove: string[] }> = [];
  for (const m of p.mappers.filter(isMembershipMapper)) {
    const s = membershipSettings(p.cfg, m);
    if (s.mode === 'IMPORT') continue;
    try {
      const names = new Set(await groupNamesOf(p, s, u));
      const local = await localNames(db, realm, m, s, user.id);
      const notNamed = [...local.keys()].filter((n) => !names.has(n));
      const inLdap = await existingGroupNames(p, s, notNamed);
      const remove: string[] = [];
      for (const n of notNamed.filter((x) => inLdap.has(x))) {
        const id = local.get(n) as string;
        // A group of that name elsewhere in the tree is not the mapper's.
        if (!s.isGroup || (await groupIdFor(db, realm, s, n, false)) === id) remove.push(id);
      }
      const add = [...names].filter((n) => !local.has(n));
      if (add.length || remove.length) plans.push({ m, s, add, remove });
    } catch (e) {
      log.warn(`LDAP mapper ${m.name}: memberships of ${u.username} not refreshed: ${ldapErrorCode(e)}`);
    }
  }
  if (!plans.length) return;
  await db.transaction(async () => {
    for (const { m, s, add, remove } of plans) {
      if (s.isGroup) {
        if (remove.length) await db.models.UserGroupMembership.destroy({ where: { userId: user.id, groupId: remove } });
        for (const name of add) {
          const groupId = await groupIdFor(db, realm, s, name);
          if (groupId) await db.models.UserGroupMembership.bulkCreate([{ userId: user.id, groupId }], { ignoreDuplicates: true });
        }
      } else {
        if (remove.length) await db.models.UserRoleMapping.destroy({ where: { userId: user.id, roleId: remove } });
        for (const name of add) {
          const roleId = await roleIdFor(db, realm, m, name);
          if (roleId) await db.models.UserRoleMapping.bulkCreate([{ userId: user.id, roleId }], { ignoreDuplicates: true });
        }
      }
    }
  });
}

/**
 * The groups and roles the provider's membership mappers find for a directory user, read live and
 * creating nothing (a transient user's memberships, ADR 46): LDAP groups without a Keycloak group
 * or role yet (made by the mapper's sync) are left out. A mapper whose directory fails is skipped.
 */
export async function directoryMemberships(
  db: Db,
  realm: RealmModel,
  p: Provider,
  u: LdapUser,
): Promise<{ groupIds: string[]; roleIds: string[] }> {
  const out = { groupIds: new Set<string>(), roleIds: new Set<string>() };
  for (const m of p.mappers.filter(isMembershipMapper)) {
    const s = membershipSettings(p.cfg, m);
    let names: string[];
    try {
      names = await groupNamesOf(p, s, u);
    } catch (e) {
      log.warn(`LDAP mapper ${m.name}: memberships of ${u.username} not read: ${ldapErrorCode(e)}`);
      continue;
    }
    for (const name of names) {
      const id = s.isGroup ? await groupIdFor(db, realm, s, name, false) : await roleIdFor(db, realm, m, name, false);
      if (id) (s.isGroup ? out.groupIds : out.roleIds).add(id);
    }
  }
  return { groupIds: [...out.groupIds], roleIds: [...out.roleIds] };
}
