import { Op, QueryTypes } from 'sequelize';
import { type RequestContext, createContext } from '../../core/context';
import { HttpError, errorB, errorC } from '../../core/errors';
import type { Db } from '../../db';
import type { AdminEventModel, EventModel } from '../../db/models/event';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { eventFeedPollers, eventFeedSubscribers } from '../../metrics';
import {
  type AdminEventRepresentation,
  type EventRepresentation,
  toAdminEventRepresentation,
  toEventRepresentation,
} from '../../representations/event';
import { type AdminEventQuery, type EventQuery, listAdminEvents, listEvents, parseDateParam } from './events';

/**
 * Live feeds of a realm's user (login) events and admin events (ADR 18), for the GraphQL
 * subscriptions. Events are rows in the database, written by whichever node handled the request, so
 * each node runs one poller per realm and kind while it has subscribers there: every `pollMs` it
 * reads the ids of the rows stamped within `lookbackMs` of the newest event it has seen (the
 * `(realm_id, time)` index), fetches the rows it has not seen yet and hands them to its subscribers,
 * each applying its own filter. The window makes a row visible even when it was committed a little
 * after its time stamp (a long transaction) or written by a node whose clock is a little behind; the
 * set of seen ids keeps a row from being delivered twice. A subscriber that gives `dateFrom` first
 * receives the stored events from then on (oldest first), then the live ones, without duplicates.
 */
const log = getLogger('idserver.services.events.feed');

/** Timing of the feeds (internal; tests and operators have no reason to change them). */
export const FEED = {
  /** Pause between two polls of one realm's table. */
  pollMs: 300,
  /** A row committed up to this long after its time stamp (or stamped by a clock this far behind) is still seen. */
  lookbackMs: 5_000,
  /** At most this many stored events are replayed for `dateFrom`; more is a 400 (page through the query instead). */
  replayMax: 1_000,
  /** The caller's right to view events is checked again this often (roles can be taken away). */
  reauthorizeMs: 30_000,
  /** Events waiting for a subscriber that does not read them; more ends its subscription. */
  queueMax: 10_000,
};

const REPLAY_PAGE = 100;
const FETCH_CHUNK = 500;
/** setTimeout's longest delay; a `dateTo` further away never ends the feed by itself. */
const MAX_DELAY = 2 ** 31 - 1;

/** The filters of `GET /events` that apply to a stream (paging and order do not). */
export type EventFeedFilter = Omit<EventQuery, 'first' | 'max' | 'direction'>;
/** The filters of `GET /admin-events` that apply to a stream. */
export type AdminEventFeedFilter = Omit<AdminEventQuery, 'first' | 'max' | 'direction'>;

type FeedKind = 'events' | 'adminEvents';
type Row = { id: string; time: number };

interface Kind<F, R extends Row> {
  name: FeedKind;
  table: string;
  fetch(db: Db, ids: string[]): Promise<R[]>;
  list(ctx: RequestContext, realm: RealmModel, q: F & { first?: number; max?: number; direction?: string }): Promise<R[]>;
  matcher(filter: F): (rep: R) => boolean;
}

