import type { Entry } from 'ldapts';
import type { ComponentModel } from '../../db/models/component';
import type { LdapConfig } from './ldap-config';
import { ACCOUNT_ATTRIBUTES, type AccountControl, accountControlOf, accountKindOf, enabledOf } from './msad-account';

/**
 * LDAP entry → user, through the provider's attribute mappers (user-attribute-ldap-mapper and its
 * certificate variant certificate-ldap-mapper, full-name-ldap-mapper, hardcoded-attribute-mapper) and
 * back (the attributes a WRITABLE provider writes). The entry's UUID and DN are kept as the user
 * attributes LDAP_ID and LDAP_ENTRY_DN, as Keycloak keeps them.
 *
 * An attribute mapper with `is.binary.attribute` reads its values as bytes and keeps them base64 in the
 * user attribute, and writes base64-decoded bytes (a value that is not base64 is not written), as
 * LDAPIdentityStore does for binary attributes; a certificate mapper with `is.der.formatted` also takes
 * a PEM value (its BEGIN / END lines) and writes its DER. Values an entry returns with the `;binary`
 * transfer option (OpenLDAP's `userCertificate;binary`) count for the attribute without it.
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

/** The same values in any order. */
export const sameValues = (a: string[] = [], b: string[] = []) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

export const LDAP_ID = 'LDAP_ID';
export const CERTIFICATE_MAPPER = 'certificate-ldap-mapper';

/** The user-attribute mappers: UserAttributeLDAPStorageMapper and its subclass CertificateLDAPStorageMapper. */
export const isAttributeMapper = (m: Pick<Mapper, 'providerId'>): boolean =>
  m.providerId === 'user-attribute-ldap-mapper' || m.providerId === CERTIFICATE_MAPPER;
const isBinary = (m: Mapper) => m.config['is.binary.attribute']?.toLowerCase() === 'true';

/** The LDAP attributes read as bytes (the binary attribute mappers'), for the search's explicitBufferAttributes. */
export function binaryAttributesOf(mappers: Mapper[]): string[] {
  const names = mappers
    .filter((m) => isAttributeMapper(m) && isBinary(m) && m.config['ldap.attribute'])
    .map((m) => m.config['ldap.attribute']);
  return [...new Set(names.flatMap((n) => [n, n.toLowerCase()]))];
}

/** The values of LDAP attributes as ldapts takes them: text, or bytes for a binary attribute. */
export type LdapValues = string[] | Buffer[];

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A user attribute's values as a binary mapper writes them: base64-decoded (a PEM value's body, for a
 * DER-formatted certificate mapper); undefined when no value decodes (the update is skipped, as Keycloak's).
 */
function binaryValues(m: Mapper, vals: string[]): Buffer[] | undefined {
  const der = m.providerId === CERTIFICATE_MAPPER && m.config['is.der.formatted']?.toLowerCase() === 'true';
  const out = vals
    .map((v) => (der ? v.replace(/-----(BEGIN|END)[^-]*-----/g, '') : v).replace(/\s+/g, ''))
    .filter((v) => v !== '' && BASE64.test(v))
    .map((v) => Buffer.from(v, 'base64'));
  return vals.length && !out.length ? undefined : out;
}

/** A mapper's values for the directory: as given, or as bytes for a binary attribute. */
const ldapValuesOf = (m: Mapper, vals: string[]): LdapValues | undefined => (isBinary(m) ? binaryValues(m, vals) : vals);
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

/** An entry's values of `attr` (any case, with or without the `;binary` option); bytes as UTF-8, or base64 when `binary`. */
export const entryValues = (entry: Entry, attr: string, binary = false): string[] => {
  const names = [attr.toLowerCase(), `${attr.toLowerCase()};binary`];
  return Object.keys(entry)
    .filter((k) => names.includes(k.toLowerCase()))
    .flatMap((k) => {
      const v = entry[k];
      return (Array.isArray(v) ? v : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString(binary ? 'base64' : 'utf8') : String(x)));
    });
};

