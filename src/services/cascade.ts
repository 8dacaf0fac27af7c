import { Op } from 'sequelize';
import type { RequestContext } from './context';

/**
 * Rows hanging off a user or a client that other features own (sessions, client sessions, consents,
 * federated identities, login failures): one place that deletes them, used when a user, a client
 * or a client's service-account user goes. Runs inside the caller's transaction.
 */
type Where = Record<string, unknown>;

/** Deletes user sessions (and their client sessions) matching `where`. */
async function deleteSessions(ctx: RequestContext, where: Where): Promise<void> {
  const { UserSession, ClientSession } = ctx.db.models;
  const sessionIds = (await UserSession.findAll({ where, attributes: ['id'] })).map((r) => r.id);
  if (sessionIds.length) await ClientSession.destroy({ where: { userSessionId: { [Op.in]: sessionIds } } });
  await UserSession.destroy({ where });
}

/** Deletes consents (and their scope grants) matching `where`. */
async function deleteConsents(ctx: RequestContext, where: Where): Promise<void> {
  const { UserConsent, UserConsentClientScope } = ctx.db.models;
  const consentIds = (await UserConsent.findAll({ where, attributes: ['id'] })).map((r) => r.id);
  if (consentIds.length) await UserConsentClientScope.destroy({ where: { userConsentId: { [Op.in]: consentIds } } });
  await UserConsent.destroy({ where });
}

/** Deletes a user and every row of it. Inside a transaction. */
export async function deleteUserRows(ctx: RequestContext, userId: string): Promise<void> {
  await deleteSessions(ctx, { userId });
  await deleteConsents(ctx, { userId });
  const m = ctx.db.models;
  for (const table of [
    m.UserAttribute,
    m.UserRequiredAction,
    m.Credential,
    m.UserRoleMapping,
    m.UserGroupMembership,
    m.FederatedIdentity,
    m.LoginFailure,
  ]) {
    await (table as unknown as { destroy(o: object): Promise<number> }).destroy({ where: { userId } });
  }
  await ctx.db.models.User.destroy({ where: { id: userId } });
}

/** Deletes the sessions, client sessions and consents of a client. Inside a transaction. */
export async function deleteClientUsage(ctx: RequestContext, clientUuid: string): Promise<void> {
  await deleteSessions(ctx, { clientId: clientUuid });
  await ctx.db.models.ClientSession.destroy({ where: { clientId: clientUuid } });
  await deleteConsents(ctx, { clientId: clientUuid });
}
