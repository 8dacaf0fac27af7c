import { Op } from 'sequelize';
import type { Db } from '../../db';
import { withAdmin } from './ldap-connection';
import { LDAP_ENTRY_DN } from './ldap-mapping';
import { type Provider, searchUserEntries } from './ldap-store';
import { attrOf, type MembershipSettings } from './membership-config';

/**
 * The LDAP side of the membership mappers: the LDAP groups of a mapper, the provider's imported
 * users, and who is a member of which group (MembershipType DN / UID and the UserRolesRetrieveStrategy
 * of Keycloak: the groups' member attribute, or the users' memberOf).
 */
export interface DirectoryGroup {
  dn: string;
  name: string;
  /** Raw values of the membership attribute (DNs or UIDs). */
  members: string[];
}

export interface ProviderUser {
  id: string;
  username: string;
  /** LDAP_ENTRY_DN of the local copy. */
  dn?: string;
}

/** The mapper's LDAP groups (subtree under its DN, its object classes and filter), paged as the provider says. */
export async function directoryGroups(p: Provider, s: MembershipSettings): Promise<DirectoryGroup[]> {
  const entries = await withAdmin(
    p.cfg,
    async (c) =>
      (await c.search(s.dn, { scope: 'sub', filter: s.filter, attributes: [s.nameAttr, s.memberAttr], paged: p.cfg.pagination }))
        .searchEntries,
  );
  return entries
    .map((e) => ({ dn: e.dn, name: attrOf(e, s.nameAttr)[0], members: attrOf(e, s.memberAttr) }))
    .filter((g) => Boolean(g.name));
}

/** The provider's imported users with their entry DNs (two statements). */
export async function providerUsers(db: Db, p: Provider): Promise<ProviderUser[]> {
  const users = await db.models.User.findAll({ where: { federationLink: p.cfg.id }, attributes: ['id', 'username'] });
  if (!users.length) return [];
  const rows = await db.models.UserAttribute.findAll({ where: { name: LDAP_ENTRY_DN, userId: { [Op.in]: users.map((u) => u.id) } } });
  const dnOf = new Map(rows.map((r) => [r.userId, r.value]));
  return users.map((u) => ({ id: u.id, username: u.username, dn: dnOf.get(u.id) }));
}

const lower = (s: string) => s.toLowerCase();

/** Whether the UID members name users by their username attribute (then the local username is the member value). */
const byUsername = (p: Provider, s: MembershipSettings) => lower(s.memberUserAttr) === lower(p.cfg.usernameAttribute);

/** The member ids (local users of the provider) of each LDAP group. */
export async function membersOf(
  p: Provider,
  s: MembershipSettings,
  groups: DirectoryGroup[],
  users: ProviderUser[],
): Promise<Map<DirectoryGroup, string[]>> {
  const out = new Map<DirectoryGroup, string[]>(groups.map((g) => [g, []]));
  const idByDn = new Map(users.filter((u) => u.dn).map((u) => [lower(u.dn as string), u.id]));
  if (s.fromMemberOf) {
    const groupByDn = new Map(groups.map((g) => [lower(g.dn), g]));
    for (const e of await searchUserEntries(p, [s.memberOfAttr])) {
      const id = idByDn.get(lower(e.dn));
      if (!id) continue;
      for (const v of attrOf(e, s.memberOfAttr)) out.get(groupByDn.get(lower(v)) as DirectoryGroup)?.push(id);
    }
    return out;
  }
  let idByKey: Map<string, string>;
  if (s.memberType === 'DN') idByKey = idByDn;
  else if (byUsername(p, s)) idByKey = new Map(users.map((u) => [lower(u.username), u.id]));
  else {
    idByKey = new Map();
    for (const e of await searchUserEntries(p, [s.memberUserAttr])) {
      const id = idByDn.get(lower(e.dn));
      const v = attrOf(e, s.memberUserAttr)[0];
      if (id && v) idByKey.set(lower(v), id);
    }
  }
  const membersOfGroup = s.recursive ? transitiveMembers(groups) : (g: DirectoryGroup) => g.members;
  for (const g of groups)
    out.set(
      g,
      membersOfGroup(g)
        .map((v) => idByKey.get(lower(v)))
        .filter((x): x is string => Boolean(x)),
    );
  return out;
}

/**
 * LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY: a group's members with the members of its member
 * groups, at any depth (each group once, so a cycle ends).
 */
function transitiveMembers(groups: DirectoryGroup[]): (g: DirectoryGroup) => string[] {
  const byDn = new Map(groups.map((g) => [lower(g.dn), g]));
  return (g) => {
    const seen = new Set<DirectoryGroup>([g]);
    const out = new Set<string>();
    const stack = [g];
    for (let x = stack.pop(); x; x = stack.pop()) {
      for (const v of x.members) {
        const inner = byDn.get(lower(v));
        if (!inner) out.add(v);
        else if (!seen.has(inner)) {
          seen.add(inner);
          stack.push(inner);
        }
      }
    }
    return [...out];
  };
}

/** The membership value of each local user: its entry DN, or (UID) its username. */
export function memberValuesOf(s: MembershipSettings, users: ProviderUser[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of users) {
    const v = s.memberType === 'DN' ? u.dn : u.username;
    if (v) out.set(u.id, v);
  }
  return out;
}
