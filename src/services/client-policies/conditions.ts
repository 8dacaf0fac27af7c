import { lookup, reverse } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Op } from 'sequelize';
import { effectiveRoleIdsForUsers } from '../../core/effective-roles';
import type { ClientModel } from '../../db/models/client';
import { TOP_LEVEL } from '../../db/models/group';
import type { ProviderConfiguration } from '../../representations/client-policy';
import { codeRequestedScope } from '../login/auth-sessions';
import { cibaRequestByAuthReqId } from '../tokens/ciba-store';
import { clientLinkedScopes } from '../tokens/token-claims';
import { groupIdByPath, roleIdFromString } from '../user-storage/hardcoded-mappers';
import { isStorageId, transientEffectiveRoleIds, transientMemberships, transientUserById } from '../user-storage/transient-users';
import type { PolicyContext, PolicyEvent, Vote } from './types';

/**
 * Client-policy conditions (ADR 0032), each voting as its Keycloak namesake: YES, NO, or ABSTAIN on
 * events it does not judge. Only the conditions here act; server info lists exactly these.
 */
type Condition = (conf: ProviderConfiguration, c: PolicyContext) => Vote | Promise<Vote>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []);
const vote = (b: boolean): Vote => (b ? 'YES' : 'NO');
const CRUD = new Set<PolicyEvent>(['REGISTER', 'UPDATE']);
const REQUESTS = new Set<PolicyEvent>([
  'AUTHORIZATION_REQUEST',
  'TOKEN_REQUEST',
  'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST',
  'SERVICE_ACCOUNT_TOKEN_REQUEST',
  'TOKEN_REFRESH',
  'BACKCHANNEL_AUTHENTICATION_REQUEST',
  'BACKCHANNEL_TOKEN_REQUEST',
]);

const accessType = (publicClient: unknown, bearerOnly: unknown) =>
  publicClient === true ? 'public' : bearerOnly === true ? 'bearer-only' : 'confidential';

/**
 * The events Keycloak's ClientAccessTypeCondition judges (those idserver has; REGISTER judges the
 * proposed client only). It abstains on the CIBA events and on pushed authorization requests.
 */
const ACCESS_TYPE_EVENTS = new Set<PolicyEvent>([
  'AUTHORIZATION_REQUEST',
  'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST',
  'TOKEN_REQUEST',
  'SERVICE_ACCOUNT_TOKEN_REQUEST',
  'TOKEN_REFRESH',
  'TOKEN_REFRESH_RESPONSE',
  'TOKEN_REVOKE',
  'LOGOUT_REQUEST',
  'UPDATE',
]);

/**
 * client-access-type: the client's (or, on a write, the proposed) access type is one of `type`; with
 * no `type` configured nothing matches (the console's "confidential" is only the form's default).
 */
const clientAccessType: Condition = (conf, c) => {
  const wanted = new Set(strings(conf.type));
  const proposed = c.rep ? wanted.has(accessType(c.rep.publicClient, c.rep.bearerOnly)) : false;
  if (c.event === 'REGISTER') return vote(proposed);
  if (!ACCESS_TYPE_EVENTS.has(c.event)) return 'ABSTAIN';
  const current = c.client ? wanted.has(accessType(c.client.publicClient, c.client.bearerOnly)) : false;
  return vote(current || (c.event === 'UPDATE' && proposed));
};

/** The events Keycloak's ClientProtocolCondition judges by the stored client (those idserver has; REGISTER judges the proposed one). */
const PROTOCOL_EVENTS = new Set<PolicyEvent>([
  'AUTHORIZATION_REQUEST',
  'TOKEN_REQUEST',
  'SERVICE_ACCOUNT_TOKEN_REQUEST',
  'TOKEN_REFRESH',
  'TOKEN_REFRESH_RESPONSE',
  'LOGOUT_REQUEST',
  'TOKEN_REVOKE',
  'UPDATE',
]);

/** client-type: the client's protocol (`openid-connect`, `saml`) is `protocol`; a client without one matches nothing. */
const clientType: Condition = (conf, c) => {
  const wanted = conf.protocol;
  if (c.event === 'REGISTER') return vote(c.rep?.protocol != null && c.rep.protocol === wanted);
  if (!PROTOCOL_EVENTS.has(c.event)) return 'ABSTAIN';
  return vote(Boolean(c.client?.protocol) && c.client?.protocol === wanted);
};

