import { randomUUID } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { isUniqueViolation } from '../../core/db-errors';
import { getLogger } from '../../logging';
import { nowSeconds } from '../../core/clock';
import { type SessionRepOptions, type UserSessionRepresentation, toUserSessionRepresentation } from '../../representations/session';
import { parseStorageId } from '../user-storage/transient-users';

/**
 * The session store (reference §9, §4.13): user sessions (online or offline) and their client
 * sessions are rows, so every node sees the same sessions. A session is active while it is younger
 * than the realm's max lifespan and was used within the idle timeout; expired rows are ignored by
 * every read, removed when a token touches them, and purged in small batches.
 */
const log = getLogger('idserver.services.sessions');

const num = (realm: RealmModel, key: string, dflt: number) => {
  const v = Number(realm.settings[key] ?? dflt);
  return Number.isFinite(v) ? v : dflt;
};

/** Idle and max lifespan (seconds, 0 = unlimited) of a realm's online or offline sessions. */
export function sessionTimeouts(realm: RealmModel, offline: boolean, rememberMe = false): { idle: number; max: number } {
  if (offline) {
    const maxOn = realm.settings.offlineSessionMaxLifespanEnabled === true || realm.settings.offlineSessionMaxLifespanEnabled === 'true';
    return { idle: num(realm, 'offlineSessionIdleTimeout', 2592000), max: maxOn ? num(realm, 'offlineSessionMaxLifespan', 5184000) : 0 };
  }
  const idle = num(realm, 'ssoSessionIdleTimeout', 1800);
  const max = num(realm, 'ssoSessionMaxLifespan', 36000);
  if (!rememberMe) return { idle, max };
  const idleRm = num(realm, 'ssoSessionIdleTimeoutRememberMe', 0);
  const maxRm = num(realm, 'ssoSessionMaxLifespanRememberMe', 0);
  return { idle: idleRm > 0 ? idleRm : idle, max: maxRm > 0 ? maxRm : max };
}

/** True while the session is within its idle timeout and max lifespan. */
export function isSessionActive(realm: RealmModel, s: UserSessionModel, now = nowSeconds()): boolean {
  const { idle, max } = sessionTimeouts(realm, s.offline, s.rememberMe);
  if (idle > 0 && now - s.lastAccess > idle) return false;
  if (max > 0 && now - s.started > max) return false;
  return true;
}

/** Seconds until the session expires (idle or max, whichever first); 0 when unlimited. */
export function secondsLeft(realm: RealmModel, s: UserSessionModel, now = nowSeconds()): number {
  const { idle, max } = sessionTimeouts(realm, s.offline, s.rememberMe);
  const left = [idle > 0 ? idle : Number.POSITIVE_INFINITY, max > 0 ? s.started + max - now : Number.POSITIVE_INFINITY];
  const m = Math.min(...left);
  return Number.isFinite(m) ? Math.max(0, m) : 0;
}

/** WHERE clause for the active sessions of a realm (online or offline). */
export function activeSessionWhere(realm: RealmModel, offline: boolean, now = nowSeconds()): WhereOptions {
  const { idle, max } = sessionTimeouts(realm, offline);
  return {
    realmId: realm.id,
    offline,
    ...(idle > 0 ? { lastAccess: { [Op.gte]: now - idle } } : {}),
    ...(max > 0 ? { started: { [Op.gte]: now - max } } : {}),
  };
}

export interface NewSession {
  user: UserModel;
  client: ClientModel;
  ipAddress?: string | null;
  offline: boolean;
  authMethod?: string;
  notes?: Record<string, string>;
}

let created = 0;

/** Creates a user session with the client's client session, in one transaction. */
export async function createSession(db: Db, realm: RealmModel, n: NewSession): Promise<UserSessionModel> {
  const now = nowSeconds();
  const id = randomUUID();
  const session = await db.transaction(async () => {
    const s = await db.models.UserSession.create({
      id,
      realmId: realm.id,
      userId: n.user.id,
      clientId: n.client.id,
      ipAddress: n.ipAddress ?? null,
      started: now,
      lastAccess: now,
      offline: n.offline,
      notes: n.notes ?? {},
      rememberMe: false,
      authMethod: n.authMethod ?? 'openid-connect',
    });
    await db.models.ClientSession.create({
      userSessionId: id,
      clientId: n.client.id,
      realmId: realm.id,
      offline: n.offline,
      timestamp: now,
    });
    return s;
  });
  // Amortised cleanup: every 50th session created by this node purges a small batch of expired ones.
  if (++created % 50 === 0)
    db.background(() => purgeExpiredSessions(db, realm).catch((e) => log.warn(`Session purge failed: ${(e as Error).message}`)));
  return session;
}

/** The session if it exists in the realm and is active; an expired one is removed on the way. */
export async function findActiveSession(db: Db, realm: RealmModel, id: string): Promise<UserSessionModel | null> {
  const s = await db.models.UserSession.findByPk(id);
  if (!s || s.realmId !== realm.id) return null;
  if (isSessionActive(realm, s)) return s;
  await removeSessions(db, [s.id]);
  return null;
}

