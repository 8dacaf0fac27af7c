import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { RequestContext } from '../../core/context';
import { errorB } from '../../core/errors';
import type { ClientRepresentation } from '../../representations/client';
import { evaluateClientPolicies, hasClientPolicies } from './engine';
import { ClientPolicyViolation, type PolicyContext, type PolicyEffects, type PolicyEvent, type UpdaterSource } from './types';

export { evaluateClientPolicies, hasClientPolicies } from './engine';
export { ClientPolicyViolation, type PolicyEffects } from './types';
export { CONDITIONS } from './conditions';
export { EXECUTORS } from './executors';

/** Representations the registration service already evaluated: its create/update goes through the admin write after. */
const evaluatedByRegistration = new WeakSet<object>();

/**
 * Admin API create (REGISTER) / update (UPDATE) of a client, REST and GraphQL alike: the realm's
 * policies may change `rep` (auto-configure) or refuse with 400 `{"error", "error_description"}`,
 * as Keycloak's ClientsResource / ClientResource. System writes (realm import, bootstrap) and writes
 * the registration service evaluated already are not evaluated again.
 */
export async function clientPoliciesOnAdminWrite(
  ctx: RequestContext,
  realm: RealmModel,
  event: 'REGISTER' | 'UPDATE',
  rep: ClientRepresentation,
  client?: ClientModel,
): Promise<void> {
  if (!ctx.actor || !hasClientPolicies(realm) || evaluatedByRegistration.has(rep)) return;
  try {
    await evaluateClientPolicies({
      event,
      db: ctx.db,
      realm,
      client,
      rep,
      updater: { source: 'ByAuthenticatedUser', userId: ctx.actor.userId, ipAddress: ctx.actor.ipAddress },
    });
  } catch (e) {
    if (e instanceof ClientPolicyViolation) throw errorB(400, e.error, e.detail);
    throw e;
  }
}

/** The registration service's REGISTER / UPDATE (client-policy-hook.ts); refusals stay `ClientPolicyViolation`. */
export async function clientPoliciesOnRegistrationEvent(c: {
  event: 'REGISTER' | 'UPDATE';
  ctx: RequestContext;
  realm: RealmModel;
  rep: ClientRepresentation;
  client?: ClientModel;
  source: UpdaterSource;
  userId?: string;
  ipAddress?: string;
  registration: { rotateRegistrationAccessToken: boolean };
}): Promise<void> {
  evaluatedByRegistration.add(c.rep);
  if (!hasClientPolicies(c.realm)) return;
  await evaluateClientPolicies({
    event: c.event,
    db: c.ctx.db,
    realm: c.realm,
    client: c.client,
    rep: c.rep,
    updater: { source: c.source, userId: c.userId, ipAddress: c.ipAddress },
    registration: c.registration,
  });
}

const TOKEN_EVENTS: Record<string, PolicyEvent> = {
  authorization_code: 'TOKEN_REQUEST',
  password: 'RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST',
  client_credentials: 'SERVICE_ACCOUNT_TOKEN_REQUEST',
  refresh_token: 'TOKEN_REFRESH',
};

/**
 * A token request (Keycloak's TokenEndpoint): TOKEN_REQUEST for the code exchange,
 * RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST for the password grant, SERVICE_ACCOUNT_TOKEN_REQUEST
 * for client credentials, TOKEN_REFRESH for a refresh. A refusal is recorded on the event and
 * answered 400 `{"error", "error_description"}`. A realm without enabled policies reads nothing.
 */
export async function clientPoliciesOnToken(c: {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  grant: string;
  form: Record<string, string | undefined>;
  ev?: { error(code: string): Promise<void> };
  binding?: PolicyContext['binding'];
  clientCert?: PolicyContext['clientCert'];
  /** Set by executors for the tokens of this request (use-lightweight-access-token). */
  effects?: PolicyEffects;
}): Promise<void> {
  const event = TOKEN_EVENTS[c.grant];
  if (!event || !hasClientPolicies(c.realm)) return;
  try {
    const { binding, clientCert, effects } = c;
    await evaluateClientPolicies({ event, db: c.db, realm: c.realm, client: c.client, params: c.form, binding, clientCert, effects });
  } catch (e) {
    if (!(e instanceof ClientPolicyViolation)) throw e;
    await c.ev?.error(e.error);
    throw errorB(400, e.error, e.detail);
  }
}

