import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { VersionedRealm } from '../../auth/realm-keys';
import { keptForRealm, type VersionedClient } from './client-config-cache';
import { fastRows } from '../../loaders';
import { acceptsSecret } from '../clients/client-input';
import { authenticateByAssertion, hasClientAssertion } from './client-assertion';
import { oauth } from './tokens';

/** The client credentials a request to introspection or revocation presents: Basic header, else the form. */
export interface PresentedClient {
  basic?: { clientId: string; secret: string };
  form: Record<string, unknown>;
  /** The server's base URL: with it, a signed JWT client assertion is accepted too (its audience is the realm's issuer). */
  baseUrl?: string;
}

/**
 * Client authentication of the introspection and revocation endpoints (Keycloak's
 * AuthorizeClientUtil with client-secret basic or post, or a signed JWT): the client by its id, enabled, and its
 * secret when confidential. The errors are those of the token endpoint (reference §2.3). Whether a
 * public or bearer-only client may go on is the endpoint's decision.
 */
export async function authenticatePresentedClient(db: Db, realm: RealmModel, p: PresentedClient): Promise<ClientModel> {
  if (p.baseUrl && hasClientAssertion(p.form)) return authenticateByAssertion(db, realm, p.form, p.baseUrl);
  const clientId = p.basic?.clientId ?? (typeof p.form.client_id === 'string' ? p.form.client_id : undefined);
  const secret = p.basic?.secret ?? (typeof p.form.client_secret === 'string' ? p.form.client_secret : undefined);
  if (!clientId) throw oauth(401, 'invalid_client', 'Invalid client or Invalid client credentials');
  const client = await clientByClientId(db, realm, clientId);
  if (!client?.enabled) throw oauth(401, 'invalid_client', 'Invalid client or Invalid client credentials');
  if (!client.publicClient && (!secret || !acceptsSecret(client, secret)))
    throw oauth(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
  return client;
}

/**
 * The realm's client of this clientId, or null: one kept statement, or none while the realm's version
 * (read with the realm, `realmWithVersion`) is the one the client's row was kept under. The client
 * carries that version, so what is computed from it (its scopes, mappers) is kept under it too.
 */
export function clientByClientId(db: Db, realm: RealmModel, clientId: string): Promise<ClientModel | null> {
  return keptClient(db, realm, `client:${realm.id}:${clientId}`, 't.realm_id = :realm AND t.client_id = :key', clientId);
}

/** The realm's client of this (internal) id, or null, kept as `clientByClientId` is (a login's client, by its authentication session). */
export function clientOfRealmById(db: Db, realm: RealmModel, id: string): Promise<ClientModel | null> {
  return keptClient(db, realm, `client-id:${realm.id}:${id}`, 't.realm_id = :realm AND t.id = :key', id);
}

async function keptClient(db: Db, realm: RealmModel, cacheKey: string, where: string, key: string): Promise<ClientModel | null> {
  const version = (realm as VersionedRealm).cacheVersion;
  const stamp = version === undefined || version < 0 ? undefined : `${realm.id}:${version}`;
  const values = await keptForRealm(db, cacheKey, stamp, async () => {
    const [row] = await fastRows<ClientModel>(db, db.models.Client, where, { realm: realm.id, key });
    return row ? { ...row.dataValues } : null;
  });
  if (!values) return null;
  // A model of the request's own over the kept column values (JSON columns are text there).
  const client = db.models.Client.build({ ...values }, { raw: true, isNewRecord: false }) as VersionedClient;
  if (stamp !== undefined) client.realmVersion = version;
  return client;
}

/** The client id a request names (for its event), whether or not it authenticates. */
export function presentedClientId(p: PresentedClient): string | null {
  return p.basic?.clientId ?? (typeof p.form.client_id === 'string' ? p.form.client_id : null);
}
