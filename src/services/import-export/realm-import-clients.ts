import { Op } from 'sequelize';
import { KEY_PROVIDER_TYPE } from '../../auth/keys';
import type { RealmModel } from '../../db/models/realm';
import { HttpError, errorA } from '../../core/errors';
import { attachRealmDefaultScopes } from '../client-scopes/client-scope-links';
import { addRealmDefaultScope, createClientScope } from '../client-scopes/client-scopes';
import { createClient } from '../clients/client-writes';
import type { RequestContext } from '../../core/context';
import { REG_POLICY_TYPE } from '../components/config';
import { mapperRows } from '../client-scopes/protocol-mappers';
import { ADMIN_ROLE_COMPOSITES, ALL_REALM_ROLES } from '../../keycloak/realm-defaults';
import type { SetupSkips } from '../realms/realm-setup';
import { addComposites } from '../roles/role-composites';
import { createRole } from '../roles/roles';
import { addScopeMappingsTo } from '../client-scopes/scope-mappings';
import { findScopeOwner } from '../client-scopes/scope-owner';
import type { ComponentExportRep, RealmRepresentation, ScopeMappingRep } from '../../representations/realm';
import type { Representation } from '../../representations/schema';
import type { UserRep } from '../../representations/user';
import { takenIds } from './import-ids';

/**
 * The client side of a full realm import (POST /admin/realms, core reference §3.2), in Keycloak's
 * order (DefaultExportImportManager.importRealm): client scopes with their mappers and the realm
 * default lists, clients with mappers, secrets and scope links, then — once roles exist — the
 * realm-management admin roles, client scope mappings and scope mappings. Everything goes through
 * the services the admin API uses, inside the realm-creation transaction, on a view of the realm
 * that records no admin events (the import records one CREATE REALM event).
 */
type ClientRep = Representation<'ClientRepresentation'>;
type ClientScopeRep = Representation<'ClientScopeRepresentation'>;
type MapperRep = Representation<'ProtocolMapperRepresentation'>;
const MASK = '**********';
/** The object entries of a representation's list (an import body is not checked entry by entry). */
const list = <T extends object>(v: unknown): T[] =>
  Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) as T[]) : [];
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const without = <T extends object>(rep: T, ...keys: Array<keyof T & string>): T =>
  Object.fromEntries(Object.entries(rep).filter(([k]) => !(keys as string[]).includes(k))) as T;

/** Built-in clients Keycloak does not create when the representation brings them (RealmManager.importRealm). */
const BUILT_IN_CLIENTS = ['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console'];

/** What the representation replaces of a new realm's built-in parts, decided before the realm is set up. */
export function importPlan(rep: RealmRepresentation): { skip: SetupSkips; hasKeyProviders: boolean } {
  const inRep = new Set(list<ClientRep>(rep.clients).map((c) => str(c.clientId)));
  const clients = new Set(BUILT_IN_CLIENTS.filter((c) => inRep.has(c)));
  // account-console is only ever created together with account.
  if (clients.has('account')) clients.add('account-console');
  // An exported master realm brings its own admin client `master-realm` (Keycloak postpones its set-up then).
  if (rep.realm === 'master' && inRep.has('master-realm')) clients.add('master-realm');
  const scopes = Array.isArray(rep.clientScopes) ? list<ClientScopeRep>(rep.clientScopes).map((s) => str(s.name)) : undefined;
  const components = rep.components && typeof rep.components === 'object' ? rep.components : {};
  const policies = list<ComponentExportRep>(components[REG_POLICY_TYPE]).map((p) => str(p.subType));
  return {
    skip: {
      clients,
      // With clientScopes the imported list is the realm's scopes; offline_access is added when missing.
      builtInScopes: scopes ? (scopes.includes('offline_access') ? [] : ['offline_access']) : undefined,
      registrationPolicySubTypes: new Set(policies),
    },
    hasKeyProviders: list(components[KEY_PROVIDER_TYPE]).length > 0,
  };
}

