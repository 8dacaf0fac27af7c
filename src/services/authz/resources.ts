import { randomUUID } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA, errorB } from '../../core/errors';
import { isEmptyPage, pageOf } from '../../core/paging';
import type { AuthzResourceModel, AuthzScopeModel } from '../../db/models/authorization';
import { type Json, policyRef, toResourceRepresentation } from '../../representations/authz';
import {
  type AuthzTarget,
  authzEvent,
  authzNotFound,
  authzPath,
  cannotRead,
  listField,
  objectBody,
  plainBadRequest,
  requireManageAuthz,
  requireViewAuthz,
  textField,
} from './access';
import { deletePolicyRows, policiesOfResources } from './policy-links';
import { AUTHZ_DEFAULT_MAX, insertScope, likeLower } from './scopes';

/**
 * Protected resources (`.../authz/resource-server/resource`): CRUD, the listing with Keycloak's
 * filters, and a resource's scopes, permissions and attributes. A resource is owned by the resource
 * server (its client) or by a user; its name is unique per resource server and owner.
 */

export const resourceTaken = (name: string) => errorB(409, 'invalid_request', `Resource with name [${name}] already exists.`);

/** A resource of the resource server by id, or 404. */
export async function findResource(ctx: RequestContext, t: AuthzTarget, id: string): Promise<AuthzResourceModel> {
  const r = await ctx.db.models.AuthzResource.findOne({ where: { id, resourceServerId: t.rs.id } });
  if (!r) throw authzNotFound();
  return r;
}

/** The scopes of resources, by resource id, ordered by name (two statements for any number). */
export async function scopesOfResources(ctx: RequestContext, ids: string[]): Promise<Map<string, AuthzScopeModel[]>> {
  const out = new Map<string, AuthzScopeModel[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const m = ctx.db.models;
  const links = await m.AuthzResourceScope.findAll({ where: { resourceId: { [Op.in]: ids } } });
  if (!links.length) return out;
  const scopes = await m.AuthzScope.findAll({
    where: { id: { [Op.in]: [...new Set(links.map((l) => l.scopeId))] } },
    order: [['name', 'ASC']],
  });
  const byId = new Map(scopes.map((s) => [s.id, s]));
  for (const s of scopes) for (const l of links) if (l.scopeId === s.id) out.get(l.resourceId)?.push(byId.get(s.id) as AuthzScopeModel);
  return out;
}

/** The owners' names: the client's clientId for the resource server, usernames for users. */
async function ownerNames(ctx: RequestContext, t: AuthzTarget, rows: AuthzResourceModel[]): Promise<Map<string, string>> {
  const names = new Map<string, string>([[t.rs.id, t.client.clientId]]);
  const userIds = [...new Set(rows.map((r) => r.owner).filter((o) => o !== t.rs.id))];
  if (userIds.length) {
    const users = await ctx.db.models.User.findAll({ where: { id: { [Op.in]: userIds } }, attributes: ['id', 'username'] });
    for (const u of users) names.set(u.id, u.username);
  }
  return names;
}

/** ResourceRepresentations of many resources with a fixed number of statements. */
export async function resourceRepresentations(
  ctx: RequestContext,
  t: AuthzTarget,
  rows: AuthzResourceModel[],
  deep = true,
): Promise<Json[]> {
  const [names, scopes] = await Promise.all([
    ownerNames(ctx, t, rows),
    deep
      ? scopesOfResources(
          ctx,
          rows.map((r) => r.id),
        )
      : undefined,
  ]);
  return rows.map((r) => toResourceRepresentation(r, names.get(r.owner), scopes?.get(r.id)));
}

/** The owner id a body names: none (or the resource server) → the resource server; else a user by id or username. */
async function ownerOf(ctx: RequestContext, t: AuthzTarget, body: Record<string, unknown>, creating: boolean): Promise<string> {
  const raw = body.owner;
  let id: string | undefined;
  if (raw === undefined || raw === null) return t.rs.id;
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    id = textField(raw as Record<string, unknown>, 'id');
    if (id === undefined && creating) throw errorB(400, 'invalid_request', 'You must specify the resource owner.');
  } else if (typeof raw === 'string') id = raw;
  else throw cannotRead();
  if (id === undefined || id === t.rs.id) return t.rs.id;
  const User = ctx.db.models.User;
  const user =
    (await User.findOne({ where: { id, realmId: t.realm.id }, attributes: ['id'] })) ??
    (await User.findOne({ where: { username: id.toLowerCase(), realmId: t.realm.id }, attributes: ['id'] }));
  if (!user) throw errorA(400, 'Owner must be a valid username or user identifier. If the resource server, the client id or null.');
  return user.id;
}

