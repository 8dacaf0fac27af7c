import { randomUUID } from 'node:crypto';
import { Attribute, Change, Filter } from 'ldapts';
import { Op } from 'sequelize';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { withAdmin } from './ldap-connection';
import { LDAP_ENTRY_DN, type Mapper } from './ldap-mapping';
import type { Provider } from './ldap-store';
import { emptyResult, type SyncResult, withStatus } from './sync-result';

/**
 * Data sync of the membership mappers (GroupLDAPStorageMapper, RoleLDAPStorageMapper of Keycloak):
 * LDAP groups under `groups.dn` / `roles.dn` become Keycloak groups (under `groups.path`) or realm
 * or client roles, and their members' memberships or role mappings follow the LDAP `member`
 * attribute (fedToKeycloak); Keycloak groups or roles become LDAP groups with their federated
 * members (keycloakToFed). Flat groups only (no LDAP group nesting). Other mappers have no data: an
 * empty result.
 */
const EMPTY_MEMBER = 'cn=empty-membership-placeholder';

interface Target {
  /** Keycloak names → ids (creating the missing ones when `create`). */
  names(create: string[]): Promise<{ ids: Map<string, string>; created: number }>;
  all(): Promise<Map<string, string>>;
  drop(ids: string[]): Promise<void>;
  members(ids: string[]): Promise<Array<{ userId: string; targetId: string }>>;
  setMembers(targetId: string, userIds: string[], onlyOf: string[]): Promise<void>;
}

const isGroupMapper = (m: Mapper) => m.providerId === 'group-ldap-mapper';
const conf = (m: Mapper, group: string, role: string) => m.config[isGroupMapper(m) ? group : role];

async function groupTarget(db: Db, realm: RealmModel, m: Mapper): Promise<Target> {
  const path = (m.config['groups.path'] || '/').split('/').filter(Boolean);
  let parent = TOP_LEVEL;
  for (const name of path) {
    const g = await db.models.Group.findOne({ where: { realmId: realm.id, parentId: parent, name }, attributes: ['id'] });
    if (!g) throw new Error(`Group path '${m.config['groups.path']}' does not exist`);
    parent = g.id;
  }
  const all = async () =>
    new Map((await db.models.Group.findAll({ where: { realmId: realm.id, parentId: parent } })).map((g) => [g.name, g.id]));
  return {
    all,
    async names(wanted) {
      const ids = await all();
      const missing = wanted.filter((n) => !ids.has(n));
      for (const name of missing) {
        const id = randomUUID();
        await db.models.Group.create({ id, realmId: realm.id, parentId: parent, name, description: null, attributes: {} });
        ids.set(name, id);
      }
      return { ids, created: missing.length };
    },
    async drop(ids) {
      await db.models.UserGroupMembership.destroy({ where: { groupId: { [Op.in]: ids } } });
      await db.models.GroupRoleMapping.destroy({ where: { groupId: { [Op.in]: ids } } });
      await db.models.Group.destroy({ where: { id: { [Op.in]: ids } } });
    },
    async members(ids) {
      const rows = await db.models.UserGroupMembership.findAll({ where: { groupId: { [Op.in]: ids } } });
      return rows.map((r) => ({ userId: r.userId, targetId: r.groupId }));
    },
    async setMembers(groupId, userIds, onlyOf) {
      await db.models.UserGroupMembership.destroy({ where: { groupId, userId: { [Op.in]: onlyOf } } });
      if (userIds.length) await db.models.UserGroupMembership.bulkCreate(userIds.map((userId) => ({ userId, groupId })));
    },
  };
}

async function roleTarget(db: Db, realm: RealmModel, m: Mapper): Promise<Target> {
  let clientId: string | null = null;
  if (m.config['use.realm.roles.mapping'] === 'false') {
    const client = await db.models.Client.findOne({
      where: { realmId: realm.id, clientId: m.config['client.id'] ?? '' },
      attributes: ['id'],
    });
    if (!client) throw new Error(`Can't found requested client with clientId: ${m.config['client.id']}`);
    clientId = client.id;
  }
  const where = { realmId: realm.id, clientId };
  const all = async () => new Map((await db.models.Role.findAll({ where })).map((r) => [r.name, r.id]));
  return {
    all,
    async names(wanted) {
      const ids = await all();
      const missing = wanted.filter((n) => !ids.has(n));
      for (const name of missing) {
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
        ids.set(name, id);
      }
      return { ids, created: missing.length };
    },
    async drop() {},
    async members(ids) {
      const rows = await db.models.UserRoleMapping.findAll({ where: { roleId: { [Op.in]: ids } } });
      return rows.map((r) => ({ userId: r.userId, targetId: r.roleId }));
    },
    async setMembers(roleId, userIds, onlyOf) {
      await db.models.UserRoleMapping.destroy({ where: { roleId, userId: { [Op.in]: onlyOf } } });
      if (userIds.length) await db.models.UserRoleMapping.bulkCreate(userIds.map((userId) => ({ userId, roleId })));
    },
  };
}

