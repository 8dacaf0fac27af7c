import { Op, QueryTypes } from 'sequelize';
import { requireManageUser } from '../../auth/fgap';
import { requireClient } from '../../auth/fgap-clients';
import { requireManageUsers, requireViewUserSessions } from '../../auth/fgap-users';
import { requireCap } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import { findClient } from '../clients/clients';
import { nowSeconds } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { clientsOfSessions, notifyBackchannel } from './logout-notify';
import { type GlobalRequestResult, notifyClients } from './revocation';
import { activeSessionWhere, removeSessions, sessionRepresentationGroups, sessionTimeouts } from './session-store';
import { batchLoad } from '../../loaders/batch';
import { recordEvent } from '../../core/user-events';
import type { UserModel } from '../../db/models/user';
import { type PageQuery, isEmptyPage, pageOf } from '../../core/paging';
import { invalidate } from '../../loaders/invalidate';
import { type ClientSessionStatRepresentation, type UserSessionRepresentation, toClientSessionStat } from '../../representations/session';

/**
 * Session administration (reference §4.13, §9, config §1.9): the sessions of a user and of a
 * client, logout of a user, of one session and of the whole realm, session statistics and
 * revocation pushes. Only active sessions are listed or counted.
 */
/** A piece of SQL with the values of its `:name` replacements. */
interface SqlPart {
  sql: string;
  repl: Record<string, string | number>;
}

/** SQL condition (alias `us`) for active sessions of the realm, online or offline, with its replacements. */
function activeSql(realm: RealmModel, offline: boolean, now: number, p: string): SqlPart {
  const { idle, max } = sessionTimeouts(realm, offline);
  const parts = [`us.offline = ${offline ? 1 : 0}`];
  const repl: SqlPart['repl'] = {};
  if (idle > 0) {
    parts.push(`us.last_access >= :${p}idle`);
    repl[`${p}idle`] = now - idle;
  }
  if (max > 0) {
    parts.push(`us.started >= :${p}max`);
    repl[`${p}max`] = now - max;
  }
  return { sql: `(${parts.join(' AND ')})`, repl };
}

async function logoutEvents(ctx: RequestContext, realm: RealmModel, sessions: UserSessionModel[]): Promise<void> {
  for (const s of sessions) {
    await recordEvent(ctx.db, realm, {
      type: 'LOGOUT',
      userId: s.userId,
      sessionId: s.id,
      ipAddress: ctx.actor?.ipAddress ?? null,
      clientId: null,
    });
  }
}

/**
 * GET /{realm}/users/{id}/sessions (view of the user): the user's active online sessions (the user
 * resolved by the front). The users of one request tick are read and decided together (GraphQL
 * `User.sessions` of a list).
 */