/**
 * What `touchSession` does to the client's client session: `create` marks it used and creates it when
 * missing (a login, a code exchange), `update` only marks an existing one (a refresh: a client session
 * revoked meanwhile stays gone, as Keycloak's TokenManager never brings one back), `none` leaves it
 * (the refresh token reuse count, tokens/refresh-reuse.ts, wrote it).
 */
export type ClientSessionTouch = 'create' | 'update' | 'none';

/** Marks the session and, as `link` says, the client's client session as used now. */
export async function touchSession(db: Db, s: UserSessionModel, clientId: string, link: ClientSessionTouch = 'create'): Promise<void> {
  const now = nowSeconds();
  if (link === 'none') {
    await db.models.UserSession.update({ lastAccess: now }, { where: { id: s.id } });
    s.lastAccess = now;
    return;
  }
  await db.transaction(async () => {
    await db.models.UserSession.update({ lastAccess: now }, { where: { id: s.id } });
    if (link === 'update') {
      await db.models.ClientSession.update({ timestamp: now }, { where: { userSessionId: s.id, clientId } });
      return;
    }
    // MySQL counts changed rows only, so look the row up instead of trusting update's count.
    const row = await db.models.ClientSession.findOne({ where: { userSessionId: s.id, clientId } });
    if (row) await db.models.ClientSession.update({ timestamp: now }, { where: { userSessionId: s.id, clientId } });
    else {
      // A concurrent login may have created the row meanwhile: then it is there, which is all we need.
      await db.models.ClientSession.create({ userSessionId: s.id, clientId, realmId: s.realmId, offline: s.offline, timestamp: now }).catch(
        (e) => {
          if (!isUniqueViolation(e)) throw e;
        },
      );
    }
  });
  s.lastAccess = now;
}

/** Removes sessions and their client sessions (joins the caller's transaction, if any). */
export async function removeSessions(db: Db, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.transaction(async () => {
    await db.models.ClientSession.destroy({ where: { userSessionId: { [Op.in]: ids } } });
    await db.models.UserSession.destroy({ where: { id: { [Op.in]: ids } } });
  });
}

/** Removes up to `batch` expired sessions (online and offline) of the realm; returns how many. */
export async function purgeExpiredSessions(db: Db, realm: RealmModel, batch = 200): Promise<number> {
  const now = nowSeconds();
  let removed = 0;
  for (const offline of [false, true]) {
    const { idle, max } = sessionTimeouts(realm, offline);
    const expired: WhereOptions[] = [];
    if (idle > 0) expired.push({ lastAccess: { [Op.lt]: now - idle } });
    if (max > 0) expired.push({ started: { [Op.lt]: now - max } });
    if (!expired.length) continue;
    const rows = await db.models.UserSession.findAll({
      where: { realmId: realm.id, offline, rememberMe: false, [Op.or]: expired },
      attributes: ['id'],
      limit: batch,
    });
    await removeSessions(
      db,
      rows.map((r) => r.id),
    );
    removed += rows.length;
  }
  return removed;
}

/** UserSessionRepresentations of many sessions with a fixed number of queries (GET /users/{id}/sessions, /clients/{id}/user-sessions ...). */
export async function sessionRepresentations(
  db: Db,
  sessions: UserSessionModel[],
  opts: SessionRepOptions = {},
): Promise<UserSessionRepresentation[]> {
  return (await sessionRepresentationGroups(db, [{ sessions, opts }]))[0];
}

/**
 * Representations of several lists of sessions, each with its own options (the sessions of many
 * clients, each timed by its client): the same three queries as one list, for all of them.
 */
export async function sessionRepresentationGroups(
  db: Db,
  groups: ReadonlyArray<{ sessions: UserSessionModel[]; opts?: SessionRepOptions }>,
): Promise<UserSessionRepresentation[][]> {
  const all = groups.flatMap((g) => g.sessions);
  if (!all.length) return groups.map(() => []);
  const m = db.models;
  const links = await m.ClientSession.findAll({ where: { userSessionId: { [Op.in]: [...new Set(all.map((s) => s.id))] } } });
  const clientIds = [...new Set(links.map((l) => l.clientId))];
  const userIds = [...new Set(all.map((s) => s.userId))];
  const [clients, users] = await Promise.all([
    clientIds.length ? m.Client.findAll({ where: { id: { [Op.in]: clientIds } }, attributes: ['id', 'clientId'] }) : [],
    m.User.findAll({ where: { id: { [Op.in]: userIds } }, attributes: ['id', 'username'] }),
  ]);
  const clientNames = new Map(clients.map((c) => [c.id, c.clientId]));
  const username = new Map(users.map((u) => [u.id, u.username]));
  // A transient federated user's StorageId ends with its username (ADR 46).
  for (const id of userIds) if (!username.has(id)) username.set(id, parseStorageId(id)?.externalId as string);
  const linksOf = new Map<string, typeof links>();
  for (const l of links) if (clientNames.has(l.clientId)) linksOf.set(l.userSessionId, [...(linksOf.get(l.userSessionId) ?? []), l]);
  return groups.map(({ sessions, opts = {} }) =>
    sessions.map((s) =>
      toUserSessionRepresentation(s, { username: username.get(s.userId) ?? null, links: linksOf.get(s.id) ?? [], clientNames }, opts),
    ),
  );
}
