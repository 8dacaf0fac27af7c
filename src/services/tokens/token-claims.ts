import { PAIRWISE_MAPPER, pairwiseSub } from '../clients/pairwise';
import { Op, QueryTypes } from 'sequelize';
import type { Db } from '../../db';
import type { ClientModel, ClientScopeClientModel, ClientScopeModel, ProtocolMapperModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RoleModel } from '../../db/models/role';
import type { UserAttributeModel, UserGroupMembershipModel, UserModel } from '../../db/models/user';
import { fastRows } from '../../loaders';
import { clientStamp, keptForRealm, keptForUser, userStamp } from './client-config-cache';
import { type GroupModel, TOP_LEVEL } from '../../db/models/group';
import { effectiveRoleIdsForUsers, expandComposites } from '../../core/effective-roles';
import { claimValue, convert, setClaim } from './claim-values';
import type { Claims } from '../../representations/token';
import { escapeName } from '../groups/group-paths';
import { acrClaim } from './acr';
import { mapperType } from '../../keycloak/mapper-types';
import {
  asksOrganizationScope,
  type MemberOrganization,
  organizationClaim,
  organizationsOfUsers,
  scopedOrganizations,
  selectedOrganizationNote,
} from '../organizations/organization-claims';
import { isTransient, transientAttributeRows, transientMemberships, withTransientDefaults } from '../user-storage/transient-users';

/**
 * The mapper engine: which client scopes a request gets (config reference §5.2), which roles
 * the client may put into tokens (full scope or scope mappings), and the claims of the access
 * token, ID token, userinfo and introspection answer computed by applying the protocol mappers of
 * the client and its effective scopes in priority order. Used by the token endpoint, userinfo,
 * introspection and evaluate-scopes. Queries
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
  /** Claims of the token introspection answer (mappers' `introspection.token.claim`). */
  introspection: Claims;
  /** Audiences added to the access token / ID token (the ID token's own client comes first) / introspection answer. */
  accessAud: string[];
  idAud: string[];
  introspectionAud: string[];
  /** The pairwise `sub` a pairwise subject mapper gave (it is the refresh token's `sub` too), if any. */
  pairwiseSub?: string;
}

/** The client's effective scopes for a scope parameter: requested optional scopes first, then the default ones. */
export async function effectiveClientScopes(db: Db, client: ClientModel, scope: string): Promise<ClientScopeModel[]> {
  return (await effectiveClientScopesOf(db, [client], scope))[0];
}

interface LinkedScopes {
  links: ClientScopeClientModel[];
  scopes: ClientScopeModel[];
}

/** Per client instance (one request's read of the client): a token request asks for its scopes twice. */
const linkedScopes = new WeakMap<ClientModel, Promise<LinkedScopes>>();

async function readLinkedScopes(db: Db, clients: readonly ClientModel[]): Promise<LinkedScopes> {
  const links = await fastRows<ClientScopeClientModel>(db, db.models.ClientScopeClient, 't.client_id IN (:ids)', {
    ids: [...new Set(clients.map((c) => c.id))],
  });
  if (!links.length) return { links, scopes: [] };
  const scopes = await fastRows<ClientScopeModel>(
    db,
    db.models.ClientScope,
    't.id IN (:ids)',
    { ids: [...new Set(links.map((l) => l.scopeId))] },
    'ORDER BY t.name ASC',
  );
  return { links, scopes };
}

/**
 * A client's scope links and their scopes (ordered by name), two statements read once per client
 * instance: the token endpoint needs them for the granted scope and again for the claims. A client
 * instance is read by the request that uses it, so a write by another request is never hidden.
 */
export function clientLinkedScopes(db: Db, client: ClientModel): Promise<LinkedScopes> {
  let hit = linkedScopes.get(client);
  if (!hit) {
    // Kept between requests while the realm's version holds (client-config-cache.ts).
    hit = keptForRealm(db, `scopes:${client.id}`, clientStamp(client), () => readLinkedScopes(db, [client]));
    linkedScopes.set(client, hit);
    hit.catch(() => linkedScopes.delete(client));
  }
  return hit;
}