/** Repeated and comma-separated values, as the listings read them. */
const values = (v: string[] | undefined) =>
  (v ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/** The `dateFrom`/`dateTo` bounds of a filter, as the listings read them. */
function timeBounds(f: { dateFrom?: string; dateTo?: string }): (time: number) => boolean {
  const from = f.dateFrom ? parseDateParam('dateFrom', f.dateFrom) : Number.NEGATIVE_INFINITY;
  const to = f.dateTo ? parseDateParam('dateTo', f.dateTo) : Number.POSITIVE_INFINITY;
  return (time) => time >= from && time <= to;
}

/**
 * `resourcePath` as the listing matches it: equal, or `*` standing for any characters. A plain scan,
 * not a RegExp built from the filter: a long filter cannot make a pattern too large to compile.
 */
export function pathMatcher(path: string | undefined): (p: string | undefined) => boolean {
  if (!path) return () => true;
  if (!path.includes('*')) return (p) => p === path;
  const parts = path.split('*');
  const first = parts[0];
  const last = parts[parts.length - 1];
  const middle = parts.slice(1, -1);
  return (p) => {
    if (p === undefined || p.length < first.length + last.length || !p.startsWith(first) || !p.endsWith(last)) return false;
    let at = first.length;
    const end = p.length - last.length;
    for (const part of middle) {
      const found = p.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}

const orderedByTime = [
  ['time', 'ASC'],
  ['id', 'ASC'],
] as Array<[string, string]>;

const EVENTS: Kind<EventFeedFilter, EventRepresentation> = {
  name: 'events',
  table: 'event_entity',
  fetch: async (db, ids) =>
    (await db.models.Event.findAll({ where: { id: { [Op.in]: ids } }, order: orderedByTime })).map((m: EventModel) =>
      toEventRepresentation(m),
    ),
  list: listEvents,
  matcher(f) {
    const types = new Set(values(f.type));
    const inTime = timeBounds(f);
    return (e) =>
      (!types.size || types.has(e.type)) &&
      (!f.client || e.clientId === f.client) &&
      (!f.user || e.userId === f.user) &&
      (!f.ipAddress || e.ipAddress === f.ipAddress) &&
      inTime(e.time);
  },
};

const ADMIN_EVENTS: Kind<AdminEventFeedFilter, AdminEventRepresentation> = {
  name: 'adminEvents',
  table: 'admin_event_entity',
  fetch: async (db, ids) =>
    (await db.models.AdminEvent.findAll({ where: { id: { [Op.in]: ids } }, order: orderedByTime })).map((m: AdminEventModel) =>
      toAdminEventRepresentation(m),
    ),
  list: listAdminEvents,
  matcher(f) {
    const ops = new Set(values(f.operationTypes));
    const resources = new Set(values(f.resourceTypes));
    const path = pathMatcher(f.resourcePath);
    const inTime = timeBounds(f);
    return (e) => {
      const a = e.authDetails;
      return (
        (!ops.size || ops.has(e.operationType)) &&
        (!resources.size || resources.has(e.resourceType)) &&
        (!f.authRealm || a.realmId === f.authRealm) &&
        (!f.authClient || a.clientId === f.authClient) &&
        (!f.authUser || a.userId === f.authUser) &&
        (!f.authIpAddress || a.ipAddress === f.authIpAddress) &&
        path(e.resourcePath) &&
        inTime(e.time)
      );
    };
  },
};

/** One subscription: an async iterator of the events that match its filter, in the order they were found. */
class Subscriber<R extends Row> implements AsyncIterableIterator<R> {
  private readonly queue: R[] = [];
  private waiting: { resolve: (r: IteratorResult<R>) => void; reject: (e: unknown) => void } | undefined;
  private error: unknown;
  private ended = false;
  /** While stored events are replayed, live ones wait here. */
  private held: R[] | undefined;
  private readonly replayed = new Set<string>();
  private readonly cleanups: Array<() => void> = [];

  constructor(
    readonly kind: FeedKind,
    private readonly matches: (rep: R) => boolean,
  ) {
    eventFeedSubscribers.inc({ kind });
  }

  /** Runs when the subscription ends, however it ends. */
  onEnd(fn: () => void): void {
    if (this.ended) fn();
    else this.cleanups.push(fn);
  }

  /** A live event from the poller. */
  offer(rep: R): void {
    if (this.ended || !this.matches(rep)) return;
    if (this.held) this.held.push(rep);
    else if (!this.replayed.has(rep.id)) this.push(rep);
  }

  startReplay(): void {
    this.held = [];
  }

  /** A stored event of the replay (already filtered by the listing). */
  replay(rep: R): void {
    if (this.ended || this.replayed.has(rep.id)) return;
    this.replayed.add(rep.id);
    this.push(rep);
  }

  /** The replay is over: the live events that arrived meanwhile follow, without the replayed ones. */
  endReplay(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const rep of held) if (!this.replayed.has(rep.id)) this.push(rep);
  }

  private push(rep: R): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value: rep, done: false });
      return;
    }
    if (this.queue.length >= FEED.queueMax) {
      this.fail(errorC(503, `The subscriber fell behind by more than ${FEED.queueMax} events`));
      return;
    }
    this.queue.push(rep);
  }

  /** Ends the subscription with an error (delivered after the queued events). */
  fail(e: unknown): void {
    if (this.ended) return;
    this.error = e;
    this.finish();
  }

  /** Ends the subscription normally (after the queued events). */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    eventFeedSubscribers.dec({ kind: this.kind });
    for (const fn of this.cleanups.splice(0)) fn();
    if (this.waiting && !this.queue.length) this.settle(this.waiting);
  }

  private settle(w: { resolve: (r: IteratorResult<R>) => void; reject: (e: unknown) => void }): void {
    this.waiting = undefined;
    if (this.error !== undefined) {
      const e = this.error;
      this.error = undefined;
      w.reject(e);
    } else w.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<R>> {
    const value = this.queue.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    return new Promise((resolve, reject) => {
      const w = { resolve, reject };
      if (this.ended) this.settle(w);
      else this.waiting = w;
    });
  }

  return(): Promise<IteratorResult<R>> {
    this.queue.length = 0;
    this.error = undefined;
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(e: unknown): Promise<IteratorResult<R>> {
    this.queue.length = 0;
    this.finish();
    return Promise.reject(e);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** One realm's table on this node: polled while it has subscribers. */
class Poller<R extends Row> {
  readonly subscribers = new Set<Subscriber<R>>();
  /** Ids (and times) of the rows inside the window that were already handed out. */
  private readonly seen = new Map<string, number>();
  /** The newest time stamp seen; the window reaches `lookbackMs` back from it (or from now, if earlier). */
  private newest: number;
  private primed = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The poll under way, awaited on shutdown. */
  running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly kind: Kind<unknown, R>,
    private readonly realmId: string,
    private readonly onStop: () => void,
    private readonly startedAt = Date.now(),
  ) {
    this.newest = startedAt;
    eventFeedPollers.inc({ kind: kind.name });
    this.schedule(0);
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .catch((e: unknown) => log.warn(`Polling ${this.kind.table} failed: ${(e as Error).message}`))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(FEED.pollMs);
        });
    }, delay);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const from = Math.min(this.newest, Date.now()) - FEED.lookbackMs;
    const rows = await this.db.sequelize.query<{ id: string; time: number | string }>(
      `SELECT id, time FROM ${this.kind.table} WHERE realm_id = :realmId AND time >= :from`,
      { replacements: { realmId: this.realmId, from }, type: QueryTypes.SELECT },
    );
    const fresh: Row[] = [];
    for (const r of rows) {
      const time = Number(r.time);
      if (time > this.newest) this.newest = time;
      if (this.seen.has(r.id)) continue;
      // The first poll only learns which rows were there before the poller started.
      if (!this.primed && time < this.startedAt) this.seen.set(r.id, time);
      else fresh.push({ id: r.id, time });
    }
    this.primed = true;
    for (let i = 0; i < fresh.length && !this.stopped; i += FETCH_CHUNK) {
      const chunk = fresh.slice(i, i + FETCH_CHUNK);
      const reps = await this.kind.fetch(
        this.db,
        chunk.map((r) => r.id),
      );
      // A row deleted meanwhile (expired, cleared) counts as seen all the same.
      for (const r of chunk) this.seen.set(r.id, r.time);
      for (const rep of reps) for (const s of [...this.subscribers]) s.offer(rep);
    }
    for (const [id, time] of this.seen) if (time < from) this.seen.delete(id);
  }

  /** Drops a subscriber; the last one stops the poller. */
  leave(s: Subscriber<R>): void {
    this.subscribers.delete(s);
    if (!this.subscribers.size) this.stop();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    eventFeedPollers.dec({ kind: this.kind.name });
    this.onStop();
  }
}