/** A view of the realm on which services record no admin events. */
export function quietRealm(realm: RealmModel): RealmModel {
  return new Proxy(realm, {
    get(target, prop) {
      if (prop === 'settings') return { ...target.settings, adminEventsEnabled: false };
      return Reflect.get(target, prop, target);
    },
  });
}

/** Errors of a nested part as Keycloak's realm import reports them: duplicates 409, lookups 400. */
export async function asImportError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    if (e.status === 409) throw errorA(409, 'Conflict detected. See logs for details');
    if (e.status === 404) throw errorA(400, e.message);
    throw e;
  }
}

/** Mapper representations without the ids some other owner already has. */
async function freeMappers(ctx: RequestContext, owners: Array<{ protocolMappers?: unknown }>): Promise<(reps: unknown) => MapperRep[]> {
  const taken = await takenIds(
    ctx,
    'ProtocolMapper',
    owners.flatMap((o) => list<MapperRep>(o.protocolMappers).map((m) => m.id)),
  );
  return (reps) => list<MapperRep>(reps).map((m) => (taken.has(str(m.id)) ? without(m, 'id') : m));
}

/** clientScopes (with protocolMappers) and the realm default lists by name; unknown names are skipped. */
export async function importClientScopes(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  if (!Array.isArray(rep.clientScopes)) return;
  const scopes = list<ClientScopeRep>(rep.clientScopes);
  const taken = await takenIds(
    ctx,
    'ClientScope',
    scopes.map((s) => s.id),
  );
  const mappers = await freeMappers(ctx, scopes);
  const ids = new Map<string, string>();
  for (const s of scopes) {
    const body = { ...(taken.has(str(s.id)) ? without(s, 'id') : s), protocolMappers: mappers(s.protocolMappers) };
    ids.set(str(s.name), await createClientScope(ctx, realm, body));
  }
  for (const [kind, names_] of [
    ['default', names(rep.defaultDefaultClientScopes)],
    ['optional', names(rep.defaultOptionalClientScopes)],
  ] as const) {
    for (const n of names_) {
      const id = ids.get(n);
      if (id) await addRealmDefaultScope(ctx, realm, kind, id);
      else ctx.log.warn(`Referenced client scope '${n}' doesn't exist`);
    }
  }
}

/**
 * Whether the representation predates `post.logout.redirect.uris` (Keycloak 18): Keycloak's import
 * gives every client without the attribute `+` (post-logout redirects as the redirect URIs, the
 * behaviour before 18). A representation written by 18 or later (an export names its
 * `keycloakVersion`) is taken as it is: a client without the attribute has no post-logout URIs, and
 * adding `+` would widen what it accepts and make the round trip lossy.
 */
export function predatesPostLogoutUris(rep: RealmRepresentation): boolean {
  const major = Number.parseInt(str(rep.keycloakVersion), 10);
  return !(major >= 18);
}

/**
 * A client representation as createClient takes it: masked secrets dropped (a new one is generated),
 * taken ids dropped. No `protocol` for OpenID Connect clients (the default anyway): createClient is
 * POST /clients, whose protocol defaults (adminUrl from rootUrl, backchannel logout attributes, a
 * public client when neither flag is given) Keycloak's realm import does not apply.
 */
function clientBody(c: ClientRep, idTaken: boolean, mappers: MapperRep[], plusLogoutUris: boolean): ClientRep {
  const body = without(c, 'access', 'authorizationSettings');
  // realm-management stays bearer-only: its admin permissions' resource server is imported last (realm-import-authz.ts).
  if (body.clientId === 'realm-management') delete body.authorizationServicesEnabled;
  if (idTaken) delete body.id;
  if (body.secret === MASK) delete body.secret;
  if (body.registrationAccessToken === MASK) delete body.registrationAccessToken;
  if (!body.protocol || body.protocol === 'openid-connect') delete body.protocol;
  const attrs = { ...(body.attributes ?? {}) };
  for (const [k, v] of Object.entries(attrs)) if (v === MASK) delete attrs[k];
  if (plusLogoutUris) attrs['post.logout.redirect.uris'] ??= '+';
  body.attributes = attrs;
  body.protocolMappers = mappers;
  return body;
}

