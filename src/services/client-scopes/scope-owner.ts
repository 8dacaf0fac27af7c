import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { notFound } from '../../core/errors';
import type { ClientModel, ClientScopeModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { requireClientAccess, resolveClient } from '../clients/clients';

/**
 * The parents of the client-scope family's sub-resources: a client scope by id, and the
 * `{scopeOwner}` of protocol mappers and scope mappings (a client or a client scope). The fronts
 * resolve the owner once (REST: rest/parents.ts); the services check the caller's rights on it.
 */

/** A client scope of the realm by id, or 404 `Could not find client scope` (403 first when the caller cannot list). */
export async function resolveClientScope(ctx: RequestContext, realm: RealmModel, id: string): Promise<ClientScopeModel> {
  await requireCap(ctx, realm, 'queryClients');
  const scope = await ctx.loaders.clientScopeById.load(id);
  if (!scope || scope.realmId !== realm.id) throw notFound('Could not find client scope');
  return scope;
}

/** A client scope of the realm by id, or 404 `Client scope not found` (the client-scope links and realm default lists). */
export async function findClientScopeOr404(ctx: RequestContext, realm: RealmModel, id: string): Promise<ClientScopeModel> {
  const scope = await ctx.loaders.clientScopeById.load(id);
  if (!scope || scope.realmId !== realm.id) throw notFound('Client scope not found');
  return scope;
}

/** The owner of `/{clients|client-scopes}/{id}/...` (protocol mappers, scope mappings). */
export type ScopeOwnerType = 'clients' | 'client-scopes';
export interface ScopeOwner {
  type: ScopeOwnerType;
  id: string;
  realm: RealmModel;
  client?: ClientModel;
  scope?: ClientScopeModel;
  protocol: string;
  /** Admin-event resource path of the owner: `clients/<id>` or `client-scopes/<id>`. */
  path: string;
}

/** A resolved client as a scope owner. */
export const clientScopeOwner = (realm: RealmModel, client: ClientModel): ScopeOwner => ({
  type: 'clients',
  id: client.id,
  realm,
  client,
  protocol: client.protocol || 'openid-connect',
  path: `clients/${client.id}`,
});

/** A resolved client scope as a scope owner. */
export const scopeScopeOwner = (realm: RealmModel, scope: ClientScopeModel): ScopeOwner => ({
  type: 'client-scopes',
  id: scope.id,
  realm,
  scope,
  protocol: scope.protocol,
  path: `client-scopes/${scope.id}`,
});

/** Resolves the owner by id (clients: 404 `Could not find client`; scopes: `Could not find client scope`), rights not checked yet. */
export async function findScopeOwner(ctx: RequestContext, realm: RealmModel, type: ScopeOwnerType, id: string): Promise<ScopeOwner> {
  if (type === 'clients') return clientScopeOwner(realm, await resolveClient(ctx, realm, id));
  return scopeScopeOwner(realm, await resolveClientScope(ctx, realm, id));
}

/**
 * The caller's view or manage right on a resolved owner, or 403: a client decides on its own (roles or
 * its fine-grained permissions, ClientResource's view / manage checks of protocol mappers and scope
 * mappings; a master admin client is never managed), a client scope by the roles only.
 */
export async function requireOwnerAccess(
  ctx: RequestContext,
  realm: RealmModel,
  owner: ScopeOwner,
  access: 'view' | 'manage',
): Promise<void> {
  if (owner.client) {
    await requireClientAccess(ctx, realm, owner.client, access);
    return;
  }
  await requireCap(ctx, realm, access === 'view' ? 'viewClients' : 'manageClients');
}