/** The pollers of each open database, by kind and realm id. */
const pollers = new WeakMap<Db, Map<string, Poller<Row>>>();

function join<R extends Row>(db: Db, kind: Kind<unknown, R>, realmId: string, s: Subscriber<R>): void {
  const byKey = pollers.get(db) ?? new Map<string, Poller<Row>>();
  pollers.set(db, byKey);
  const key = `${kind.name}:${realmId}`;
  let poller = byKey.get(key) as Poller<R> | undefined;
  if (!poller) {
    const created: Poller<R> = new Poller<R>(db, kind, realmId, () => {
      if (byKey.get(key) === (created as unknown as Poller<Row>)) byKey.delete(key);
    });
    poller = created;
    byKey.set(key, poller as unknown as Poller<Row>);
  }
  poller.subscribers.add(s);
  const p = poller;
  s.onEnd(() => p.leave(s));
}

async function subscribe<F extends { dateFrom?: string; dateTo?: string }, R extends Row>(
  ctx: RequestContext,
  realm: RealmModel,
  kind: Kind<F, R>,
  filter: F,
): Promise<AsyncIterableIterator<R>> {
  // The listing's own checks, without reading a row (max 0): view-events, and every filter value valid.
  await kind.list(ctx, realm, { ...filter, max: 0 });
  const s = new Subscriber<R>(kind.name, kind.matcher(filter));
  if (filter.dateFrom) s.startReplay();
  join(ctx.db, kind as unknown as Kind<unknown, R>, realm.id, s);
  if (filter.dateFrom) {
    replay(ctx, realm, kind, filter, s).then(
      () => s.endReplay(),
      (e: unknown) => s.fail(e),
    );
  }
  if (filter.dateTo) {
    // Nothing stamped after dateTo can match: once the window has passed it, the feed is complete.
    const delay = parseDateParam('dateTo', filter.dateTo) + FEED.lookbackMs + FEED.pollMs - Date.now();
    if (delay <= MAX_DELAY) {
      const t = setTimeout(() => s.finish(), Math.max(0, delay));
      t.unref();
      s.onEnd(() => clearTimeout(t));
    }
  }
  const again = setInterval(() => {
    const fresh = createContext(ctx.db, ctx.actor, ctx.baseUrl, 'idserver.services.events.feed');
    ctx.db.background(() =>
      kind.list(fresh, realm, { ...filter, max: 0 }).catch((e: unknown) => {
        if (e instanceof HttpError) s.fail(e);
        else log.warn(`Re-checking a subscriber failed: ${(e as Error).message}`);
      }),
    );
  }, FEED.reauthorizeMs);
  again.unref();
  s.onEnd(() => clearInterval(again));
  return s;
}

