import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { check, requireCap } from '../../auth/permissions';
import type { ClientScopeModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorB } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { type ClientScopeRepresentation, toClientScopeRepresentation, toScopeRef } from '../../representations/client-scope';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { mapperRows } from './protocol-mappers';
import { findClientScopeOr404, resolveClientScope } from './scope-owner';

/**
 * Client scopes (config reference §3): CRUD, the realm default/optional scope lists, and the
 * `{scopeOwner}` resolution shared by protocol mappers and scope mappings. Permissions: list =
 * query-clients (a caller who cannot view gets `[]`), view = view-clients, manage = manage-clients;
 * realm default lists: view = view-clients, manage = manage-realm.
 */
const NAME = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const PROTOCOLS = new Set(['openid-connect', 'saml', 'oid4vc']);

/** Representations of scopes with their mappers (one batched query). */
async function representations(ctx: RequestContext, scopes: ClientScopeModel[]): Promise<ClientScopeRepresentation[]> {
  const mappers = await ctx.loaders.mappersByScope.loadMany(scopes.map((s) => s.id));
  return scopes.map((s, i) => {
    const list = mappers[i];
    return toClientScopeRepresentation(s, Array.isArray(list) ? list : []);
  });
}

/** GET /{realm}/client-scopes: all scopes of the realm (ordered by name) with their mappers. */
export async function listClientScopes(ctx: RequestContext, realm: RealmModel): Promise<ClientScopeRepresentation[]> {
  await requireCap(ctx, realm, 'queryClients');
  if (!(await check(ctx, realm, 'viewClients'))) return [];
  const scopes = await ctx.db.models.ClientScope.findAll({ where: { realmId: realm.id }, order: [['name', 'ASC']] });
  for (const s of scopes) ctx.loaders.clientScopeById.prime(s.id, s);
  return representations(ctx, scopes);
}

/** GET /{realm}/client-scopes/{id}. */
export async function getClientScope(ctx: RequestContext, realm: RealmModel, id: string): Promise<ClientScopeRepresentation> {
  const scope = await resolveClientScope(ctx, realm, id);
  await requireCap(ctx, realm, 'viewClients');
  return (await representations(ctx, [scope]))[0];
}

const invalidName = (name: unknown) =>
  errorA(400, `Unexpected name "${name === undefined || name === null ? 'null' : String(name)}" for ClientScope`);

/** Attribute values as strings; null values dropped. */
function attributesOf(input: ClientScopeRepresentation['attributes']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input ?? {})) {
    if (v === null || v === undefined) continue;
    out[k] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** Keycloak's validation order: name, protocol, dynamic-scope attributes (feature `dynamic-scopes` is off). */
function validate(name: unknown, protocol: unknown, attributes: Record<string, string>, protocolRequired: boolean): void {
  if (typeof name !== 'string' || !NAME.test(name)) throw invalidName(name);
  if ((protocolRequired || protocol !== undefined) && (typeof protocol !== 'string' || !PROTOCOLS.has(protocol))) {
    throw errorA(400, 'Unexpected protocol');
  }
  const dynamic = attributes['is.dynamic.scope'];
  if (dynamic === 'true') throw errorA(400, 'Unexpected value "true" for attribute is.dynamic.scope in ClientScope');
  const regexp = attributes['dynamic.scope.regexp'];
  if (regexp) throw errorA(400, `Unexpected value "${regexp}" for attribute dynamic.scope.regexp in ClientScope`);
}

const exists = (name: string) => errorA(409, `Client Scope ${name} already exists`);

/** POST /{realm}/client-scopes: validates, creates the scope with its mappers; 409 on a duplicate name. Returns the id. */
export async function createClientScope(ctx: RequestContext, realm: RealmModel, rep: ClientScopeRepresentation): Promise<string> {
  await requireCap(ctx, realm, 'manageClients');
  const attributes = attributesOf(rep.attributes);
  validate(rep.name, rep.protocol ?? undefined, attributes, true);
  const name = rep.name as string;
  const protocol = rep.protocol as string;
  const id = rep.id || randomUUID();
  const mappers = mapperRows(rep.protocolMappers ?? [], protocol, { clientScopeId: id });
  await write(ctx, { unique: () => exists(name) }, async () => {
    await ctx.db.models.ClientScope.create({ id, realmId: realm.id, name, protocol, description: rep.description ?? null, attributes });
    if (mappers.length) await ctx.db.models.ProtocolMapper.bulkCreate(mappers);
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'CLIENT_SCOPE',
      resourcePath: `client-scopes/${id}`,
      representation: rep,
    });
  });
  invalidate.clientScope(ctx.loaders, id);
  return id;
}

