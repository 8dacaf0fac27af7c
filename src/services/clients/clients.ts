import { Op, col, fn, where as sqlWhere } from 'sequelize';
import { MASTER, check } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { forbidden, notFound } from '../../core/errors';
import { isEmptyPage, pageOf, slicePage, sqlPage } from '../../core/paging';
import { type ClientRepresentation, toClientRepresentation, toListedOnlyClientRepresentation } from '../../representations/client';
import type { RequestContext } from '../../core/context';
import { batchLoad } from '../../loaders/batch';
import { groupedBy } from '../../loaders/util';

/**
 * Clients (read side for now; the clients issue adds create/update/delete and sub-resources).
 * Permissions (reference §2.6): list = query-clients/view-clients/manage-clients, view =
 * view-clients/manage-clients, configure/manage = manage-clients. The `<realm>-realm` admin clients
 * in master can be viewed but never configured through the API.
 */

/** True for a `<realm>-realm` admin client in master (its roles cannot be created or changed). */
export function isMasterAdminClient(realm: RealmModel, client: ClientModel): boolean {
  return realm.name === MASTER && Boolean(client.realmClient) && client.clientId.endsWith('-realm');
}

/** The caller's `access` map on a client: `{view, configure, manage}`. */
export async function clientAccess(ctx: RequestContext, realm: RealmModel, client: ClientModel) {
  const view = await check(ctx, realm, 'viewClients');
  const manage = !isMasterAdminClient(realm, client) && (await check(ctx, realm, 'manageClients'));
  return { view, configure: manage, manage };
}