/** `effectiveClientScopes` of many clients for one scope parameter (in client order): two statements for all. */
export async function effectiveClientScopesOf(db: Db, clients: readonly ClientModel[], scope: string): Promise<ClientScopeModel[][]> {
  const { links, scopes } = clients.length === 1 ? await clientLinkedScopes(db, clients[0]) : await readLinkedScopes(db, clients);
  if (!links.length) return clients.map(() => []);
  const wanted = new Set(scope.split(/\s+/).filter(Boolean));
  // Each row read once: Sequelize getters are slow, and a filter per client would read every row again.
  const linksOf = new Map<string, Map<string, boolean>>();
  for (const l of links) {
    const clientId = l.clientId;
    if (!linksOf.has(clientId)) linksOf.set(clientId, new Map());
    linksOf.get(clientId)?.set(l.scopeId, Boolean(l.defaultScope));
  }
  const plain = scopes.map((s) => ({ s, id: s.id, protocol: s.protocol }));
  return clients.map((client) => {
    const isDefault = linksOf.get(client.id) ?? new Map<string, boolean>();
    const protocol = client.protocol || 'openid-connect';
    const usable = plain.filter((p) => isDefault.has(p.id) && p.protocol === protocol).map((p) => p.s);
    // `organization:<alias>` and `organization:*` ask for the `organization` scope too (Keycloak's OrganizationScope).
    const asked = (name: string) => wanted.has(name) || (name === 'organization' && asksOrganizationScope(wanted));
    return [...usable.filter((s) => !isDefault.get(s.id) && asked(s.name)), ...usable.filter((s) => isDefault.get(s.id))];
  });
}

/** Role ids the client may put into tokens through these scopes, or null for a full-scope client. */
export async function scopeRoleIds(db: Db, client: ClientModel, scopes: ClientScopeModel[]): Promise<Set<string> | null> {
  return (await scopeRoleIdsOf(db, [{ client, scopes }]))[0];
}

/** `scopeRoleIds` of many clients, each with its effective scopes (in order): three statements for all. */
export async function scopeRoleIdsOf(
  db: Db,
  list: ReadonlyArray<{ client: ClientModel; scopes: ClientScopeModel[] }>,
): Promise<Array<Set<string> | null>> {
  const limited = list.filter((e) => !e.client.fullScopeAllowed);
  if (!limited.length) return list.map(() => null);
  if (list.length === 1) {
    const [{ client, scopes }] = list;
    const key = `scope-roles:${client.id}:${scopes.map((s) => s.id).join(',')}`;
    return [await keptForRealm(db, key, clientStamp(client), async () => (await readScopeRoleIds(db, list))[0])];
  }
  return readScopeRoleIds(db, list);
}

async function readScopeRoleIds(
  db: Db,
  list: ReadonlyArray<{ client: ClientModel; scopes: ClientScopeModel[] }>,
): Promise<Array<Set<string> | null>> {
  const limited = list.filter((e) => !e.client.fullScopeAllowed);
  const ownersOf = (e: (typeof list)[number]) => [e.client.id, ...e.scopes.map((s) => s.id)];
  const owners = [...new Set(limited.flatMap(ownersOf))];
  const rows = await db.models.ScopeMapping.findAll({ where: { ownerId: { [Op.in]: owners } }, attributes: ['ownerId', 'roleId'] });
  const expanded = await expandComposites(db, new Set(rows.map((r) => r.roleId)));
  const clientIds = [...new Set(limited.map((e) => e.client.id))];
  const own = await db.models.Role.findAll({ where: { clientId: { [Op.in]: clientIds } }, attributes: ['id', 'clientId'] });
  const rolesOfOwner = new Map<string, string[]>();
  for (const r of rows) rolesOfOwner.set(r.ownerId, [...(rolesOfOwner.get(r.ownerId) ?? []), r.roleId]);
  const ownRoles = new Map<string, string[]>();
  for (const r of own) ownRoles.set(r.clientId as string, [...(ownRoles.get(r.clientId as string) ?? []), r.id]);
  return list.map((e) => {
    if (e.client.fullScopeAllowed) return null;
    const out = new Set<string>();
    for (const owner of ownersOf(e))
      for (const roleId of rolesOfOwner.get(owner) ?? []) for (const id of expanded.get(roleId) ?? []) out.add(id);
    for (const id of ownRoles.get(e.client.id) ?? []) out.add(id);
    return out;
  });
}

