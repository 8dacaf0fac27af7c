import { requireManageUser, requireViewUser } from '../../auth/fgap';
import type { RealmModel } from '../../db/models/realm';
import { type HttpError, conflict, errorB, notFound } from '../../core/errors';
import { write } from '../../core/db-errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import type { UserModel } from '../../db/models/user';
import type { Representation } from '../../representations/schema';
import { linksOfUsers } from './federated-links';
import { batchLoad } from '../../loaders/batch';
import type { FederatedIdentityRep } from '../../representations/federated-identity';

/**
 * Identity provider links of a user (reference §4.10). The alias is not validated on link (as in
 * Keycloak); links to aliases that are not identity providers of the realm stay hidden from GET.
 */
const alreadyLinked = () => conflict('User is already linked with provider');

/**
 * A link refused by a unique index: the provider account taken by another user (the external-id
 * index), or this user linked to the provider meanwhile (the primary key).
 */
function duplicateLink(e: unknown): HttpError {
  const err = e as { fields?: unknown; message?: string; parent?: { message?: string; sqlMessage?: string } };
  const text = `${JSON.stringify(err.fields ?? '')} ${err.parent?.sqlMessage ?? ''} ${err.parent?.message ?? ''} ${err.message ?? ''}`;
  if (/uq_federated_identity_external|federated_user_id/i.test(text)) {
    return errorB(409, 'conflict', 'The identity provider account is already linked to another user');
  }
  return alreadyLinked();
}

const text = (v: unknown) => (v === undefined || v === null ? null : String(v));

/**
 * GET /admin/realms/{realm}/users/{id}/federated-identity (view-users). The users of one request
 * tick are read together (GraphQL `User.federatedIdentities` of a list).
 */
export async function listFederatedIdentities(ctx: RequestContext, realm: RealmModel, user: UserModel): Promise<FederatedIdentityRep[]> {
  await requireViewUser(ctx, realm, user.id);
  return batchLoad(ctx.memo, `federated-identities:${realm.id}`, (ids: readonly string[]) => linksOfUsers(ctx.db, realm, ids), user.id);
}

/**
 * POST /admin/realms/{realm}/users/{id}/federated-identity/{alias} (manage-users): links the user to
 * `{userId, userName}` at the provider; 409 when already linked. Admin event CREATE.
 */
export async function linkFederatedIdentity(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  alias: string,
  rep: Representation<'FederatedIdentityRepresentation'>,
): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const m = ctx.db.models;
  await write(ctx, { unique: duplicateLink }, async () => {
    if (await m.FederatedIdentity.findOne({ where: { userId: user.id, identityProvider: alias } })) throw alreadyLinked();
    await m.FederatedIdentity.create({
      userId: user.id,
      identityProvider: alias,
      realmId: realm.id,
      federatedUserId: text(rep.userId),
      federatedUsername: text(rep.userName),
      token: null,
    });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'USER',
      resourcePath: `users/${user.id}/federated-identity/${alias}`,
      representation: rep,
    });
  });
}

/** DELETE /admin/realms/{realm}/users/{id}/federated-identity/{alias} (manage-users); 404 `Link not found`. Admin event DELETE. */
export async function unlinkFederatedIdentity(ctx: RequestContext, realm: RealmModel, user: UserModel, alias: string): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.FederatedIdentity.destroy({ where: { userId: user.id, identityProvider: alias } });
    if (!n) throw notFound('Link not found');
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'USER',
      resourcePath: `users/${user.id}/federated-identity/${alias}`,
    });
  });
}

/** Links of an imported user (`federatedIdentities` of a realm import), inside the import's transaction. */
export async function importFederatedIdentities(ctx: RequestContext, realm: RealmModel, userId: string, list: unknown): Promise<void> {
  if (!Array.isArray(list)) return;
  for (const l of list as Array<Representation<'FederatedIdentityRepresentation'> | null>) {
    if (!l || typeof l.identityProvider !== 'string' || !l.identityProvider) continue;
    await ctx.db.models.FederatedIdentity.create({
      userId,
      identityProvider: l.identityProvider,
      realmId: realm.id,
      federatedUserId: text(l.userId),
      federatedUsername: text(l.userName),
      token: null,
    });
  }
}
