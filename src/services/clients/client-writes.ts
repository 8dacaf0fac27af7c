import { hasAny } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { conflict, errorB, forbidden } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { getLogger } from '../../logging';
import { type AdminEventInput, recordAdminEvent } from '../../core/admin-events';
import { mapperRows, mergeClientRow, newClientRow, rowOf, validateClientUrls, type ClientRow } from './client-input';
import { deleteClientRows, deleteClientUsage } from '../../core/cascade';
import type { ClientRepresentation, ClientSettings } from '../../representations/client';
import { attachRealmDefaultScopes, replaceScopeLinks } from '../client-scopes/client-scope-links';
import { deleteServiceAccountUser, ensureServiceAccount, removeServiceAccount, renameServiceAccount } from './client-service-account';
import { requireClientAccess, resolveClient } from './clients';
import { authorizationWanted, disableAuthorization, enableAuthorization } from '../authz/resource-server';
import { clientSpec, dropManagementPermissions, roleSpec } from '../authz/admin-permissions';
import type { RequestContext } from '../../core/context';
import { clientPoliciesOnAdminWrite } from '../client-policies';

/**
 * Client writes (config reference §1.1, §1.4): create with Keycloak's defaults, partial update,
 * delete with every row hanging off the client. The row columns the token endpoint reads
 * (publicClient, bearerOnly, serviceAccountsEnabled, directAccessGrantsEnabled, secret, enabled,
 * settings.attributes) are written here, so an API-created client can get tokens at once.
 */
const log = getLogger('idserver.services.clients');

/** Built-in clients that cannot be deleted (§1.4). */
const INTERNAL = new Set(['account', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);

/** Representation for the admin event: the body without secrets. */
const eventRep = (rep: ClientRepresentation) => {
  const { secret: _secret, registrationAccessToken: _token, ...rest } = rep;
  return rest;
};

const columns = (row: ClientRow) => ({
  clientId: row.clientId,
  name: row.name,
  enabled: row.enabled,
  protocol: row.protocol,
  publicClient: row.publicClient,
  bearerOnly: row.bearerOnly,
  serviceAccountsEnabled: row.serviceAccountsEnabled,
  directAccessGrantsEnabled: row.directAccessGrantsEnabled,
  fullScopeAllowed: row.fullScopeAllowed,
  secret: row.secret,
  settings: row.settings,
});

const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
/** `false`, or `"false"` as an unchecked (import) body may carry it. */
const isFalse = (v: unknown) => v === false || v === 'false';

/** Creates the body's protocol mappers; names are unique per protocol. */
async function createMappers(ctx: RequestContext, rows: ReturnType<typeof mapperRows>): Promise<void> {
  const seen = new Set<string>();
  for (const r of rows) {
    const key = `${r.protocol}/${r.name}`;
    if (seen.has(key)) throw conflict('Protocol mapper exists with same name');
    seen.add(key);
  }
  if (rows.length) await ctx.db.models.ProtocolMapper.bulkCreate(rows);
}

/** Reconciles mappers by protocol+name: same name updated in place, new added, unlisted deleted (§1.4). */
async function syncMappers(ctx: RequestContext, client: { id: string; protocol: string }, list: unknown): Promise<void> {
  const m = ctx.db.models;
  const wanted = mapperRows(list, client.id, client.protocol);
  const current = await m.ProtocolMapper.findAll({ where: { clientId: client.id } });
  const byKey = new Map(current.map((pm) => [`${pm.protocol}/${pm.name}`, pm]));
  const kept = new Set<string>();
  const added: typeof wanted = [];
  for (const w of wanted) {
    const key = `${w.protocol}/${w.name}`;
    if (kept.has(key)) throw conflict('Protocol mapper exists with same name');
    kept.add(key);
    const pm = byKey.get(key);
    if (pm) await pm.update({ protocolMapper: w.protocolMapper, config: w.config });
    else added.push(w);
  }
  const gone = current.filter((pm) => !kept.has(`${pm.protocol}/${pm.name}`)).map((pm) => pm.id);
  if (gone.length) await m.ProtocolMapper.destroy({ where: { id: gone } });
  if (added.length) await m.ProtocolMapper.bulkCreate(added);
}

/** POST /{realm}/clients: creates a client (create-client or manage-clients). Returns the new UUID. */
export async function createClient(ctx: RequestContext, realm: RealmModel, rep: ClientRepresentation): Promise<string> {
  if (!(await hasAny(ctx, realm, 'create-client', 'manage-clients'))) throw forbidden();
  await clientPoliciesOnAdminWrite(ctx, realm, 'REGISTER', rep);
  const row = newClientRow(rep);
  validateClientUrls(row, realm);
  const authz = authorizationWanted(rep, row, true);
  const m = ctx.db.models;
  const taken = () => conflict(`Client ${row.clientId} already exists`);
  if (await m.Client.findOne({ where: { realmId: realm.id, clientId: row.clientId }, attributes: ['id'] })) throw taken();
  await write(ctx, { unique: taken }, async () => {
    if (await m.Client.findByPk(row.id, { attributes: ['id'] })) throw taken();
    await m.Client.create({ id: row.id, realmId: realm.id, realmClient: false, ...columns(row) });
    await attachRealmDefaultScopes(ctx, realm, row.id, row.protocol);
    if (rep.defaultClientScopes != null || rep.optionalClientScopes != null) {
      await replaceScopeLinks(ctx, realm, row.id, row.protocol, strList(rep.defaultClientScopes), strList(rep.optionalClientScopes));
    }
    await createMappers(ctx, mapperRows(rep.protocolMappers, row.id, row.protocol));
    if (row.serviceAccountsEnabled) await ensureServiceAccount(ctx, realm, row);
    if (authz) await enableAuthorization(ctx, realm, row, rep.authorizationSettings);
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'CLIENT',
      resourcePath: `clients/${row.id}`,
      representation: { ...eventRep(rep), id: row.id },
    });
  });
  invalidate.client(ctx.loaders, row.id);
  log.debug(`Client ${row.clientId} created in realm ${realm.name}`);
  return row.id;
}