/** Protocol mappers of the client and of its effective scopes (client protocol only), ordered by priority. */
export async function effectiveMappers(db: Db, client: ClientModel, scopes: ClientScopeModel[]): Promise<ProtocolMapperModel[]> {
  return (await effectiveMappersOf(db, [{ client, scopes }]))[0];
}

/** `effectiveMappers` of many clients, each with its effective scopes (in order): one statement for all. */
export async function effectiveMappersOf(
  db: Db,
  list: ReadonlyArray<{ client: ClientModel; scopes: ClientScopeModel[] }>,
): Promise<ProtocolMapperModel[][]> {
  if (!list.length) return [];
  if (list.length === 1) {
    const [{ client, scopes }] = list;
    const key = `mappers:${client.id}:${scopes.map((s) => s.id).join(',')}`;
    return [await keptForRealm(db, key, clientStamp(client), async () => (await readMappers(db, list))[0])];
  }
  return readMappers(db, list);
}

async function readMappers(
  db: Db,
  list: ReadonlyArray<{ client: ClientModel; scopes: ClientScopeModel[] }>,
): Promise<ProtocolMapperModel[][]> {
  const scopeIds = [...new Set(list.flatMap((e) => e.scopes.map((s) => s.id)))];
  const ownerCond = [
    { clientId: { [Op.in]: [...new Set(list.map((e) => e.client.id))] } },
    ...(scopeIds.length ? [{ clientScopeId: { [Op.in]: scopeIds } }] : []),
  ];
  const rows = await db.models.ProtocolMapper.findAll({ where: { [Op.or]: ownerCond } });
  // Each row read once (Sequelize getters are slow): mappers by owning client or scope.
  const byOwner = new Map<string, ProtocolMapperModel[]>();
  for (const m of rows) {
    const owner = (m.clientId ?? m.clientScopeId) as string;
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), m]);
  }
  return list.map(({ client, scopes }) => {
    const order = new Map<string, number>(scopes.map((s, i) => [s.id, i]));
    const rank = (m: ProtocolMapperModel) => (m.clientId ? scopes.length : (order.get(m.clientScopeId as string) ?? 0));
    const protocol = client.protocol || 'openid-connect';
    return [client.id, ...order.keys()]
      .flatMap((owner) => byOwner.get(owner) ?? [])
      .filter((m) => m.protocol === protocol && mapperType(m.protocolMapper))
      .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
      .sort((a, b) => (mapperType(a.protocolMapper)?.priority ?? 0) - (mapperType(b.protocolMapper)?.priority ?? 0));
  });
}

/** The roles granted to the user in tokens of this client: effective roles limited by the client's scope. */
export async function grantedRoles(db: Db, user: UserModel, allowed: Set<string> | null): Promise<RoleModel[]> {
  return (await grantedRolesOf(db, [{ user, allowed }]))[0];
}

/**
 * `grantedRoles` of many user/client pairs (in order): two statements for all. One token's roles,
 * for a user read with its cache version, are kept under the realm's and the user's counters
 * (`keptForUser`): a warm grant reads none.
 */
async function grantedRolesOf(
  db: Db,
  list: ReadonlyArray<{ user: UserModel; allowed: Set<string> | null; client?: ClientModel }>,
): Promise<RoleModel[][]> {
  const [one] = list;
  const stamp = list.length === 1 && one.client ? userStamp(one.client, one.user) : undefined;
  if (stamp === undefined) return readGrantedRoles(db, list);
  // Every effective role of the user (they depend on the user's and the realm's counters only); the
  // client's scope (`allowed`, which the scope parameter changes) is applied to them per request.
  const all = await keptForUser(
    db,
    `effective:${one.user.id}`,
    stamp,
    async () => (await readGrantedRoles(db, [{ user: one.user, allowed: null }]))[0],
  );
  return [one.allowed ? all.filter((r) => one.allowed?.has(r.id)) : all];
}

