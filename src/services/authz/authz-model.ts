import { QueryTypes } from 'sequelize';
import { effectiveRoleIdsForUsers } from '../../core/effective-roles';
import type { Db } from '../../db';
import { TOP_LEVEL } from '../../db/models/group';
import type { RealmModel } from '../../db/models/realm';
import { escapeName } from '../groups/group-paths';
import { type AuthzGroup, type AuthzIdentity, type AuthzIndex, type AuthzRealm, indexAuthzModel } from './evaluation';
import { claimValues, idList } from './policy-providers';

/**
 * What the decision engine (evaluation.ts) needs from the database, read in a bounded number of
 * statements whatever the size of the resource server:
 * - `loadAuthzModel`: one resource server's settings, resources with their scopes, scopes, policies with
 *   their config and the policies' resources, scopes and associated policies (5 statements).
 * - `loadAuthzIdentity`: who asks, as Keycloak's KeycloakIdentity sees the requester's access token:
 *   the roles its `realm_access` / `resource_access` claims name (and, for role policies with
 *   `fetchRoles`, the user's stored effective roles), the user's groups with a `realm.group(id)`
 *   look-up for their ancestors, the client scopes its `scope` claim names, and the clients of client
 *   policies by UUID. Each read is made only when a policy of the model needs it (at most 6 statements).
 */

type LinkRow = { kind: 'rs' | 'rp' | 'sp' | 'ap'; a: string; b: string };

/** The links of a resource server's resources and policies, in one statement (a UNION over the four link tables). */
const LINKS_SQL = `SELECT 'rs' AS kind, l.resource_id AS a, l.scope_id AS b FROM resource_scope l
  JOIN resource_server_resource r ON r.id = l.resource_id WHERE r.resource_server_id = :rs
UNION ALL SELECT 'rp', l.policy_id, l.resource_id FROM resource_policy l
  JOIN resource_server_policy p ON p.id = l.policy_id WHERE p.resource_server_id = :rs
UNION ALL SELECT 'sp', l.policy_id, l.scope_id FROM scope_policy l
  JOIN resource_server_policy p ON p.id = l.policy_id WHERE p.resource_server_id = :rs
UNION ALL SELECT 'ap', l.policy_id, l.associated_policy_id FROM associated_policy l
  JOIN resource_server_policy p ON p.id = l.policy_id WHERE p.resource_server_id = :rs`;

