/** Keycloak's UserConsentRepresentation: a client the user consented to, or holds an offline token for. */
export interface ConsentRep {
  clientId: string;
  grantedClientScopes: string[];
  createdDate: number | null;
  lastUpdatedDate: number | null;
  additionalGrants: Array<{ client: string; key: string }>;
}

/**
 * The consent of one client: its clientId, the granted scope names, the consent's dates (null
 * without a stored consent) and an `Offline Token` grant when the user holds one for the client.
 */
export function toConsentRepresentation(
  client: { id: string; clientId: string },
  consent: { createdDate: number | string; lastUpdatedDate: number | string } | undefined,
  grantedClientScopes: string[],
  offline: boolean,
): ConsentRep {
  return {
    clientId: client.clientId,
    grantedClientScopes,
    createdDate: consent ? Number(consent.createdDate) : null,
    lastUpdatedDate: consent ? Number(consent.lastUpdatedDate) : null,
    additionalGrants: offline ? [{ client: client.id, key: 'Offline Token' }] : [],
  };
}
