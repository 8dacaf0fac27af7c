import { Op } from 'sequelize';
import { check, requireCap } from '../../auth/permissions';
import type { ClientModel, ClientScopeModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { errorB } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import { invalidate } from '../../loaders/invalidate';
import { requireClientAccess } from '../clients/clients';
import { findClientScopeOr404 } from './scope-owner';
import type { RequestContext } from '../../core/context';

/**
 * Default and optional client scopes of a client (config reference §1.7) and the linking rules the
 * client writes use (§1.1 step 5, §1.4): realm default scopes of the client's protocol on create
 * and protocol change, explicit name lists replacing all links, the `service_account` scope.
 */
export type ScopeKind = 'default' | 'optional';

const isDefault = (kind: ScopeKind) => kind === 'default';

/** Links the realm's default-default (as default) and default-optional (as optional) scopes of `protocol`. */
export async function attachRealmDefaultScopes(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string,
  protocol: string,
): Promise<void> {
  const m = ctx.db.models;
  const defaults = await m.RealmDefaultClientScope.findAll({ where: { realmId: realm.id } });
  if (!defaults.length) return;
  const scopes = await m.ClientScope.findAll({
    where: { id: { [Op.in]: defaults.map((d) => d.scopeId) }, protocol },
    attributes: ['id'],
  });
  const wanted = new Set(scopes.map((s) => s.id));
  const existing = new Set(
    (await m.ClientScopeClient.findAll({ where: { clientId: clientUuid }, attributes: ['scopeId'] })).map((l) => l.scopeId),
  );
  const rows = defaults
    .filter((d) => wanted.has(d.scopeId) && !existing.has(d.scopeId))
    .map((d) => ({ clientId: clientUuid, scopeId: d.scopeId, defaultScope: Boolean(d.defaultScope) }));
  if (rows.length) await m.ClientScopeClient.bulkCreate(rows);
}

/** Replaces all links by the named scopes (unknown names and other protocols silently skipped). */
export async function replaceScopeLinks(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string,
  protocol: string,
  defaults: string[],
  optionals: string[],
): Promise<void> {
  const m = ctx.db.models;
  await m.ClientScopeClient.destroy({ where: { clientId: clientUuid } });
  const names = [...new Set([...defaults, ...optionals])];
  if (!names.length) return;
  const scopes = await m.ClientScope.findAll({ where: { realmId: realm.id, name: { [Op.in]: names }, protocol } });
  const byName = new Map(scopes.map((s) => [s.name, s.id]));
  const rows = new Map<string, { clientId: string; scopeId: string; defaultScope: boolean }>();
  for (const [list, def] of [
    [defaults, true],
    [optionals, false],
  ] as const) {
    for (const n of list) {
      const scopeId = byName.get(n);
      if (scopeId && !rows.has(scopeId)) rows.set(scopeId, { clientId: clientUuid, scopeId, defaultScope: def });
    }
  }
  if (rows.size) await m.ClientScopeClient.bulkCreate([...rows.values()]);
}

/** Links a scope by name as default (no-op when linked already or missing). */
export async function linkScopeByName(ctx: RequestContext, realm: RealmModel, clientUuid: string, name: string): Promise<void> {
  const m = ctx.db.models;
  const scope = await m.ClientScope.findOne({ where: { realmId: realm.id, name } });
  if (!scope) return;
  await m.ClientScopeClient.bulkCreate([{ clientId: clientUuid, scopeId: scope.id, defaultScope: true }], { ignoreDuplicates: true });
}

/** Unlinks a scope by name. */
export async function unlinkScopeByName(ctx: RequestContext, realm: RealmModel, clientUuid: string, name: string): Promise<void> {
  const scope = await ctx.db.models.ClientScope.findOne({ where: { realmId: realm.id, name }, attributes: ['id'] });
  if (scope) await ctx.db.models.ClientScopeClient.destroy({ where: { clientId: clientUuid, scopeId: scope.id } });
}

/**
 * GET /clients/{id}/default-client-scopes and optional-client-scopes: `{id, name}` of the client's
 * protocol (view of the client; empty without the view-clients role, as Keycloak's canViewClientScopes).
 */
export async function listClientScopeLinks(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  kind: ScopeKind,
): Promise<Array<{ id: string; name: string }>> {
  await requireClientAccess(ctx, realm, client, 'view');
  // ClientPermissions#canViewClientScopes: the view-clients role; a client viewed by permission shows none.
  if (!(await check(ctx, realm, 'viewClients'))) return [];
  const links = await ctx.loaders.scopeLinksByClient.load(client.id);
  return links
    .filter((l) => l.defaultScope === isDefault(kind) && l.protocol === (client.protocol || 'openid-connect'))
    .map((l) => ({ id: l.id, name: l.name }));
}

/** A change of one link in a transaction with its admin event (UPDATE of the client); the client's links are forgotten. */
async function writeLink(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  scope: ClientScopeModel,
  kind: ScopeKind,
  change: () => Promise<void>,
): Promise<void> {
  await ctx.db.transaction(async () => {
    await change();
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}/${kind}-client-scopes/${scope.id}`,
    });
  });
  invalidate.scopeLinks(ctx.loaders, client.id);
}

/**
 * PUT /clients/{id}/{default|optional}-client-scopes/{scopeId}: links the scope (already linked or other
 * protocol: ignored). Manage of the client, then 404 for an unknown scope, then manage-clients (the scope).
 */
export async function addClientScopeLink(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  scopeId: string,
  kind: ScopeKind,
): Promise<void> {
  await requireClientAccess(ctx, realm, client, 'manage');
  const scope = await findClientScopeOr404(ctx, realm, scopeId);
  await requireCap(ctx, realm, 'manageClients'); // ClientPermissions#requireManage(clientScope): roles only
  if (isDefault(kind) && scope.attributes?.['is.dynamic.scope'] === 'true') {
    throw errorB(400, 'invalid_request', "Can't assign a Dynamic Scope to a Client as a Default Scope");
  }
  await writeLink(ctx, realm, client, scope, kind, async () => {
    if (scope.protocol === (client.protocol || 'openid-connect')) {
      await ctx.db.models.ClientScopeClient.bulkCreate([{ clientId: client.id, scopeId: scope.id, defaultScope: isDefault(kind) }], {
        ignoreDuplicates: true,
      });
    }
  });
}

/** DELETE /clients/{id}/{default|optional}-client-scopes/{scopeId}: unlinks the scope whatever its type (rights as PUT). */
export async function removeClientScopeLink(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  scopeId: string,
  kind: ScopeKind,
): Promise<void> {
  await requireClientAccess(ctx, realm, client, 'manage');
  const scope = await findClientScopeOr404(ctx, realm, scopeId);
  await requireCap(ctx, realm, 'manageClients'); // ClientPermissions#requireManage(clientScope): roles only
  await writeLink(ctx, realm, client, scope, kind, async () => {
    await ctx.db.models.ClientScopeClient.destroy({ where: { clientId: client.id, scopeId: scope.id } });
  });
}
