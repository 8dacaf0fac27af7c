import type { Db } from '../../../db';
import type { AuthSessionModel } from '../../../db/models/login';
import type { RealmModel } from '../../../db/models/realm';
import { getLogger } from '../../../logging';
import { lockoutOf } from '../../sessions/brute-force';
import { publicRealm } from '../../tokens/oidc-metadata';
import { TokenEvent } from '../../tokens/token-events';
import { dataOf, findAuthSession, loginLifespan, saveAuthSession } from '../auth-sessions';
import { ATTEMPTED_USERNAME } from '../authenticators';
import type { AuthRequest } from '../authorize';
import type { Page } from '../flow-engine';
import { type BrowserRequest, type BrowserResponse, FLOW_DONE, realmPage, resumeLogin, rootOf } from '../login';
import { RESET_NOTES } from '../reset-credentials';
import { markBrokerDone, providerOf, updateBrokeredUser } from './broker-flows';
import { BROKER_NOTES, FIRST_BROKER_LOGIN_PATH, POST_BROKER_LOGIN_PATH } from './brokered-identity';
import { brokerEndpointUrl, brokerRedirect, canStartLogin } from './idp-redirect';
import { BrokerError, exchangeCode, type PendingRequest } from './oidc-client';

/**
 * The broker endpoints of a realm (Keycloak's IdentityBrokerService):
 *  - GET /realms/{realm}/broker/{alias}/login?client_id=&tab_id=&session_code=: the login page's
 *    link; sends the login in progress to the provider;
 *  - GET|POST /realms/{realm}/broker/{alias}/endpoint: the provider's callback (`code` and `state`,
 *    or `error`). The state names the login's tab and must match the one sent, in the browser that
 *    started it (AUTH_SESSION_ID). A linked user logs in (after the post broker login flow, if any);
 *    an unknown one goes through the first broker login flow.
 * Failures are pages with Keycloak's messages and IDENTITY_PROVIDER_LOGIN_ERROR events.
 */
const log = getLogger('idserver.services.login.broker');

type Req = BrowserRequest;

const errorPage = (db: Db, realm: RealmModel, req: Req, status: number, key: string, params?: string[]) =>
  realmPage(db, realm, req, { page: 'error', status, message: { key, params } } as Page);

async function loginOfTab(db: Db, realm: RealmModel, req: Req, tabId: string | undefined): Promise<AuthSessionModel | null> {
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  return root && tabId ? findAuthSession(db, realm, root, tabId) : null;
}

/** GET /realms/{realm}/broker/{alias}/login: redirects the login of the tab to the provider. */
export async function brokerLogin(db: Db, req: Req, alias: string): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'IDENTITY_PROVIDER_LOGIN', req.ipAddress);
  ev.clientId = req.params.client_id ?? null;
  ev.detail('identity_provider', alias);
  const authSession = await loginOfTab(db, realm, req, req.params.tab_id);
  if (!authSession) {
    await ev.error('expired_code');
    return errorPage(db, realm, req, 400, 'expiredCodeMessage');
  }
  const idp = await providerOf(db, realm, alias);
  if (!canStartLogin(idp)) {
    await ev.error('identity_provider_not_found');
    return errorPage(db, realm, req, 502, 'couldNotSendAuthenticationRequestMessage');
  }
  const data = dataOf(authSession);
  const client = await db.models.Client.findByPk(authSession.clientId);
  if (!client) return errorPage(db, realm, req, 400, 'clientNotFoundMessage');
  let location: string;
  try {
    location = brokerRedirect(
      { data, authSession, client, realm, request: data.request as AuthRequest, baseUrl: req.baseUrl },
      idp,
      req.params.login_hint,
    );
  } catch (e) {
    if (!(e instanceof BrokerError)) throw e;
    log.warn(`Identity provider ${alias} of realm ${realm.name}: ${e.message}`);
    await ev.error('identity_provider_error');
    return errorPage(db, realm, req, 502, 'couldNotSendAuthenticationRequestMessage');
  }
  await saveAuthSession(db, authSession, loginLifespan(realm), data);
  return { kind: 'redirect', location, realm, cookies: [] };
}

