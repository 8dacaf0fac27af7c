import { randomUUID } from 'node:crypto';
import { Op, type WhereOptions, col, fn, where as sqlWhere } from 'sequelize';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA } from '../../core/errors';
import { isEmptyPage, pageOf, sqlPage } from '../../core/paging';
import type { AuthzPolicyModel, AuthzResourceModel, AuthzScopeModel } from '../../db/models/authorization';
import { type Json, policyRef, toScopeRepresentation } from '../../representations/authz';
import { deletePolicyRows, linkedRows } from './policy-links';
import {
  type AuthzTarget,
  authzEvent,
  authzNotFound,
  authzPath,
  objectBody,
  plainBadRequest,
  requireManageAuthz,
  requireViewAuthz,
  textField,
} from './access';

/**
 * Authorization scopes (`.../authz/resource-server/scope`): CRUD, listing and search, the resources
 * and permissions that use a scope. Names are unique per resource server (unique index).
 */

/** Keycloak's default page size of the authorization listings. */
export const AUTHZ_DEFAULT_MAX = 100;

/** `lower(column) LIKE %value%`: Keycloak's name filter of the authorization listings. */
export const likeLower = (column: string, value: string) => sqlWhere(fn('LOWER', col(column)), { [Op.like]: `%${value.toLowerCase()}%` });

export const scopeTaken = (name: string) => errorA(409, `Scope with name [${name}] already exists.`);

/** A scope of the resource server by id, or 404. */
export async function findScope(ctx: RequestContext, t: AuthzTarget, id: string): Promise<AuthzScopeModel> {
  const s = await ctx.db.models.AuthzScope.findOne({ where: { id, resourceServerId: t.rs.id } });
  if (!s) throw authzNotFound();
  return s;
}

/** The scope fields of a body: name (required on create), displayName, iconUri. */
function scopeFields(body: Record<string, unknown>) {
  return { name: textField(body, 'name'), displayName: textField(body, 'displayName'), iconUri: textField(body, 'iconUri') };
}

/** GET .../scope: scopes by name (substring, any case) or id, ordered by name; `first`/`max` (default 100). */
export async function listScopes(
  ctx: RequestContext,
  t: AuthzTarget,
  q: { scopeId?: string; name?: string; first?: number; max?: number },
): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const page = pageOf(q, { defaultMax: AUTHZ_DEFAULT_MAX });
  if (isEmptyPage(page)) return [];
  const and: WhereOptions[] = [{ resourceServerId: t.rs.id }];
  if (q.scopeId?.trim()) and.push({ id: q.scopeId });
  if (q.name?.trim()) and.push(likeLower('name', q.name));
  const rows = await ctx.db.models.AuthzScope.findAll({ where: { [Op.and]: and }, order: [['name', 'ASC']], ...sqlPage(page) });
  return rows.map(toScopeRepresentation);
}

