import { Attribute, Change, Filter, NoSuchAttributeError, TypeOrValueExistsError } from 'ldapts';
import type { RequestContext } from '../../core/context';
import { errorA, errorB } from '../../core/errors';
import type { GroupModel } from '../../db/models/group';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserModel } from '../../db/models/user';
import { providerOfUser } from './federation';
import { refuseHardcodedRemoval } from './hardcoded-mappers';
import { ldapLinkOf } from './imported-users';
import { ldapErrorCode, withAdmin } from './ldap-connection';
import type { Mapper } from './ldap-mapping';
import type { Provider } from './ldap-store';
import { EMPTY_MEMBER, groupDn, type MembershipSettings, membershipSettings } from './membership-config';

/**
 * A federated user joining or leaving a group, or granted or losing a role, through the admin API,
 * where a group or role mapper of its provider manages that group or role
 * (GroupLDAPStorageMapper.LDAPGroupMappingsUserDelegate and RoleLDAPStorageMapper's delegate of
 * Keycloak): LDAP_ONLY writes the membership to the LDAP group (creating the group when missing);
 * READ_ONLY refuses to remove a membership that LDAP has (Keycloak's ModelException, 400); IMPORT
 * and memberships LDAP does not have stay local. The local row is written as well in every mode (ADR 45).
 */
type Target = { kind: 'group'; group: GroupModel } | { kind: 'role'; role: RoleModel };

/** Whether the group lies under the mapper's groups path (any realm group for the top level; never an organization's). */
async function inGroupsPath(ctx: RequestContext, realm: RealmModel, s: MembershipSettings, group: GroupModel): Promise<boolean> {
  if (group.organizationId) return false;
  const names = s.groupsPath.split('/').filter(Boolean);
  if (!names.length) return true;
  const chain: string[] = [];
  for (let g: GroupModel | null = group; g && g.parentId !== TOP_LEVEL; ) {
    g = await ctx.db.models.Group.findOne({ where: { id: g.parentId, realmId: realm.id } });
    if (g) chain.unshift(g.name);
  }
  return names.every((n, i) => chain[i] === n);
}

async function roleManaged(ctx: RequestContext, realm: RealmModel, m: Mapper, role: RoleModel): Promise<boolean> {
  if (m.config['use.realm.roles.mapping'] !== 'false') return role.clientId === null;
  const client = await ctx.db.models.Client.findOne({
    where: { realmId: realm.id, clientId: m.config['client.id'] ?? '' },
    attributes: ['id'],
  });
  return client !== null && role.clientId === client.id;
}

/** The membership mappers of the user's provider that manage the target, with their settings. */
async function managing(ctx: RequestContext, realm: RealmModel, user: UserModel, t: Target) {
  if (!user.federationLink) return null;
  const p = await providerOfUser(ctx.db, realm, user);
  if (!p?.cfg.enabled) return null;
  const out: MembershipSettings[] = [];
  for (const m of p.mappers) {
    if (m.providerId !== (t.kind === 'group' ? 'group-ldap-mapper' : 'role-ldap-mapper')) continue;
    const s = membershipSettings(p.cfg, m);
    if (t.kind === 'group' ? await inGroupsPath(ctx, realm, s, t.group) : await roleManaged(ctx, realm, m, t.role)) out.push(s);
  }
  return out.length ? { p, mappers: out } : null;
}

async function memberValue(ctx: RequestContext, s: MembershipSettings, user: UserModel): Promise<string | undefined> {
  return s.memberType === 'DN' ? (await ldapLinkOf(ctx.db, user.id)).dn : user.username;
}

const nameOf = (t: Target) => (t.kind === 'group' ? t.group.name : t.role.name);

/** The DN of the LDAP group of this name, or undefined. */
async function findLdapGroup(p: Provider, s: MembershipSettings, name: string, member?: string): Promise<string | undefined> {
  const inner = `(${s.nameAttr}=${Filter.escape(name)})${member ? `(${s.memberAttr}=${Filter.escape(member)})` : ''}`;
  return withAdmin(p.cfg, async (c) => {
    const { searchEntries } = await c.search(s.dn, { scope: 'sub', filter: `(&${s.filter}${inner})`, attributes: ['1.1'], sizeLimit: 1 });
    return searchEntries[0]?.dn;
  });
}