/** A client of the realm by UUID, or null (loader-batched). */
export async function findClient(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<ClientModel | null> {
  const client = await ctx.loaders.clientById.load(uuid);
  return client && client.realmId === realm.id ? client : null;
}

/** Resolves `/clients/{uuid}`: unknown → 404 `Could not find client` if the caller may list clients, else 403. */
export async function resolveClient(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<ClientModel> {
  const client = await findClient(ctx, realm, uuid);
  if (client) return client;
  if (await check(ctx, realm, 'queryClients')) throw notFound('Could not find client');
  throw forbidden();
}

/** The caller's `view` or `manage` right on a resolved client, or 403 (manage: never on a master admin client). */
export async function requireClientAccess(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  need: 'view' | 'manage',
): Promise<ClientModel> {
  if (!(await clientAccess(ctx, realm, client))[need]) throw forbidden();
  return client;
}

/** Full representations of many clients with a fixed number of queries (scope links, scopes, mappers). */
export async function clientRepresentations(
  ctx: RequestContext,
  realm: RealmModel,
  clients: ClientModel[],
): Promise<ClientRepresentation[]> {
  if (!clients.length) return [];
  const m = ctx.db.models;
  const ids = clients.map((c) => c.id);
  const [links, mappers] = await Promise.all([
    m.ClientScopeClient.findAll({ where: { clientId: { [Op.in]: ids } } }),
    m.ProtocolMapper.findAll({ where: { clientId: { [Op.in]: ids } }, order: [['name', 'ASC']] }),
  ]);
  const scopeIds = [...new Set(links.map((l) => l.scopeId))];
  const scopes = scopeIds.length
    ? await m.ClientScope.findAll({ where: { id: { [Op.in]: scopeIds } }, attributes: ['id', 'name', 'protocol'] })
    : [];
  const scopeById = new Map(scopes.map((s) => [s.id, s]));
  const access = new Map<string, { view: boolean; configure: boolean; manage: boolean }>();
  for (const c of clients) access.set(c.id, await clientAccess(ctx, realm, c));
  // Grouped once: a filter per client reads every row's attributes through Sequelize getters (quadratic).
  const linkGroups = groupedBy(links, (l) => l.clientId, ids);
  const mapperGroups = groupedBy(mappers, (pm) => pm.clientId as string, ids);
  return clients.map((c, i) => {
    const own = linkGroups[i];
    const names = (def: boolean) =>
      own
        .filter((l) => Boolean(l.defaultScope) === def)
        .map((l) => scopeById.get(l.scopeId))
        .filter((s) => s && s.protocol === (c.protocol || 'openid-connect'))
        .map((s) => s?.name as string)
        .sort();
    return toClientRepresentation(c, {
      defaultClientScopes: names(true),
      optionalClientScopes: names(false),
      protocolMappers: mapperGroups[i],
      access: access.get(c.id),
    });
  });
}

export interface ClientListQuery {
  clientId?: string;
  search?: boolean;
  /** `key:value` pairs on client attributes (space separated, double quotes group). */
  q?: string;
  viewableOnly?: boolean;
  first?: number;
  max?: number;
}

/** Parses `q`: space-separated `key:value` pairs; double quotes group, backslash escapes. */
function parseQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  const tokens: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < q.length; i++) {
    const ch = q[i];
    if (ch === '\\' && i + 1 < q.length) cur += q[++i];
    else if (ch === '"') quoted = !quoted;
    else if (ch === ' ' && !quoted) {
      if (cur) tokens.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) tokens.push(cur);
  for (const t of tokens) {
    const i = t.indexOf(':');
    if (i > 0) out[t.slice(0, i)] = t.slice(i + 1);
  }
  return out;
}

/**
 * GET /{realm}/clients: by exact clientId (not paged), substring (`search=true`), attribute query
 * `q`, or all; ordered by clientId. Paging: no default size, a negative `max` = all, `max=0` = none.
 */
export async function listClients(ctx: RequestContext, realm: RealmModel, query: ClientListQuery = {}): Promise<ClientRepresentation[]> {
  if (!(await check(ctx, realm, 'queryClients'))) throw forbidden();
  const Client = ctx.db.models.Client;
  const page = pageOf(query, { negativeMax: 'all' });
  let rows: ClientModel[];
  if (query.clientId && !(query.q !== undefined && query.q !== '') && !query.search) {
    rows = await Client.findAll({ where: { realmId: realm.id, clientId: query.clientId } });
  } else if (isEmptyPage(page)) {
    rows = [];
  } else if (query.q !== undefined && query.q !== '') {
    const wanted = Object.entries(parseQuery(query.q));
    const all = await Client.findAll({ where: { realmId: realm.id }, order: [['clientId', 'ASC']] });
    const attrs = (c: ClientModel) =>
      ({ ...(c.settings?.attributes ?? {}), realm_client: String(Boolean(c.realmClient)) }) as Record<string, string>;
    rows = slicePage(
      all.filter((c) => wanted.every(([k, v]) => attrs(c)[k] === v)),
      page,
    );
  } else if (!query.clientId) {
    rows = await Client.findAll({ where: { realmId: realm.id }, order: [['clientId', 'ASC']], ...sqlPage(page) });
  } else {
    const like = `%${query.clientId.toLowerCase()}%`;
    rows = await Client.findAll({
      where: { realmId: realm.id, [Op.and]: [sqlWhere(fn('LOWER', col('client_id')), { [Op.like]: like })] },
      order: [['clientId', 'ASC']],
      ...sqlPage(page),
    });
  }
  if (await check(ctx, realm, 'viewClients')) return clientRepresentations(ctx, realm, rows);
  return query.viewableOnly ? [] : rows.map(toListedOnlyClientRepresentation);
}

/**
 * GET /{realm}/clients/{id}: the full ClientRepresentation with the caller's `access`. The clients
 * of one request tick are rendered together (GraphQL `Role.client` of a list of roles).
 */
export async function getClient(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<ClientRepresentation> {
  const client = await resolveClient(ctx, realm, uuid);
  await requireClientAccess(ctx, realm, client, 'view');
  const render = (clients: readonly ClientModel[]) => clientRepresentations(ctx, realm, [...clients]);
  return batchLoad(ctx.memo, `client-representations:${realm.id}`, render, client);
}
