import { randomUUID } from 'node:crypto';
import { requireImpersonate } from '../../auth/fgap-users';
import type { RealmModel } from '../../db/models/realm';
import { badRequest } from '../../core/errors';
import type { RequestContext } from '../../core/context';
import type { UserModel } from '../../db/models/user';
import { recordEvent } from '../../core/user-events';
import { isStorageId, transientActor } from '../user-storage/transient-users';

/**
 * Impersonation (reference §4.12): a user session for the target user, marked with the impersonator;
 * when the admin works in the target realm, the admin's own session ends (its tokens stop working).
 */
export interface ImpersonationResult {
  redirect: string;
  sameRealm: boolean;
  /** The new session of the target user (for the KEYCLOAK_SESSION cookie; not part of the JSON). */
  sessionId: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * POST /admin/realms/{realm}/users/{id}/impersonation (`impersonation` role or the `admin-impersonating`
 * permission, and the user impersonatable: UserPermissions#requireImpersonate); user event IMPERSONATE.
 */
export async function impersonate(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<ImpersonationResult> {
  await requireImpersonate(ctx, realm, user);
  if (!user.enabled) throw badRequest('User is disabled');
  if (user.serviceAccountClientLink) throw badRequest('Service accounts cannot be impersonated');
  const actor = ctx.actor;
  const m = ctx.db.models;
  // A transient federated admin (ADR 46) has no row: the one its token's check read from the directory.
  const impersonator = !actor
    ? null
    : isStorageId(actor.userId)
      ? await transientActor(ctx)
      : await m.User.findByPk(actor.userId, { attributes: ['id', 'username'] });
  const sameRealm = !!actor && actor.realmId === realm.id && !!actor.sessionId;
  const account = await m.Client.findOne({ where: { realmId: realm.id, clientId: 'account-console' }, attributes: ['id'] });
  const sessionId = randomUUID();
  await ctx.db.transaction(async () => {
    if (sameRealm && actor?.sessionId) {
      await m.ClientSession.destroy({ where: { userSessionId: actor.sessionId } });
      await m.UserSession.destroy({ where: { id: actor.sessionId } });
    }
    const now = nowSeconds();
    await m.UserSession.create({
      id: sessionId,
      realmId: realm.id,
      userId: user.id,
      clientId: account?.id ?? '',
      ipAddress: actor?.ipAddress ?? null,
      started: now,
      lastAccess: now,
      offline: false,
      notes: impersonator ? { IMPERSONATOR_ID: impersonator.id, IMPERSONATOR_USERNAME: impersonator.username } : {},
      rememberMe: false,
      authMethod: 'impersonate',
    });
    await recordEvent(ctx.db, realm, {
      type: 'IMPERSONATE',
      userId: user.id,
      sessionId,
      ipAddress: actor?.ipAddress ?? null,
      details: { impersonator_realm: actor?.realmName ?? realm.name, impersonator: impersonator?.username ?? 'system' },
    });
  });
  return { redirect: `${ctx.baseUrl}/realms/${encodeURIComponent(realm.name)}/account`, sameRealm, sessionId };
}