const push = (map: Map<string, string[]>, key: string, value: string) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** The resource server of a client (its id is the client's id) indexed for the engine, or null when authorization services are off. */
export async function loadAuthzModel(db: Db, resourceServerId: string): Promise<AuthzIndex | null> {
  const m = db.models;
  const rs = resourceServerId;
  const [server, resources, scopes, policies, links] = await Promise.all([
    m.ResourceServer.findByPk(rs),
    m.AuthzResource.findAll({ where: { resourceServerId: rs }, order: [['name', 'ASC']] }),
    m.AuthzScope.findAll({ where: { resourceServerId: rs }, order: [['name', 'ASC']] }),
    m.AuthzPolicy.findAll({ where: { resourceServerId: rs }, order: [['name', 'ASC']] }),
    db.sequelize.query<LinkRow>(LINKS_SQL, { replacements: { rs }, type: QueryTypes.SELECT }),
  ]);
  if (!server) return null;
  const scopesOf = new Map<string, string[]>();
  const resourcesOfPolicy = new Map<string, string[]>();
  const scopesOfPolicy = new Map<string, string[]>();
  const associatedOf = new Map<string, string[]>();
  const target = { rs: scopesOf, rp: resourcesOfPolicy, sp: scopesOfPolicy, ap: associatedOf } as const;
  for (const l of links) push(target[l.kind], l.a, l.b);
  // Link rows come in no particular order: list what a policy names in name order, alike on every database.
  const rank = new Map<string, number>();
  for (const list of [resources, scopes, policies]) for (const [i, x] of list.entries()) rank.set(x.id, i);
  for (const map of [resourcesOfPolicy, scopesOfPolicy, associatedOf])
    for (const list of map.values()) list.sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  return indexAuthzModel({
    server: {
      id: server.id,
      clientId: server.id,
      policyEnforcementMode: server.policyEnforcementMode,
      decisionStrategy: server.decisionStrategy,
    },
    scopes: scopes.map((s) => ({ id: s.id, name: s.name })),
    resources: resources.map((r) => {
      const own = new Set(scopesOf.get(r.id));
      // in the scopes' name order, so that results list them alike on every database
      const ownScopes = own.size ? scopes.filter((s) => own.has(s.id)).map((s) => ({ id: s.id })) : [];
      return { _id: r.id, name: r.name, type: r.type, owner: r.owner, uris: r.uris, scopes: ownScopes };
    }),
    policies: policies.map((p) => ({
      id: p.id,
      name: p.name,
      type: p.type,
      description: p.description,
      logic: p.logic,
      decisionStrategy: p.decisionStrategy,
      config: p.config ?? {},
      resources: resourcesOfPolicy.get(p.id) ?? [],
      scopes: scopesOfPolicy.get(p.id) ?? [],
      policies: associatedOf.get(p.id) ?? [],
    })),
  });
}

/** Who asks for a decision. */
export interface IdentityInput {
  realm: RealmModel;
  /** The subject's user id (a service account's for a client); null when there is no user. */
  userId: string | null;
  /** A user row stands behind `userId` (its groups and stored roles are read). */
  isUser: boolean;
  /** The requesting client (`azp`, Keycloak's `kc.client.id`). */
  client: { id: string; clientId: string } | null;
  /** The requester's access token claims (roles, scope, anything regex policies read). */
  claims: Record<string, unknown>;
  /** Role ids or realm role names held besides the token's (the evaluate tool's `roleIds`). */
  extraRoles?: string[];
  /**
   * A user without rows (a transient federated user, ADR 46): its direct group ids and its effective
   * role ids (what `fetchRoles` reads), known from its directory entry instead of the tables.
   */
  withoutRows?: { groupIds: string[]; effectiveRoleIds: string[] };
}

type RoleRow = { id: string; name: string; clientUuid: string | null; clientId: string | null };
type GroupRow = { id: string; name: string; parentId: string };

const ROLES_SQL = `SELECT r.id AS id, r.name AS name, r.client_id AS clientUuid, c.client_id AS clientId
  FROM role r LEFT JOIN client c ON c.id = r.client_id WHERE r.id IN (:ids)`;

/** The role names of a token's `realm_access` and of its `resource_access` per clientId. */
function tokenRoles(claims: Record<string, unknown>): { realm: Set<string>; clients: Map<string, Set<string>> } {
  const rolesOf = (v: unknown) => new Set(claimValues((v as { roles?: unknown } | undefined)?.roles));
  const clients = new Map<string, Set<string>>();
  const access = claims.resource_access;
  if (access && typeof access === 'object') for (const [k, v] of Object.entries(access)) clients.set(k, rolesOf(v));
  return { realm: rolesOf(claims.realm_access), clients };
}

/** The policies of the model by provider type. */
function policiesOfType(ix: AuthzIndex, type: string) {
  return [...ix.policyById.values()].filter((p) => p.type === type);
}

/** The realm's groups as the engine sees them: id, name, parent and path. */
function groupLookup(rows: GroupRow[]): (id: string) => AuthzGroup | undefined {
  const byId = new Map(rows.map((g) => [g.id, g]));
  const paths = new Map<string, string>();
  const pathOf = (id: string, depth = 0): string | undefined => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const g = byId.get(id);
    if (!g || depth > 1000) return undefined;
    const parent = g.parentId && g.parentId !== TOP_LEVEL ? pathOf(g.parentId, depth + 1) : '';
    if (parent === undefined) return undefined;
    const path = `${parent}/${escapeName(g.name)}`;
    paths.set(id, path);
    return path;
  };
  return (id) => {
    const g = byId.get(id);
    if (!g) return undefined;
    return { id, name: g.name, path: pathOf(id), parentId: g.parentId === TOP_LEVEL ? null : g.parentId };
  };
}