/** Attributes createClient sets itself (the secret's creation time) put back as the representation has them. */
async function keepGivenAttributes(ctx: RequestContext, id: string, given: Record<string, unknown> | undefined): Promise<void> {
  const created = given?.[SECRET_CREATED];
  if (typeof created !== 'string') return;
  const client = await ctx.db.models.Client.findByPk(id);
  const attributes = (client?.settings?.attributes ?? {}) as Record<string, string>;
  if (!client?.secret || attributes[SECRET_CREATED] === created) return;
  client.settings = { ...client.settings, attributes: { ...attributes, [SECRET_CREATED]: created } };
  await client.save();
}
const SECRET_CREATED = 'client.secret.creation.time';

/** clients: validated mappers, secret, scope links by name, service accounts; built-in ones keep their realm_client flag. */
export async function importClients(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  const clients = list<ClientRep>(rep.clients);
  if (!clients.length) return;
  const taken = await takenIds(
    ctx,
    'Client',
    clients.map((c) => c.id),
  );
  const mappers = await freeMappers(ctx, clients);
  const plusLogoutUris = predatesPostLogoutUris(rep);
  const realmClients: string[] = [];
  for (const c of clients) {
    const own = mappers(c.protocolMappers);
    // The mapper checks of the protocol-mappers endpoints (type, name, protocol, config), before any write.
    mapperRows(own, str(c.protocol) || 'openid-connect', { clientId: 'check' });
    const id = await createClient(ctx, realm, clientBody(c, taken.has(str(c.id)), own, plusLogoutUris));
    await keepGivenAttributes(ctx, id, c.attributes ?? undefined);
    if (str(c.attributes?.realm_client) === 'true') realmClients.push(id);
  }
  if (realmClients.length) await ctx.db.models.Client.update({ realmClient: true }, { where: { id: { [Op.in]: realmClients } } });
  // Built-in clients the setup created get the imported realm default scopes (the built-in scopes were not created).
  if (Array.isArray(rep.clientScopes)) {
    const inRep = new Set(clients.map((c) => str(c.clientId)));
    const builtIn = await ctx.db.models.Client.findAll({
      where: { realmId: realm.id, clientId: { [Op.in]: BUILT_IN_CLIENTS.filter((c) => !inRep.has(c)) } },
      attributes: ['id', 'protocol'],
    });
    for (const b of builtIn) await attachRealmDefaultScopes(ctx, realm, b.id, b.protocol || 'openid-connect');
  }
}

/** realm-management brought by the representation still gets every admin role and composite (checkRealmAdminManagementRoles). */
export async function ensureRealmAdminRoles(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  if (!list<ClientRep>(rep.clients).some((c) => c.clientId === 'realm-management')) return;
  const m = ctx.db.models;
  const client = await m.Client.findOne({ where: { realmId: realm.id, clientId: 'realm-management' }, attributes: ['id'] });
  if (!client) return;
  const wanted = ['realm-admin', ...ALL_REALM_ROLES, 'impersonation'];
  const have = new Set((await m.Role.findAll({ where: { clientId: client.id }, attributes: ['name'] })).map((r) => r.name));
  for (const name of wanted.filter((n) => !have.has(n))) {
    await createRole(ctx, realm, client.id, { name, description: `\${role_${name}}` });
  }
  const roles = await m.Role.findAll({ where: { clientId: client.id, name: { [Op.in]: wanted } }, attributes: ['id', 'name'] });
  const idOf = new Map(roles.map((r) => [r.name, r.id]));
  const edges: Array<[string, string[]]> = [
    ['realm-admin', [...ALL_REALM_ROLES, 'impersonation']],
    ...Object.entries(ADMIN_ROLE_COMPOSITES),
  ];
  for (const [parent, children] of edges) {
    const ids = children.map((n) => ({ id: idOf.get(n) }));
    await addComposites(ctx, realm, { name: parent, clientUuid: client.id }, ids);
  }
}

