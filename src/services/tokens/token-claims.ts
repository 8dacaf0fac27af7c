import { Op, QueryTypes } from 'sequelize';
import type { Db } from '../../db';
import type { ClientModel, ClientScopeModel, ProtocolMapperModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserModel } from '../../db/models/user';
import { TOP_LEVEL } from '../../db/models/group';
import { effectiveRoleIdsForUsers, expandComposites } from '../../core/effective-roles';
import { claimValue, convert, setClaim } from './claim-values';
import type { Claims } from '../../representations/token';
import { escapeName } from '../groups/group-paths';
import { mapperType } from '../../keycloak/mapper-types';

/**
 * The mapper engine: which client scopes a request gets (config reference §5.2), which roles
 * the client may put into tokens (full scope or scope mappings), and the claims of the access
 * token, ID token and userinfo computed by applying the protocol mappers of the client and its
 * effective scopes in priority order. Used by the token endpoint and by evaluate-scopes. Queries
 * are batched: their number does not depend on the number of scopes, mappers, roles or groups.
 */
export interface ClaimInput {
  realm: RealmModel;
  client: ClientModel;
  user: UserModel;
  /** The OAuth `scope` parameter (space separated). */
  scope: string;
  sessionId?: string;
  /** User-session notes (AUTH_TIME, client_id, clientHost, clientAddress ...). */
  notes?: Record<string, string>;
}

export interface ClaimSet {
  access: Claims;
  id: Claims;
  userinfo: Claims;
  /** Audiences added to the access token / ID token (the ID token's own client comes first). */
  accessAud: string[];
  idAud: string[];
}

/** The client's effective scopes for a scope parameter: requested optional scopes first, then the default ones. */
export async function effectiveClientScopes(db: Db, client: ClientModel, scope: string): Promise<ClientScopeModel[]> {
  const links = await db.models.ClientScopeClient.findAll({ where: { clientId: client.id } });
  if (!links.length) return [];
  const scopes = await db.models.ClientScope.findAll({ where: { id: { [Op.in]: links.map((l) => l.scopeId) } }, order: [['name', 'ASC']] });
  const wanted = new Set(scope.split(/\s+/).filter(Boolean));
  const isDefault = new Map(links.map((l) => [l.scopeId, Boolean(l.defaultScope)]));
  const protocol = client.protocol || 'openid-connect';
  const usable = scopes.filter((s) => s.protocol === protocol);
  return [...usable.filter((s) => !isDefault.get(s.id) && wanted.has(s.name)), ...usable.filter((s) => isDefault.get(s.id))];
}

/** Role ids the client may put into tokens through these scopes, or null for a full-scope client. */
export async function scopeRoleIds(db: Db, client: ClientModel, scopes: ClientScopeModel[]): Promise<Set<string> | null> {
  if (client.fullScopeAllowed) return null;
  const owners = [client.id, ...scopes.map((s) => s.id)];
  const rows = await db.models.ScopeMapping.findAll({ where: { ownerId: { [Op.in]: owners } }, attributes: ['roleId'] });
  const expanded = await expandComposites(db, new Set(rows.map((r) => r.roleId)));
  const out = new Set<string>([...expanded.values()].flatMap((s) => [...s]));
  for (const r of await db.models.Role.findAll({ where: { clientId: client.id }, attributes: ['id'] })) out.add(r.id);
  return out;
}

/** Protocol mappers of the client and of its effective scopes (client protocol only), ordered by priority. */
export async function effectiveMappers(db: Db, client: ClientModel, scopes: ClientScopeModel[]): Promise<ProtocolMapperModel[]> {
  const ownerCond = [{ clientId: client.id }, ...(scopes.length ? [{ clientScopeId: { [Op.in]: scopes.map((s) => s.id) } }] : [])];
  const rows = await db.models.ProtocolMapper.findAll({ where: { [Op.or]: ownerCond } });
  const order = new Map<string, number>(scopes.map((s, i) => [s.id, i]));
  const rank = (m: ProtocolMapperModel) => (m.clientId ? scopes.length : (order.get(m.clientScopeId as string) ?? 0));
  const protocol = client.protocol || 'openid-connect';
  return rows
    .filter((m) => m.protocol === protocol && mapperType(m.protocolMapper))
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
    .sort((a, b) => (mapperType(a.protocolMapper)?.priority ?? 0) - (mapperType(b.protocolMapper)?.priority ?? 0));
}