export async function listUserSessions(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<UserSessionRepresentation[]> {
  await requireViewUserSessions(ctx, realm, user.id);
  return batchLoad(ctx.memo, `user-sessions:${realm.id}`, (ids: readonly string[]) => userSessionsOf(ctx, realm, ids), user.id);
}

/** Active online sessions of many users (in key order), each by start: four statements for any number of users. */
export async function userSessionsOf(
  ctx: RequestContext,
  realm: RealmModel,
  userIds: readonly string[],
): Promise<UserSessionRepresentation[][]> {
  const sessions = await activeSessionsOfUsers(ctx, realm, userIds, false);
  return sessionRepresentationGroups(
    ctx.db,
    userIds.map((id) => ({ sessions: sessions.filter((s) => s.userId === id) })),
  );
}

/** Active sessions (online or offline) of many users, by start. */
function activeSessionsOfUsers(ctx: RequestContext, realm: RealmModel, userIds: readonly string[], offline: boolean) {
  return ctx.db.models.UserSession.findAll({
    where: { ...activeSessionWhere(realm, offline), userId: { [Op.in]: [...new Set(userIds)] } },
    order: [
      ['started', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

/**
 * GET /{realm}/users/{id}/offline-sessions/{clientUuid}: the user's offline sessions holding that client.
 * The client is looked up here, after the capability check, with its own 404 `Client not found`.
 * The users of one request tick are read together (GraphQL `User.offlineSessions` of a list).
 */
export async function listUserOfflineSessions(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  clientUuid: string,
): Promise<UserSessionRepresentation[]> {
  await requireViewUserSessions(ctx, realm, user.id);
  const client = await findClient(ctx, realm, clientUuid);
  if (!client) throw notFound('Client not found');
  const name = `user-offline-sessions:${realm.id}:${client.id}`;
  return batchLoad(ctx.memo, name, (ids: readonly string[]) => userOfflineSessionsOf(ctx, realm, client, ids), user.id);
}

/** Active offline sessions of many users (in key order) that hold the client: five statements for any number of users. */
export async function userOfflineSessionsOf(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  userIds: readonly string[],
): Promise<UserSessionRepresentation[][]> {
  const sessions = await activeSessionsOfUsers(ctx, realm, userIds, true);
  if (!sessions.length) return userIds.map(() => []);
  const links = await ctx.db.models.ClientSession.findAll({
    where: { userSessionId: { [Op.in]: sessions.map((s) => s.id) }, clientId: client.id },
    attributes: ['userSessionId'],
  });
  const withClient = new Set(links.map((l) => l.userSessionId));
  return sessionRepresentationGroups(
    ctx.db,
    userIds.map((id) => ({ sessions: sessions.filter((s) => s.userId === id && withClient.has(s.id)), opts: { onlyClient: client.id } })),
  );
}

/** POST /{realm}/users/{id}/logout (manage of the user): sets the user's notBefore and removes its online sessions. */
export async function logoutUser(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const m = ctx.db.models;
  const now = nowSeconds();
  const before = await m.UserSession.findAll({ where: { userId: user.id, offline: false }, attributes: ['id', 'userId'] });
  const clients = await clientsOfSessions(ctx.db, before);
  const sessions = await ctx.db.transaction(async () => {
    const online = await m.UserSession.findAll({ where: { userId: user.id, offline: false } });
    await m.User.update({ notBefore: now }, { where: { id: user.id } });
    await removeSessions(
      ctx.db,
      online.map((s) => s.id),
    );
    await recordAdminEvent(ctx, realm, { operationType: 'ACTION', resourceType: 'USER', resourcePath: `users/${user.id}/logout` });
    return online;
  });
  invalidate.user(ctx.loaders, user.id);
  await logoutEvents(ctx, realm, sessions);
  await notifyBackchannel(ctx.db, realm, ctx.baseUrl, clients);
}

/** DELETE /{realm}/sessions/{session}?isOffline (users manage, realm-wide): removes one (online or offline) session. */
export async function deleteSession(ctx: RequestContext, realm: RealmModel, sessionId: string, offline = false): Promise<void> {
  await requireManageUsers(ctx, realm);
  const m = ctx.db.models;
  const session = await m.UserSession.findOne({ where: { ...activeSessionWhere(realm, offline), id: sessionId } });
  if (!session) throw notFound('Sesssion not found');
  const clients = await clientsOfSessions(ctx.db, [session]);
  await ctx.db.transaction(async () => {
    await removeSessions(ctx.db, [session.id]);
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'USER_SESSION',
      resourcePath: `sessions/${session.id}`,
      representation: { offline },
    });
  });
  await logoutEvents(ctx, realm, [session]);
  await notifyBackchannel(ctx.db, realm, ctx.baseUrl, clients);
}

/** POST /{realm}/logout-all (users manage): removes every session of the realm and sets the realm's notBefore. */
export async function logoutAll(ctx: RequestContext, realm: RealmModel): Promise<GlobalRequestResult> {
  await requireManageUsers(ctx, realm);
  const m = ctx.db.models;
  const now = nowSeconds();
  await ctx.db.transaction(async () => {
    const fresh = await m.Realm.findByPk(realm.id);
    if (!fresh) throw notFound('Realm not found');
    fresh.settings = { ...fresh.settings, notBefore: now };
    await fresh.save();
    await m.ClientSession.destroy({ where: { realmId: realm.id } });
    await m.UserSession.destroy({ where: { realmId: realm.id } });
  });
  realm.settings = { ...realm.settings, notBefore: now };
  invalidate.realm(ctx.loaders, realm);
  return notifyAllClients(ctx, realm, 'logout-all', 'LOGOUT', now);
}

/** POST /{realm}/push-revocation: pushes the realm's notBefore to every client with an admin URL. */
export async function pushRevocation(ctx: RequestContext, realm: RealmModel): Promise<GlobalRequestResult> {
  await requireCap(ctx, realm, 'manageRealm');
  return notifyAllClients(ctx, realm, 'push-revocation', 'PUSH_NOT_BEFORE', Number(realm.settings.notBefore ?? 0));
}

/** Sends the action to every client of the realm and records it as the realm's ACTION admin event at `path`. */
async function notifyAllClients(
  ctx: RequestContext,
  realm: RealmModel,
  path: 'logout-all' | 'push-revocation',
  action: 'LOGOUT' | 'PUSH_NOT_BEFORE',
  notBefore: number,
): Promise<GlobalRequestResult> {
  const clients = await ctx.db.models.Client.findAll({ where: { realmId: realm.id } });
  const result = await notifyClients(ctx, realm, clients, action, notBefore);
  await recordAdminEvent(ctx, realm, { operationType: 'ACTION', resourceType: 'REALM', resourcePath: path, representation: result });
  return result;
}

/** POST /{realm}/clients/{id}/push-revocation: pushes the not-before policy to the client's admin URL. */
export async function pushClientRevocation(ctx: RequestContext, realm: RealmModel, client: ClientModel): Promise<GlobalRequestResult> {
  await requireClient(ctx, realm, client, 'configure');
  const notBefore = Math.max(Number(realm.settings.notBefore ?? 0), Number(client.settings.notBefore ?? 0));
  const result = await notifyClients(ctx, realm, [client], 'PUSH_NOT_BEFORE', notBefore);
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'CLIENT',
    resourcePath: `clients/${client.id}/push-revocation`,
    representation: result,
  });
  return result;
}

/** GET /{realm}/client-session-stats: `[{id, clientId, active, offline}]` (counts as strings) of clients with sessions. */
export async function clientSessionStats(ctx: RequestContext, realm: RealmModel): Promise<ClientSessionStatRepresentation[]> {
  await requireCap(ctx, realm, 'viewRealm');
  const now = nowSeconds();
  const on = activeSql(realm, false, now, 'on');
  const off = activeSql(realm, true, now, 'off');
  const rows = await ctx.db.sequelize.query<{ client_id: string; offline: number | boolean; n: number | string }>(
    `SELECT cs.client_id, us.offline, COUNT(*) AS n FROM client_session cs JOIN user_session us ON us.id = cs.user_session_id
     WHERE cs.realm_id = :realm AND (${on.sql} OR ${off.sql}) GROUP BY cs.client_id, us.offline`,
    { type: QueryTypes.SELECT, replacements: { realm: realm.id, ...on.repl, ...off.repl } },
  );
  if (!rows.length) return [];
  const ids = [...new Set(rows.map((r) => r.client_id))];
  const clients = await ctx.db.models.Client.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['id', 'clientId'] });
  const stats = new Map(clients.map((c) => [c.id, { id: c.id, clientId: c.clientId, active: 0, offline: 0 }]));
  for (const r of rows) {
    const s = stats.get(r.client_id);
    if (!s) continue;
    if (Number(r.offline)) s.offline += Number(r.n);
    else s.active += Number(r.n);
  }
  return [...stats.values()].sort((a, b) => a.clientId.localeCompare(b.clientId)).map(toClientSessionStat);
}