/** client-updater-context: who writes the client (REGISTER / UPDATE only). */
const clientUpdaterContext: Condition = (conf, c) => {
  if (!CRUD.has(c.event)) return 'ABSTAIN';
  const source = c.updater?.source;
  return vote(Boolean(source) && strings(conf['update-client-source']).includes(String(source)));
};

/** any-client: every client, on every event. */
const anyClient: Condition = () => 'YES';

/** The events Keycloak's ClientRolesCondition judges (those idserver has); client writes are not among them. */
const ROLES_EVENTS = new Set<PolicyEvent>(['AUTHORIZATION_REQUEST', 'TOKEN_REQUEST', 'TOKEN_REFRESH', 'TOKEN_REVOKE', 'LOGOUT_REQUEST']);

/** client-roles: the request's client defines a role named in `roles` (request events only: it abstains on REGISTER / UPDATE). */
const clientRoles: Condition = async (conf, c) => {
  if (!ROLES_EVENTS.has(c.event)) return 'ABSTAIN';
  const names = strings(conf.roles);
  if (!c.client || !names.length) return 'NO';
  const n = await c.db.models.Role.count({ where: { clientId: c.client.id, name: { [Op.in]: names } } });
  return vote(n > 0);
};

/**
 * The scope a request carries, as ClientScopesCondition reads it: the parameter of an authorization,
 * client-credentials or backchannel authentication request; for a code exchange (TOKEN_REQUEST) the
 * scope of the code's authorization request (Keycloak's client-session note), for a CIBA token request
 * that of its authentication request.
 */
async function requestScope(c: PolicyContext): Promise<string | undefined> {
  if (c.event === 'TOKEN_REQUEST') return codeRequestedScope(c.db, c.realm, c.params?.code);
  if (c.event === 'BACKCHANNEL_TOKEN_REQUEST') {
    const id = c.params?.auth_req_id;
    return id ? (await cibaRequestByAuthReqId(c.db, c.realm.id, id))?.scope : undefined;
  }
  return c.params?.scope;
}

/**
 * client-scopes: as Keycloak's ClientScopesCondition on authorization and token requests; `type`
 * Default matches a listed scope among the client's default scopes, Optional one requested in the
 * `scope` parameter among its optional scopes, Any either. A configuration without `scopes` or
 * without a known `type` matches nothing (the console's `offline_access` / Optional are only its form's
 * defaults; Keycloak's class votes NO without `scopes` and fails on a missing `type`).
 */
const clientScopes: Condition = async (conf, c) => {
  if (!REQUESTS.has(c.event) || c.event === 'TOKEN_REFRESH' || c.event === 'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST') return 'ABSTAIN';
  const type = conf.type;
  if (!c.client || conf.scopes == null || (type !== 'Default' && type !== 'Optional' && type !== 'Any')) return 'NO';
  const client = c.client as ClientModel;
  const expected = new Set(strings(conf.scopes));
  const { links, scopes } = await clientLinkedScopes(c.db, client);
  const nameOf = new Map(scopes.map((s) => [s.id, s.name]));
  const defaults = new Set(links.filter((l) => l.defaultScope).map((l) => nameOf.get(l.scopeId)));
  const optional = new Set(links.filter((l) => !l.defaultScope).map((l) => nameOf.get(l.scopeId)));
  const explicit = String((await requestScope(c)) ?? '').split(' ');
  const byDefault = [...expected].some((s) => defaults.has(s));
  const byOptional = explicit.some((s) => expected.has(s) && optional.has(s));
  if (type === 'Default') return vote(byDefault);
  if (type === 'Optional') return vote(byOptional);
  return vote(byDefault || byOptional);
};

/**
 * client-updater-source-roles: the writing user effectively holds (directly, through its groups and
 * their parents, or through composites) a role named in `roles`, each read as Keycloak's
 * KeycloakModelUtils#getRoleFromString (`clientId.role` for a client role, else a realm role), as
 * ClientUpdaterSourceRolesCondition (REGISTER / UPDATE). No `roles`, or no user, votes NO.
 */