/** PUT /{realm}/client-scopes/{id}: name required; description/protocol when present; attributes merged; mappers ignored. */
export async function updateClientScope(ctx: RequestContext, realm: RealmModel, id: string, rep: ClientScopeRepresentation): Promise<void> {
  const scope = await resolveClientScope(ctx, realm, id);
  await requireCap(ctx, realm, 'manageClients');
  const attributes = attributesOf(rep.attributes);
  validate(rep.name, rep.protocol ?? undefined, attributes, false);
  const name = rep.name as string;
  try {
    await write(ctx, { unique: () => exists(name) }, async () => {
      scope.name = name;
      if (rep.description !== undefined && rep.description !== null) scope.description = rep.description;
      if (rep.protocol) scope.protocol = rep.protocol;
      scope.attributes = { ...scope.attributes, ...attributes };
      await scope.save();
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'CLIENT_SCOPE',
        resourcePath: `client-scopes/${id}`,
        representation: rep,
      });
    });
  } catch (e) {
    // the cached scope was changed in memory: back to the stored row
    await scope.reload().catch(() => undefined);
    throw e;
  }
  invalidate.clientScope(ctx.loaders, id);
}

/** DELETE /{realm}/client-scopes/{id}: unlinks it from realm lists and clients; the realm's last scope → 403. */
export async function deleteClientScope(ctx: RequestContext, realm: RealmModel, id: string): Promise<void> {
  await resolveClientScope(ctx, realm, id);
  await requireCap(ctx, realm, 'manageClients');
  const m = ctx.db.models;
  await ctx.db.transaction(async () => {
    if ((await m.ClientScope.count({ where: { realmId: realm.id } })) <= 1) {
      throw errorA(403, 'You are not allowed to delete all the client scopes.');
    }
    await m.RealmDefaultClientScope.destroy({ where: { realmId: realm.id, scopeId: id } });
    await m.ClientScopeClient.destroy({ where: { scopeId: id } });
    await m.ScopeMapping.destroy({ where: { ownerId: id } });
    await m.ProtocolMapper.destroy({ where: { clientScopeId: id } });
    await m.ClientScope.destroy({ where: { id } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'CLIENT_SCOPE', resourcePath: `client-scopes/${id}` });
  });
  invalidate.clientScope(ctx.loaders, id);
}

export type RealmScopeList = 'default' | 'optional';

/** GET /{realm}/default-default-client-scopes, /default-optional-client-scopes: `{id, name, protocol}`. */
export async function listRealmDefaultScopes(
  ctx: RequestContext,
  realm: RealmModel,
  list: RealmScopeList,
): Promise<ClientScopeRepresentation[]> {
  await requireCap(ctx, realm, 'viewClients');
  const links = await ctx.db.models.RealmDefaultClientScope.findAll({ where: { realmId: realm.id, defaultScope: list === 'default' } });
  if (!links.length) return [];
  const scopes = await ctx.db.models.ClientScope.findAll({
    where: { id: { [Op.in]: links.map((l) => l.scopeId) } },
    order: [['name', 'ASC']],
  });
  return scopes.map(toScopeRef);
}

async function realmScope(ctx: RequestContext, realm: RealmModel, scopeId: string): Promise<ClientScopeModel> {
  await requireCap(ctx, realm, 'manageRealm');
  return findClientScopeOr404(ctx, realm, scopeId);
}

/** PUT /{realm}/default-{default|optional}-client-scopes/{id}: adds it to the list (already in either list → 409). */
export async function addRealmDefaultScope(ctx: RequestContext, realm: RealmModel, list: RealmScopeList, scopeId: string): Promise<void> {
  const scope = await realmScope(ctx, realm, scopeId);
  const already = () => errorB(409, 'conflict', `Client scope ${scope.name} is already a realm default scope`);
  await write(ctx, { unique: already }, async () => {
    await ctx.db.models.RealmDefaultClientScope.create({ realmId: realm.id, scopeId, defaultScope: list === 'default' });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'CLIENT_SCOPE',
      resourcePath: `default-${list}-client-scopes/${scopeId}`,
      representation: toScopeRef(scope),
    });
  });
}

/** DELETE /{realm}/default-{default|optional}-client-scopes/{id}: removes it from whichever list holds it. */
export async function removeRealmDefaultScope(
  ctx: RequestContext,
  realm: RealmModel,
  list: RealmScopeList,
  scopeId: string,
): Promise<void> {
  const scope = await realmScope(ctx, realm, scopeId);
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.RealmDefaultClientScope.destroy({ where: { realmId: realm.id, scopeId } });
    if (n) {
      await recordAdminEvent(ctx, realm, {
        operationType: 'DELETE',
        resourceType: 'CLIENT_SCOPE',
        resourcePath: `default-${list}-client-scopes/${scopeId}`,
        representation: toScopeRef(scope),
      });
    }
  });
}