/** The roles granted to the user in tokens of this client: effective roles limited by the client's scope. */
export async function grantedRoles(db: Db, user: UserModel, allowed: Set<string> | null): Promise<RoleModel[]> {
  const effective = (await effectiveRoleIdsForUsers(db, [user.id])).get(user.id) ?? new Set<string>();
  const ids = [...effective].filter((id) => !allowed || allowed.has(id));
  return ids.length ? db.models.Role.findAll({ where: { id: { [Op.in]: ids } }, order: [['name', 'ASC']] }) : [];
}

const PROPERTY: Record<string, (u: UserModel) => unknown> = {
  id: (u) => u.id,
  username: (u) => u.username,
  email: (u) => u.email,
  firstName: (u) => u.firstName,
  lastName: (u) => u.lastName,
  emailVerified: (u) => Boolean(u.emailVerified),
  enabled: (u) => Boolean(u.enabled),
  createdTimestamp: (u) => Number(u.createdTimestamp),
};

/** Everything the mappers read, loaded up front in a bounded number of queries. */
interface Facts {
  input: ClaimInput;
  attributes: Record<string, string[]>;
  groupPaths: string[];
  groupNames: string[];
  groupAttributes: Array<Record<string, string[]>>;
  /** Token roles: realm role names and client roles by clientId (role-name and hardcoded-role mappers change them). */
  realmRoles: Set<string>;
  clientRoles: Map<string, Set<string>>;
  clientIds: Map<string, string>;
  origins: string[];
}

async function loadFacts(db: Db, input: ClaimInput, mappers: ProtocolMapperModel[], roles: RoleModel[]): Promise<Facts> {
  const types = new Set(mappers.map((m) => m.protocolMapper));
  const needs = (...ids: string[]) => ids.some((id) => types.has(id));
  const attrRows = needs('oidc-usermodel-attribute-mapper', 'oidc-address-mapper')
    ? await db.models.UserAttribute.findAll({ where: { userId: input.user.id }, order: [['id', 'ASC']] })
    : [];
  const attributes: Record<string, string[]> = {};
  for (const r of attrRows) {
    attributes[r.name] ??= [];
    attributes[r.name].push(r.value);
  }
  let groupPaths: string[] = [];
  let groupNames: string[] = [];
  let groupAttributes: Array<Record<string, string[]>> = [];
  if (needs('oidc-group-membership-mapper', 'oidc-usermodel-attribute-mapper')) {
    const memberships = await db.models.UserGroupMembership.findAll({ where: { userId: input.user.id } });
    const direct = memberships.map((m) => m.groupId);
    const ids = direct.length
      ? (
          await db.sequelize.query<{ id: string }>(
            `WITH RECURSIVE anc(id) AS (
               SELECT group_id FROM user_group_membership WHERE user_id = :user
               UNION
               SELECT g.parent_id FROM anc JOIN keycloak_group g ON g.id = anc.id WHERE g.parent_id <> :top
             ) SELECT id FROM anc`,
            { replacements: { user: input.user.id, top: TOP_LEVEL }, type: QueryTypes.SELECT },
          )
        ).map((r) => r.id)
      : [];
    const groups = ids.length ? await db.models.Group.findAll({ where: { id: { [Op.in]: ids } } }) : [];
    const byId = new Map(groups.map((g) => [g.id, g]));
    const chain = (id: string): string[] => {
      const out: string[] = [];
      for (let g = byId.get(id); g && !out.includes(g.id); g = byId.get(g.parentId)) out.unshift(g.id);
      return out;
    };
    const named = direct.filter((g) => byId.has(g));
    groupPaths = named
      .map(
        (g) =>
          `/${chain(g)
            .map((a) => escapeName(byId.get(a)?.name ?? ''))
            .join('/')}`,
      )
      .sort();
    groupNames = named.map((g) => byId.get(g)?.name as string).sort();
    const all = [...new Set(named.flatMap((g) => chain(g).reverse()))];
    groupAttributes = all.map((g) => byId.get(g)?.attributes ?? {});
  }
  const roleClientIds = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const needAllClients = mappers.some((m) => ['oidc-hardcoded-role-mapper', 'oidc-role-name-mapper'].includes(m.protocolMapper));
  const clients = needAllClients
    ? await db.models.Client.findAll({ where: { realmId: input.realm.id }, attributes: ['id', 'clientId'] })
    : roleClientIds.length
      ? await db.models.Client.findAll({ where: { id: { [Op.in]: roleClientIds } }, attributes: ['id', 'clientId'] })
      : [];
  const clientIds = new Map(clients.map((c) => [c.id, c.clientId]));
  const realmRoles = new Set<string>();
  const clientRoles = new Map<string, Set<string>>();
  for (const r of roles) {
    if (!r.clientId) realmRoles.add(r.name);
    else {
      const cid = clientIds.get(r.clientId) as string;
      if (!clientRoles.has(cid)) clientRoles.set(cid, new Set());
      clientRoles.get(cid)?.add(r.name);
    }
  }
  return {
    input,
    attributes,
    groupPaths,
    groupNames,
    groupAttributes,
    realmRoles,
    clientRoles,
    clientIds,
    origins: webOrigins(input.client),
  };
}