/** The stored events matching the filter from `dateFrom` on, oldest first, through the listing itself. */
async function replay<F, R extends Row>(ctx: RequestContext, realm: RealmModel, kind: Kind<F, R>, filter: F, s: Subscriber<R>) {
  for (let first = 0; ; first += REPLAY_PAGE) {
    const page = await kind.list(ctx, realm, { ...filter, direction: 'asc', first, max: REPLAY_PAGE });
    if (first + page.length > FEED.replayMax) {
      throw errorB(
        400,
        'invalid_request',
        `More than ${FEED.replayMax} stored events match from dateFrom on: read them with the events query, then subscribe from the last one`,
      );
    }
    for (const rep of page) s.replay(rep);
    if (page.length < REPLAY_PAGE) return;
  }
}

/**
 * The live user events of a realm matching `filter` (the filters of `GET /events`; view-events).
 * Events stored from `dateFrom` on come first; the feed ends once no event up to `dateTo` can arrive.
 */
export function subscribeEvents(
  ctx: RequestContext,
  realm: RealmModel,
  filter: EventFeedFilter = {},
): Promise<AsyncIterableIterator<EventRepresentation>> {
  return subscribe(ctx, realm, EVENTS, filter);
}

/** The live admin events of a realm matching `filter` (the filters of `GET /admin-events`; view-events). */
export function subscribeAdminEvents(
  ctx: RequestContext,
  realm: RealmModel,
  filter: AdminEventFeedFilter = {},
): Promise<AsyncIterableIterator<AdminEventRepresentation>> {
  return subscribe(ctx, realm, ADMIN_EVENTS, filter);
}

/** Ends every feed of the database and waits for polls under way (before the database closes). */
export async function stopEventFeeds(db: Db): Promise<void> {
  const byKey = pollers.get(db);
  if (!byKey) return;
  const all = [...byKey.values()];
  for (const p of all) for (const s of [...p.subscribers]) s.finish();
  for (const p of all) p.stop();
  await Promise.all(all.map((p) => p.running));
  pollers.delete(db);
}