/**
 * GET /{realm}/clients/{id}/session-count and /offline-session-count: `{count}` of active sessions
 * with the client. The clients of one request tick are counted together (GraphQL `Client.sessionCount`).
 */
export async function clientSessionCount(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  offline = false,
): Promise<{ count: number }> {
  await requireClient(ctx, realm, client, 'view');
  const name = `client-session-count:${realm.id}:${offline}`;
  return { count: await batchLoad(ctx.memo, name, (ids: readonly string[]) => sessionCountsOf(ctx, realm, ids, offline), client.id) };
}

/** `FROM ... WHERE` of the active (online or offline) sessions of the clients `:clients`, with its other replacements. */
function ofClients(realm: RealmModel, offline: boolean): SqlPart {
  const act = activeSql(realm, offline, nowSeconds(), 'a');
  return {
    sql: `FROM client_session cs JOIN user_session us ON us.id = cs.user_session_id WHERE cs.client_id IN (:clients) AND cs.offline = :off AND ${act.sql}`,
    repl: { off: offline ? 1 : 0, ...act.repl },
  };
}

/** Active sessions of many clients (UUIDs, in key order), counted: one `GROUP BY` statement. */
export async function sessionCountsOf(
  ctx: RequestContext,
  realm: RealmModel,
  clientIds: readonly string[],
  offline: boolean,
): Promise<number[]> {
  const of = ofClients(realm, offline);
  const rows = await ctx.db.sequelize.query<{ parent: string; n: number | string }>(
    `SELECT cs.client_id AS parent, COUNT(*) AS n ${of.sql} GROUP BY cs.client_id`,
    { type: QueryTypes.SELECT, replacements: { ...of.repl, clients: [...new Set(clientIds)] } },
  );
  const counts = new Map(rows.map((r) => [r.parent, Number(r.n)]));
  return clientIds.map((id) => counts.get(id) ?? 0);
}

