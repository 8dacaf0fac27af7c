import { Filter } from 'ldapts';
import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { realmStamp, sharedMemo } from '../../core/shared-cache';
import type { Db } from '../../db';
import type { ComponentModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { LDAP_MAPPER_TYPE, USER_STORAGE_TYPE } from '../components/config';
import { type LdapConfig, ldapConfigOf } from './ldap-config';
import { withAdmin } from './ldap-connection';
import {
  binaryAttributesOf,
  isAttributeMapper,
  type LdapUser,
  type Mapper,
  ldapAttributesOf,
  mappersOf,
  userOfEntry,
} from './ldap-mapping';

/**
 * The LDAP providers of a realm and the users in their directories: searches by username, email,
 * UUID or a free-text term (LDAPStorageProvider's lookups), each bounded by a size limit and the
 * provider's read timeout.
 */
export interface Provider {
  cfg: LdapConfig;
  mappers: Mapper[];
}

/** The realm's `ldap` providers (enabled ones unless `all`), by priority, each with its mappers: two statements. */
export async function ldapProviders(db: Db, realm: RealmModel, opts: { all?: boolean; id?: string } = {}): Promise<Provider[]> {
  const rows = await db.models.Component.findAll({
    where: { realmId: realm.id, providerType: USER_STORAGE_TYPE, providerId: 'ldap', ...(opts.id ? { id: opts.id } : {}) },
  });
  const cfgs = rows
    .map(ldapConfigOf)
    .filter((c) => opts.all || c.enabled)
    .sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id));
  if (!cfgs.length) return [];
  const mappers = await db.models.Component.findAll({
    where: { parentId: { [Op.in]: cfgs.map((c) => c.id) }, providerType: LDAP_MAPPER_TYPE },
    order: [['id', 'ASC']],
  });
  return cfgs.map((cfg) => ({ cfg, mappers: mappersOf(mappers.filter((m) => m.parentId === cfg.id)) }));
}

/** The provider of a stored component (its mappers read too). */
export async function providerOf(db: Db, component: ComponentModel): Promise<Provider> {
  const rows = await db.models.Component.findAll({
    where: { parentId: component.id, providerType: LDAP_MAPPER_TYPE },
    order: [['id', 'ASC']],
  });
  return { cfg: ldapConfigOf(component), mappers: mappersOf(rows) };
}

const eq = (attr: string, value: string) => `(${attr}=${Filter.escape(value)})`;

/** The provider's user filter around `inner`: object classes and the custom filter. */
function userFilter(cfg: LdapConfig, inner = ''): string {
  const parts = cfg.objectClasses.map((oc) => eq('objectClass', oc));
  if (cfg.customFilter) parts.push(cfg.customFilter);
  return `(&${parts.join('')}${inner})`;
}

/** Users of the directory matching `inner` (a filter fragment), at most `limit` (0: all, paged). */
export async function searchUsers(p: Provider, inner: string, limit: number): Promise<LdapUser[]> {
  const { cfg, mappers } = p;
  return withAdmin(cfg, async (c) => {
    const { searchEntries } = await c.search(cfg.usersDn, {
      scope: cfg.searchScope,
      filter: userFilter(cfg, inner),
      attributes: ldapAttributesOf(cfg, mappers),
      explicitBufferAttributes: binaryAttributesOf(mappers),
      sizeLimit: Math.max(limit, 0),
      paged: limit > 0 || !cfg.pagination ? false : { pageSize: cfg.batchSize },
    });
    return searchEntries.map((e) => userOfEntry(cfg, mappers, e)).filter((u): u is LdapUser => u !== null);
  });
}

/** Raw entries of the provider's users with these attributes (every user, paged): for the membership mappers. */
export async function searchUserEntries(p: Provider, attributes: string[]) {
  const { cfg } = p;
  return withAdmin(cfg, async (c) => {
    const { searchEntries } = await c.search(cfg.usersDn, {
      scope: cfg.searchScope,
      filter: userFilter(cfg),
      attributes,
      paged: cfg.pagination ? { pageSize: cfg.batchSize } : false,
    });
    return searchEntries;
  });
}

/** The directory user with this username, or null. */
export async function userByUsername(p: Provider, username: string): Promise<LdapUser | null> {
  return (await searchUsers(p, eq(p.cfg.usernameAttribute, username), 2))[0] ?? null;
}

