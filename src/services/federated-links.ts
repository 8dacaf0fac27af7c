import { Op } from 'sequelize';
import type { Db } from '../db';
import type { RealmModel } from '../db/models/realm';
import type { RequestContext } from './context';

/**
 * What hangs off a user besides its core rows: identity provider links and consents. Shared by
 * the user representation (`federatedIdentities`), the federated-identity endpoints and user deletion.
 *
 * The realm's identity providers are the `identityProviders` entries of the realm settings (an
 * array of `{alias, ...}`, set by realm import); a link is shown only while its alias is one of them.
 */
export function identityProviderAliases(realm: RealmModel): string[] {
  const list = realm.settings.identityProviders;
  if (!Array.isArray(list)) return [];
  return list
    .map((p) => (p && typeof p === 'object' ? (p as Record<string, unknown>).alias : undefined))
    .filter((a): a is string => typeof a === 'string' && a !== '');
}

export interface FederatedIdentityRep {
  identityProvider: string;
  userId: string;
  userName: string;
}

/** The user's links to existing identity providers, in the realm's provider order. */
export async function linksOf(db: Db, realm: RealmModel, userId: string): Promise<FederatedIdentityRep[]> {
  const aliases = identityProviderAliases(realm);
  if (!aliases.length) return [];
  const rows = await db.models.FederatedIdentity.findAll({ where: { userId, identityProvider: { [Op.in]: aliases } } });
  const byAlias = new Map(rows.map((r) => [r.identityProvider, r]));
  return aliases
    .filter((a) => byAlias.has(a))
    .map((a) => {
      const r = byAlias.get(a);
      return { identityProvider: a, userId: r?.federatedUserId as string, userName: r?.federatedUsername as string };
    })
    .map((l) => JSON.parse(JSON.stringify(l)) as FederatedIdentityRep);
}

/** `federatedIdentities` of the single-user representation: present only when the realm has identity providers. */
export async function federatedIdentitiesOf(
  ctx: RequestContext,
  realm: RealmModel,
  userId: string,
): Promise<FederatedIdentityRep[] | undefined> {
  if (!identityProviderAliases(realm).length) return undefined;
  return linksOf(ctx.db, realm, userId);
}