/** The identity and realm look-ups for one requester (see the file header). */
export async function loadAuthzIdentity(
  db: Db,
  ix: AuthzIndex,
  input: IdentityInput,
): Promise<{ identity: AuthzIdentity; realm: AuthzRealm }> {
  const m = db.models;
  const rolePolicies = policiesOfType(ix, 'role');
  const roleRefs = [...new Set(rolePolicies.flatMap((p) => idList(p.config.roles)))];
  const fetchRoles = input.isUser && input.userId != null && rolePolicies.some((p) => p.config.fetchRoles === 'true');
  const wantGroups = policiesOfType(ix, 'group').length > 0;
  const scopeRefs = [...new Set(policiesOfType(ix, 'client-scope').flatMap((p) => idList(p.config.clientScopes)))];
  const clientRefs = [...new Set(policiesOfType(ix, 'client').flatMap((p) => idList(p.config.clients)))];
  // A user without rows has nothing to read: its groups and stored roles come with the input.
  const userId = input.isUser && !input.withoutRows ? input.userId : null;
  const none = Promise.resolve([]);
  const [roles, stored, memberships, groups, clientScopes, clients] = await Promise.all([
    roleRefs.length ? db.sequelize.query<RoleRow>(ROLES_SQL, { replacements: { ids: roleRefs }, type: QueryTypes.SELECT }) : none,
    fetchRoles && userId ? effectiveRoleIdsForUsers(db, [userId]) : Promise.resolve(new Map<string, Set<string>>()),
    wantGroups && userId ? m.UserGroupMembership.findAll({ where: { userId }, attributes: ['groupId'] }) : none,
    wantGroups
      ? m.Group.findAll({ where: { realmId: input.realm.id }, attributes: ['id', 'name', 'parentId'], raw: true })
      : Promise.resolve([]),
    scopeRefs.length ? m.ClientScope.findAll({ where: { id: scopeRefs }, attributes: ['id', 'name'] }) : none,
    clientRefs.length ? m.Client.findAll({ where: { id: clientRefs }, attributes: ['id', 'clientId'] }) : none,
  ]);

  // Roles: those of the role policies that the token names (realm roles by name, client roles per clientId).
  const held = tokenRoles(input.claims);
  const extra = new Set(input.extraRoles ?? []);
  const roleIds = (roles as RoleRow[])
    .filter((r) =>
      r.clientUuid == null
        ? held.realm.has(r.name) || extra.has(r.name) || extra.has(r.id)
        : (r.clientId != null && held.clients.get(r.clientId)?.has(r.name)) || extra.has(r.id),
    )
    .map((r) => r.id);
  const existingRoles = new Set((roles as RoleRow[]).map((r) => r.id));

  // Client scopes: those of the client-scope policies that the token's `scope` claim names.
  const tokenScopes = new Set(
    String(input.claims.scope ?? '')
      .split(' ')
      .filter(Boolean),
  );
  const scopeRows = clientScopes as Array<{ id: string; name: string }>;
  const clientScopeIds = scopeRows.filter((s) => tokenScopes.has(s.name)).map((s) => s.id);
  const existingScopes = new Set(scopeRows.map((s) => s.id));

  const clientIds = new Map((clients as Array<{ id: string; clientId: string }>).map((c) => [c.id, c.clientId]));
  const group = wantGroups ? groupLookup(groups as unknown as GroupRow[]) : undefined;
  const identity: AuthzIdentity = {
    id: input.userId,
    roleIds,
    fetchedRoleIds:
      input.withoutRows && fetchRoles
        ? input.withoutRows.effectiveRoleIds
        : fetchRoles && userId
          ? [...(stored.get(userId) ?? [])]
          : roleIds,
    groupIds: input.withoutRows ? input.withoutRows.groupIds : (memberships as Array<{ groupId: string }>).map((g) => g.groupId),
    client: input.client,
    clientScopeIds,
    claims: input.claims,
  };
  const realm: AuthzRealm = {
    roleExists: (id) => existingRoles.has(id),
    clientScopeExists: (id) => existingScopes.has(id),
    clientIdOf: (uuid) => clientIds.get(uuid),
    ...(group ? { group } : {}),
  };
  return { identity, realm };
}

/** Keycloak's `kc.*` context attributes of a request (DefaultEvaluationContext), the client's id added by the engine. */
export function contextAttributes(realm: RealmModel, ipAddress?: string): Record<string, string[]> {
  const out: Record<string, string[]> = { 'kc.realm.name': [realm.name] };
  if (ipAddress) {
    out['kc.client.network.ip_address'] = [ipAddress];
    out['kc.client.network.host'] = [ipAddress];
  }
  return out;
}
