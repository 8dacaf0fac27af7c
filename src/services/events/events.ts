import { Op, QueryTypes, type WhereOptions, literal } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { cannotParse, errorB, errorC } from '../../core/errors';
import { getLogger } from '../../logging';
import { validateRepresentation } from '../../representations/schema';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { isEmptyPage, pageOf, sqlPage } from '../../core/paging';
import { invalidate } from '../../loaders/invalidate';
import {
  type AdminEventRepresentation,
  type EventRepresentation,
  type EventsConfigRepresentation,
  toAdminEventRepresentation,
  toEventRepresentation,
  toEventsConfigRepresentation,
} from '../../representations/event';
import { EVENT_LISTENERS, EVENT_TYPE_SET, GLOBAL_EVENT_LISTENERS, OPERATION_TYPES, RESOURCE_TYPES } from '../../keycloak/event-types';

/**
 * Events (reference §7): listing and deleting user events and admin events with every filter,
 * the realm's events configuration, and the expiration of old events.
 */
const log = getLogger('idserver.services.events');

export interface EventQuery {
  /** Event types; each entry may also be a comma-separated list. */
  type?: string[];
  client?: string;
  user?: string;
  ipAddress?: string;
  dateFrom?: string;
  dateTo?: string;
  first?: number;
  max?: number;
  direction?: string;
}

export interface AdminEventQuery {
  operationTypes?: string[];
  resourceTypes?: string[];
  authRealm?: string;
  authClient?: string;
  authUser?: string;
  authIpAddress?: string;
  resourcePath?: string;
  dateFrom?: string;
  dateTo?: string;
  first?: number;
  max?: number;
  direction?: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `yyyy-MM-dd` (server time zone; the whole day for dateTo) or epoch milliseconds; else 400. */
export function parseDateParam(name: 'dateFrom' | 'dateTo', value: string): number {
  const v = value.trim();
  const bad = () => errorC(400, `Invalid value for '${name}', expected format is yyyy-MM-dd or an Epoch timestamp`);
  const day = DAY.exec(v);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]) - 1, Number(day[3])];
    const start = new Date(y, m, d);
    if (start.getFullYear() !== y || start.getMonth() !== m || start.getDate() !== d) throw bad();
    return name === 'dateFrom' ? start.getTime() : new Date(y, m, d + 1).getTime() - 1;
  }
  if (/^\d+$/.test(v)) return Number(v);
  throw bad();
}

/** Splits repeated and comma-separated values; each must be one of `allowed` (else Keycloak's 500). */
function enumValues(values: string[] | undefined, allowed: ReadonlySet<string>): string[] {
  const out = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  // Keycloak answers an unknown enum value with a 500; bad input here is a clear 400 instead.
  const unknown = out.find((v) => !allowed.has(v));
  if (unknown !== undefined) throw errorB(400, 'invalid_request', `Unknown value '${unknown}'`);
  return out;
}

function timeRange(q: { dateFrom?: string; dateTo?: string }): WhereOptions | undefined {
  const range: Record<symbol, number> = {};
  if (q.dateFrom) range[Op.gte] = parseDateParam('dateFrom', q.dateFrom);
  if (q.dateTo) range[Op.lte] = parseDateParam('dateTo', q.dateTo);
  return Object.getOwnPropertySymbols(range).length ? range : undefined;
}

/** Newest first unless `direction=asc`; anything but asc/desc is Keycloak's 400. */
function orderOf(direction: string | undefined): Array<[string, string]> {
  const dir = direction?.toLowerCase();
  if (direction !== undefined && dir !== 'asc' && dir !== 'desc') {
    throw errorC(400, 'Invalid value for sortDirection, expected value is asc or desc');
  }
  const order = dir === 'asc' ? 'ASC' : 'DESC';
  return [
    ['time', order],
    ['id', order],
  ];
}

/** A Sequelize `where` of an event table, built filter by filter (attribute names and `Op` symbols). */
type Where = Record<string | symbol, unknown>;

/**
 * What both listings share: the `dateFrom`/`dateTo` range (checked first), the order (then) and the
 * page: 100 rows when `max` is absent or negative; null for `max=0`, an empty page.
 */
function listing(q: EventQuery | AdminEventQuery, where: Where) {
  const time = timeRange(q);
  if (time) where.time = time;
  const order = orderOf(q.direction);
  const page = pageOf(q, { defaultMax: 100, negativeMax: 'default' });
  return isEmptyPage(page) ? null : { where: where as WhereOptions, order, ...sqlPage(page) };
}

