import { Op, QueryTypes } from 'sequelize';
import { requireCap } from '../../auth/permissions';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { forbidden, notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import { clientAccess, findClient, resolveClient } from '../clients/clients';
import { nowSeconds } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { type GlobalRequestResult, notifyClients } from './revocation';
import { activeSessionWhere, removeSessions, sessionRepresentations, sessionTimeouts } from './session-store';
import { recordEvent } from '../events/user-events';
import { resolveUser } from '../users/users';

/**
 * Session administration (reference §4.13, §9, config §1.9): the sessions of a user and of a
 * client, logout of a user, of one session and of the whole realm, session statistics and
 * revocation pushes. Only active sessions are listed or counted.
 */
type Rep = Record<string, unknown>;

/** SQL condition (alias `us`) for active sessions of the realm, online or offline, with its replacements. */
function activeSql(realm: RealmModel, offline: boolean, now: number, p: string): { sql: string; repl: Record<string, unknown> } {
  const { idle, max } = sessionTimeouts(realm, offline);
  const parts = [`us.offline = ${offline ? 1 : 0}`];
  const repl: Record<string, unknown> = {};
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

/** Client UUIDs taking part in the given sessions. */
async function clientsOfSessions(ctx: RequestContext, sessionIds: string[]): Promise<string[]> {
  if (!sessionIds.length) return [];
  const links = await ctx.db.models.ClientSession.findAll({ where: { userSessionId: { [Op.in]: sessionIds } }, attributes: ['clientId'] });
  return [...new Set(links.map((l) => l.clientId))];
}

/** Tells the clients (those with an admin URL) that their sessions ended (`k_logout`). */
async function backchannelLogout(ctx: RequestContext, realm: RealmModel, clientIds: string[]): Promise<void> {
  if (!clientIds.length) return;
  const clients = await ctx.db.models.Client.findAll({ where: { id: { [Op.in]: clientIds } } });
  await notifyClients(ctx, realm, clients, 'LOGOUT', nowSeconds());
}

/** GET /{realm}/users/{id}/sessions: the user's active online sessions. */
export async function listUserSessions(ctx: RequestContext, realm: RealmModel, userId: string): Promise<Rep[]> {
  const user = await resolveUser(ctx, realm, userId);
  await requireCap(ctx, realm, 'viewUsers');
  const sessions = await ctx.db.models.UserSession.findAll({
    where: { ...activeSessionWhere(realm, false), userId: user.id },
    order: [
      ['started', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return sessionRepresentations(ctx.db, sessions);
}

/** GET /{realm}/users/{id}/offline-sessions/{clientUuid}: the user's offline sessions holding that client. */
export async function listUserOfflineSessions(ctx: RequestContext, realm: RealmModel, userId: string, clientUuid: string): Promise<Rep[]> {
  const user = await resolveUser(ctx, realm, userId);
  await requireCap(ctx, realm, 'viewUsers');
  const client = await findClient(ctx, realm, clientUuid);
  if (!client) throw notFound('Client not found');
  const sessions = await ctx.db.models.UserSession.findAll({
    where: { ...activeSessionWhere(realm, true), userId: user.id },
    order: [
      ['started', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  if (!sessions.length) return [];
  const links = await ctx.db.models.ClientSession.findAll({
    where: { userSessionId: { [Op.in]: sessions.map((s) => s.id) }, clientId: client.id },
    attributes: ['userSessionId'],
  });
  const withClient = new Set(links.map((l) => l.userSessionId));
  return sessionRepresentations(
    ctx.db,
    sessions.filter((s) => withClient.has(s.id)),
    { onlyClient: client.id },
  );
}

/** POST /{realm}/users/{id}/logout: sets the user's notBefore and removes its online sessions. */
export async function logoutUser(ctx: RequestContext, realm: RealmModel, userId: string): Promise<void> {
  const user = await resolveUser(ctx, realm, userId);
  await requireCap(ctx, realm, 'manageUsers');
  const m = ctx.db.models;
  const now = nowSeconds();
  const before = await m.UserSession.findAll({ where: { userId: user.id, offline: false }, attributes: ['id'] });
  const clientIds = await clientsOfSessions(
    ctx,
    before.map((s) => s.id),
  );
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
  ctx.loaders.userById.clear(user.id);
  await logoutEvents(ctx, realm, sessions);
  await backchannelLogout(ctx, realm, clientIds);
}

/** DELETE /{realm}/sessions/{session}?isOffline: removes one (online or offline) session. */
export async function deleteSession(ctx: RequestContext, realm: RealmModel, sessionId: string, offline = false): Promise<void> {
  await requireCap(ctx, realm, 'manageUsers');
  const m = ctx.db.models;
  const session = await m.UserSession.findOne({ where: { ...activeSessionWhere(realm, offline), id: sessionId } });
  if (!session) throw notFound('Sesssion not found');
  const clientIds = await clientsOfSessions(ctx, [session.id]);
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
  await backchannelLogout(ctx, realm, clientIds);
}

/** POST /{realm}/logout-all: removes every session of the realm and sets the realm's notBefore. */
export async function logoutAll(ctx: RequestContext, realm: RealmModel): Promise<GlobalRequestResult> {
  await requireCap(ctx, realm, 'manageUsers');
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
  const result = await notifyClients(ctx, realm, await m.Client.findAll({ where: { realmId: realm.id } }), 'LOGOUT', now);
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'REALM',
    resourcePath: 'logout-all',
    representation: result,
  });
  return result;
}

/** POST /{realm}/push-revocation: pushes the realm's notBefore to every client with an admin URL. */
export async function pushRevocation(ctx: RequestContext, realm: RealmModel): Promise<GlobalRequestResult> {
  await requireCap(ctx, realm, 'manageRealm');
  const clients = await ctx.db.models.Client.findAll({ where: { realmId: realm.id } });
  const result = await notifyClients(ctx, realm, clients, 'PUSH_NOT_BEFORE', Number(realm.settings.notBefore ?? 0));
  await recordAdminEvent(ctx, realm, {
    operationType: 'ACTION',
    resourceType: 'REALM',
    resourcePath: 'push-revocation',
    representation: result,
  });
  return result;
}

/** POST /{realm}/clients/{id}/push-revocation: pushes the not-before policy to the client's admin URL. */
export async function pushClientRevocation(ctx: RequestContext, realm: RealmModel, clientUuid: string): Promise<GlobalRequestResult> {
  const client = await resolveClient(ctx, realm, clientUuid);
  if (!(await clientAccess(ctx, realm, client)).manage) throw forbidden();
  const notBefore = Math.max(Number(realm.settings.notBefore ?? 0), Number((client.settings as Rep).notBefore ?? 0));
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
export async function clientSessionStats(ctx: RequestContext, realm: RealmModel): Promise<Rep[]> {
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
  return [...stats.values()]
    .sort((a, b) => a.clientId.localeCompare(b.clientId))
    .map((s) => ({ id: s.id, clientId: s.clientId, active: String(s.active), offline: String(s.offline) }));
}

async function viewableClient(ctx: RequestContext, realm: RealmModel, clientUuid: string): Promise<ClientModel> {
  const client = await resolveClient(ctx, realm, clientUuid);
  await requireCap(ctx, realm, 'viewClients');
  return client;
}

/** GET /{realm}/clients/{id}/session-count and /offline-session-count: `{count}` of active sessions with the client. */
export async function clientSessionCount(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string,
  offline = false,
): Promise<{ count: number }> {
  const client = await viewableClient(ctx, realm, clientUuid);
  const act = activeSql(realm, offline, nowSeconds(), 'a');
  const [row] = await ctx.db.sequelize.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM client_session cs JOIN user_session us ON us.id = cs.user_session_id WHERE cs.client_id = :client AND cs.offline = :off AND ${act.sql}`,
    { type: QueryTypes.SELECT, replacements: { client: client.id, off: offline ? 1 : 0, ...act.repl } },
  );
  return { count: Number(row?.n ?? 0) };
}

/** GET /{realm}/clients/{id}/user-sessions and /offline-sessions?first&max (max 100 by default). */
export async function listClientSessions(
  ctx: RequestContext,
  realm: RealmModel,
  clientUuid: string,
  offline = false,
  page: { first?: number; max?: number } = {},
): Promise<Rep[]> {
  const client = await viewableClient(ctx, realm, clientUuid);
  const first = Math.max(0, page.first ?? 0);
  const max = page.max === undefined || page.max < 0 ? 100 : page.max;
  if (max === 0) return [];
  const act = activeSql(realm, offline, nowSeconds(), 'a');
  const ids = await ctx.db.sequelize.query<{ id: string }>(
    `SELECT us.id FROM client_session cs JOIN user_session us ON us.id = cs.user_session_id
     WHERE cs.client_id = :client AND cs.offline = :off AND ${act.sql} ORDER BY us.started, us.id LIMIT :max OFFSET :first`,
    { type: QueryTypes.SELECT, replacements: { client: client.id, off: offline ? 1 : 0, max, first, ...act.repl } },
  );
  if (!ids.length) return [];
  const sessions = await ctx.db.models.UserSession.findAll({ where: { id: { [Op.in]: ids.map((r) => r.id) } } });
  const order = new Map(ids.map((r, i) => [r.id, i]));
  sessions.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return sessionRepresentations(ctx.db, sessions, offline ? { lastAccessOf: client.id } : {});
}
