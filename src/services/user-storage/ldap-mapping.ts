import type { Entry } from 'ldapts';
import type { ComponentModel } from '../../db/models/component';
import type { LdapConfig } from './ldap-config';
import { ACCOUNT_ATTRIBUTES, type AccountControl, accountControlOf, accountKindOf, enabledOf } from './msad-account';

/**
 * LDAP entry → user, through the provider's attribute mappers (user-attribute-ldap-mapper,
 * full-name-ldap-mapper, hardcoded-attribute-mapper) and back (the attributes a WRITABLE provider
 * writes). The entry's UUID and DN are kept as the user attributes LDAP_ID and LDAP_ENTRY_DN, as
 * Keycloak keeps them.
 */
export interface Mapper {
  id: string;
  name: string;
  providerId: string;
  config: Record<string, string>;
}

export interface LdapUser {
  dn: string;
  uuid: string;
  username: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  emailVerified?: boolean;
  enabled?: boolean;
  /** The account-control facts an MSAD (or AD LDS) account-control mapper reads (msad.ts). */
  account?: AccountControl;
  /** Other user attributes (name → values). */
  attributes: Record<string, string[]>;
}

export const LDAP_ID = 'LDAP_ID';
export const LDAP_ENTRY_DN = 'LDAP_ENTRY_DN';

/** The mappers of a provider with their config flattened to first values. */
export function mappersOf(rows: ComponentModel[]): Mapper[] {
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    providerId: r.providerId,
    config: Object.fromEntries(Object.entries(r.config ?? {}).map(([k, v]) => [k, v[0] ?? ''])),
  }));
}

const values = (entry: Entry, attr: string): string[] => {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
  if (!key) return [];
  const v = entry[key];
  return (Array.isArray(v) ? v : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
};

/** The LDAP attributes a search must ask for: the mappers' and the provider's own. */
export function ldapAttributesOf(cfg: LdapConfig, mappers: Mapper[]): string[] {
  const out = new Set([cfg.usernameAttribute, cfg.rdnAttribute, cfg.uuidAttribute, 'createTimestamp', 'modifyTimestamp']);
  for (const m of mappers) {
    if (m.providerId === 'user-attribute-ldap-mapper' && m.config['ldap.attribute']) out.add(m.config['ldap.attribute']);
    if (m.providerId === 'full-name-ldap-mapper') out.add(m.config['ldap.full.name.attribute'] || 'cn');
    const kind = accountKindOf(m.providerId);
    if (kind) for (const a of ACCOUNT_ATTRIBUTES[kind]) out.add(a);
  }
  return [...out];
}

const CORE = new Set(['username', 'email', 'firstName', 'lastName']);

/** The user an LDAP entry maps to (null when it has no username). */
export function userOfEntry(cfg: LdapConfig, mappers: Mapper[], entry: Entry): LdapUser | null {
  const username = values(entry, cfg.usernameAttribute)[0]?.toLowerCase();
  if (!username) return null;
  const user: LdapUser = {
    dn: entry.dn,
    uuid: values(entry, cfg.uuidAttribute)[0] ?? entry.dn,
    username,
    email: null,
    firstName: null,
    lastName: null,
    attributes: {},
  };
  for (const m of mappers) {
    const accountKind = accountKindOf(m.providerId);
    if (m.providerId === 'user-attribute-ldap-mapper') {
      const model = m.config['user.model.attribute'];
      const vals = values(entry, m.config['ldap.attribute'] ?? '');
      const v = vals.length ? vals : m.config['attribute.default.value'] ? [m.config['attribute.default.value']] : [];
      if (!model || !v.length) continue;
      if (model === 'username') continue;
      if (model === 'email') user.email = v[0].toLowerCase();
      else if (model === 'firstName') user.firstName = v[0];
      else if (model === 'lastName') user.lastName = v[0];
      else user.attributes[model] = v;
    } else if (m.providerId === 'full-name-ldap-mapper' && m.config['write.only'] !== 'true') {
      const full = values(entry, m.config['ldap.full.name.attribute'] || 'cn')[0]?.trim();
      if (!full) continue;
      const i = full.lastIndexOf(' ');
      user.firstName = i < 0 ? null : full.slice(0, i);
      user.lastName = i < 0 ? full : full.slice(i + 1);
    } else if (accountKind) {
      user.account = accountControlOf(accountKind, (attr) => values(entry, attr));
      const enabled = enabledOf(user.account);
      if (enabled !== undefined) user.enabled = enabled;
    } else if (m.providerId === 'hardcoded-attribute-mapper') {
      const attr = m.config['user.model.attribute'];
      const value = m.config['attribute.value'] ?? '';
      if (!attr) continue;
      if (attr === 'emailVerified') user.emailVerified = value.toLowerCase() === 'true';
      else if (attr === 'enabled') user.enabled = value.toLowerCase() === 'true';
      else if (attr === 'email') user.email = value.toLowerCase();
      else if (attr === 'firstName') user.firstName = value;
      else if (attr === 'lastName') user.lastName = value;
      else if (!CORE.has(attr)) user.attributes[attr] = [value];
    }
  }
  user.attributes[LDAP_ID] = [user.uuid];
  user.attributes[LDAP_ENTRY_DN] = [user.dn];
  return user;
}

/** The LDAP attribute values a WRITABLE provider writes for a change of these user fields. */
export function ldapChangesOf(
  mappers: Mapper[],
  changed: Partial<Record<'email' | 'firstName' | 'lastName', string | null>> & { attributes?: Record<string, string[]> },
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of mappers) {
    if (m.config['read.only'] === 'true') continue;
    if (m.providerId === 'user-attribute-ldap-mapper') {
      const model = m.config['user.model.attribute'];
      const attr = m.config['ldap.attribute'];
      if (!model || !attr || model === 'username') continue;
      if (model in changed) {
        const v = changed[model as 'email'];
        out[attr] = v ? [v] : [];
      } else if (changed.attributes && model in changed.attributes) out[attr] = changed.attributes[model];
    } else if (m.providerId === 'full-name-ldap-mapper' && ('firstName' in changed || 'lastName' in changed)) {
      out[m.config['ldap.full.name.attribute'] || 'cn'] = [[changed.firstName, changed.lastName].filter(Boolean).join(' ')];
    }
  }
  return out;
}