/** `{name|id}` scope references of a body (`scopes`, or `resource_scopes` as the protection API names it). */
function scopeRefsOf(body: Record<string, unknown>): Array<{ id?: string; name?: string; iconUri?: string }> | undefined {
  const raw = body.scopes ?? body.resource_scopes;
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw cannotRead();
  return raw.map((s) => {
    if (typeof s === 'string') return { name: s };
    if (!s || typeof s !== 'object' || Array.isArray(s)) throw cannotRead();
    const o = s as Record<string, unknown>;
    return { id: textField(o, 'id'), name: textField(o, 'name'), iconUri: textField(o, 'iconUri') };
  });
}

/** Attributes as Keycloak keeps them: name → list of values. */
function attributesOf(body: Record<string, unknown>): Record<string, string[]> | undefined {
  const raw = body.attributes;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw cannotRead();
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    out[k] = (Array.isArray(v) ? v : [v]).filter((x) => x !== null && x !== undefined).map(String);
  }
  return out;
}

/** The uris of a body (`uris`, or the single `uri` of older clients), blanks dropped. */
function urisOf(body: Record<string, unknown>): string[] | undefined {
  const list = listField(body, 'uris') ?? (body.uri !== undefined && body.uri !== null ? [String(body.uri)] : undefined);
  return list ? [...new Set(list.filter((u) => u.trim()))] : undefined;
}

/** Links a resource to the scopes named by id or name; a named scope that does not exist is created. */
export async function setResourceScopes(
  ctx: RequestContext,
  t: AuthzTarget,
  resourceId: string,
  refs: Array<{ id?: string; name?: string; iconUri?: string }>,
): Promise<void> {
  const m = ctx.db.models;
  const ids = new Set<string>();
  for (const ref of refs) {
    let s = ref.id ? await m.AuthzScope.findOne({ where: { id: ref.id, resourceServerId: t.rs.id } }) : null;
    if (!s && ref.name) s = await m.AuthzScope.findOne({ where: { name: ref.name, resourceServerId: t.rs.id } });
    if (!s && ref.name) s = await insertScope(ctx, t, { name: ref.name, iconUri: ref.iconUri });
    if (!s) throw errorA(400, `Scope [${ref.id ?? ''}] not found`);
    ids.add(s.id);
  }
  await m.AuthzResourceScope.destroy({ where: { resourceId } });
  if (ids.size) await m.AuthzResourceScope.bulkCreate([...ids].map((scopeId) => ({ resourceId, scopeId })));
}

/**
 * Creates or updates (same name and owner) a resource from a ResourceRepresentation, inside the
 * caller's transaction: the resource endpoints and the settings import.
 */
export async function saveResource(ctx: RequestContext, t: AuthzTarget, body: Record<string, unknown>, existing?: AuthzResourceModel) {
  const m = ctx.db.models;
  const name = textField(body, 'name') ?? existing?.name;
  if (!name?.trim()) throw errorA(400, 'Resource name is required');
  const fields = {
    name,
    displayName: textField(body, 'displayName') ?? null,
    type: textField(body, 'type') ?? null,
    iconUri: textField(body, 'icon_uri') ?? textField(body, 'iconUri') ?? null,
    ownerManagedAccess: body.ownerManagedAccess === true || body.ownerManagedAccess === 'true',
    uris: urisOf(body) ?? [],
  };
  const attributes = attributesOf(body);
  const scopes = scopeRefsOf(body);
  let r = existing;
  if (r) await r.update({ ...fields, ...(attributes ? { attributes } : {}) });
  else {
    const id = textField(body, '_id') ?? textField(body, 'id') ?? randomUUID();
    const owner = await ownerOf(ctx, t, body, true);
    r = await m.AuthzResource.create({ id, resourceServerId: t.rs.id, owner, attributes: attributes ?? {}, ...fields });
  }
  if (scopes) await setResourceScopes(ctx, t, r.id, scopes);
  return r;
}