const updaterRoles: Condition = async (conf, c) => {
  if (!CRUD.has(c.event)) return 'ABSTAIN';
  const userId = c.updater?.userId;
  const names = strings(conf.roles);
  if (!userId || !names.length) return 'NO';
  const wanted = (await Promise.all(names.map((n) => roleIdFromString(c.db, c.realm, n)))).filter((id): id is string => Boolean(id));
  if (!wanted.length) return 'NO';
  const held = await updaterRoleIds(c, userId);
  return vote(wanted.some((id) => held.has(id)));
};

/**
 * A writing user's effective role ids. A transient user (an import-off LDAP user, ADR 46) has no role
 * mapping rows: its default, hardcoded and mapper roles and its groups' roles are read as the token code
 * reads them (Keycloak asks the user model, UserModel#hasRole, whatever stores it).
 */
async function updaterRoleIds(c: PolicyContext, userId: string): Promise<Set<string>> {
  if (isStorageId(userId)) {
    const user = await transientUserById(c.db, c.realm, userId);
    return user ? transientEffectiveRoleIds(c.db, user) : new Set<string>();
  }
  return (await effectiveRoleIdsForUsers(c.db, [userId])).get(userId) ?? new Set<string>();
}

/**
 * client-updater-source-groups: the writing user is a direct member of a group in `groups`, each a
 * full path (`/parent/child`) or, without a leading slash, the name of a top-level group, as
 * ClientUpdaterSourceGroupsCondition (REGISTER / UPDATE). No `groups`, or no user, votes NO.
 */
const updaterGroups: Condition = async (conf, c) => {
  if (!CRUD.has(c.event)) return 'ABSTAIN';
  const userId = c.updater?.userId;
  const names = strings(conf.groups);
  if (!userId || !names.length) return 'NO';
  const m = c.db.models;
  const wanted = new Set<string>();
  for (const name of names) {
    const id = name.startsWith('/')
      ? await groupIdByPath(c.db, c.realm, name)
      : (await m.Group.findOne({ where: { realmId: c.realm.id, parentId: TOP_LEVEL, name }, attributes: ['id'] }))?.id;
    if (id) wanted.add(id);
  }
  if (!wanted.size) return 'NO';
  // A transient user (ADR 46) is in its default, hardcoded-mapper and directory-mapped groups, not in rows.
  if (isStorageId(userId)) {
    const user = await transientUserById(c.db, c.realm, userId);
    return vote(!!user && (await transientMemberships(c.db, user)).groupIds.some((id) => wanted.has(id)));
  }
  const n = await m.UserGroupMembership.count({ where: { userId, groupId: { [Op.in]: [...wanted] } } });
  return vote(n > 0);
};

/** The addresses a configured trusted host names: itself for an IP address, else its DNS addresses (none when it does not resolve). */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true })).map((a) => a.address.replace(/^::ffff:/, ''));
  } catch {
    return [];
  }
}

/** The host names of an address (reverse DNS); the address itself when it has none, as Java's InetAddress#getHostName. */
async function namesOf(ip: string): Promise<string[]> {
  try {
    const names = await reverse(ip);
    return names.length ? names : [ip];
  } catch {
    return [ip];
  }
}

/**
 * client-updater-source-host: the writer's address is that of one of `trusted-hosts` (an IP address,
 * or a host name resolved by DNS), or its host name (reverse DNS) ends with the domain of a `*.domain`
 * entry, as ClientUpdaterSourceHostsCondition (REGISTER / UPDATE). No `trusted-hosts` votes NO (where
 * Keycloak's class fails the write).
 */
const updaterHost: Condition = async (conf, c) => {
  if (!CRUD.has(c.event)) return 'ABSTAIN';
  const ip = String(c.updater?.ipAddress ?? '').replace(/^::ffff:/, '');
  const hosts = strings(conf['trusted-hosts']);
  if (ip === '' || !hosts.length) return 'NO';
  for (const host of hosts.filter((h) => !h.startsWith('*.'))) {
    if ((await addressesOf(host)).includes(ip)) return 'YES';
  }
  const domains = hosts.filter((h) => h.startsWith('*.')).map((h) => h.slice(2));
  if (!domains.length) return 'NO';
  const names = await namesOf(ip);
  return vote(domains.some((d) => names.some((n) => n.endsWith(d))));
};

