import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { UserSessionModel } from '../../db/models/component';
import type { AuthSessionModel } from '../../db/models/login';
import type { RealmModel } from '../../db/models/realm';
import { createSession, removeSessions, touchSession } from '../sessions/session-store';
import { clientOfRealmById } from '../tokens/client-config-cache';
import { publicRealm } from '../tokens/oidc-metadata';
import { TokenEvent } from '../tokens/token-events';
import {
  createAuthSession,
  dataOf,
  findAuthSession,
  issueCode,
  loginLifespan,
  removeAuthSession,
  saveAuthSession,
  userActionLifespan,
} from './auth-sessions';
import { type AuthRequest, REQUESTED_FLOW_NOTE, checkAuthorizationRequest } from './authorize';
import { FlowError, type FlowResult, FlowRun, type LoginContext, type Page } from './flow-engine';
import { REQUIRED_ACTION_TEXTS } from './messages';
import { completeRequiredAction, nextRequiredAction } from './required-actions';
import { authTimeOf, identityCookieValue, sessionCookieValue, ssoFromCookie } from './sso';
import { ACTION_NOTES, finishActionTokenLogin } from './action-token-store';
import { isResetLogin, RESET_REGISTRY, resetFlowId } from './reset-credentials';
import { consentStep, OAUTH_GRANT } from './consent';
import { type FlowDefinitions, flowIdByAlias, realmFlowDefinitions, realmFlowId } from './flow-definitions';
import { afterBrokerFlow, brokerFlowOf, brokerSessionNotes } from './broker/broker-flows';
import { LOGIN_REGISTRY, providerLinks } from './broker/idp-redirect';
import { organizationSessionNotes } from './broker/organization-login';
import { isRegistrationLogin, promptCreateStart, REGISTRATION_REGISTRY, registrationAllowed, registrationFlowId } from './registration';
import { KC_NOTES, kcActionOf, kcActionResponse, requireRecentAuthentication, setKcActionStatus } from './kc-action';
import { sendBack } from './authorization-response';
import { frontChannelTokens } from './implicit-tokens';
import { ResponseType } from './response-types';
import { applyFlowLevel, levelFulfilled, loaMaxAges, loaSessionNotes, requestedLoa } from './loa';

/**
 * Browser login (issue 14): the authorization endpoint starts a login (an authentication session
 * row), the login-actions endpoint carries each form's POST to the flow engine, and a successful flow
 * ends in a user session, the SSO cookies and a one-time authorization code sent to the client's
 * redirect URI. The HTTP front (src/oidc/login-router.ts) only parses, sets cookies and renders.
 */

/** Note of an authentication session whose flow succeeded and that now runs the user's required actions. */
export const FLOW_DONE = 'FLOW_DONE';

import {
  authorizationResponse,
  type BrowserRequest,
  type BrowserResponse,
  type CookieOp,
  type InfoPage,
  realmPage,
  rootOf,
  signRoot,
} from './browser-response';
import { userOrTransient } from '../user-storage/transient-users';
export type { BrowserRequest, BrowserResponse, CookieOp, InfoPage };
export { authorizationResponse, realmPage, rootOf, signRoot };

const loginEvent = (db: Db, realm: RealmModel, req: BrowserRequest, request?: AuthRequest) => {
  const ev = new TokenEvent(db, realm, 'LOGIN', req.ipAddress);
  if (request) {
    ev.clientId = request.client_id;
    ev.detail('auth_method', 'openid-connect')
      .detail('auth_type', 'code')
      .detail('response_type', request.response_type)
      .detail('redirect_uri', request.redirect_uri)
      // Keycloak's detail is the mode's enum name in lower case (form_post_jwt).
      .detail('response_mode', request.response_mode.replace('.', '_'));
  }
  return ev;
};

/**
 * GET/POST /realms/{realm}/protocol/openid-connect/auth: checks the request and starts (or, with SSO, completes) a login.
 * `start` (the registrations endpoint, registration-entry.ts) gives the new login its first notes and may refuse it with a page.
 */