/** The client's allowed web origins: `+` means the origins of its redirect URIs. */
function webOrigins(client: ClientModel): string[] {
  const s = client.settings ?? {};
  const out = new Set<string>();
  for (const o of (s.webOrigins as string[] | undefined) ?? []) {
    if (o === '+') {
      for (const uri of (s.redirectUris as string[] | undefined) ?? []) {
        try {
          const u = new URL(uri);
          if (u.protocol.startsWith('http')) out.add(u.origin);
        } catch {
          /* relative or invalid redirect URI: no origin */
        }
      }
    } else if (o !== '-') out.add(o);
  }
  return [...out];
}

/**
 * Raw values of a user attribute (user-profile fields username/email/firstName/lastName included).
 * Without aggregation the user's own values win, else those of the first group that has it;
 * with aggregation the user's and all groups' values are merged.
 */
function attributeValues(f: Facts, name: string, aggregate: boolean): string[] {
  const u = f.input.user;
  const builtIn: Record<string, string | null> = { username: u.username, email: u.email, firstName: u.firstName, lastName: u.lastName };
  const own = name in builtIn ? (builtIn[name] != null ? [builtIn[name] as string] : []) : (f.attributes[name] ?? []);
  if (!aggregate) return own.length ? own : (f.groupAttributes.find((a) => a[name]?.length)?.[name] ?? []);
  return [...new Set([...own, ...f.groupAttributes.flatMap((a) => a[name] ?? [])])];
}

/** Parses a `role` config: `realmRole` or `clientId.roleName` (the longest known clientId prefix wins). */
function parseRole(f: Facts, role: string): { client?: string; name: string } {
  const known = new Set(f.clientIds.values());
  for (let i = role.lastIndexOf('.'); i > 0; i = role.lastIndexOf('.', i - 1)) {
    if (known.has(role.slice(0, i))) return { client: role.slice(0, i), name: role.slice(i + 1) };
  }
  return { name: role };
}

type Sink = (fn: (t: Claims) => void) => void;
interface Targets {
  access: boolean;
  id: boolean;
  userinfo: boolean;
}