/** Role ids by name in a container; names missing are created, as Keycloak's import does. */
async function roleIds(ctx: RequestContext, realm: RealmModel, clientUuid: string | undefined, wanted: string[]): Promise<string[]> {
  const containerId = clientUuid ?? realm.id;
  const find = async () =>
    new Map(
      (await ctx.db.models.Role.findAll({ where: { containerId, name: { [Op.in]: wanted } }, attributes: ['id', 'name'] })).map((r) => [
        r.name,
        r.id,
      ]),
    );
  let found = await find();
  const missing = [...new Set(wanted.filter((n) => !found.has(n)))];
  for (const name of missing) await createRole(ctx, realm, clientUuid, { name });
  if (missing.length) found = await find();
  return wanted.map((n) => found.get(n) as string);
}

/** The owner of a ScopeMappingRepresentation: a client by clientId or a client scope by name. */
async function scopeOwner(
  ctx: RequestContext,
  realm: RealmModel,
  s: ScopeMappingRep,
): Promise<{ type: 'clients' | 'client-scopes'; id: string }> {
  const m = ctx.db.models;
  if (typeof s.client === 'string') {
    const c = await m.Client.findOne({ where: { realmId: realm.id, clientId: s.client }, attributes: ['id'] });
    if (!c) throw errorA(400, `Unknown client specification in scope mappings: ${s.client}`);
    return { type: 'clients', id: c.id };
  }
  const name = str(s.clientScope) || str(s.clientTemplate);
  if (!name) throw errorA(400, 'Either client or clientScope needs to be specified in scope mappings');
  const scope = await m.ClientScope.findOne({ where: { realmId: realm.id, name }, attributes: ['id'] });
  if (!scope) throw errorA(400, `Unknown clientScope specification in scope mappings: ${name}`);
  return { type: 'client-scopes', id: scope.id };
}

/** clientScopeMappings (`{clientId: [{client|clientScope, roles}]}`) then scopeMappings (realm roles). */
export async function importScopeMappings(ctx: RequestContext, realm: RealmModel, rep: RealmRepresentation): Promise<void> {
  const byClient = rep.clientScopeMappings && typeof rep.clientScopeMappings === 'object' ? rep.clientScopeMappings : {};
  for (const [clientId, mappings] of Object.entries(byClient)) {
    const c = await ctx.db.models.Client.findOne({ where: { realmId: realm.id, clientId }, attributes: ['id'] });
    if (!c) throw errorA(400, `Unable to find client role mappings for client: ${clientId}`);
    for (const s of list<ScopeMappingRep>(mappings)) {
      const owner = await scopeOwner(ctx, realm, s);
      const roles = names(s.roles).map((n) => n.trim());
      await roleIds(ctx, realm, c.id, roles);
      await addScopeMappingsTo(
        ctx,
        realm,
        await findScopeOwner(ctx, realm, owner.type, owner.id),
        c.id,
        roles.map((name) => ({ name })),
      );
    }
  }
  for (const s of list<ScopeMappingRep>(rep.scopeMappings)) {
    const owner = await scopeOwner(ctx, realm, s);
    const ids = await roleIds(
      ctx,
      realm,
      undefined,
      names(s.roles).map((n) => n.trim()),
    );
    await addScopeMappingsTo(
      ctx,
      realm,
      await findScopeOwner(ctx, realm, owner.type, owner.id),
      undefined,
      ids.map((id) => ({ id })),
    );
  }
}

/** The service-account user of a client by clientId (created with the client), or undefined. */
export async function serviceAccountUserId(ctx: RequestContext, realm: RealmModel, clientId: string): Promise<string | undefined> {
  const c = await ctx.db.models.Client.findOne({ where: { realmId: realm.id, clientId }, attributes: ['id'] });
  if (!c) return undefined;
  const u = await ctx.db.models.User.findOne({ where: { realmId: realm.id, serviceAccountClientLink: c.id }, attributes: ['id'] });
  return u?.id;
}

/**
 * The export side of the same shapes (POST /{realm}/partial-export, core reference §3.14):
 * `scopeMappings` (realm roles in scope of client scopes, and of clients when they are exported)
 * and, with clients, `clientScopeMappings` (client roles by their client's clientId).
 */
