import { Op } from 'sequelize';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { type FederatedIdentityRep, toFederatedIdentityRepresentation } from '../../representations/federated-identity';

/**
 * What hangs off a user besides its core rows: identity provider links and consents. Shared by
 * the user representation (`federatedIdentities`), the federated-identity endpoints and user deletion.
 *
 * The realm's identity providers are the rows of `identity_provider`; a link is shown only while
 * its alias names one of them (reference core §4.10).
 */
/** True when the realm has at least one identity provider. */
export async function hasIdentityProviders(db: Db, realmId: string): Promise<boolean> {
  return (await db.models.IdentityProvider.findOne({ where: { realmId }, attributes: ['internalId'] })) !== null;
}

/** The user's links to existing identity providers, ordered by provider alias (two indexed queries). */
export async function linksOf(db: Db, realm: RealmModel, userId: string): Promise<FederatedIdentityRep[]> {
  return (await linksOfUsers(db, realm, [userId]))[0];
}

/** The links of many users (in key order), each ordered by provider alias: the same two queries for any number of users. */
export async function linksOfUsers(db: Db, realm: RealmModel, userIds: readonly string[]): Promise<FederatedIdentityRep[][]> {
  const rows = await db.models.FederatedIdentity.findAll({ where: { userId: { [Op.in]: [...new Set(userIds)] } } });
  if (!rows.length) return userIds.map(() => []);
  const existing = await db.models.IdentityProvider.findAll({
    where: { realmId: realm.id, alias: { [Op.in]: [...new Set(rows.map((r) => r.identityProvider))] } },
    attributes: ['alias'],
  });
  const aliases = new Set(existing.map((p) => p.alias));
  const sorted = rows
    .filter((r) => aliases.has(r.identityProvider))
    .sort((a, b) => (a.identityProvider < b.identityProvider ? -1 : a.identityProvider > b.identityProvider ? 1 : 0));
  return userIds.map((id) => sorted.filter((r) => r.userId === id).map(toFederatedIdentityRepresentation));
}

/** `federatedIdentities` of the single-user representation: present only when the realm has identity providers. */
export async function federatedIdentitiesOf(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
): Promise<FederatedIdentityRep[] | undefined> {
  if (!(await hasIdentityProviders(ctx.db, realm.id))) return undefined;
  return linksOf(ctx.db, realm, userId);
}