/** Which tokens a mapper writes to (`access.token.claim` absent = true, `userinfo` absent = as the ID token). */
function targetsOf(pm: ProtocolMapperModel): Targets {
  const c = pm.config ?? {};
  const id = c['id.token.claim'] === 'true';
  return {
    access: c['access.token.claim'] === undefined || c['access.token.claim'] === 'true',
    id,
    userinfo: c['userinfo.token.claim'] === undefined ? id : c['userinfo.token.claim'] === 'true',
  };
}

function roleClaim(pm: ProtocolMapperModel, names: Iterable<string>, prefix: string, claimName: string, out: Sink): void {
  const c = pm.config;
  const list = [...names].map((n) => `${prefix}${n}`);
  if (!list.length) return;
  const multivalued = c.multivalued === undefined || c.multivalued === 'true';
  const value = claimValue(list, c, multivalued);
  if (value !== undefined) out((t) => setClaim(t, claimName, value));
}

type Out = { claims: (fn: (t: Claims) => void) => void; aud: (a: string) => void };

/** Applies one mapper. Role mappers see the token roles; audience mappers add audiences. */
function apply(pm: ProtocolMapperModel, f: Facts, out: Out): void {
  const c = pm.config ?? {};
  const user = f.input.user;
  const claimName = c['claim.name'];
  const put = (name: string | undefined, value: unknown) => {
    if (name && value !== undefined && value !== null) out.claims((t) => setClaim(t, name, value));
  };
  switch (pm.protocolMapper) {
    case 'oidc-usermodel-attribute-mapper': {
      const values = attributeValues(f, c['user.attribute'] ?? '', c['aggregate.attrs'] === 'true');
      put(claimName, claimValue(values, c, c.multivalued === 'true'));
      return;
    }
    case 'oidc-usermodel-property-mapper': {
      const get = PROPERTY[c['user.attribute'] ?? ''];
      put(claimName, get ? convert(get(user), c['jsonType.label']) : undefined);
      return;
    }
    case 'oidc-full-name-mapper': {
      const name = [user.firstName, user.lastName].filter((x) => x).join(' ');
      put('name', name || undefined);
      return;
    }
    case 'oidc-address-mapper': {
      const a = (k: string) => f.attributes[c[`user.attribute.${k}`] ?? k]?.[0];
      const address: Claims = {};
      for (const [claim, key] of [
        ['formatted', 'formatted'],
        ['street_address', 'street'],
        ['locality', 'locality'],
        ['region', 'region'],
        ['postal_code', 'postal_code'],
        ['country', 'country'],
      ]) {
        const v = a(key);
        if (v !== undefined) address[claim] = v;
      }
      out.claims((t) => {
        t.address = address;
      });
      return;
    }
    case 'oidc-hardcoded-claim-mapper':
      put(claimName, convert(c['claim.value'], c['jsonType.label']));
      return;
    case 'oidc-usersessionmodel-note-mapper':
      put(claimName, convert(f.input.notes?.[c['user.session.note'] ?? ''], c['jsonType.label']));
      return;
    case 'oidc-group-membership-mapper':
      put(claimName, c['full.path'] === 'false' ? f.groupNames : f.groupPaths);
      return;
    case 'oidc-usermodel-realm-role-mapper':
      roleClaim(pm, f.realmRoles, c['usermodel.realmRoleMapping.rolePrefix'] ?? '', claimName || 'realm_access.roles', out.claims);
      return;
    case 'oidc-usermodel-client-role-mapper': {
      const only = c['usermodel.clientRoleMapping.clientId'];
      for (const [clientId, names] of f.clientRoles) {
        if (only && only !== clientId) continue;
        const sub = (s: string) => s.replace(/\$\{client_id\}/g, clientId);
        roleClaim(
          pm,
          names,
          sub(c['usermodel.clientRoleMapping.rolePrefix'] ?? ''),
          sub(claimName || 'resource_access.${client_id}.roles'),
          out.claims,
        );
      }
      return;
    }
    case 'oidc-audience-mapper': {
      const aud = c['included.client.audience'] || c['included.custom.audience'];
      if (aud) out.aud(aud);
      return;
    }
    case 'oidc-audience-resolve-mapper':
      for (const [clientId, names] of f.clientRoles) if (clientId !== f.input.client.clientId && names.size) out.aud(clientId);
      return;
    case 'oidc-allowed-origins-mapper':
      if (f.origins.length) put('allowed-origins', f.origins);
      return;
    case 'oidc-acr-mapper':
      put('acr', '1');
      return;
    case 'oidc-amr-mapper':
      put('amr', ['pwd']);
      return;
    case 'oidc-session-state-mapper':
      put('session_state', f.input.sessionId);
      return;
    case 'oidc-sub-mapper':
      put('sub', user.id);
      return;
    default:
      return;
  }
}

