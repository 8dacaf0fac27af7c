import type { RequestContext } from '../core/context';
import { forbidden } from '../core/errors';
import type { ClientModel } from '../db/models/client';
import type { RealmModel } from '../db/models/realm';
import { fgapClientScope } from './fgap';
import { MASTER, check, hasAny } from './permissions';

/**
 * Who may do what with a client (Keycloak 26 ClientPermissions, FGAP v1): the admin roles first
 * (cached, free), the client's fine-grained permissions (`client.resource.<id>`) only when the roles
 * refuse. Implications as Keycloak's: view ⇐ configure ⇐ manage. A `<realm>-realm` admin client in
 * master is never configured nor managed through the API (its `view` still follows the rules).
 *
 * Cost: decisions are memoised per request by src/auth/fgap.ts (model and caller read once), so
 * deciding a page of clients costs what deciding one costs; a realm without fine-grained permissions
 * pays the one `fgapOn` statement, and only when a role check refused.
 */

export type ClientNeed = 'view' | 'configure' | 'manage';
export interface ClientAccessMap {
  view: boolean;
  configure: boolean;
  manage: boolean;
}

/** True for a `<realm>-realm` admin client in master (never configured or managed through the API). */
export function isMasterAdminClient(realm: RealmModel, client: ClientModel): boolean {
  return realm.name === MASTER && Boolean(client.realmClient) && client.clientId.endsWith('-realm');
}

/**
 * ClientPermissions#canList(): view-clients, manage-clients, query-clients, or query-users (administrators
 * may then restrict, with fine-grained permissions, which clients such a caller sees: without them he
 * gets `[]`, measured on Keycloak 26, keycloak/keycloak#40192). No per-client permission.
 */
export async function canListClients(ctx: RequestContext, realm: RealmModel): Promise<boolean> {
  return (await check(ctx, realm, 'queryClients')) || hasAny(ctx, realm, 'query-users');
}

/** ClientPermissions#canManage(client) / canConfigure(client) / canView(client). */
export async function canClient(ctx: RequestContext, realm: RealmModel, client: ClientModel, need: ClientNeed): Promise<boolean> {
  switch (need) {
    case 'manage':
      if (isMasterAdminClient(realm, client)) return false;
      return (await check(ctx, realm, 'manageClients')) || fgapClientScope(ctx, realm, client.id, 'manage');
    case 'configure':
      if (isMasterAdminClient(realm, client)) return false;
      return (await canClient(ctx, realm, client, 'manage')) || fgapClientScope(ctx, realm, client.id, 'configure');
    case 'view':
      return (
        (await check(ctx, realm, 'viewClients')) ||
        (await fgapClientScope(ctx, realm, client.id, 'view')) ||
        canClient(ctx, realm, client, 'configure')
      );
  }
}

/** 403 unless the caller may view (configure, manage) the client (ClientPermissions#requireView/Configure/Manage). */
export async function requireClient(ctx: RequestContext, realm: RealmModel, client: ClientModel, need: ClientNeed): Promise<ClientModel> {
  if (!(await canClient(ctx, realm, client, need))) throw forbidden();
  return client;
}

/** ClientPermissions#getAccess(client) for many clients, in their order (decided in memory after the first). */
export async function clientsAccess(ctx: RequestContext, realm: RealmModel, clients: readonly ClientModel[]): Promise<ClientAccessMap[]> {
  const out: ClientAccessMap[] = [];
  for (const c of clients) {
    const manage = await canClient(ctx, realm, c, 'manage');
    const configure = manage || (await canClient(ctx, realm, c, 'configure'));
    const view = configure || (await canClient(ctx, realm, c, 'view'));
    out.push({ view, configure, manage });
  }
  return out;
}

/**
 * RolePermissions' decisions on a client as a role container: list ⇐ canList(client) (the client
 * viewable, or query-clients), view ⇐ canView(client), manage ⇐ canConfigure(client). The system
 * itself (no caller: an import) may do everything, a `<realm>-realm` client of master included.
 */
export async function canClientRoles(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  access: 'list' | 'view' | 'manage',
): Promise<boolean> {
  if (!ctx.actor) return true;
  switch (access) {
    case 'list':
      return (await check(ctx, realm, 'queryClients')) || canClient(ctx, realm, client, 'view');
    case 'view':
      return canClient(ctx, realm, client, 'view');
    case 'manage':
      return canClient(ctx, realm, client, 'configure');
  }
}