/** GET /admin/realms/{realm}/events: user events, newest first, every filter of §7.3 (view-events). */
export async function listEvents(ctx: RequestContext, realm: RealmModel, q: EventQuery = {}): Promise<EventRepresentation[]> {
  await requireCap(ctx, realm, 'viewEvents');
  const types = enumValues(q.type, EVENT_TYPE_SET);
  const where: Where = { realmId: realm.id };
  if (types.length) where.type = { [Op.in]: types };
  if (q.client) where.clientId = q.client;
  if (q.user) where.userId = q.user;
  if (q.ipAddress) where.ipAddress = q.ipAddress;
  const find = listing(q, where);
  return find ? (await ctx.db.models.Event.findAll(find)).map(toEventRepresentation) : [];
}

/** `resourcePath` filter: `*` matches any characters (LIKE with `!` as escape, portable to SQLite and MySQL). */
function pathCondition(db: Db, path: string) {
  if (!path.includes('*')) return { resourcePath: path };
  const pattern = path.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%');
  return { [Op.and]: [literal(`resource_path LIKE ${db.sequelize.escape(pattern)} ESCAPE '!'`)] };
}

/** GET /admin/realms/{realm}/admin-events: admin events, newest first, every filter of §7.4 (view-events). */
export async function listAdminEvents(
  ctx: RequestContext,
  realm: RealmModel,
  q: AdminEventQuery = {},
): Promise<AdminEventRepresentation[]> {
  await requireCap(ctx, realm, 'viewEvents');
  const ops = enumValues(q.operationTypes, OPERATION_TYPES);
  const resources = enumValues(q.resourceTypes, RESOURCE_TYPES);
  const where: Where = { realmId: realm.id };
  if (ops.length) where.operationType = { [Op.in]: ops };
  if (resources.length) where.resourceType = { [Op.in]: resources };
  if (q.authRealm) where.authRealmId = q.authRealm;
  if (q.authClient) where.authClientId = q.authClient;
  if (q.authUser) where.authUserId = q.authUser;
  if (q.authIpAddress) where.ipAddress = q.authIpAddress;
  if (q.resourcePath) Object.assign(where, pathCondition(ctx.db, q.resourcePath));
  const find = listing(q, where);
  return find ? (await ctx.db.models.AdminEvent.findAll(find)).map(toAdminEventRepresentation) : [];
}

/** DELETE /admin/realms/{realm}/events: deletes every stored user event of the realm (manage-events). */
export async function clearEvents(ctx: RequestContext, realm: RealmModel): Promise<void> {
  await requireCap(ctx, realm, 'manageEvents');
  await ctx.db.transaction(() => ctx.db.models.Event.destroy({ where: { realmId: realm.id } }));
}

/** DELETE /admin/realms/{realm}/admin-events: deletes every stored admin event of the realm (manage-events). */
export async function clearAdminEvents(ctx: RequestContext, realm: RealmModel): Promise<void> {
  await requireCap(ctx, realm, 'manageEvents');
  await ctx.db.transaction(() => ctx.db.models.AdminEvent.destroy({ where: { realmId: realm.id } }));
}

const flag = (v: unknown) => v === true || v === 'true';

/** GET /admin/realms/{realm}/events/config (view-events). */
export async function getEventsConfig(ctx: RequestContext, realm: RealmModel): Promise<EventsConfigRepresentation> {
  await requireCap(ctx, realm, 'viewEvents');
  return toEventsConfigRepresentation(realm);
}

/** Unknown listener → 400 `Unknown event listener`; a global one → 400 (also used by realm create/update). */
export function checkEventListeners(listeners: unknown): void {
  if (!Array.isArray(listeners)) return;
  for (const l of listeners) {
    if (GLOBAL_EVENT_LISTENERS.has(String(l))) throw errorC(400, 'Global event listeners not allowed in realm specific configuration');
    if (!EVENT_LISTENERS.has(String(l))) throw errorC(400, 'Unknown event listener');
  }
}

/**
 * PUT /admin/realms/{realm}/events/config (manage-events): `eventsEnabled` omitted → false,
 * `eventsExpiration` omitted → 0; null lists and admin flags are left unchanged; `enabledEventTypes: []`
 * resets to the default types. Records UPDATE/REALM `events/config` when admin events were or become enabled.
 */