/** The LDAP attributes a search must ask for: the mappers' and the provider's own. */
export function ldapAttributesOf(cfg: LdapConfig, mappers: Mapper[]): string[] {
  const out = new Set([cfg.usernameAttribute, cfg.rdnAttribute, cfg.uuidAttribute, 'createTimestamp', 'modifyTimestamp']);
  for (const m of mappers) {
    if (isAttributeMapper(m) && m.config['ldap.attribute']) out.add(m.config['ldap.attribute']);
    if (m.providerId === 'full-name-ldap-mapper') out.add(m.config['ldap.full.name.attribute'] || 'cn');
    const kind = accountKindOf(m.providerId);
    if (kind) for (const a of ACCOUNT_ATTRIBUTES[kind]) out.add(a);
  }
  return [...out];
}

const CORE = new Set(['username', 'email', 'firstName', 'lastName']);

/** The user an LDAP entry maps to (null when it has no username). */
export function userOfEntry(cfg: LdapConfig, mappers: Mapper[], entry: Entry): LdapUser | null {
  const username = entryValues(entry, cfg.usernameAttribute)[0]?.toLowerCase();
  if (!username) return null;
  const user: LdapUser = {
    dn: entry.dn,
    uuid: entryValues(entry, cfg.uuidAttribute)[0] ?? entry.dn,
    username,
    email: null,
    firstName: null,
    lastName: null,
    attributes: {},
  };
  for (const m of mappers) {
    const accountKind = accountKindOf(m.providerId);
    if (isAttributeMapper(m)) {
      const model = m.config['user.model.attribute'];
      const vals = entryValues(entry, m.config['ldap.attribute'] ?? '', isBinary(m));
      const v = vals.length ? vals : m.config['attribute.default.value'] ? [m.config['attribute.default.value']] : [];
      if (!model || !v.length) continue;
      if (model === 'username') continue;
      if (model === 'email') user.email = v[0].toLowerCase();
      else if (model === 'firstName') user.firstName = v[0];
      else if (model === 'lastName') user.lastName = v[0];
      else user.attributes[model] = v;
    } else if (m.providerId === 'full-name-ldap-mapper' && m.config['write.only'] !== 'true') {
      const full = entryValues(entry, m.config['ldap.full.name.attribute'] || 'cn')[0]?.trim();
      if (!full) continue;
      const i = full.lastIndexOf(' ');
      user.firstName = i < 0 ? null : full.slice(0, i);
      user.lastName = i < 0 ? full : full.slice(i + 1);
    } else if (accountKind) {
      user.account = accountControlOf(accountKind, (attr) => entryValues(entry, attr));
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
): Record<string, LdapValues> {
  const out: Record<string, LdapValues> = {};
  for (const m of mappers) {
    if (m.config['read.only'] === 'true') continue;
    if (isAttributeMapper(m)) {
      const model = m.config['user.model.attribute'];
      const attr = m.config['ldap.attribute'];
      if (!model || !attr || model === 'username') continue;
      let given: string[] | undefined;
      if (model in changed) {
        const v = changed[model as 'email'];
        given = v ? [v] : [];
      } else if (changed.attributes && model in changed.attributes) given = changed.attributes[model];
      const v = given && ldapValuesOf(m, given);
      if (v) out[attr] = v;
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
export function entryOfNewUser(cfg: LdapConfig, mappers: Mapper[], u: NewDirectoryUser): Record<string, LdapValues> {
  const out: Record<string, LdapValues> = { objectClass: [...cfg.objectClasses] };
  const core: Record<string, string | null> = { username: u.username, email: u.email, firstName: u.firstName, lastName: u.lastName };
  for (const m of mappers) {
    if (isAttributeMapper(m)) {
      const model = m.config['user.model.attribute'];
      const attr = m.config['ldap.attribute'];
      if (!model || !attr || (m.config['read.only'] === 'true' && model !== 'username')) continue;
      const given = model in core ? (core[model] ? [core[model] as string] : []) : (u.attributes[model] ?? []);
      const fallback = m.config['attribute.default.value'] || EMPTY_ATTRIBUTE_VALUE;
      const v = ldapValuesOf(m, given.length ? given : m.config['is.mandatory.in.ldap'] === 'true' ? [fallback] : []);
      if (v?.length) out[attr] = v;
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
export function dnOfNewEntry(cfg: LdapConfig, entry: Record<string, LdapValues>): string {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === cfg.rdnAttribute.toLowerCase()) as string;
  return `${cfg.rdnAttribute}=${escapeDnValue(String(entry[key][0]))},${cfg.usersDn}`;
}
