import type { UserModel } from '../db/models/user';
import type { FederatedIdentityRep } from './federated-identity';
import type { Representation } from './schema';

export type UserRep = Representation<'UserRepresentation'>;

/** Root attributes carried as top-level fields, never inside `attributes`. */
export const ROOT_USER_ATTRIBUTES = new Set(['username', 'email', 'firstName', 'lastName']);

export interface UserRepExtras {
  /** Custom attributes (name → values) the caller may read. */
  attributes?: Record<string, string[]>;
  requiredActions?: string[];
  /** True when an OTP credential is configured. */
  totp?: boolean;
  disableableCredentialTypes?: string[];
  access?: Record<string, boolean>;
  federatedIdentities?: FederatedIdentityRep[];
}

/**
 * Keycloak's UserRepresentation, in Keycloak's field order, nulls omitted.
 * - `full`: single GET and listings;
 * - `brief`: briefRepresentation=true (no totp, disableableCredentialTypes, requiredActions, notBefore);
 * - `member`: group members / role users brief variant (no attributes except is_temporary_admin, no access).
 */
export function toUserRepresentation(u: UserModel, x: UserRepExtras = {}, mode: 'full' | 'brief' | 'member' = 'full'): UserRep {
  const out: UserRep = { id: u.id, username: u.username };
  if (u.firstName != null) out.firstName = u.firstName;
  if (u.lastName != null) out.lastName = u.lastName;
  if (u.email != null) out.email = u.email;
  out.emailVerified = u.emailVerified;
  const attrs = x.attributes ?? {};
  if (mode === 'member') {
    if (attrs.is_temporary_admin) out.attributes = { is_temporary_admin: attrs.is_temporary_admin };
  } else if (Object.keys(attrs).length) out.attributes = attrs;
  out.enabled = u.enabled;
  out.createdTimestamp = Number(u.createdTimestamp);
  // A StorageId (`f:{componentId}:{username}`, a user an import-off provider serves, ADR 46) is not
  // linked: Keycloak's InMemoryUserAdapter has no federationLink; its provider is the full form's
  // `origin` (ModelToRepresentation: StorageId.resolveProviderId, else the federation link).
  const storage = u.id.startsWith('f:') ? u.id.slice(2, u.id.indexOf(':', 2)) : null;
  if (u.federationLink && !storage) out.federationLink = u.federationLink;
  if (mode === 'full' && (storage ?? u.federationLink)) out.origin = (storage ?? u.federationLink) as string;
  if (mode === 'full') {
    out.totp = x.totp ?? false;
    out.disableableCredentialTypes = x.disableableCredentialTypes ?? [];
    out.requiredActions = x.requiredActions ?? [];
    if (x.federatedIdentities) out.federatedIdentities = x.federatedIdentities;
    out.notBefore = u.notBefore;
  }
  if (x.access && mode !== 'member') out.access = x.access;
  return out;
}