export async function authorize(
  db: Db,
  req: BrowserRequest,
  start?: (realm: RealmModel) => Promise<{ notes: Record<string, string> } | { refused: Page }>,
): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const check = await checkAuthorizationRequest(db, realm, req.params, req.baseUrl);
  const ev = loginEvent(db, realm, req);
  ev.clientId = req.params.client_id ?? null;
  if (check.kind === 'page') {
    await ev.error(check.event);
    return realmPage(db, realm, req, { page: 'error', status: check.status, message: check.message }, req.params.ui_locales);
  }
  if (check.kind === 'redirect') {
    ev.detail('redirect_uri', check.redirectUri).detail('reason', check.description);
    await ev.error(check.event);
    return sendBack(db, realm, req, check.client, check.redirectUri, check.mode, {
      error: check.error,
      error_description: check.description,
      state: check.state,
      iss: issuerOf(req.baseUrl, realm.name),
    });
  }
  // prompt=create (exactly that value, as Keycloak compares it) opens the registration form.
  const create = !start && check.request.prompt === 'create';
  const started = start
    ? await start(realm)
    : create
      ? await promptCreateStart(db, realm, req.ipAddress, check.client.clientId)
      : undefined;
  if (started && 'refused' in started) return realmPage(db, realm, req, started.refused, req.params.ui_locales);
  // An essential acr no level maps to (or under the client's minimum) refuses the request (Keycloak's AuthorizationEndpoint).
  if (requestedLoa(realm, check.client, check.request).error) {
    ev.detail('reason', 'Invalid requested essential acr value');
    await ev.error('invalid_request');
    const message = { key: 'invalidParameterMessage', params: ['claims'] };
    return realmPage(db, realm, req, { page: 'error', status: 400, message }, req.params.ui_locales);
  }
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  await requireRecentAuthentication(db, realm, check.request, req.cookies.KEYCLOAK_IDENTITY);
  const authSession = await createAuthSession(db, realm, root, check.client.id, check.request as Record<string, string>);
  const notes = started || check.notes ? { ...started?.notes, ...check.notes } : undefined;
  if (notes) await saveAuthSession(db, authSession, loginLifespan(realm), { ...dataOf(authSession), notes });
  const cookies: CookieOp[] = root
    ? []
    : [{ name: 'AUTH_SESSION_ID', value: await signRoot(db, realm, authSession.rootId), maxAge: -1, httpOnly: true }];
  const out = await runLogin(db, realm, req, authSession, undefined);
  return { ...out, cookies: [...cookies, ...out.cookies] };
}

/**
 * GET/POST /realms/{realm}/login-actions/authenticate: a form's POST (or a reload of the page). The
 * form's `session_code` must be the one of the page the session last showed: a stale or forged POST
 * only shows the login's current page again.
 */
export async function loginAction(
  db: Db,
  req: BrowserRequest,
  form: Record<string, string> | undefined,
  path = 'authenticate',
): Promise<BrowserResponse> {
  const realm = await publicRealm(db, req.realm);
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  const ev = loginEvent(db, realm, req);
  ev.clientId = req.params.client_id ?? null;
  if (!root) {
    await ev.error('cookie_not_found');
    return realmPage(db, realm, req, { page: 'error', status: 400, message: { key: 'cookieNotFoundMessage' } });
  }
  const authSession = req.params.tab_id ? await findAuthSession(db, realm, root, req.params.tab_id) : null;
  if (!authSession) {
    await ev.error('expired_code');
    return realmPage(db, realm, req, { page: 'error', status: 400, message: { key: 'expiredCodeMessage' } });
  }
  // "Back to login" (a GET of /authenticate) leaves the registration form for the browser flow, as Keycloak's flow-path check.
  if (!form && path === 'authenticate') {
    const data = dataOf(authSession);
    if (isRegistrationLogin({ data }) && !data.notes[FLOW_DONE])
      await saveAuthSession(db, authSession, loginLifespan(realm), { ...data, statuses: {}, notes: {} });
  }
  const fresh = req.params.session_code === authSession.sessionCode && typeof req.params.execution === 'string';
  return runLogin(db, realm, req, authSession, form && fresh ? { executionId: req.params.execution as string, form } : undefined);
}