/** The login again from the top of its browser flow, showing the form (the user cancelled at the provider). */
async function restart(db: Db, realm: RealmModel, req: Req, authSession: AuthSessionModel): Promise<BrowserResponse> {
  const data = dataOf(authSession);
  data.statuses = {};
  data.notes[BROKER_NOTES.CANCELLED] = 'true';
  delete data.notes[BROKER_NOTES.PENDING];
  await saveAuthSession(db, authSession, loginLifespan(realm), data);
  return resumeLogin(db, realm, req, authSession);
}

/** GET|POST /realms/{realm}/broker/{alias}/endpoint: the provider's answer to a login. */
export async function brokerEndpoint(db: Db, req: Req, alias: string): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const ev = new TokenEvent(db, realm, 'IDENTITY_PROVIDER_LOGIN', req.ipAddress);
  ev.detail('identity_provider', alias);
  const idp = await providerOf(db, realm, alias);
  if (!idp?.enabled) return errorPage(db, realm, req, 404, 'identityProviderNotFoundMessage');
  const fail = async (error: string, key = 'identityProviderUnexpectedErrorMessage', status = 502) => {
    await ev.error(error);
    return errorPage(db, realm, req, status, key);
  };
  const { state, code, error } = req.params;
  if (!state) return fail('identity_provider_login_failure', 'identityProviderMissingStateMessage');
  const [, tabId, clientId] = state.split('.');
  ev.clientId = clientId ?? null;
  const authSession = await loginOfTab(db, realm, req, tabId);
  const data = authSession ? dataOf(authSession) : undefined;
  const pending = data?.notes[BROKER_NOTES.PENDING]
    ? (JSON.parse(data.notes[BROKER_NOTES.PENDING]) as PendingRequest & { alias: string })
    : undefined;
  if (!authSession || !data || !pending || pending.alias !== alias || pending.state !== state) {
    return fail('identity_provider_login_failure', 'identityProviderInvalidResponseMessage', 400);
  }
  ev.detail('redirect_uri', data.request.redirect_uri).detail('code_id', authSession.id);
  if (error === 'access_denied') return restart(db, realm, req, authSession);
  if (error || !code) return fail('identity_provider_login_failure');
  let identity: Awaited<ReturnType<typeof exchangeCode>>;
  try {
    identity = await exchangeCode(idp, code, brokerEndpointUrl(req.baseUrl, realm, alias), pending);
  } catch (e) {
    if (!(e instanceof BrokerError)) throw e;
    log.warn(`Identity provider ${alias} of realm ${realm.name}: ${e.message}`);
    ev.detail('reason', e.message);
    return fail('identity_provider_login_failure');
  }
  if (!idp.storeToken) identity.token = null;
  ev.detail('identity_provider_identity', identity.username);
  delete data.notes[BROKER_NOTES.PENDING];
  const link = await db.models.FederatedIdentity.findOne({
    where: { realmId: realm.id, identityProvider: alias, federatedUserId: identity.id },
  });
  const user = link ? await db.models.User.findByPk(link.userId) : null;
  data.statuses = {};
  data.notes[BROKER_NOTES.CONTEXT] = JSON.stringify(identity);
  if (!user) {
    // First broker login: the local account is created or linked by the realm's flow.
    data.notes[ATTEMPTED_USERNAME] = identity.username;
    identity.modelUsername = (flagOf(realm.settings.registrationEmailAsUsername) && identity.email ? identity.email : identity.username)
      .trim()
      .toLowerCase();
    data.notes[BROKER_NOTES.CONTEXT] = JSON.stringify(identity);
    data.notes[RESET_NOTES.FLOW_PATH] = FIRST_BROKER_LOGIN_PATH;
    authSession.userId = null;
  } else {
    ev.userId = user.id;
    ev.detail('username', user.username);
    if (!user.enabled) return fail('user_disabled', 'accountDisabledMessage', 400);
    if (await lockoutOf(db, realm, user)) return fail('user_temporarily_disabled', 'accountDisabledMessage', 400);
    await updateBrokeredUser(db, realm, idp, user, identity);
    data.notes[ATTEMPTED_USERNAME] = user.username;
    authSession.userId = user.id;
    if (idp.postBrokerLoginFlowAlias) data.notes[RESET_NOTES.FLOW_PATH] = POST_BROKER_LOGIN_PATH;
    else {
      markBrokerDone(data.notes, identity);
      data.notes[FLOW_DONE] = 'true';
    }
  }
  await saveAuthSession(db, authSession, loginLifespan(realm), data);
  return resumeLogin(db, realm, req, authSession);
}

const flagOf = (v: unknown) => v === true || v === 'true';