/**
 * A refresh's response, before it is sent (Keycloak's TOKEN_REFRESH_RESPONSE): executors may change
 * it (suppress-refresh-token-rotation drops the new refresh token). A realm without enabled policies reads nothing.
 */
export async function clientPoliciesOnRefreshResponse(c: {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  form: Record<string, string | undefined>;
  response: NonNullable<PolicyContext['response']>;
}): Promise<void> {
  if (!hasClientPolicies(c.realm)) return;
  try {
    await evaluateClientPolicies({
      event: 'TOKEN_REFRESH_RESPONSE',
      db: c.db,
      realm: c.realm,
      client: c.client,
      params: c.form,
      response: c.response,
    });
  } catch (e) {
    if (!(e instanceof ClientPolicyViolation)) throw e;
    throw errorB(400, e.error, e.detail);
  }
}

/**
 * An authorization request: PRE_AUTHORIZATION_REQUEST on the query as sent, AUTHORIZATION_REQUEST on
 * the resolved parameters, PUSHED_AUTHORIZATION_REQUEST on a pushed request; a logout of the client
 * (LOGOUT_REQUEST, with its `http_method`). The refusal, if any
 * (the endpoint renders it: error page, redirect or 400).
 */
export async function clientPoliciesOnAuthorization(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  params: Record<string, string | undefined>,
  event:
    | 'PRE_AUTHORIZATION_REQUEST'
    | 'AUTHORIZATION_REQUEST'
    | 'PUSHED_AUTHORIZATION_REQUEST'
    | 'LOGOUT_REQUEST' = 'AUTHORIZATION_REQUEST',
  extra: Pick<PolicyContext, 'rawParams' | 'requestObject' | 'requestObjectEncrypted' | 'par' | 'issuer' | 'effects'> = {},
): Promise<{ error: string; description: string } | undefined> {
  return refusalOf(db, realm, client, event, params, extra);
}

/**
 * A CIBA request (ADR 0044): BACKCHANNEL_AUTHENTICATION_REQUEST at the backchannel authentication
 * endpoint (with the parameters as sent, the verified request object and the binding message),
 * BACKCHANNEL_TOKEN_REQUEST when the client exchanges its auth_req_id. The refusal, if any.
 */
export async function clientPoliciesOnBackchannel(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  event: 'BACKCHANNEL_AUTHENTICATION_REQUEST' | 'BACKCHANNEL_TOKEN_REQUEST',
  params: Record<string, string | undefined>,
  extra: Pick<PolicyContext, 'rawParams' | 'requestObject' | 'issuer' | 'ciba' | 'binding' | 'clientCert' | 'effects'> = {},
): Promise<{ error: string; description: string } | undefined> {
  return refusalOf(db, realm, client, event, params, extra);
}

/**
 * A token revocation (Keycloak's TokenRevocationEndpoint, TOKEN_REVOKE): after the client is
 * authenticated, before the token is looked at. The refusal, with its status, if any.
 */
export async function clientPoliciesOnRevoke(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  form: Record<string, string | undefined>,
  extra: Pick<PolicyContext, 'revocation' | 'clientCert'>,
): Promise<{ error: string; description: string; status: number } | undefined> {
  if (!hasClientPolicies(realm)) return undefined;
  try {
    await evaluateClientPolicies({ ...extra, event: 'TOKEN_REVOKE', db, realm, client, params: form });
    return undefined;
  } catch (e) {
    if (e instanceof ClientPolicyViolation) return { error: e.error, description: e.detail, status: e.status };
    throw e;
  }
}

/** The refusal of the realm's client policies for one request event, if any (none: the request may go on). */
async function refusalOf(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  event: PolicyContext['event'],
  params: Record<string, string | undefined>,
  extra: Partial<PolicyContext>,
): Promise<{ error: string; description: string } | undefined> {
  if (!hasClientPolicies(realm)) return undefined;
  try {
    await evaluateClientPolicies({ ...extra, event, db, realm, client, params });
    return undefined;
  } catch (e) {
    if (e instanceof ClientPolicyViolation) return { error: e.error, description: e.detail };
    throw e;
  }
}