/**
 * The flow a login runs (Keycloak's AuthenticationFlowResolver.resolveBrowserFlow): the flow a client
 * policy asked for (auth-flow-enforcer; none of that alias fails the login), else the client's
 * browser flow override (a flow of the realm), else the realm's browserFlow.
 */
function browserFlowId(
  realm: RealmModel,
  clientSettings: Record<string, unknown>,
  defs: FlowDefinitions,
  requested?: string,
): string | undefined {
  if (requested) return flowIdByAlias(defs, requested);
  const override = (clientSettings.authenticationFlowBindingOverrides as Record<string, string> | undefined)?.browser;
  const bound = realmFlowId(defs, override);
  if (bound) return bound;
  const alias = typeof realm.settings.browserFlow === 'string' ? realm.settings.browserFlow : 'browser';
  return flowIdByAlias(defs, alias);
}

/** Continues a login (an e-mail link's session, or one a verification link resumes) where it stands. */
export const resumeLogin = (db: Db, realm: RealmModel, req: BrowserRequest, authSession: AuthSessionModel) =>
  runLogin(db, realm, req, authSession, undefined);

async function runLogin(
  db: Db,
  realm: RealmModel,
  req: BrowserRequest,
  authSession: AuthSessionModel,
  action: { executionId: string; form: Record<string, string> } | undefined,
): Promise<BrowserResponse> {
  const data = dataOf(authSession);
  const request = data.request as AuthRequest;
  const client = await clientOfRealmById(db, realm, authSession.clientId);
  const ev = loginEvent(db, realm, req, request);
  ev.detail('code_id', authSession.id);
  const page = (p: Page | InfoPage) => realmPage(db, realm, req, p, request.ui_locales);
  if (!client?.enabled) {
    await ev.error('client_disabled');
    return page({ page: 'error', status: 400, message: { key: 'clientDisabledMessage' } });
  }
  const user = authSession.userId ? await userOrTransient(db, realm, authSession.userId, (id) => db.models.User.findByPk(id)) : null;
  const ctx: LoginContext = {
    db,
    realm,
    client,
    authSession,
    data,
    request,
    user,
    identityCookie: req.cookies.KEYCLOAK_IDENTITY,
    ev,
    ipAddress: req.ipAddress,
    form: action?.form,
    ...(action && req.formValues ? { formValues: req.formValues } : {}),
    baseUrl: req.baseUrl,
  };
  const passive = (request.prompt ?? '').split(' ').includes('none');
  const toClient = async (error: string, description?: string) => {
    await removeAuthSession(db, authSession.id);
    return sendBack(db, realm, req, client, request.redirect_uri, request.response_mode, {
      error,
      error_description: description,
      state: request.state,
      iss: issuerOf(req.baseUrl, realm.name),
    });
  };
  // "Forgot password?" runs the realm's reset-credentials flow in the same login.
  const reset = isResetLogin(ctx);
  // Self-registration runs the realm's registration flow in the same login (registration.ts).
  const registration = !reset && isRegistrationLogin(ctx);
  if (registration && !data.notes[FLOW_DONE] && !registrationAllowed(realm, data.notes)) {
    await new TokenEvent(db, realm, 'REGISTER', req.ipAddress).error('registration_disabled');
    await removeAuthSession(db, authSession.id);
    return page({ page: 'error', status: 400, message: { key: 'registrationNotAllowedMessage' } });
  }
  // The realm's flows, executions and configs: kept per node under the realm's cache version (flow-definitions.ts).
  const defs = await realmFlowDefinitions(db, realm);
  ctx.authConfigs = defs.configs;
  const broker = reset || registration ? undefined : await brokerFlowOf(ctx, defs);
  const flowId = reset
    ? resetFlowId(realm, defs)
    : registration
      ? registrationFlowId(realm, defs)
      : broker
        ? broker.flowId
        : browserFlowId(realm, client.settings, defs, data.notes[REQUESTED_FLOW_NOTE]);
  // The browser flow's levels of authentication (loa.ts), read from the flow definitions at hand.
  if (!reset && !registration && !broker && flowId) ctx.loaMaxAges = loaMaxAges(defs, flowId);
  if (!flowId) {
    await ev.error('invalid_flow');
    return page({ page: 'error', status: 500, message: { key: 'internalServerErrorMessage' } });
  }
  if (data.notes.SSO_SESSION && user) {
    // A cookie login keeps its SSO session (the required actions after it, or the organization's page before it ends).
    const sso = await ssoFromCookie(db, realm, req.cookies.KEYCLOAK_IDENTITY);
    if (sso && sso.session.id === data.notes.SSO_SESSION && sso.user.id === user.id) ctx.userSession = sso.session;
  }
  // Authenticated already: only the required actions are left.
  if (data.notes[FLOW_DONE] && user) return completeLogin(ctx, req, passive, toClient, page, action);
  let result: FlowResult;
  try {
    const registry = reset ? RESET_REGISTRY : registration ? REGISTRATION_REGISTRY : (broker?.registry ?? LOGIN_REGISTRY);
    const run = FlowRun.over(ctx, registry, defs.executions);
    result = action ? await run.action(flowId, action.executionId) : await run.process(flowId);
    // An essential acr the flow did not reach (ConditionalLoaAuthenticator.onTopFlowSuccess).
    if (result.kind === 'done' && result.successful && !levelFulfilled(ctx))
      throw new FlowError('generic_authentication_error', { page: 'error', status: 400, message: { key: 'acrNotFulfilled' } });
  } catch (e) {
    if (!(e instanceof FlowError)) throw e;
    await ev.error(e.error);
    if (passive) return toClient(e.error === 'access_denied' ? 'access_denied' : 'login_required');
    await removeAuthSession(db, authSession.id);
    return page(e.page ?? { page: 'error', status: 400, message: { key: 'invalidUserMessage' } });
  }
  if (result.kind === 'challenge') {
    if (passive) {
      await ev.error('login_required');
      return toClient('login_required');
    }
    authSession.userId = ctx.user?.id ?? null;
    await saveAuthSession(db, authSession, loginLifespan(realm), data);
    if (result.page.page === 'redirect') return { kind: 'redirect', location: result.page.location, realm, cookies: [] };
    const q = new URLSearchParams({
      session_code: authSession.sessionCode,
      execution: 'executionId' in result.page ? result.page.executionId : '',
      client_id: client.clientId,
      tab_id: authSession.id,
    });
    const out = await page(result.page);
    const issuer = issuerOf(req.baseUrl, realm.name);
    const providers =
      result.page.page === 'login' && !reset && !broker
        ? await providerLinks(db, realm, issuer, ctx, result.page.organizationId)
        : undefined;
    const path = registration ? 'registration' : 'authenticate';
    return { ...out, formAction: `${issuer}/login-actions/${path}?${q}`, providers } as BrowserResponse;
  }
  if (!result.successful || !ctx.user) {
    await ev.error('invalid_user_credentials');
    await removeAuthSession(db, authSession.id);
    if (passive) return toClient('login_required');
    return page({ page: 'error', status: 401, message: { key: 'invalidUserMessage' } });
  }
  if (broker) {
    const next = await afterBrokerFlow(ctx);
    if (next.kind === 'page') {
      await removeAuthSession(db, authSession.id);
      return page(next.page);
    }
    if (next.kind === 'again') {
      authSession.userId = ctx.user.id;
      await saveAuthSession(db, authSession, loginLifespan(realm), data);
      return runLogin(db, realm, req, authSession, undefined);
    }
  }
  return completeLogin(ctx, req, passive, toClient, page, undefined);
}

