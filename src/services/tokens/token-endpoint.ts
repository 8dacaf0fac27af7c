import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { type PolicyEffects, clientPoliciesOnRefreshResponse, clientPoliciesOnToken } from '../client-policies';
import { acceptsSecret } from '../clients/client-input';
import { authenticateByAssertion, hasClientAssertion } from './client-assertion';
import { clientByClientId } from './client-auth';
import { CIBA_GRANT_TYPE, cibaGrant } from './ciba-grant';
import { authorizationCodeGrant } from './code-grant';
import { clientCredentialsGrant, passwordGrant, refreshGrant } from './grants';
import { publicRealm } from './oidc-metadata';
import { bindClientCertificate, bindTokenRequest, x509Authenticates } from './token-binding';
import { EVENT_OF_GRANT, TokenEvent, clientErrorCode } from './token-events';
import { type TokenRequest, type TokenResponse, oauth } from './tokens';
import { UMA_GRANT_TYPE, umaGrant } from './uma-grant';

/** The client of a token request: its id from Basic credentials or the form, its secret checked when confidential. */
async function authenticateClient(db: Db, realm: RealmModel, req: TokenRequest): Promise<ClientModel> {
  if (hasClientAssertion(req.form)) return authenticateByAssertion(db, realm, req.form, req.baseUrl);
  const clientId = req.basic?.clientId ?? req.form.client_id;
  const secret = req.basic?.secret ?? req.form.client_secret;
  const invalid = () => oauth(401, 'invalid_client', 'Invalid client or Invalid client credentials');
  if (!clientId) throw invalid();
  const client = await clientByClientId(db, realm, clientId);
  if (!client?.enabled) throw invalid();
  if (client.bearerOnly) throw oauth(400, 'unauthorized_client', 'Bearer-only not allowed');
  if (client.publicClient) return client;
  const authenticated =
    client.settings.clientAuthenticatorType === 'client-x509'
      ? x509Authenticates(client, req.clientCert)
      : Boolean(secret) && acceptsSecret(client, secret as string);
  if (!authenticated) throw oauth(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
  return client;
}

/** POST /realms/{realm}/protocol/openid-connect/token. */
export async function tokenEndpoint(db: Db, req: TokenRequest): Promise<TokenResponse> {
  const realm = await publicRealm(db, req.realm);
  const grant = req.form.grant_type;
  if (!grant) throw oauth(400, 'invalid_request', 'Missing form parameter: grant_type');
  if (!realm.enabled) throw oauth(400, 'invalid_request', 'Realm not enabled');
  if (grant === UMA_GRANT_TYPE) return umaGrant({ db, realm, req, authenticateClient: () => authenticateClient(db, realm, req) });
  const ev = new TokenEvent(db, realm, EVENT_OF_GRANT[grant] ?? 'LOGIN', req.ipAddress);
  ev.clientId = req.basic?.clientId ?? req.form.client_id ?? null;
  let client: ClientModel;
  try {
    client = await authenticateClient(db, realm, req);
  } catch (e) {
    if (EVENT_OF_GRANT[grant]) await ev.error(clientErrorCode(e));
    throw e;
  }
  const call = { db, realm, client, req, ev };
  await bindTokenRequest(db, client, req, ev);
  const effects: PolicyEffects = {};
  await clientPoliciesOnToken({ db, realm, client, grant, form: req.form, ev, binding: req.binding, clientCert: req.clientCert, effects });
  if (effects.lightweightAccessToken) req.lightweightAccessToken = true;
  await bindClientCertificate(client, req, ev);
  switch (grant) {
    case 'password':
      return passwordGrant(call);
    case 'client_credentials':
      return clientCredentialsGrant(call);
    case 'refresh_token': {
      const res = await refreshGrant(call);
      await clientPoliciesOnRefreshResponse({ db, realm, client, form: req.form, response: res });
      return res;
    }
    case 'authorization_code':
      return authorizationCodeGrant(call);
    case CIBA_GRANT_TYPE:
      return cibaGrant(call);
    default:
      throw oauth(400, 'unsupported_grant_type', 'Unsupported grant_type');
  }
}
