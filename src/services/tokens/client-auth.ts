import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { clientByClientId } from './client-config-cache';
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

// Kept clients live with the rest of the client configuration cache (login endpoints import them from there).
export { clientByClientId } from './client-config-cache';

/** The client id a request names (for its event), whether or not it authenticates. */
export function presentedClientId(p: PresentedClient): string | null {
  return p.basic?.clientId ?? (typeof p.form.client_id === 'string' ? p.form.client_id : null);
}
