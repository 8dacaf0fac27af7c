import type { CredentialModel } from '../db/models/user';

/** Keycloak's CredentialRepresentation without secrets, in Keycloak's field order (userLabel only when set). */
export function toCredentialRepresentation(c: CredentialModel): Record<string, unknown> {
  const out: Record<string, unknown> = { id: c.id, type: c.type };
  if (c.userLabel != null) out.userLabel = c.userLabel;
  out.createdDate = Number(c.createdDate);
  out.credentialData = c.credentialData;
  out.priority = c.priority;
  return out;
}
