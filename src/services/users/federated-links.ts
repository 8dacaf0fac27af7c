import { QueryTypes } from 'sequelize';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { FederatedIdentityModel } from '../../db/models/consent';
import type { RequestContext } from '../../core/context';
import { realmStamp, sharedMemo } from '../../core/shared-cache';
import { type FederatedIdentityRep, toFederatedIdentityRepresentation } from '../../representations/federated-identity';

/**
 * What hangs off a user besides its core rows: identity provider links and consents. Shared by
 * the user representation (`federatedIdentities`), the federated-identity endpoints and user deletion.
 *
 * The realm's identity providers are the rows of `identity_provider`; a link is shown only while
 * its alias names one of them (reference core §4.10).
 */
/** True when the realm has at least one identity provider (cached under the realm's version, ADR 23). */
export function hasIdentityProviders(ctx: RequestContext, realmId: string): Promise<boolean> {
  return sharedMemo(
    ctx,
    `has-idps:${realmId}`,
    realmStamp(ctx, realmId),
    async () => (await ctx.db.models.IdentityProvider.findOne({ where: { realmId }, attributes: ['internalId'] })) !== null,
  );
}

/** The user's links to existing identity providers, ordered by provider alias (two indexed queries). */
export async function linksOf(db: Db, realm: RealmModel, userId: string): Promise<FederatedIdentityRep[]> {
  return (await linksOfUsers(db, realm, [userId]))[0];
}

/** The links of many users (in key order), each ordered by provider alias: one statement for any number of users. */
export async function linksOfUsers(db: Db, realm: RealmModel, userIds: readonly string[]): Promise<FederatedIdentityRep[][]> {
  const rows = await db.sequelize.query<FederatedIdentityModel>(
    `SELECT f.user_id AS userId, f.identity_provider AS identityProvider, f.federated_user_id AS federatedUserId,
       f.federated_username AS federatedUsername
     FROM federated_identity f JOIN identity_provider p ON p.realm_id = :realmId AND p.alias = f.identity_provider
     WHERE f.user_id IN (:ids) ORDER BY f.identity_provider`,
    { replacements: { realmId: realm.id, ids: [...new Set(userIds)] }, type: QueryTypes.SELECT },
  );
  return userIds.map((id) => rows.filter((r) => r.userId === id).map(toFederatedIdentityRepresentation));
}

/** `federatedIdentities` of the single-user representation: present only when the realm has identity providers. */
export async function federatedIdentitiesOf(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
): Promise<FederatedIdentityRep[] | undefined> {
  if (!(await hasIdentityProviders(ctx, realm.id))) return undefined;
  return linksOf(ctx.db, realm, userId);
}