/** Role-changing mappers (role name 10, hardcoded role 20) run on the token roles before the role mappers read them. */
function applyRoleChanges(pm: ProtocolMapperModel, f: Facts): void {
  const c = pm.config ?? {};
  if (!c.role) return;
  const { client, name } = parseRole(f, c.role);
  const set = client ? (f.clientRoles.get(client) ?? new Set<string>()) : f.realmRoles;
  if (pm.protocolMapper === 'oidc-hardcoded-role-mapper') {
    set.add(name);
    if (client) f.clientRoles.set(client, set);
  } else if (pm.protocolMapper === 'oidc-role-name-mapper' && set.has(name) && c['new.role.name']) {
    set.delete(name);
    const renamed = parseRole(f, c['new.role.name']);
    const into = renamed.client ? (f.clientRoles.get(renamed.client) ?? new Set<string>()) : f.realmRoles;
    into.add(renamed.name);
    if (renamed.client) f.clientRoles.set(renamed.client, into);
  }
}

/** Computes the claims of the three token kinds for a user, client and scope parameter. */
export async function computeClaims(db: Db, input: ClaimInput): Promise<ClaimSet> {
  const scopes = await effectiveClientScopes(db, input.client, input.scope);
  const [mappers, allowed] = await Promise.all([effectiveMappers(db, input.client, scopes), scopeRoleIds(db, input.client, scopes)]);
  const roles = await grantedRoles(db, input.user, allowed);
  const facts = await loadFacts(db, input, mappers, roles);
  const set: ClaimSet = { access: {}, id: {}, userinfo: {}, accessAud: [], idAud: [] };
  for (const pm of mappers) {
    if (pm.protocolMapper === 'oidc-hardcoded-role-mapper' || pm.protocolMapper === 'oidc-role-name-mapper') {
      applyRoleChanges(pm, facts);
      continue;
    }
    const t = targetsOf(pm);
    apply(pm, facts, {
      claims: (fn) => {
        if (t.access) fn(set.access);
        if (t.id) fn(set.id);
        if (t.userinfo) fn(set.userinfo);
      },
      aud: (a) => {
        if (t.access && !set.accessAud.includes(a)) set.accessAud.push(a);
        if (t.id && !set.idAud.includes(a)) set.idAud.push(a);
      },
    });
  }
  return set;
}

/** The `aud` claim value: absent, one string, or an array. */
export const audClaim = (list: string[]): Claims => (list.length === 0 ? {} : { aud: list.length === 1 ? list[0] : list });

/** The token `scope` string: `openid` when requested, then the effective scopes with `include.in.token.scope` not false. */
export function scopeString(scopes: ClientScopeModel[], requested: string): string {
  const names = scopes.filter((s) => s.attributes?.['include.in.token.scope'] !== 'false').map((s) => s.name);
  names.sort((a, b) => b.localeCompare(a));
  return [...(requested.split(/\s+/).includes('openid') ? ['openid'] : []), ...names].join(' ');
}
