import { requireCap } from '../../auth/permissions';
import type { RequestContext } from '../../core/context';
import { forbidden, notFound } from '../../core/errors';
import type { ClientModel, ClientScopeModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { isMasterAdminClient, resolveClient } from '../clients/clients';

/**
 * The parents of the client-scope family's sub-resources: a client scope by id, and the
 * `{scopeOwner}` of protocol mappers and scope mappings (a client or a client scope).
 */

/** A client scope of the realm by id, or 404 `Could not find client scope` (403 first when the caller cannot list). */
export async function resolveClientScope(ctx: RequestContext, realm: RealmModel, id: string): Promise<ClientScopeModel> {
  await requireCap(ctx, realm, 'queryClients');
  const scope = await ctx.loaders.clientScopeById.load(id);
  if (!scope || scope.realmId !== realm.id) throw notFound('Could not find client scope');
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

/** Resolves the owner and checks view or manage rights on it (clients: 404 `Could not find client`; scopes: `Could not find client scope`). */
export async function resolveScopeOwner(
  ctx: RequestContext,
  realm: RealmModel,
  type: ScopeOwnerType,
  id: string,
  access: 'view' | 'manage',
): Promise<ScopeOwner> {
  if (type === 'clients') {
    const client = await resolveClient(ctx, realm, id);
    if (access === 'manage' && isMasterAdminClient(realm, client)) throw forbidden();
    await requireCap(ctx, realm, access === 'view' ? 'viewClients' : 'manageClients');
    return { type, id, realm, client, protocol: client.protocol || 'openid-connect', path: `clients/${id}` };
  }
  const scope = await resolveClientScope(ctx, realm, id);
  await requireCap(ctx, realm, access === 'view' ? 'viewClients' : 'manageClients');
  return { type, id, realm, scope, protocol: scope.protocol, path: `client-scopes/${id}` };
}
