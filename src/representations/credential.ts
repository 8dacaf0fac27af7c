import type { CredentialModel } from '../db/models/user';
import type { Representation } from './schema';

export type CredentialRep = Representation<'CredentialRepresentation'>;

/** Keycloak's CredentialRepresentation without secrets, in Keycloak's field order (userLabel only when set). */
export function toCredentialRepresentation(c: CredentialModel): CredentialRep {
  const out: CredentialRep = { id: c.id, type: c.type };
  if (c.userLabel != null) out.userLabel = c.userLabel;
  out.createdDate = Number(c.createdDate);
  out.credentialData = c.credentialData;
  out.priority = c.priority;
  return out;
}