/** The directory user with this email (the email mapper's attribute), or null. */
export async function userByEmail(p: Provider, email: string): Promise<LdapUser | null> {
  const mapper = p.mappers.find((m) => isAttributeMapper(m) && m.config['user.model.attribute'] === 'email');
  const attr = mapper?.config['ldap.attribute'] || 'mail';
  const found = await searchUsers(p, eq(attr, email), 2);
  return found.length === 1 ? found[0] : null;
}

/** The directory user with this UUID, or null. */
export async function userByUuid(p: Provider, uuid: string): Promise<LdapUser | null> {
  return (await searchUsers(p, eq(p.cfg.uuidAttribute, uuid), 2))[0] ?? null;
}

/** The LDAP attribute a user field is mapped to (the user-attribute mapper's, `cn` for a full-name mapper's names). */
function attributesOf(p: Provider, field: 'username' | 'email' | 'firstName' | 'lastName'): string[] {
  if (field === 'username') return [p.cfg.usernameAttribute];
  const attrs = p.mappers
    .filter((m) => isAttributeMapper(m) && m.config['user.model.attribute'] === field)
    .map((m) => m.config['ldap.attribute']);
  if (field !== 'email' && p.mappers.some((m) => m.providerId === 'full-name-ldap-mapper')) attrs.push('cn');
  return attrs;
}

/**
 * One assertion of a search value on `attr`: equality when `exact`, else a substring assertion with
 * `*` as the wildcard (a value of only wildcards is a presence test), the pieces escaped.
 */
function assertion(attr: string, value: string, exact: boolean): string {
  if (exact) return eq(attr, value);
  const pieces = value.split(/\*+/);
  if (pieces.every((x) => x === '')) return `(${attr}=*)`;
  return `(${attr}=${pieces.map((x) => Filter.escape(x)).join('*')})`;
}

/**
 * The directory users a free-text `search` lists, as Keycloak's LDAPStorageProvider#searchLDAP: each
 * whitespace-separated term must match the username, email, first or last name; a term in double
 * quotes matches exactly, any other is a prefix unless it ends with `*`, and `*` inside is a wildcard.
 */
export async function usersBySearch(p: Provider, search: string, limit: number): Promise<LdapUser[]> {
  const attrs = [...new Set((['username', 'email', 'firstName', 'lastName'] as const).flatMap((f) => attributesOf(p, f)))];
  const terms = search.trim().split(/\s+/).filter(Boolean);
  const conditions = terms.map((t) => {
    const exact = t.length >= 2 && t.startsWith('"') && t.endsWith('"');
    const value = exact ? t.slice(1, -1) : t.endsWith('*') ? t : `${t}*`;
    if (!exact && /^\*+$/.test(value)) return '';
    return `(|${attrs.map((a) => assertion(a, value, exact)).join('')})`;
  });
  return searchUsers(p, conditions.join(''), limit);
}

/**
 * The directory users whose username or email contains `value` (`exact`: equals it), as Keycloak's
 * LDAPStorageProvider#searchLDAPByAttributes for the `username` and `email` filters: `*value*`.
 */
export async function usersByField(
  p: Provider,
  field: 'username' | 'email',
  value: string,
  exact: boolean,
  limit: number,
): Promise<LdapUser[]> {
  const attrs = attributesOf(p, field);
  if (!attrs.length) return [];
  const one = (a: string) => (exact ? eq(a, value) : `(${a}=*${Filter.escape(value)}*)`);
  return searchUsers(p, attrs.length === 1 ? one(attrs[0]) : `(|${attrs.map(one).join('')})`, limit);
}

/** Users created or modified since `since` (ms), for the changed-users sync. */
export async function usersChangedSince(p: Provider, since: number): Promise<LdapUser[]> {
  const t = new Date(since)
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return searchUsers(p, `(|(createTimestamp>=${t})(modifyTimestamp>=${t}))`, 0);
}

/** The realm's enabled LDAP providers, shared between requests until the realm's components change (ADR 23 version). */
export function cachedProviders(ctx: RequestContext, realm: RealmModel): Promise<Provider[]> {
  return sharedMemo(ctx, `ldap-providers:${realm.id}`, realmStamp(ctx, realm.id), () => ldapProviders(ctx.db, realm));
}
