import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { realmKeys } from '../../auth/realm-keys';
import type { RequestContext } from '../../core/context';

/**
 * `GET /admin/realms/{realm}/keys` (config reference §7, §14.3): KeysMetadataRepresentation of
 * the realm's key providers in Keycloak's order (priority descending, then component id), disabled
 * keys included, and the kid of the first ACTIVE key per algorithm.
 */
export interface KeyMetadata {
  kid: string;
  providerId: string;
  providerPriority: number;
  status: string;
  type: string;
  algorithm: string;
  use: string;
  publicKey?: string;
  certificate?: string;
  validTo?: number;
}

export interface KeysMetadata {
  active: Record<string, string>;
  keys: KeyMetadata[];
}

/** GET /{realm}/keys: view-realm. `providerId` is the component id, as Keycloak reports it. */
export async function listRealmKeys(ctx: RequestContext, realm: RealmModel): Promise<KeysMetadata> {
  await requireCap(ctx, realm, 'viewRealm');
  const keys = await realmKeys(ctx.db, realm);
  const active: Record<string, string> = {};
  for (const k of keys) if (k.status === 'ACTIVE' && active[k.algorithm] === undefined) active[k.algorithm] = k.kid;
  return {
    active,
    keys: keys.map((k) => ({
      kid: k.kid,
      providerId: k.componentId,
      providerPriority: k.priority,
      status: k.status,
      type: k.type,
      algorithm: k.algorithm,
      use: k.use,
      ...(k.publicKeyDer ? { publicKey: k.publicKeyDer } : {}),
      ...(k.certificate ? { certificate: k.certificate } : {}),
      ...(k.validTo !== undefined ? { validTo: k.validTo } : {}),
    })),
  };
}