const GRANT_OF_EVENT: Partial<Record<PolicyEvent, string>> = {
  TOKEN_REFRESH: 'refresh_token',
  RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST: 'password',
  SERVICE_ACCOUNT_TOKEN_REQUEST: 'client_credentials',
};

/**
 * grant-type: the grant of the request is one of `grant_types` (authorization requests: the code
 * grant for a `code` response type; refresh, password and client-credentials requests). Keycloak's
 * condition does not judge the code exchange itself (TOKEN_REQUEST): it abstains there.
 */
const grantType: Condition = (conf, c) => {
  const wanted = strings(conf.grant_types ?? conf.grantTypes);
  if (c.event === 'AUTHORIZATION_REQUEST') {
    const types = String(c.params?.response_type ?? '').split(' ');
    if (types.includes('code')) return vote(wanted.includes('authorization_code'));
    if (types.includes('token') || types.includes('id_token')) return vote(wanted.includes('implicit'));
    return 'NO';
  }
  const grant = GRANT_OF_EVENT[c.event];
  return grant ? vote(wanted.includes(grant)) : 'ABSTAIN';
};

/** client-attributes' `attributes`: Keycloak's serialized list `[{"key": ..., "value": ...}]`, as a map of values. */
function attributesToMatch(raw: unknown): Map<string, string[]> | undefined {
  let list: unknown = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(list)) return undefined;
  const out = new Map<string, string[]>();
  for (const e of list as { key?: unknown; value?: unknown }[]) {
    if (!e || typeof e.key !== 'string') continue;
    out.set(e.key, [...(out.get(e.key) ?? []), ...(e.value == null ? [] : [String(e.value)])]);
  }
  return out;
}

/** client-attributes: the request's client has every listed attribute with exactly the listed value (events with a stored client). */
const clientAttributes: Condition = (conf, c) => {
  if (!c.client || CRUD.has(c.event)) return 'ABSTAIN';
  const wanted = attributesToMatch(conf.attributes);
  if (!wanted) return 'NO';
  const attrs = (c.client.settings?.attributes as Record<string, string> | undefined) ?? {};
  return vote([...wanted].every(([k, values]) => values.length === 1 && attrs[k] === values[0]));
};

/** The ACR values an authorization request asks for: `acr_values`, and `claims` → id_token → acr (value / values). */
function requestedAcrs(params: Record<string, string | undefined> | undefined): string[] {
  const out = String(params?.acr_values ?? '')
    .split(' ')
    .filter(Boolean);
  try {
    const acr = (JSON.parse(String(params?.claims ?? '{}')) as { id_token?: { acr?: { value?: unknown; values?: unknown } } })?.id_token
      ?.acr;
    if (typeof acr?.value === 'string') out.push(acr.value);
    if (Array.isArray(acr?.values)) out.push(...acr.values.map(String));
  } catch {
    // A claims parameter that is no JSON asks for no ACR.
  }
  return out;
}

/** acr-condition: the authorization request asks for the ACR `acr-property` (authorization requests only). */
const acrCondition: Condition = (conf, c) => {
  if (c.event !== 'AUTHORIZATION_REQUEST') return 'ABSTAIN';
  const wanted = conf['acr-property'];
  return vote(typeof wanted === 'string' && requestedAcrs(c.params).includes(wanted));
};

export const CONDITIONS: Record<string, Condition> = {
  'acr-condition': acrCondition,
  'any-client': anyClient,
  'client-attributes': clientAttributes,
  'grant-type': grantType,
  'client-access-type': clientAccessType,
  'client-roles': clientRoles,
  'client-scopes': clientScopes,
  'client-type': clientType,
  'client-updater-context': clientUpdaterContext,
  'client-updater-source-groups': updaterGroups,
  'client-updater-source-host': updaterHost,
  'client-updater-source-roles': updaterRoles,
};
