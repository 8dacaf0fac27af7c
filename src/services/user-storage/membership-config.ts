import { Filter } from 'ldapts';
import type { LdapConfig } from './ldap-config';
import { escapeDnValue, type Mapper } from './ldap-mapping';

/**
 * The settings of a group or role mapper (GroupMapperConfig, RoleMapperConfig and
 * CommonLDAPGroupMapperConfig of Keycloak): where its LDAP groups live, how they name their
 * members (a DN in `member`, or a user attribute such as `uid` in `memberUid`), how a user's groups
 * are found (the groups' member attribute, or the user's `memberOf`), the mode, and for groups the
 * Keycloak path and whether LDAP nesting becomes subgroups.
 */
export type MapperMode = 'READ_ONLY' | 'LDAP_ONLY' | 'IMPORT';

export interface MembershipSettings {
  isGroup: boolean;
  dn: string;
  nameAttr: string;
  classes: string[];
  filter: string;
  memberAttr: string;
  /** DN: members are entry DNs; UID: members are values of `memberUserAttr` of the user entries. */
  memberType: 'DN' | 'UID';
  memberUserAttr: string;
  /** Whether a user's groups are read from its memberOf attribute (GET_GROUPS_FROM_USER_MEMBEROF_ATTRIBUTE). */
  fromMemberOf: boolean;
  /**
   * LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY (DN members only): a user is a member of every group
   * that names it or names a group it is a member of, at any depth. Keycloak asks Active Directory's
   * LDAP_MATCHING_RULE_IN_CHAIN for this; here the chain is followed level by level, so that it works
   * against any directory.
   */
  recursive: boolean;
  memberOfAttr: string;
  mode: MapperMode;
  /** Groups: LDAP groups that are members of other LDAP groups become their subgroups. */
  nested: boolean;
  /** Groups: the Keycloak group path the LDAP groups live under ('/' for the top level). */
  groupsPath: string;
}

/** Keycloak's placeholder member of an LDAP group without members (groupOfNames requires one). */
export const EMPTY_MEMBER = 'cn=empty-membership-placeholder';

export const isMembershipMapper = (m: Mapper) => m.providerId === 'group-ldap-mapper' || m.providerId === 'role-ldap-mapper';

/** The settings of a group-ldap-mapper or role-ldap-mapper. */
export function membershipSettings(cfg: LdapConfig, m: Mapper): MembershipSettings {
  const isGroup = m.providerId === 'group-ldap-mapper';
  const c = (group: string, role: string) => m.config[isGroup ? group : role];
  const classes = (c('group.object.classes', 'role.object.classes') || 'groupOfNames')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const extra = c('groups.ldap.filter', 'roles.ldap.filter')?.trim() ?? '';
  const memberType = m.config['membership.attribute.type'] === 'UID' ? 'UID' : 'DN';
  const mode = m.config.mode === 'LDAP_ONLY' || m.config.mode === 'IMPORT' ? m.config.mode : 'READ_ONLY';
  return {
    isGroup,
    dn: c('groups.dn', 'roles.dn') ?? '',
    nameAttr: c('group.name.ldap.attribute', 'role.name.ldap.attribute') || 'cn',
    classes,
    filter: `(&${classes.map((x) => `(objectClass=${Filter.escape(x)})`).join('')}${extra})`,
    memberAttr: m.config['membership.ldap.attribute'] || 'member',
    memberType,
    memberUserAttr: m.config['membership.user.ldap.attribute'] || cfg.usernameAttribute,
    fromMemberOf: m.config['user.roles.retrieve.strategy'] === 'GET_GROUPS_FROM_USER_MEMBEROF_ATTRIBUTE',
    recursive: memberType === 'DN' && m.config['user.roles.retrieve.strategy'] === 'LOAD_GROUPS_BY_MEMBER_ATTRIBUTE_RECURSIVELY',
    memberOfAttr: m.config['memberof.ldap.attribute'] || 'memberOf',
    mode,
    nested: isGroup && memberType === 'DN' && m.config['preserve.group.inheritance'] !== 'false',
    groupsPath: (isGroup && m.config['groups.path']) || '/',
  };
}

/** The DN of the LDAP group of this name under the mapper's DN. */
export const groupDn = (s: MembershipSettings, name: string) => `${s.nameAttr}=${escapeDnValue(name)},${s.dn}`;

/** An entry attribute's values as strings. */
export const valuesOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));

/** An attribute of an ldapts entry by name, case-insensitively. */
export function attrOf(entry: Record<string, unknown>, name: string): string[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? valuesOf(entry[key]) : [];
}