/** A DN attribute value escaped as RFC 4514 says (special characters, a leading `#` or space, a trailing space). */
export function escapeDnValue(v: string): string {
  return v
    .replace(/[\\,+"<>;=]/g, '\\$&')
    .replace(/^[#\s]/, '\\$&')
    .replace(/\s$/, '\\ ');
}

/** What Keycloak writes for a mandatory LDAP attribute the user has no value for (LDAPConstants.EMPTY_ATTRIBUTE_VALUE). */
const EMPTY_ATTRIBUTE_VALUE = ' ';

export interface NewDirectoryUser {
  username: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  attributes: Record<string, string[]>;
}

/**
 * The attributes of the entry a WRITABLE provider creates for a new user (LDAPUtils#addUserToLDAP
 * and the mappers' onRegisterUserToLDAP of Keycloak): the object classes, every writable
 * attribute mapper's value (a mandatory one without value gets the mapper's default or a space),
 * the full name, and the hardcoded LDAP attributes.
 */
export function entryOfNewUser(cfg: LdapConfig, mappers: Mapper[], u: NewDirectoryUser): Record<string, string[]> {
  const out: Record<string, string[]> = { objectClass: [...cfg.objectClasses] };
  const core: Record<string, string | null> = { username: u.username, email: u.email, firstName: u.firstName, lastName: u.lastName };
  for (const m of mappers) {
    if (m.providerId === 'user-attribute-ldap-mapper') {
      const model = m.config['user.model.attribute'];
      const attr = m.config['ldap.attribute'];
      if (!model || !attr || (m.config['read.only'] === 'true' && model !== 'username')) continue;
      const given = model in core ? (core[model] ? [core[model] as string] : []) : (u.attributes[model] ?? []);
      const fallback = m.config['attribute.default.value'] || EMPTY_ATTRIBUTE_VALUE;
      const v = given.length ? given : m.config['is.mandatory.in.ldap'] === 'true' ? [fallback] : [];
      if (v.length) out[attr] = v;
    } else if (m.providerId === 'full-name-ldap-mapper' && m.config['read.only'] !== 'true') {
      const full = [u.firstName, u.lastName].filter(Boolean).join(' ');
      out[m.config['ldap.full.name.attribute'] || 'cn'] = [full || EMPTY_ATTRIBUTE_VALUE];
    } else if (m.providerId === 'hardcoded-ldap-attribute-mapper' && m.config['ldap.attribute.name']) {
      out[m.config['ldap.attribute.name']] = [m.config['ldap.attribute.value'] ?? ''];
    }
  }
  if (!Object.keys(out).some((k) => k.toLowerCase() === cfg.rdnAttribute.toLowerCase())) out[cfg.rdnAttribute] = [u.username];
  return out;
}

/** The DN of a new entry: its RDN attribute's first value under the users DN. */
export function dnOfNewEntry(cfg: LdapConfig, entry: Record<string, string[]>): string {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === cfg.rdnAttribute.toLowerCase()) as string;
  return `${cfg.rdnAttribute}=${escapeDnValue(entry[key][0])},${cfg.usersDn}`;
}