/** The provider's imported users (id and entry DN) by lower-cased entry DN (two statements). */
async function federatedByDn(db: Db, p: Provider): Promise<Map<string, { userId: string; dn: string }>> {
  const users = await db.models.User.findAll({ where: { federationLink: p.cfg.id }, attributes: ['id'] });
  if (!users.length) return new Map();
  const rows = await db.models.UserAttribute.findAll({ where: { name: LDAP_ENTRY_DN, userId: { [Op.in]: users.map((u) => u.id) } } });
  return new Map(rows.map((r) => [r.value.toLowerCase(), { userId: r.userId, dn: r.value }]));
}

const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);

function ldapSettings(m: Mapper) {
  const dn = conf(m, 'groups.dn', 'roles.dn') ?? '';
  const nameAttr = conf(m, 'group.name.ldap.attribute', 'role.name.ldap.attribute') || 'cn';
  const classes = (conf(m, 'group.object.classes', 'role.object.classes') || 'groupOfNames')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const extra = conf(m, 'groups.ldap.filter', 'roles.ldap.filter')?.trim() ?? '';
  const memberAttr = m.config['membership.ldap.attribute'] || 'member';
  const filter = `(&${classes.map((c) => `(objectClass=${Filter.escape(c)})`).join('')}${extra})`;
  return { dn, nameAttr, classes, memberAttr, filter };
}

/** fedToKeycloak: groups or roles from LDAP, and their members among the provider's imported users. */
export async function syncMapperFromDirectory(db: Db, realm: RealmModel, p: Provider, m: Mapper): Promise<SyncResult> {
  if (m.providerId !== 'group-ldap-mapper' && m.providerId !== 'role-ldap-mapper') return withStatus(emptyResult());
  const s = ldapSettings(m);
  const entries = await withAdmin(
    p.cfg,
    async (c) =>
      (await c.search(s.dn, { scope: 'sub', filter: s.filter, attributes: [s.nameAttr, s.memberAttr], paged: p.cfg.pagination }))
        .searchEntries,
  );
  const groups = entries
    .map((e) => ({ name: list(e[s.nameAttr])[0], members: list(e[s.memberAttr]).map((d) => d.toLowerCase()) }))
    .filter((g) => g.name);
  const r = emptyResult();
  const byDn = await federatedByDn(db, p);
  await db.transaction(async () => {
    const target = isGroupMapper(m) ? await groupTarget(db, realm, m) : await roleTarget(db, realm, m);
    const { ids, created } = await target.names(groups.map((g) => g.name));
    r.added = created;
    r.updated = groups.length - created;
    if (isGroupMapper(m) && m.config['drop.non.existing.groups.during.sync'] === 'true') {
      const keep = new Set(groups.map((g) => g.name));
      const gone = [...ids].filter(([n]) => !keep.has(n)).map(([, id]) => id);
      if (gone.length) await target.drop(gone);
      r.removed = gone.length;
    }
    const ours = [...byDn.values()].map((x) => x.userId);
    for (const g of groups) {
      const members = g.members.map((d) => byDn.get(d)?.userId).filter((x): x is string => Boolean(x));
      await target.setMembers(ids.get(g.name) as string, [...new Set(members)], ours);
    }
  });
  return withStatus(r);
}

/** keycloakToFed: each Keycloak group or role becomes an LDAP group whose members are its federated users' entries. */
export async function syncMapperToDirectory(db: Db, realm: RealmModel, p: Provider, m: Mapper): Promise<SyncResult> {
  if (m.providerId !== 'group-ldap-mapper' && m.providerId !== 'role-ldap-mapper') return withStatus(emptyResult());
  const s = ldapSettings(m);
  const target = isGroupMapper(m) ? await groupTarget(db, realm, m) : await roleTarget(db, realm, m);
  const all = await target.all();
  const rows = all.size ? await target.members([...all.values()]) : [];
  const byDn = await federatedByDn(db, p);
  const dnOf = new Map([...byDn.values()].map((x) => [x.userId, x.dn]));
  const r = emptyResult();
  await withAdmin(p.cfg, async (c) => {
    const existing = new Set(
      (await c.search(s.dn, { scope: 'sub', filter: s.filter, attributes: [s.nameAttr] })).searchEntries.map((e) => list(e[s.nameAttr])[0]),
    );
    for (const [name, id] of all) {
      const members = rows
        .filter((x) => x.targetId === id)
        .map((x) => dnOf.get(x.userId))
        .filter((x): x is string => Boolean(x));
      const dn = `${s.nameAttr}=${name.replace(/([,+"\\<>;=#])/g, '\\$1')},${s.dn}`;
      const value = members.length ? members : [EMPTY_MEMBER];
      if (existing.has(name)) {
        await c.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type: s.memberAttr, values: value }) }));
        r.updated++;
      } else {
        await c.add(dn, { objectClass: s.classes, [s.nameAttr]: name, [s.memberAttr]: value });
        r.added++;
      }
    }
  });
  return withStatus(r);
}