/** POST .../resource: 201 with the new resource; a name its owner already uses is 409. */
export async function createResource(ctx: RequestContext, t: AuthzTarget, input: unknown): Promise<Json> {
  await requireManageAuthz(ctx, t.realm);
  const body = objectBody(input);
  const owner = await ownerOf(ctx, t, body, true);
  const name = textField(body, 'name') ?? '';
  const r = await write(ctx, { unique: () => resourceTaken(name) }, async () => {
    if (name && (await ctx.db.models.AuthzResource.findOne({ where: { resourceServerId: t.rs.id, name, owner }, attributes: ['id'] }))) {
      throw resourceTaken(name);
    }
    const created = await saveResource(ctx, t, body);
    await authzEvent(ctx, t, {
      operationType: 'CREATE',
      resourceType: 'AUTHORIZATION_RESOURCE',
      resourcePath: authzPath(t, `resource/${created.id}`),
      representation: body,
    });
    return created;
  });
  return (await resourceRepresentations(ctx, t, [r]))[0];
}

/** PUT .../resource/{id}: replaces the resource's fields; scopes and attributes only when the body has them. */
export async function updateResource(ctx: RequestContext, t: AuthzTarget, id: string, input: unknown): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const body = objectBody(input);
  const r = await findResource(ctx, t, id);
  const name = textField(body, 'name') ?? r.name;
  await write(ctx, { unique: () => resourceTaken(name) }, async () => {
    await saveResource(ctx, t, body, r);
    await authzEvent(ctx, t, {
      operationType: 'UPDATE',
      resourceType: 'AUTHORIZATION_RESOURCE',
      resourcePath: authzPath(t, `resource/${id}`),
      representation: { ...body, _id: id },
    });
  });
}

/** DELETE .../resource/{id}: a permission whose only resource it is goes with it, others just lose it. */
export async function deleteResource(ctx: RequestContext, t: AuthzTarget, id: string): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const r = await findResource(ctx, t, id);
  const rep = (await resourceRepresentations(ctx, t, [r]))[0];
  const m = ctx.db.models;
  await write(ctx, {}, async () => {
    const links = await m.AuthzResourcePolicy.findAll({ where: { resourceId: id } });
    const policyIds = links.map((l) => l.policyId);
    if (policyIds.length) {
      const all = await m.AuthzResourcePolicy.findAll({ where: { policyId: { [Op.in]: policyIds } } });
      const only = policyIds.filter((p) => all.filter((l) => l.policyId === p).length === 1);
      await deletePolicyRows(ctx, t, only);
    }
    await m.AuthzResource.destroy({ where: { id } });
    await authzEvent(ctx, t, {
      operationType: 'DELETE',
      resourceType: 'AUTHORIZATION_RESOURCE',
      resourcePath: authzPath(t, `resource/${id}`),
      representation: rep,
    });
  });
}

/** GET .../resource/{id}: the resource with its scopes and attributes. */
export async function getResource(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json> {
  await requireViewAuthz(ctx, t.realm);
  return (await resourceRepresentations(ctx, t, [await findResource(ctx, t, id)]))[0];
}

/** GET .../resource/search?name=: the resource server's own resource of that name, or nothing (204). */
export async function searchResource(ctx: RequestContext, t: AuthzTarget, name: string | undefined): Promise<Json | undefined> {
  await requireViewAuthz(ctx, t.realm);
  if (name === undefined) throw plainBadRequest();
  const r = await ctx.db.models.AuthzResource.findOne({ where: { resourceServerId: t.rs.id, name, owner: t.rs.id } });
  return r ? (await resourceRepresentations(ctx, t, [r]))[0] : undefined;
}

export interface ResourceQuery {
  _id?: string;
  name?: string;
  uri?: string;
  owner?: string;
  type?: string;
  scope?: string;
  matchingUri?: boolean;
  exactName?: boolean;
  deep?: boolean;
  first?: number;
  max?: number;
}

/** True when `uri` matches a resource's uri pattern (`*` wildcards at either end, `{x}` segments). */
export function uriMatches(pattern: string, uri: string): boolean {
  if (pattern === uri) return true;
  const re = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[^/]*?\\\}/g, '[^/]+'))
    .join('.*');
  return new RegExp(`^${re}$`).test(uri);
}

/**
 * GET .../resource: the resources matching Keycloak's filters (name substring or exact, uri, owner by
 * clientId/username/id, type, scope name), ordered by name, `first`/`max` (default 100). With
 * `matchingUri` and nothing found, the resource server's resource whose uri pattern matches `uri`.
 */