export async function updateEventsConfig(ctx: RequestContext, realm: RealmModel, body: unknown): Promise<void> {
  await requireCap(ctx, realm, 'manageEvents');
  if (body === undefined || body === null) throw cannotParse('mapping');
  const rep = validateRepresentation<EventsConfigRepresentation>('RealmEventsConfigRepresentation', body);
  checkEventListeners(rep.eventsListeners);
  const wasEnabled = flag(realm.settings.adminEventsEnabled);
  await ctx.db.transaction(async () => {
    const fresh = await ctx.db.models.Realm.findByPk(realm.id);
    if (!fresh) throw errorC(404, 'Realm not found.');
    const s: RealmModel['settings'] = { ...fresh.settings };
    s.eventsEnabled = flag(rep.eventsEnabled);
    s.eventsExpiration = rep.eventsExpiration != null ? Number(rep.eventsExpiration) : 0;
    if (Array.isArray(rep.eventsListeners)) s.eventsListeners = [...new Set(rep.eventsListeners.map(String))];
    if (Array.isArray(rep.enabledEventTypes)) s.enabledEventTypes = [...new Set(rep.enabledEventTypes.map(String))];
    if (rep.adminEventsEnabled != null) s.adminEventsEnabled = flag(rep.adminEventsEnabled);
    if (rep.adminEventsDetailsEnabled != null) s.adminEventsDetailsEnabled = flag(rep.adminEventsDetailsEnabled);
    fresh.settings = s;
    await fresh.save();
    await recordAdminEvent(ctx, fresh, {
      operationType: 'UPDATE',
      resourceType: 'REALM',
      resourcePath: 'events/config',
      representation: rep,
      force: wasEnabled,
    });
    realm.settings = s;
  });
  invalidate.realm(ctx.loaders, realm);
}

export interface PurgeOptions {
  /** Rows per DELETE statement (default 500). */
  batchSize?: number;
  /** The current time in ms (tests). */
  now?: number;
}

/**
 * Deletes user events older than each realm's `eventsExpiration` (seconds) and admin events older
 * than its `adminEventsExpiration` attribute, in batches of `batchSize` rows per statement (each its
 * own short transaction, so the table is never locked for long). Returns the number of rows removed.
 */
export async function purgeExpiredEvents(db: Db, opts: PurgeOptions = {}): Promise<number> {
  const batch = Math.max(1, opts.batchSize ?? 500);
  const now = opts.now ?? Date.now();
  let total = 0;
  for (const realm of await db.models.Realm.findAll({ attributes: ['id', 'settings'] })) {
    const s = realm.settings;
    const userExp = Number(s.eventsExpiration ?? 0);
    const attrs = (s.attributes ?? {}) as { adminEventsExpiration?: unknown };
    const adminExp = Number(s.adminEventsExpiration ?? attrs.adminEventsExpiration ?? 0);
    if (userExp > 0) total += await purgeTable(db, 'event_entity', realm.id, now - userExp * 1000, batch);
    if (adminExp > 0) total += await purgeTable(db, 'admin_event_entity', realm.id, now - adminExp * 1000, batch);
  }
  if (total) log.debug(`Removed ${total} expired events`);
  return total;
}

/**
 * Repeats `DELETE ... WHERE id IN (up to batch ids older than before)` until nothing is left (works on
 * SQLite and MySQL). Each batch is its own transaction, so it takes its turn with the other writes
 * (SQLite's one writer) instead of contending with them, and holds the lock for one batch only.
 */
async function purgeTable(db: Db, table: string, realmId: string, before: number, batch: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const count = await db.transaction(async () => {
      const ids = await db.sequelize.query<{ id: string }>(
        `SELECT id FROM ${table} WHERE realm_id = :realmId AND time < :before ORDER BY time LIMIT ${batch}`,
        { replacements: { realmId, before }, type: QueryTypes.SELECT },
      );
      if (ids.length) {
        await db.sequelize.query(`DELETE FROM ${table} WHERE id IN (:ids)`, {
          replacements: { ids: ids.map((r) => r.id) },
          type: QueryTypes.DELETE,
        });
      }
      return ids.length;
    });
    removed += count;
    if (count < batch) return removed;
  }
}

/** Runs `purgeExpiredEvents` every `intervalMs` (default 15 min) without keeping the process alive; returns a stop function. */
export function startEventExpiration(db: Db, intervalMs = 15 * 60 * 1000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    db.background(() =>
      purgeExpiredEvents(db)
        .catch((e: unknown) => log.warn(`Event expiration failed: ${(e as Error).message}`))
        .finally(() => {
          running = false;
        }),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
