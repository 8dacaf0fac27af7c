import type { FederatedIdentityModel } from '../db/models/consent';

/** Keycloak's FederatedIdentityRepresentation: a link of a user to an identity provider account. */
export interface FederatedIdentityRep {
  identityProvider: string;
  userId: string;
  userName: string;
}

/** The representation of a link (the provider's user id and name as stored, null when unknown). */
export function toFederatedIdentityRepresentation(l: FederatedIdentityModel): FederatedIdentityRep {
  return { identityProvider: l.identityProvider, userId: l.federatedUserId as string, userName: l.federatedUsername as string };
}