/**
 * Writes columns of a client (its settings JSON, a new secret) and the admin event of the change in
 * one transaction, then forgets the cached client: the write of the secret, node and token endpoints.
 */
export async function saveClient(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  values: { settings: ClientSettings; secret?: string },
  event: AdminEventInput,
): Promise<void> {
  await ctx.db.transaction(async () => {
    await ctx.db.models.Client.update(values, { where: { id: client.id } });
    await recordAdminEvent(ctx, realm, event);
  });
  invalidate.client(ctx.loaders, client.id);
}

/** A resolved client the caller may configure (or manage), or 404/403. */
async function clientFor(ctx: RequestContext, realm: RealmModel, uuid: string, need: 'configure' | 'manage'): Promise<ClientModel> {
  return requireClientAccess(ctx, realm, await resolveClient(ctx, realm, uuid), need);
}

/**
 * PUT /{realm}/clients/{id}: merges the representation into the client (ClientResource#update:
 * configure of the client; changing `fullScopeAllowed` needs manage of it).
 */
export async function updateClient(ctx: RequestContext, realm: RealmModel, uuid: string, rep: ClientRepresentation): Promise<void> {
  const client = await clientFor(ctx, realm, uuid, 'configure');
  await clientPoliciesOnAdminWrite(ctx, realm, 'UPDATE', rep, client);
  const before = rowOf(client);
  const row = mergeClientRow(before, rep);
  if (row.fullScopeAllowed !== before.fullScopeAllowed) await requireClientAccess(ctx, realm, client, 'manage');
  validateClientUrls(row, realm);
  const authz = authorizationWanted(rep, row, false);
  const m = ctx.db.models;
  await write(ctx, { unique: () => conflict('Client already exists') }, async () => {
    await m.Client.update(columns(row), { where: { id: client.id } });
    if (row.protocol !== before.protocol) await attachRealmDefaultScopes(ctx, realm, client.id, row.protocol);
    if (rep.defaultClientScopes != null || rep.optionalClientScopes != null) {
      await replaceScopeLinks(ctx, realm, client.id, row.protocol, strList(rep.defaultClientScopes), strList(rep.optionalClientScopes));
    }
    if (rep.protocolMappers != null) await syncMappers(ctx, { id: client.id, protocol: row.protocol }, rep.protocolMappers);
    if (row.clientId !== before.clientId) await renameServiceAccount(ctx, client.id, row.clientId);
    if (row.serviceAccountsEnabled) await ensureServiceAccount(ctx, realm, row);
    else if (isFalse(rep.serviceAccountsEnabled)) await removeServiceAccount(ctx, realm, client.id);
    if (authz) await enableAuthorization(ctx, realm, row);
    else await disableAuthorization(ctx, realm, client);
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'CLIENT',
      resourcePath: `clients/${client.id}`,
      representation: eventRep(rep),
    });
  });
  invalidate.client(ctx.loaders, client.id);
}

/**
 * DELETE /{realm}/clients/{id}: removes the client and everything hanging off it, its fine-grained
 * management permissions and those of its roles included (manage of the client).
 */
export async function deleteClient(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<void> {
  const client = await clientFor(ctx, realm, uuid, 'manage');
  if (INTERNAL.has(client.clientId) || client.realmClient) throw errorB(400, 'invalid_request', 'Could not delete client');
  await ctx.db.transaction(async () => {
    const roles = await ctx.db.models.Role.findAll({ where: { clientId: client.id }, attributes: ['id'], raw: true });
    await dropManagementPermissions(ctx, realm, [clientSpec(client.id), ...roles.map((r) => roleSpec(r.id))]);
    await deleteServiceAccountUser(ctx, client.id);
    await deleteClientUsage(ctx, client.id);
    await deleteClientRows(ctx.db, client.id);
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'CLIENT', resourcePath: `clients/${client.id}` });
  });
  invalidate.client(ctx.loaders, client.id);
  log.debug(`Client ${client.clientId} deleted from realm ${realm.name}`);
}