export async function exportScopeMappings(
  ctx: RequestContext,
  realm: RealmModel,
  clientsIncluded: boolean,
): Promise<{ scopeMappings: ScopeMappingRep[]; clientScopeMappings?: Record<string, ScopeMappingRep[]> }> {
  const m = ctx.db.models;
  const clients = await m.Client.findAll({ where: { realmId: realm.id }, attributes: ['id', 'clientId'], order: [['clientId', 'ASC']] });
  const scopes = await m.ClientScope.findAll({ where: { realmId: realm.id }, attributes: ['id', 'name'], order: [['name', 'ASC']] });
  const owners: Array<{ id: string; key: ScopeMappingRep }> = [
    ...(clientsIncluded ? clients.map((c) => ({ id: c.id, key: { client: c.clientId } })) : []),
    ...scopes.map((s) => ({ id: s.id, key: { clientScope: s.name } })),
  ];
  const links = owners.length ? await m.ScopeMapping.findAll({ where: { ownerId: { [Op.in]: owners.map((o) => o.id) } } }) : [];
  const roleIdList = [...new Set(links.map((l) => l.roleId))];
  const roles = roleIdList.length
    ? await m.Role.findAll({ where: { id: { [Op.in]: roleIdList } }, attributes: ['id', 'name', 'clientId'] })
    : [];
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const clientIdOf = new Map(clients.map((c) => [c.id, c.clientId]));
  const scopeMappings: ScopeMappingRep[] = [];
  const clientScopeMappings: Record<string, ScopeMappingRep[]> = {};
  for (const o of owners) {
    const mine = links
      .filter((l) => l.ownerId === o.id)
      .map((l) => roleById.get(l.roleId))
      .filter((r) => !!r);
    const realmRoles = mine.filter((r) => !r.clientId).map((r) => r.name);
    if (realmRoles.length) scopeMappings.push({ ...o.key, roles: realmRoles.sort() });
    if (!clientsIncluded) continue;
    const byClient = new Map<string, string[]>();
    for (const r of mine) {
      const key = r.clientId ? clientIdOf.get(r.clientId) : undefined;
      if (key) byClient.set(key, [...(byClient.get(key) ?? []), r.name]);
    }
    for (const [key, roleNames] of byClient) {
      clientScopeMappings[key] ??= [];
      clientScopeMappings[key].push({ ...o.key, roles: roleNames.sort() });
    }
  }
  return clientsIncluded ? { scopeMappings, clientScopeMappings } : { scopeMappings };
}

/** Adds `realmRoles` and `clientRoles` (by clientId) to exported user representations, as Keycloak's export has them. */
export async function addExportedRoleNames(ctx: RequestContext, users: UserRep[]): Promise<void> {
  const ids = users.map((u) => str(u.id)).filter(Boolean);
  if (!ids.length) return;
  const m = ctx.db.models;
  const links = await m.UserRoleMapping.findAll({ where: { userId: { [Op.in]: ids } } });
  const roleIdList = [...new Set(links.map((l) => l.roleId))];
  const roles = roleIdList.length
    ? await m.Role.findAll({ where: { id: { [Op.in]: roleIdList } }, attributes: ['id', 'name', 'clientId'] })
    : [];
  const clientIdList = [...new Set(roles.map((r) => r.clientId).filter((c): c is string => !!c))];
  const clients = clientIdList.length
    ? await m.Client.findAll({ where: { id: { [Op.in]: clientIdList } }, attributes: ['id', 'clientId'] })
    : [];
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const clientIdOf = new Map(clients.map((c) => [c.id, c.clientId]));
  for (const u of users) {
    const mine = links
      .filter((l) => l.userId === u.id)
      .map((l) => roleById.get(l.roleId))
      .filter((r) => !!r);
    u.realmRoles = mine
      .filter((r) => !r.clientId)
      .map((r) => r.name)
      .sort();
    const byClient: Record<string, string[]> = {};
    for (const r of mine) {
      const key = r.clientId ? clientIdOf.get(r.clientId) : undefined;
      if (key) byClient[key] = [...(byClient[key] ?? []), r.name].sort();
    }
    if (Object.keys(byClient).length) u.clientRoles = byClient;
  }
}