/** A page after the flow (a required action, the consent): the login is kept for its form, which posts to `login-actions/{path}`. */
async function afterFlowPage(
  ctx: LoginContext,
  req: BrowserRequest,
  out: BrowserResponse,
  path: string,
  execution: string,
): Promise<BrowserResponse> {
  const { db, realm, client, authSession, data } = ctx;
  data.notes[FLOW_DONE] = 'true';
  authSession.userId = (ctx.user as NonNullable<LoginContext['user']>).id;
  await saveAuthSession(db, authSession, userActionLifespan(realm), data);
  const q = new URLSearchParams({ session_code: authSession.sessionCode, execution, client_id: client.clientId, tab_id: authSession.id });
  return { ...out, formAction: `${issuerOf(req.baseUrl, realm.name)}/login-actions/${path}?${q}` } as BrowserResponse;
}

/**
 * A successful flow: the user's required actions run first, one page each (an enabled one this server
 * cannot run stops the login with a page naming it); then the user session (the SSO session the cookie brought, or a new one), the LOGIN event, the SSO
 * cookies and the authorization response with a one-time code.
 */
async function completeLogin(
  ctx: LoginContext,
  req: BrowserRequest,
  passive: boolean,
  toClient: (error: string, description?: string) => Promise<BrowserResponse>,
  page: (p: Page | InfoPage) => Promise<BrowserResponse>,
  action: { executionId: string; form: Record<string, string> } | undefined,
): Promise<BrowserResponse> {
  const { db, realm, client, request, ev, authSession, data } = ctx;
  const user = ctx.user as NonNullable<LoginContext['user']>;
  ev.type = 'LOGIN';
  ev.userId = user.id;
  ev.detail('username', user.username);
  // The level of a flow a client policy chose (auth-flow-enforcer's auth-flow-loa).
  applyFlowLevel(ctx);
  let posted = action;
  for (let next = await nextRequiredAction(ctx); next; next = await nextRequiredAction(ctx)) {
    if (passive) {
      await ev.error('interaction_required');
      return toClient('interaction_required');
    }
    if (!next.impl) {
      await ev.error('resolve_required_actions');
      await removeAuthSession(db, authSession.id);
      const text = REQUIRED_ACTION_TEXTS[next.alias] ?? next.alias;
      return page({
        page: 'info',
        status: 403,
        title: { key: 'requiredActionsPendingTitle' },
        message: { key: 'requiredActionsPendingMessage', params: [text] },
      });
    }
    // The application-initiated action offers a cancel button (`cancel-aia`): the login goes on, kc_action_status=cancelled.
    const cancelable = kcActionOf(ctx)?.alias === next.alias && !data.notes[KC_NOTES.STATUS];
    if (cancelable && posted?.executionId === next.alias && 'cancel-aia' in posted.form) {
      setKcActionStatus(ctx, next.alias, 'cancelled');
      posted = undefined;
      continue;
    }
    const outcome =
      posted && posted.executionId === next.alias
        ? await next.impl.process(ctx, next.alias, posted.form)
        : { kind: 'challenge' as const, page: await next.impl.challenge(ctx, next.alias) };
    posted = undefined;
    if (outcome.kind === 'error') {
      setKcActionStatus(ctx, next.alias, 'error');
      continue;
    }
    if (outcome.kind === 'failure') {
      // Keycloak: a failed required action is a denied consent, access_denied to the client.
      await ev.error(outcome.error);
      if (data.notes[ACTION_NOTES.END_AFTER_REQUIRED_ACTIONS]) {
        await removeAuthSession(db, authSession.id);
        return page({ page: 'error', status: 400, message: { key: 'accessDeniedMessage' } });
      }
      return toClient('access_denied');
    }
    if (outcome.kind === 'challenge')
      return afterFlowPage(
        ctx,
        req,
        await page(cancelable ? { ...outcome.page, cancelable } : outcome.page),
        'required-action',
        next.alias,
      );
    await completeRequiredAction(ctx, next.alias);
  }
  // An e-mail link's login ends with a page once its actions are done (no session, no code).
  if (data.notes[ACTION_NOTES.END_AFTER_REQUIRED_ACTIONS]) return page(await finishActionTokenLogin(ctx));
  // A client with consentRequired asks for the requested scopes not granted yet (Keycloak's OAUTH_GRANT).
  const consent = await consentStep(ctx, posted);
  if (consent.kind === 'denied') {
    await ev.error('rejected_by_user');
    return toClient('access_denied');
  }
  if (consent.kind === 'ask') {
    if (passive) {
      await ev.error('interaction_required');
      return toClient('interaction_required');
    }
    return afterFlowPage(ctx, req, await page(consent.page), 'consent', OAUTH_GRANT);
  }
  let session: UserSessionModel | undefined = ctx.userSession;
  // The levels reached and this client's level (loa.ts), kept in the user session's notes for its tokens.
  // With the organization picked on the select-organization page for this client (organization-login.ts).
  const levels = { ...loaSessionNotes(ctx, Boolean(session)), ...organizationSessionNotes(ctx) };
  if (session) {
    await touchSession(db, session, client.id);
    const notes = (session.notes ?? {}) as Record<string, string>;
    if (Object.entries(levels).some(([k, v]) => notes[k] !== v)) {
      session.notes = { ...notes, ...levels };
      await db.models.UserSession.update({ notes: session.notes }, { where: { id: session.id } });
    }
  } else {
    // A browser signed in as someone else before: that SSO session ends with this sign-in.
    const previous = ctx.identityCookie ? await ssoFromCookie(db, realm, ctx.identityCookie) : null;
    if (previous && previous.user.id !== user.id) await removeSessions(db, [previous.session.id]);
    if (previous && previous.user.id === user.id) {
      session = previous.session;
      // Signed in again (prompt=login, max_age, max_auth_age): the session's authentication time is now.
      session.notes = { ...(session.notes ?? {}), ...levels, AUTH_TIME: String(nowSeconds()) };
      await db.models.UserSession.update({ notes: session.notes }, { where: { id: session.id } });
      await touchSession(db, session, client.id);
    } else {
      const notes = { ...brokerSessionNotes(data.notes), ...levels };
      session = await createSession(db, realm, {
        user,
        client,
        ipAddress: req.ipAddress,
        offline: false,
        authMethod: 'openid-connect',
        notes,
      });
    }
  }
  // Keycloak's OIDCLoginProtocol.authenticated: a code for `code`, tokens for `token` / `id_token`, nothing more for `none`.
  const type = ResponseType.parse(request.response_type) ?? (ResponseType.parse('code') as ResponseType);
  const authTime = authTimeOf(session);
  const code = type.has('code')
    ? await issueCode(db, realm, client.id, session.id, {
        redirectUri: request.redirect_uri_param,
        nonce: request.nonce,
        scope: request.scope,
        codeChallenge: request.code_challenge,
        codeChallengeMethod: request.code_challenge_method,
        ...(request.dpop_jkt ? { dpopJkt: request.dpop_jkt } : {}),
        authTime,
      })
    : undefined;
  const tokens = type.implicitOrHybrid
    ? await frontChannelTokens({
        db,
        realm,
        client,
        user,
        session,
        type,
        scope: request.scope,
        nonce: request.nonce,
        state: request.state,
        code,
        authTime,
        baseUrl: req.baseUrl,
        ipAddress: req.ipAddress,
      })
    : {};
  await removeAuthSession(db, authSession.id);
  ev.sessionId = session.id;
  ev.detail('consent', consent.detail);
  const brokered = brokerSessionNotes(data.notes);
  if (brokered)
    ev.detail('identity_provider', brokered.identity_provider).detail('identity_provider_identity', brokered.identity_provider_identity);
  if (ctx.userSession) ev.detail('sso', 'true');
  await ev.success();
  const identity = await identityCookieValue(db, realm, session);
  const iss = issuerOf(req.baseUrl, realm.name);
  const params = { ...kcActionResponse(ctx), code, state: request.state, session_state: session.id, iss, ...tokens };
  return sendBack(db, realm, req, client, request.redirect_uri, request.response_mode, params, [
    { name: 'KEYCLOAK_IDENTITY', value: identity.value, maxAge: identity.maxAge, httpOnly: true },
    { name: 'KEYCLOAK_SESSION', value: sessionCookieValue(session), maxAge: identity.maxAge, httpOnly: false },
  ]);
}
