import { Op, col, fn, where as sqlWhere } from 'sequelize';
import { loaded } from '../../auth/fgap';
import { canClient, canListClients, clientsAccess, isMasterAdminClient, requireClient } from '../../auth/fgap-clients';
import { check } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { forbidden, notFound } from '../../core/errors';
import { isEmptyPage, type Page, pageOf, slicePage, sqlPage } from '../../core/paging';
import { type ClientRepresentation, toClientRepresentation, toListedOnlyClientRepresentation } from '../../representations/client';
import type { RequestContext } from '../../core/context';
import { batchLoad } from '../../loaders/batch';
import { groupedBy } from '../../loaders/util';

/**
 * Clients, read side, and the per-client permission checks every client sub-resource uses. Rights
 * follow Keycloak's ClientPermissions (src/auth/fgap-clients.ts): list = query-clients or view; view,
 * configure, manage of one client = the roles (view-clients, manage-clients) or that client's
 * fine-grained permissions, view ⇐ configure ⇐ manage. The `<realm>-realm` admin clients
 * in master can be viewed but never configured through the API.
 */

export { isMasterAdminClient };

/** The caller's `access` map on a client: `{view, configure, manage}` (ClientPermissions#getAccess). */
export async function clientAccess(ctx: RequestContext, realm: RealmModel, client: ClientModel) {
  return (await clientsAccess(ctx, realm, [client]))[0];
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
  if (await canListClients(ctx, realm)) throw notFound('Could not find client');
  throw forbidden();
}

/**
 * The caller's `view`, `configure` or `manage` right on a resolved client, or 403 (ClientPermissions#
 * requireView / requireConfigure / requireManage; configure and manage: never on a master admin client).
 */
export function requireClientAccess(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  need: 'view' | 'configure' | 'manage',
): Promise<ClientModel> {
  return requireClient(ctx, realm, client, need);
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
  const decided = await clientsAccess(ctx, realm, clients);
  const access = new Map(clients.map((c, i) => [c.id, decided[i]]));
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

/** An exact clientId lookup (no `search`, no `q`). */
const isExact = (query: ClientListQuery) => Boolean(query.clientId) && !query.search && !(query.q !== undefined && query.q !== '');

/** The clients a listing matches, ordered by clientId, within `page` (exact clientId: never paged). */
async function matchingClients(ctx: RequestContext, realm: RealmModel, query: ClientListQuery, page: Page): Promise<ClientModel[]> {
  const Client = ctx.db.models.Client;
  if (isExact(query)) {
    return Client.findAll({ where: { realmId: realm.id, clientId: query.clientId } });
  }
  if (isEmptyPage(page)) return [];
  if (query.q !== undefined && query.q !== '') {
    const wanted = Object.entries(parseQuery(query.q));
    const all = await Client.findAll({ where: { realmId: realm.id }, order: [['clientId', 'ASC']] });
    const attrs = (c: ClientModel) =>
      ({ ...(c.settings?.attributes ?? {}), realm_client: String(Boolean(c.realmClient)) }) as Record<string, string>;
    return slicePage(
      all.filter((c) => wanted.every(([k, v]) => attrs(c)[k] === v)),
      page,
    );
  }
  if (!query.clientId) return Client.findAll({ where: { realmId: realm.id }, order: [['clientId', 'ASC']], ...sqlPage(page) });
  const like = `%${query.clientId.toLowerCase()}%`;
  return Client.findAll({
    where: { realmId: realm.id, [Op.and]: [sqlWhere(fn('LOWER', col('client_id')), { [Op.like]: like })] },
    order: [['clientId', 'ASC']],
    ...sqlPage(page),
  });
}

/**
 * GET /{realm}/clients: by exact clientId (not paged), substring (`search=true`), attribute query
 * `q`, or all; ordered by clientId. Paging: no default size, a negative `max` = all, `max=0` = none.
 * Needs query-clients or view-clients (403). Without view-clients every client is
 * decided on its own (ClientsResource#getClients): the ones the caller may view come in full with
 * their `access`, the others as `{id, clientId, description}` for a query-clients caller (none with
 * `viewableOnly`), and the page is taken from what is left. Decisions are batched for the listing.
 */
export async function listClients(ctx: RequestContext, realm: RealmModel, query: ClientListQuery = {}): Promise<ClientRepresentation[]> {
  if (!(await canListClients(ctx, realm))) throw forbidden();
  const page = pageOf(query, { negativeMax: 'all' });
  if (await check(ctx, realm, 'viewClients')) return clientRepresentations(ctx, realm, await matchingClients(ctx, realm, query, page));
  // Without view-clients Keycloak pages what it keeps, the exact lookup included.
  if (isEmptyPage(page)) return [];
  const listed = !query.viewableOnly && (await check(ctx, realm, 'queryClients'));
  if (!(await loaded(ctx, realm))) {
    // No fine-grained permission can grant a view: what the roles allow, paged in SQL.
    if (!listed) return [];
    const rows = await matchingClients(ctx, realm, query, page);
    return (isExact(query) ? slicePage(rows, page) : rows).map(toListedOnlyClientRepresentation);
  }
  const rows = await matchingClients(ctx, realm, query, { offset: 0 });
  const viewable = await Promise.all(rows.map((c) => canClient(ctx, realm, c, 'view')));
  const viewableIds = new Set(rows.filter((_, i) => viewable[i]).map((c) => c.id));
  const paged = slicePage(
    rows.filter((c) => listed || viewableIds.has(c.id)),
    page,
  );
  const reps = await clientRepresentations(
    ctx,
    realm,
    paged.filter((c) => viewableIds.has(c.id)),
  );
  const full = new Map(reps.map((r) => [r.id, r]));
  return paged.map((c) => full.get(c.id) ?? toListedOnlyClientRepresentation(c));
}

/**
 * GET /{realm}/clients/{id}: the full ClientRepresentation with the caller's `access` (view of the
 * client: roles or its fine-grained permission). A caller who may view it but not client scopes
 * (no view-clients role: ClientPermissions#canViewClientScopes) gets empty default and optional
 * scope lists. The clients of one request tick are rendered together (GraphQL `Role.client`).
 */
export async function getClient(ctx: RequestContext, realm: RealmModel, uuid: string): Promise<ClientRepresentation> {
  const client = await resolveClient(ctx, realm, uuid);
  await requireClientAccess(ctx, realm, client, 'view');
  const render = (clients: readonly ClientModel[]) => clientRepresentations(ctx, realm, [...clients]);
  const rep = await batchLoad(ctx.memo, `client-representations:${realm.id}`, render, client);
  if (await check(ctx, realm, 'viewClients')) return rep;
  return { ...rep, defaultClientScopes: [], optionalClientScopes: [] };
}