async function readGrantedRoles(db: Db, list: ReadonlyArray<{ user: UserModel; allowed: Set<string> | null }>): Promise<RoleModel[][]> {
  const effective = await withTransientDefaults(
    db,
    list.map((e) => e.user),
    await effectiveRoleIdsForUsers(db, [...new Set(list.map((e) => e.user.id))]),
  );
  const idsOf = list.map(({ user, allowed }) =>
    [...(effective.get(user.id) ?? new Set<string>())].filter((id) => !allowed || allowed.has(id)),
  );
  const all = [...new Set(idsOf.flat())];
  const roles = all.length ? await fastRows<RoleModel>(db, db.models.Role, 't.id IN (:ids)', { ids: all }, 'ORDER BY t.name ASC') : [];
  return idsOf.map((ids) => {
    const wanted = new Set(ids);
    return roles.filter((r) => wanted.has(r.id));
  });
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
  /** The organizations the token maps (the scope's `organization` form; only when an organization mapper runs in a realm with organizations on). */
  organizations: MemberOrganization[];
}

/** What one claim computation needs besides the facts: its input, mappers and granted roles. */
interface FactsInput {
  input: ClaimInput;
  mappers: ProtocolMapperModel[];
  roles: RoleModel[];
}

/** The facts of many claim computations (in order): the same bounded statements as one, for all of them. */
async function loadFactsOf(db: Db, list: readonly FactsInput[]): Promise<Facts[]> {
  const needs = (e: FactsInput, ...ids: string[]) => e.mappers.some((m) => ids.includes(m.protocolMapper));
  const usersOf = (pred: (e: FactsInput) => boolean) => [...new Set(list.filter(pred).map((e) => e.input.user.id))];
  const attrUsers = usersOf((e) => needs(e, 'oidc-usermodel-attribute-mapper', 'oidc-address-mapper'));
  const stored = attrUsers.length
    ? await fastRows<UserAttributeModel>(db, db.models.UserAttribute, 't.user_id IN (:ids)', { ids: attrUsers }, 'ORDER BY t.id ASC')
    : [];
  // Transient federated users (ADR 46) have their attributes on the entry, their groups from the mappers.
  const transients = [...new Set(list.map((e) => e.input.user).filter(isTransient))];
  const attrRows = [...stored, ...(transientAttributeRows(transients.filter((u) => attrUsers.includes(u.id))) as UserAttributeModel[])];
  const groupUsers = usersOf((e) => needs(e, 'oidc-group-membership-mapper', 'oidc-usermodel-attribute-mapper'));
  // One token's groups: kept under the realm's and the user's counters (memberships raise the user's,
  // group renames, moves and attribute changes the realm's).
  const single = list.length === 1 && groupUsers.length === 1 ? userStamp(list[0].input.client, list[0].input.user) : undefined;
  const extra: Array<{ userId: string; groupId: string }> = [];
  for (const u of transients.filter((t) => groupUsers.includes(t.id)))
    for (const groupId of (await transientMemberships(db, u)).groupIds) extra.push({ userId: u.id, groupId });
  const { memberships, groups } = await keptForUser(db, `groups:${groupUsers[0]}`, single, () => groupsOfUsers(db, groupUsers, extra));
  const byId = new Map(groups.map((g) => [g.id, g]));
  const chain = (id: string): string[] => {
    const out: string[] = [];
    for (let g = byId.get(id); g && !out.includes(g.id); g = byId.get(g.parentId)) out.unshift(g.id);
    return out;
  };
  const needAllClients = (e: FactsInput) => needs(e, 'oidc-hardcoded-role-mapper', 'oidc-role-name-mapper');
  const roleClientIdsOf = (e: FactsInput) => [...new Set(e.roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const allRealms = [...new Set(list.filter(needAllClients).map((e) => e.input.realm.id))];
  const someClients = [...new Set(list.filter((e) => !needAllClients(e)).flatMap(roleClientIdsOf))];
  const clientCond = [
    ...(allRealms.length ? [{ realmId: { [Op.in]: allRealms } }] : []),
    ...(someClients.length ? [{ id: { [Op.in]: someClients } }] : []),
  ];
  const readClients = () => db.models.Client.findAll({ where: { [Op.or]: clientCond }, attributes: ['id', 'realmId', 'clientId'] });
  // One token's role claims: the clients named kept with the token's client (its realm's version).
  const one = list.length === 1 ? list[0].input.client : undefined;
  const clientsKey = `role-clients:${allRealms.join(',')}:${someClients.sort().join(',')}`;
  const clients = clientCond.length ? await (one ? keptForRealm(db, clientsKey, clientStamp(one), readClients) : readClients()) : [];
  const orgOn = (e: FactsInput) =>
    needs(e, 'oidc-organization-membership-mapper') && [true, 'true'].includes(e.input.realm.settings.organizationsEnabled as never);
  const orgUsers = usersOf(orgOn);
  const withOrgAttributes = list.some((e) => orgOn(e) && e.mappers.some((m) => m.config?.addOrganizationAttributes === 'true'));
  const organizations = await organizationsOfUsers(db, orgUsers, withOrgAttributes);
  return list.map((e) => {
    const { input, roles } = e;
    const attributes: Record<string, string[]> = {};
    if (needs(e, 'oidc-usermodel-attribute-mapper', 'oidc-address-mapper')) {
      for (const r of attrRows) {
        if (r.userId !== input.user.id) continue;
        attributes[r.name] ??= [];
        attributes[r.name].push(r.value);
      }
    }
    let groupPaths: string[] = [];
    let groupNames: string[] = [];
    let groupAttributes: Array<Record<string, string[]>> = [];
    if (needs(e, 'oidc-group-membership-mapper', 'oidc-usermodel-attribute-mapper')) {
      const direct = memberships.filter((m) => m.userId === input.user.id).map((m) => m.groupId);
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
    const wanted = needAllClients(e)
      ? (c: (typeof clients)[number]) => c.realmId === input.realm.id
      : (c: (typeof clients)[number]) => roleClientIdsOf(e).includes(c.id);
    const clientIds = new Map(clients.filter(wanted).map((c) => [c.id, c.clientId]));
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
      organizations: orgOn(e)
        ? scopedOrganizations(organizations.get(input.user.id) ?? [], input.scope, input.notes?.[selectedOrganizationNote(input.client.id)])
        : [],
    };
  });
}

/** The client's allowed web origins: `+` means the origins of its redirect URIs. */
export function webOrigins(client: ClientModel): string[] {
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
  introspection: boolean;
}

/**
 * Which tokens a mapper writes to (`access.token.claim` absent = true, `userinfo` absent = as the ID
 * token, `introspection` absent = as the access token: Keycloak's backwards-compatible defaults).
 */
function targetsOf(pm: ProtocolMapperModel): Targets {
  const c = pm.config ?? {};
  const id = c['id.token.claim'] === 'true';
  const access = c['access.token.claim'] === undefined || c['access.token.claim'] === 'true';
  return {
    access,
    id,
    userinfo: c['userinfo.token.claim'] === undefined ? id : c['userinfo.token.claim'] === 'true',
    introspection: c['introspection.token.claim'] === undefined ? access : c['introspection.token.claim'] === 'true',
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
      put('acr', acrClaim(f.input.realm, f.input.client, f.input.notes));
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
    case 'oidc-organization-membership-mapper':
      put(claimName, organizationClaim(f.organizations, c));
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
  return (await computeClaimsOf(db, [input]))[0];
}

/**
 * `computeClaims` of many inputs (in order; evaluate-scopes of a list of clients): the statements
 * of one computation per distinct scope parameter, whatever the number of inputs.
 */
export async function computeClaimsOf(db: Db, inputs: readonly ClaimInput[]): Promise<ClaimSet[]> {
  const scopesOf: ClientScopeModel[][] = inputs.map(() => []);
  for (const scope of new Set(inputs.map((i) => i.scope))) {
    const at = inputs.flatMap((input, i) => (input.scope === scope ? [i] : []));
    const found = await effectiveClientScopesOf(
      db,
      at.map((i) => inputs[i].client),
      scope,
    );
    at.forEach((i, j) => {
      scopesOf[i] = found[j];
    });
  }
  const withScopes = inputs.map((input, i) => ({ client: input.client, scopes: scopesOf[i] }));
  const [mappersOf, allowedOf] = await Promise.all([effectiveMappersOf(db, withScopes), scopeRoleIdsOf(db, withScopes)]);
  const rolesOf = await grantedRolesOf(
    db,
    inputs.map((input, i) => ({ user: input.user, allowed: allowedOf[i], client: input.client })),
  );
  const factsOf = await loadFactsOf(
    db,
    inputs.map((input, i) => ({ input, mappers: mappersOf[i], roles: rolesOf[i] })),
  );
  return inputs.map((_, i) => claimSet(mappersOf[i], factsOf[i]));
}

/** The users' group memberships, and every group they are in directly or through a subgroup. */
async function groupsOfUsers(
  db: Db,
  users: string[],
  extra: Array<{ userId: string; groupId: string }> = [],
): Promise<{ memberships: UserGroupMembershipModel[]; groups: GroupModel[] }> {
  const stored = users.length
    ? await fastRows<UserGroupMembershipModel>(db, db.models.UserGroupMembership, 't.user_id IN (:ids)', { ids: users })
    : [];
  const memberships = [...stored, ...(extra as UserGroupMembershipModel[])];
  // Every group the memberships name, with its ancestors (a member of a subgroup is in its parents too).
  const direct = [...new Set(memberships.map((m) => m.groupId))];
  const ids = direct.length
    ? (
        await db.sequelize.query<{ id: string }>(
          `WITH RECURSIVE anc(id) AS (
             SELECT id FROM keycloak_group WHERE id IN (:groups)
             UNION
             SELECT g.parent_id FROM anc JOIN keycloak_group g ON g.id = anc.id WHERE g.parent_id <> :top
           ) SELECT id FROM anc`,
          { replacements: { groups: direct, top: TOP_LEVEL }, type: QueryTypes.SELECT },
        )
      ).map((r) => r.id)
    : [];
  const groups = ids.length ? await db.models.Group.findAll({ where: { id: { [Op.in]: ids } } }) : [];
  return { memberships, groups };
}

/** Applies the mappers in priority order to the facts. */
function claimSet(mappers: ProtocolMapperModel[], facts: Facts): ClaimSet {
  const set: ClaimSet = { access: {}, id: {}, userinfo: {}, introspection: {}, accessAud: [], idAud: [], introspectionAud: [] };
  for (const pm of mappers) {
    if (pm.protocolMapper === PAIRWISE_MAPPER) {
      // Keycloak's AbstractPairwiseSubMapper: the access, ID, userinfo and refresh tokens' `sub` (not the
      // introspection answer's: the `sub` mapper, an introspection mapper, puts the user id there).
      const sub = pairwiseSub(pm.config ?? {}, facts.input.client, facts.input.user.id);
      if (sub) set.access.sub = set.id.sub = set.userinfo.sub = set.pairwiseSub = sub;
      continue;
    }
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
        if (t.introspection) fn(set.introspection);
      },
      aud: (a) => {
        if (t.access && !set.accessAud.includes(a)) set.accessAud.push(a);
        if (t.id && !set.idAud.includes(a)) set.idAud.push(a);
        if (t.introspection && !set.introspectionAud.includes(a)) set.introspectionAud.push(a);
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
