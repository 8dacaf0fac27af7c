import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { requireManageUser, requireViewUser } from '../../auth/fgap';
import type { RealmModel } from '../../db/models/realm';
import { notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { type ConsentRep, toConsentRepresentation } from '../../representations/consent';
import type { Representation } from '../../representations/schema';
import type { UserModel } from '../../db/models/user';
import { batchLoad } from '../../loaders/batch';
import type { UserSessionModel } from '../../db/models/component';
import { notifyBackchannel } from '../sessions/logout-notify';

/**
 * Consents of a user (reference §4.9): the clients the user granted scopes to, plus the clients
 * holding an offline token of the user (offline sessions) as `additionalGrants`; revoking removes both.
 */

/** Offline sessions of each user (by user id), with the client UUIDs each one holds a token for: two statements. */
async function offlineClientsOfUsers(ctx: RequestContext, userIds: readonly string[]): Promise<Map<string, Map<string, string[]>>> {
  const m = ctx.db.models;
  const sessions = await m.UserSession.findAll({
    where: { userId: { [Op.in]: [...new Set(userIds)] }, offline: true },
    attributes: ['id', 'userId', 'clientId'],
  });
  const bySession = new Map<string, string[]>(sessions.map((s) => [s.id, s.clientId ? [s.clientId] : []]));
  if (sessions.length) {
    const rows = await m.ClientSession.findAll({ where: { userSessionId: { [Op.in]: [...bySession.keys()] }, offline: true } });
    for (const r of rows) {
      const list = bySession.get(r.userSessionId) ?? [];
      if (!list.includes(r.clientId)) list.push(r.clientId);
      bySession.set(r.userSessionId, list);
    }
  }
  const out = new Map<string, Map<string, string[]>>(userIds.map((id) => [id, new Map()]));
  for (const s of sessions) out.get(s.userId)?.set(s.id, bySession.get(s.id) ?? []);
  return out;
}

/** Offline sessions of the user, with the client UUIDs each one holds a token for. */
async function offlineClients(ctx: RequestContext, userId: string): Promise<Map<string, string[]>> {
  return (await offlineClientsOfUsers(ctx, [userId])).get(userId) ?? new Map();
}

/**
 * The consents of many users of a realm (the batch behind `listConsents`), each list by clientId:
 * a fixed number of statements for any number of users.
 */
export async function consentsOfUsers(ctx: RequestContext, realm: RealmModel, userIds: readonly string[]): Promise<ConsentRep[][]> {
  const m = ctx.db.models;
  const consents = await m.UserConsent.findAll({ where: { userId: { [Op.in]: [...new Set(userIds)] } } });
  const offlineByUser = await offlineClientsOfUsers(ctx, userIds);
  const offlineOf = (userId: string) => new Set([...(offlineByUser.get(userId)?.values() ?? [])].flat());
  const clientIds = [...new Set([...consents.map((c) => c.clientId), ...userIds.flatMap((id) => [...offlineOf(id)])])];
  if (!clientIds.length) return userIds.map(() => []);
  const clients = await m.Client.findAll({ where: { id: { [Op.in]: clientIds }, realmId: realm.id }, attributes: ['id', 'clientId'] });
  const links = consents.length
    ? await m.UserConsentClientScope.findAll({ where: { userConsentId: { [Op.in]: consents.map((c) => c.id) } } })
    : [];
  const scopes = links.length
    ? await m.ClientScope.findAll({ where: { id: { [Op.in]: [...new Set(links.map((l) => l.scopeId))] } }, attributes: ['id', 'name'] })
    : [];
  const scopeName = new Map(scopes.map((s) => [s.id, s.name]));
  clients.sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  return userIds.map((userId) => {
    const offline = offlineOf(userId);
    const byClient = new Map(consents.filter((c) => c.userId === userId).map((c) => [c.clientId, c]));
    return clients
      .filter((client) => byClient.has(client.id) || offline.has(client.id))
      .map((client) => {
        const consent = byClient.get(client.id);
        const granted = consent
          ? links
              .filter((l) => l.userConsentId === consent.id)
              .map((l) => scopeName.get(l.scopeId))
              .filter((n): n is string => !!n)
          : [];
        return toConsentRepresentation(client, consent, granted, offline.has(client.id));
      });
  });
}

/**
 * GET /admin/realms/{realm}/users/{id}/consents (view-users): consents and offline grants, by
 * clientId. The users of one request tick are read together (GraphQL `User.consents` of a list).
 */
export async function listConsents(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<ConsentRep[]> {
  await requireViewUser(ctx, realm, user.id);
  return batchLoad(ctx.memo, `consents:${realm.id}`, (ids: readonly string[]) => consentsOfUsers(ctx, realm, ids), user.id);
}

/**
 * DELETE /admin/realms/{realm}/users/{id}/consents/{clientId} (manage-users): revokes the consent and
 * the offline tokens of that client (clientId string). Admin event ACTION.
 */
export async function revokeConsent(ctx: RequestContext, realm: RealmModel, user: UserModel, clientId: string): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const m = ctx.db.models;
  const client = await m.Client.findOne({ where: { realmId: realm.id, clientId } });
  if (!client) throw notFound('Client not found');
  const detached = await ctx.db.transaction(async () => {
    const consent = await m.UserConsent.findOne({ where: { userId: user.id, clientId: client.id } });
    let online: UserSessionModel[] = [];
    if (consent) {
      await m.UserConsentClientScope.destroy({ where: { userConsentId: consent.id } });
      await consent.destroy();
      // Keycloak's backchannelLogoutUserFromClient: the client leaves the user's online sessions.
      online = await m.UserSession.findAll({ where: { userId: user.id, offline: false }, attributes: ['id', 'userId'] });
      const links = online.length
        ? await m.ClientSession.findAll({ where: { userSessionId: { [Op.in]: online.map((s) => s.id) }, clientId: client.id } })
        : [];
      online = online.filter((s) => links.some((l) => l.userSessionId === s.id));
      if (online.length)
        await m.ClientSession.destroy({ where: { userSessionId: { [Op.in]: online.map((s) => s.id) }, clientId: client.id } });
    }
    let revoked = false;
    for (const [sessionId, clients] of await offlineClients(ctx, user.id)) {
      if (!clients.includes(client.id)) continue;
      revoked = true;
      if (clients.length > 1) {
        await m.ClientSession.destroy({ where: { userSessionId: sessionId, clientId: client.id } });
        continue;
      }
      await m.ClientSession.destroy({ where: { userSessionId: sessionId } });
      await m.UserSession.destroy({ where: { id: sessionId } });
    }
    if (!consent && !revoked) throw notFound('Consent nor offline token not found');
    await recordAdminEvent(ctx, realm, {
      operationType: 'ACTION',
      resourceType: 'USER',
      resourcePath: `users/${user.id}/consents/${clientId}`,
    });
    return online;
  });
  await notifyBackchannel(
    ctx.db,
    realm,
    ctx.baseUrl,
    detached.map((session) => ({ session, client })),
  );
}

/** Stores the `clientConsents` of an imported user (clients by clientId, scopes by name; unknown ones skipped). */
export async function importConsents(ctx: RequestContext, realm: RealmModel, userId: string, list: unknown): Promise<void> {
  if (!Array.isArray(list)) return;
  const m = ctx.db.models;
  for (const c of list as Array<Representation<'UserConsentRepresentation'> | null>) {
    if (!c || typeof c.clientId !== 'string') continue;
    const client = await m.Client.findOne({ where: { realmId: realm.id, clientId: c.clientId }, attributes: ['id'] });
    if (!client) {
      ctx.log.warn(`Consent of imported user ${userId} names unknown client ${c.clientId}; skipped`);
      continue;
    }
    const now = Date.now();
    const id = randomUUID();
    await m.UserConsent.create({
      id,
      userId,
      clientId: client.id,
      createdDate: Number(c.createdDate ?? now),
      lastUpdatedDate: Number(c.lastUpdatedDate ?? c.createdDate ?? now),
    });
    const names = Array.isArray(c.grantedClientScopes) ? c.grantedClientScopes.map(String) : [];
    if (!names.length) continue;
    const scopes = await m.ClientScope.findAll({ where: { realmId: realm.id, name: { [Op.in]: names } }, attributes: ['id'] });
    if (scopes.length) await m.UserConsentClientScope.bulkCreate(scopes.map((s) => ({ userConsentId: id, scopeId: s.id })));
  }
}