export async function listResources(ctx: RequestContext, t: AuthzTarget, q: ResourceQuery): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const m = ctx.db.models;
  const page = pageOf(q, { defaultMax: AUTHZ_DEFAULT_MAX });
  const and: WhereOptions[] = [{ resourceServerId: t.rs.id }];
  if (q._id?.trim()) and.push({ id: q._id });
  if (q.name?.trim()) and.push(q.exactName ? { name: q.name } : likeLower('name', q.name));
  if (q.type?.trim()) and.push(likeLower('type', q.type));
  if (q.owner?.trim()) {
    const client = await m.Client.findOne({ where: { realmId: t.realm.id, clientId: q.owner }, attributes: ['id'] });
    const user = client
      ? null
      : await m.User.findOne({ where: { realmId: t.realm.id, username: q.owner.toLowerCase() }, attributes: ['id'] });
    and.push({ owner: client?.id ?? user?.id ?? q.owner });
  }
  if (q.scope?.trim()) {
    const scopes = await m.AuthzScope.findAll({
      where: { [Op.and]: [{ resourceServerId: t.rs.id }, likeLower('name', q.scope)] },
      attributes: ['id'],
    });
    if (!scopes.length) return [];
    const links = await m.AuthzResourceScope.findAll({ where: { scopeId: { [Op.in]: scopes.map((s) => s.id) } } });
    and.push({ id: { [Op.in]: [...new Set(links.map((l) => l.resourceId))] } });
  }
  let rows: AuthzResourceModel[] = [];
  if (!isEmptyPage(page)) rows = await m.AuthzResource.findAll({ where: { [Op.and]: and }, order: [['name', 'ASC']] });
  if (q.uri?.trim()) rows = rows.filter((r) => r.uris.some((u) => u.toLowerCase() === q.uri?.toLowerCase()));
  rows = rows.slice(page.offset, page.limit === undefined ? undefined : page.offset + page.limit);
  if (q.matchingUri && !rows.length && q.uri) {
    const uri = q.uri;
    const own = await m.AuthzResource.findAll({ where: { resourceServerId: t.rs.id, owner: t.rs.id }, order: [['name', 'ASC']] });
    const exact = own.find((r) => r.uris.includes(uri));
    // Keycloak's PathMatcher: an exact uri first, else the most specific (longest) matching pattern.
    let best: { r: AuthzResourceModel; len: number } | undefined;
    for (const r of own) {
      for (const u of r.uris) if (uriMatches(u, uri) && (!best || u.length > best.len)) best = { r, len: u.length };
    }
    const match = exact ?? best?.r;
    if (match) rows = [match];
  }
  return resourceRepresentations(ctx, t, rows, q.deep ?? true);
}

/** GET .../resource/{id}/scopes: `{id, name}` of its scopes (and, for a user's typed resource, the type's scopes). */
export async function resourceScopes(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const r = await findResource(ctx, t, id);
  const own = (await scopesOfResources(ctx, [r.id])).get(r.id) ?? [];
  const out: Json[] = own.map((s) => ({ id: s.id, name: s.name }));
  if (r.type != null && r.owner !== t.rs.id) {
    const typed = await ctx.db.models.AuthzResource.findAll({ where: { resourceServerId: t.rs.id, type: r.type, owner: t.rs.id } });
    const extra = await scopesOfResources(
      ctx,
      typed.filter((x) => x.id !== r.id).map((x) => x.id),
    );
    for (const list of extra.values()) {
      for (const s of list)
        if (!out.some((o) => o.id === s.id))
          out.push(s.iconUri ? { id: s.id, name: s.name, iconUri: s.iconUri } : { id: s.id, name: s.name });
    }
  }
  return out;
}

/** GET .../resource/{id}/permissions: `{id, name, type}` of every policy that applies to the resource. */
export async function resourcePermissions(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const r = await findResource(ctx, t, id);
  const scopeIds = ((await scopesOfResources(ctx, [r.id])).get(r.id) ?? []).map((s) => s.id);
  const policies = await policiesOfResources(ctx, t, r, scopeIds);
  return policies.filter((p) => p.type.toLowerCase() !== 'uma').map(policyRef);
}

/** GET .../resource/{id}/attributes. */
export async function resourceAttributes(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Record<string, string[]>> {
  await requireViewAuthz(ctx, t.realm);
  return { ...(await findResource(ctx, t, id)).attributes };
}