/**
 * GET /{realm}/clients/{id}/user-sessions and /offline-sessions?first&max (max 100 by default). The
 * clients of one request tick are read together (GraphQL `Client.sessions` of a list).
 */
export async function listClientSessions(
  ctx: RequestContext,
  realm: RealmModel,
  client: ClientModel,
  offline = false,
  q: PageQuery = {},
): Promise<UserSessionRepresentation[]> {
  await requireClient(ctx, realm, client, 'view');
  const page = pageOf(q, { defaultMax: 100, negativeMax: 'default' });
  if (isEmptyPage(page)) return [];
  const name = `client-sessions:${realm.id}:${offline}:${page.offset}:${page.limit}`;
  return batchLoad(
    ctx.memo,
    name,
    (ids: readonly string[]) => clientSessionsOf(ctx, realm, ids, offline, { offset: page.offset, limit: page.limit ?? 100 }),
    client.id,
  );
}

/**
 * One page (by start) of the active sessions of each of many clients (in key order): one ranked
 * statement (`ROW_NUMBER() OVER (PARTITION BY client)`) and the representations' four.
 */
export async function clientSessionsOf(
  ctx: RequestContext,
  realm: RealmModel,
  clientIds: readonly string[],
  offline: boolean,
  page: { offset: number; limit: number },
): Promise<UserSessionRepresentation[][]> {
  const of = ofClients(realm, offline);
  const ranked = await ctx.db.sequelize.query<{ parent: string; id: string }>(
    `SELECT t.parent AS parent, t.id AS id FROM (
       SELECT cs.client_id AS parent, us.id AS id, ROW_NUMBER() OVER (PARTITION BY cs.client_id ORDER BY us.started, us.id) AS rn ${of.sql}
     ) t WHERE t.rn > :first AND t.rn <= :last ORDER BY t.parent, t.rn`,
    {
      type: QueryTypes.SELECT,
      replacements: { ...of.repl, clients: [...new Set(clientIds)], first: page.offset, last: page.offset + page.limit },
    },
  );
  if (!ranked.length) return clientIds.map(() => []);
  const sessions = await ctx.db.models.UserSession.findAll({ where: { id: { [Op.in]: [...new Set(ranked.map((r) => r.id))] } } });
  const byId = new Map(sessions.map((s) => [s.id, s]));
  return sessionRepresentationGroups(
    ctx.db,
    clientIds.map((id) => ({
      sessions: ranked.filter((r) => r.parent === id).flatMap((r) => byId.get(r.id) ?? []),
      opts: offline ? { lastAccessOf: id } : {},
    })),
  );
}
