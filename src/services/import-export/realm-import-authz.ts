import { Op } from 'sequelize';
import type { RequestContext } from '../../core/context';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { Json } from '../../representations/authz';
import { objectBody } from '../authz/access';
import { applySettings, authorizationSettings } from '../authz/resource-server';

/**
 * Authorization services in realm import and export (issue 13 item 5), as Keycloak's
 * ExportUtils.exportAuthorizationSettings and RepresentationToModel.importAuthorizationSettings:
 * an export gives every client with a resource server its `authorizationSettings` (the resource
 * server's `settings` export: names instead of ids); an import gives every client of the
 * representation with `authorizationServicesEnabled: true` exactly the resource server its
 * `authorizationSettings` describe: no "Default Resource", "Default Policy" or "Default Permission"
 * besides (those are what enabling through the admin API creates), an empty one without settings.
 * The import runs once the realm's roles, groups and users exist, since policies and resource owners
 * name them. `realm-management` (bearer-only) is the exception to the flag: its resource server holds
 * the fine-grained admin permissions, and its `authorizationSettings` are imported whenever present.
 */
type ClientRep = Record<string, unknown>;

const isTrue = (v: unknown) => v === true || v === 'true';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** `authorizationSettings` of each client of the list that has a resource server, by client id (UUID). */
export async function exportAuthorization(ctx: RequestContext, realm: RealmModel, clients: ClientModel[]): Promise<Map<string, Json>> {
  const out = new Map<string, Json>();
  if (!clients.length) return out;
  const servers = await ctx.db.models.ResourceServer.findAll({ where: { realmId: realm.id } });
  const byId = new Map(clients.map((c) => [c.id, c]));
  for (const rs of servers) {
    const client = byId.get(rs.id);
    if (client) out.set(client.id, await authorizationSettings(ctx, { realm, client, rs }));
  }
  return out;
}

/** `realm-management`: bearer-only, its resource server holds the fine-grained admin permissions. */
export const ADMIN_PERMISSIONS_CLIENT = 'realm-management';

/**
 * The clients of a representation that ask for authorization services (`authorizationServicesEnabled:
 * true`), and `realm-management` when it brings `authorizationSettings` (its admin permissions).
 */
export const withAuthorization = (clients: unknown): ClientRep[] =>
  (Array.isArray(clients) ? clients : []).filter((c): c is ClientRep => {
    if (!c || typeof c !== 'object' || Array.isArray(c)) return false;
    const rep = c as ClientRep;
    if (rep.clientId === ADMIN_PERMISSIONS_CLIENT) return !!rep.authorizationSettings && typeof rep.authorizationSettings === 'object';
    return isTrue(rep.authorizationServicesEnabled);
  });

/**
 * Gives each client of `clients` with `authorizationServicesEnabled: true` the resource server its
 * `authorizationSettings` describe, inside the caller's transaction: what creating the client made
 * (the defaults) is replaced. Clients not found by clientId are skipped (Keycloak's partial import
 * leaves some out). Errors are the settings import's (400 for an unknown role, user, group, ...).
 */
export async function importAuthorization(ctx: RequestContext, realm: RealmModel, clients: unknown): Promise<void> {
  const wanted = withAuthorization(clients);
  if (!wanted.length) return;
  const m = ctx.db.models;
  const rows = await m.Client.findAll({ where: { realmId: realm.id, clientId: { [Op.in]: wanted.map((c) => str(c.clientId)) } } });
  const byClientId = new Map(rows.map((c) => [c.clientId, c]));
  for (const rep of wanted) {
    const client = byClientId.get(str(rep.clientId));
    if (!client || ((client.publicClient || client.bearerOnly) && client.clientId !== ADMIN_PERMISSIONS_CLIENT)) continue;
    const settings =
      rep.authorizationSettings === undefined || rep.authorizationSettings === null ? {} : objectBody(rep.authorizationSettings);
    // The resource server creating the client made (with its defaults) gives way to the representation's.
    await m.ResourceServer.destroy({ where: { id: client.id } });
    const rs = await m.ResourceServer.create({
      id: client.id,
      realmId: realm.id,
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: false,
    });
    await applySettings(ctx, { realm, client, rs }, settings);
  }
}

/** A representation's clients with `authorizationSettings` left out (imported later by importAuthorization). */
export const withoutAuthorizationSettings = (clients: unknown): unknown =>
  Array.isArray(clients)
    ? clients.map((c) => {
        if (!c || typeof c !== 'object' || Array.isArray(c)) return c;
        const { authorizationSettings: _later, ...rest } = c as ClientRep;
        return rest;
      })
    : clients;