/** GET .../scope/{id}. */
export async function getScope(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json> {
  await requireViewAuthz(ctx, t.realm);
  return toScopeRepresentation(await findScope(ctx, t, id));
}

/** GET .../scope/search?name=: the scope of that exact name, or nothing (200, no body); no name → 400. */
export async function searchScope(ctx: RequestContext, t: AuthzTarget, name: string | undefined): Promise<Json | undefined> {
  await requireViewAuthz(ctx, t.realm);
  if (name === undefined) throw plainBadRequest();
  const s = await ctx.db.models.AuthzScope.findOne({ where: { resourceServerId: t.rs.id, name } });
  return s ? toScopeRepresentation(s) : undefined;
}

/** Creates a scope inside the caller's transaction (import, the resource endpoints' new scopes). */
export async function insertScope(ctx: RequestContext, t: AuthzTarget, f: { name: string; displayName?: string; iconUri?: string }) {
  return ctx.db.models.AuthzScope.create({
    id: randomUUID(),
    resourceServerId: t.rs.id,
    name: f.name,
    displayName: f.displayName ?? null,
    iconUri: f.iconUri ?? null,
  });
}

/** POST .../scope: 201 with the new scope; a taken name is 409. */
export async function createScope(ctx: RequestContext, t: AuthzTarget, body: unknown): Promise<Json> {
  await requireManageAuthz(ctx, t.realm);
  const f = scopeFields(objectBody(body));
  if (!f.name?.trim()) throw errorA(400, 'Scope name is required');
  const name = f.name;
  const rep = await write(ctx, { unique: () => scopeTaken(name) }, async () => {
    if (await ctx.db.models.AuthzScope.findOne({ where: { resourceServerId: t.rs.id, name }, attributes: ['id'] })) throw scopeTaken(name);
    const s = await insertScope(ctx, t, { name, displayName: f.displayName, iconUri: f.iconUri });
    const out = toScopeRepresentation(s);
    await authzEvent(ctx, t, {
      operationType: 'CREATE',
      resourceType: 'AUTHORIZATION_SCOPE',
      resourcePath: authzPath(t, `scope/${s.id}`),
      representation: out,
    });
    return out;
  });
  return rep;
}

/** PUT .../scope/{id}: name, display name and icon (absent fields are cleared, as Keycloak's toModel). */
export async function updateScope(ctx: RequestContext, t: AuthzTarget, id: string, body: unknown): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const f = scopeFields(objectBody(body));
  const s = await findScope(ctx, t, id);
  const name = f.name?.trim() ? f.name : s.name;
  await write(ctx, { unique: () => scopeTaken(name) }, async () => {
    await s.update({ name, displayName: f.displayName ?? null, iconUri: f.iconUri ?? null });
    await authzEvent(ctx, t, {
      operationType: 'UPDATE',
      resourceType: 'AUTHORIZATION_SCOPE',
      resourcePath: authzPath(t, `scope/${id}`),
      representation: { ...f, id },
    });
  });
}

/**
 * DELETE .../scope/{id}: refused (400) while a resource uses the scope; a permission whose only scope
 * it is goes with it, other permissions just lose it.
 */
export async function deleteScope(ctx: RequestContext, t: AuthzTarget, id: string): Promise<void> {
  await requireManageAuthz(ctx, t.realm);
  const m = ctx.db.models;
  await write(ctx, {}, async () => {
    if (await m.AuthzResourceScope.findOne({ where: { scopeId: id } })) {
      const own = await m.AuthzScope.findOne({ where: { id, resourceServerId: t.rs.id }, attributes: ['id'] });
      if (own) throw errorA(400, 'Scopes can not be removed while associated with resources.');
    }
    const s = await findScope(ctx, t, id);
    const links = await m.AuthzScopePolicy.findAll({ where: { scopeId: id } });
    const policyIds = links.map((l) => l.policyId);
    if (policyIds.length) {
      const counts = await m.AuthzScopePolicy.findAll({ where: { policyId: { [Op.in]: policyIds } } });
      const only = policyIds.filter((p) => counts.filter((c) => c.policyId === p).length === 1);
      await deletePolicyRows(ctx, t, only);
    }
    await s.destroy();
    await authzEvent(ctx, t, {
      operationType: 'DELETE',
      resourceType: 'AUTHORIZATION_SCOPE',
      resourcePath: authzPath(t, `scope/${id}`),
      representation: toScopeRepresentation(s),
    });
  });
}

/** GET .../scope/{id}/resources: `{_id, name}` of the resources offering the scope. */
export async function scopeResources(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const s = await findScope(ctx, t, id);
  const m = ctx.db.models;
  const rows = await linkedRows<AuthzResourceModel>(m.AuthzResourceScope, { scopeId: s.id }, 'resourceId', m.AuthzResource);
  return rows.map((r) => ({ name: r.name, _id: r.id }));
}

/** GET .../scope/{id}/permissions: `{id, name, type}` of the policies naming the scope. */
export async function scopePermissions(ctx: RequestContext, t: AuthzTarget, id: string): Promise<Json[]> {
  await requireViewAuthz(ctx, t.realm);
  const s = await findScope(ctx, t, id);
  const m = ctx.db.models;
  const rows = await linkedRows<AuthzPolicyModel>(m.AuthzScopePolicy, { scopeId: s.id }, 'policyId', m.AuthzPolicy);
  return rows.map(policyRef);
}