function failed(ctx: RequestContext, p: Provider, what: string, e: unknown): never {
  ctx.log.warn(`LDAP provider ${p.cfg.name}: ${what} failed: ${ldapErrorCode(e)}`);
  throw errorA(400, 'Could not write the membership to LDAP');
}

/** Before a user joins a group or is granted a role: LDAP_ONLY mappers write the member to LDAP. */
export async function federatedMembershipAdd(ctx: RequestContext, realm: RealmModel, user: UserModel, t: Target): Promise<void> {
  const found = await managing(ctx, realm, user, t);
  if (!found) return;
  for (const s of found.mappers.filter((x) => x.mode === 'LDAP_ONLY')) {
    const value = await memberValue(ctx, s, user);
    if (!value) continue;
    try {
      const dn = await findLdapGroup(found.p, s, nameOf(t));
      await withAdmin(found.p.cfg, async (c) => {
        if (!dn) {
          await c.add(groupDn(s, nameOf(t)), { objectClass: s.classes, [s.nameAttr]: nameOf(t), [s.memberAttr]: [value] });
          return;
        }
        await c
          .modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: s.memberAttr, values: [value] }) }))
          .catch((e) => {
            if (!(e instanceof TypeOrValueExistsError)) throw e;
          });
        if (s.memberType === 'DN')
          await c
            .modify(dn, new Change({ operation: 'delete', modification: new Attribute({ type: s.memberAttr, values: [EMPTY_MEMBER] }) }))
            .catch(() => undefined);
      });
    } catch (e) {
      failed(ctx, found.p, `membership of ${user.username} in ${nameOf(t)}`, e);
    }
  }
}

/** Before a user leaves a group or loses a role: LDAP_ONLY removes the member in LDAP; READ_ONLY refuses one LDAP has. */
export async function federatedMembershipRemove(ctx: RequestContext, realm: RealmModel, user: UserModel, t: Target): Promise<void> {
  // A role or group a hardcoded mapper of the provider gives cannot be taken (Keycloak's mapper proxies).
  const p = user.federationLink ? await providerOfUser(ctx.db, realm, user) : null;
  if (p)
    await refuseHardcodedRemoval(
      ctx.db,
      realm,
      p,
      t.kind === 'role' ? { kind: 'role', roleId: t.role.id } : { kind: 'group', groupId: t.group.id },
    );
  const found = await managing(ctx, realm, user, t);
  if (!found) return;
  for (const s of found.mappers.filter((x) => x.mode !== 'IMPORT')) {
    const value = await memberValue(ctx, s, user);
    if (!value) continue;
    let dn: string | undefined;
    try {
      dn = await findLdapGroup(found.p, s, nameOf(t), value);
    } catch (e) {
      failed(ctx, found.p, `membership lookup of ${user.username} in ${nameOf(t)}`, e);
    }
    if (!dn) continue;
    if (s.mode === 'READ_ONLY') {
      const msg = `Not possible to delete LDAP ${t.kind} mappings as mapper mode is READ_ONLY`;
      throw errorB(400, msg, msg);
    }
    const groupEntry = dn;
    try {
      await withAdmin(found.p.cfg, async (c) => {
        const remaining = await c.search(groupEntry, { scope: 'base', attributes: [s.memberAttr] });
        const values = remaining.searchEntries[0]?.[s.memberAttr];
        const last = (Array.isArray(values) ? values.length : values ? 1 : 0) <= 1;
        // groupOfNames must keep a member: the last one is replaced by Keycloak's placeholder.
        const change =
          last && s.memberType === 'DN'
            ? new Change({ operation: 'replace', modification: new Attribute({ type: s.memberAttr, values: [EMPTY_MEMBER] }) })
            : new Change({ operation: 'delete', modification: new Attribute({ type: s.memberAttr, values: [value] }) });
        await c.modify(groupEntry, change).catch((e) => {
          if (!(e instanceof NoSuchAttributeError)) throw e;
        });
      });
    } catch (e) {
      failed(ctx, found.p, `removal of ${user.username} from ${nameOf(t)}`, e);
    }
  }
}
