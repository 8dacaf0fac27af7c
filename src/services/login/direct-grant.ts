import { randomUUID } from 'node:crypto';
import { dummyPassword, verifyPassword } from '../../auth/passwords';
import { clock } from '../../core/clock';
import type { Db } from '../../db';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { ClientModel } from '../../db/models/client';
import type { CredentialModel } from '../../db/models/user';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { lockoutOf, recordLoginFailure } from '../sessions/brute-force';
import type { TokenEvent } from '../tokens/token-events';
import { hashSettings } from '../users/password-policy';
import { federatedPasswordValid, findLoginUser } from '../user-storage/federation';
import type { AuthRequest } from './authorize';
import { ATTEMPTED_USERNAME, authenticatorConfig, BROWSER_REGISTRY } from './authenticators';
import {
  type Authenticator,
  type Condition,
  FlowError,
  FlowRun,
  type LoginContext,
  type OAuthReply,
  type Outcome,
  type Registry,
} from './flow-engine';
import { realmFlowDefinitions } from './flow-definitions';
import { ENGLISH } from './messages';
import { verifyUserOtp } from './otp';

/**
 * The direct grant flow of the password grant (Keycloak's ResourceOwnerPasswordCredentialsGrantType
 * with AuthenticationProcessor.authenticateOnly): the realm's `directGrantFlow` (or the client's
 * `authenticationFlowBindingOverrides.direct_grant`) run once through the flow engine, with the
 * authenticators that need no browser: direct-grant-validate-username, -password and -otp (Keycloak's
 * authenticators/directgrant/ValidateUsername, ValidatePassword, ValidateOTP), deny-access and
 * allow-access, and the conditions conditional-user-configured, conditional-user-role and
 * conditional-level-of-authentication. A failure answers with the OAuth error body the Keycloak
 * authenticator builds. The flow definitions come from the node's cache (flow-definitions.ts).
 */

/** The run's context: the token request's form, and the user's credentials read once for every step. */
interface GrantContext extends LoginContext {
  form: Record<string, string>;
  credentials?: CredentialModel[];
  /** When the password that matched was set (password-expiry policy); now for a directory bind. */
  passwordDate?: number;
}

const invalidGrant = (error: string, status = 400): Outcome => ({
  kind: 'failure',
  error,
  reply: { status, error: 'invalid_grant', description: 'Invalid user credentials' },
});

/**
 * A password check against a dummy hash made as the realm's passwords are: an unknown, locked or
 * password-less user costs what a wrong password costs (Keycloak's dummyHash), so response times do not
 * reveal which usernames exist.
 */
async function equalHashWork(realm: RealmModel, password: string | undefined): Promise<void> {
  if (!password) return;
  const { algorithm, iterations } = hashSettings(realm);
  const dummy = await dummyPassword(algorithm, iterations).catch(() => dummyPassword());
  await verifyPassword(password, dummy);
}

/** The user's credentials, all types in one read, kept for the rest of the run. */
async function credentialsOf(ctx: GrantContext, user: UserModel): Promise<CredentialModel[]> {
  ctx.credentials ??= await ctx.db.models.Credential.findAll({ where: { userId: user.id }, order: [['priority', 'ASC']] });
  return ctx.credentials;
}

const grantCtx = (ctx: LoginContext) => ctx as GrantContext;

/** direct-grant-validate-username: the `username` parameter names an enabled, unlocked user (by username, else e-mail, else a directory). */
const validateUsername: Authenticator = {
  async authenticate(lc) {
    const ctx = grantCtx(lc);
    const { db, realm, ev } = ctx;
    const username = ctx.form.username;
    if (username === undefined)
      return {
        kind: 'failure',
        error: 'user_not_found',
        reply: { status: 401, error: 'invalid_request', description: 'Missing parameter: username' },
      };
    ev.detail('username', username);
    ctx.data.notes[ATTEMPTED_USERNAME] = username;
    const user = await findLoginUser(db, realm, username);
    if (!user) {
      await equalHashWork(realm, ctx.form.password);
      return invalidGrant('user_not_found');
    }
    if (user.serviceAccountClientLink) {
      await equalHashWork(realm, ctx.form.password);
      ev.detail('reason', 'User is a service account');
      return invalidGrant('invalid_user');
    }
    ev.userId = user.id;
    const locked = await lockoutOf(db, realm, user);
    if (locked) {
      await equalHashWork(realm, ctx.form.password);
      return invalidGrant(locked === 'temporary' ? 'user_temporarily_disabled' : 'user_disabled');
    }
    if (!user.enabled)
      return { kind: 'failure', error: 'user_disabled', reply: { status: 400, error: 'invalid_grant', description: 'Account disabled' } };
    ctx.user = user;
    return { kind: 'success' };
  },
};

/** direct-grant-validate-password: the `password` parameter is the user's (a local password, else a bind to the user's directory). */
const validatePassword: Authenticator = {
  requiresUser: true,
  async authenticate(lc) {
    const ctx = grantCtx(lc);
    const { db, realm } = ctx;
    const user = ctx.user as UserModel;
    const password = ctx.form.password;
    const federated = await federatedPasswordValid(db, realm, user, password);
    let matched: number | undefined = federated ? clock.now() : undefined;
    if (federated === undefined) {
      const creds = password ? (await credentialsOf(ctx, user)).filter((c) => c.type === 'password') : [];
      if (!creds.length) await equalHashWork(realm, password);
      for (const c of creds) if (matched === undefined && password && (await verifyPassword(password, c))) matched = Number(c.createdDate);
    }
    if (matched === undefined) {
      await recordLoginFailure(db, realm, user, ctx.ipAddress, ctx.client.clientId);
      return invalidGrant('invalid_user_credentials');
    }
    ctx.passwordDate = matched;
    return { kind: 'success' };
  },
};

/** direct-grant-validate-otp: the `otp` (or, as Keycloak accepts for compatibility, `totp`) parameter is a code of one of the user's OTP devices. */
const validateOtp: Authenticator = {
  requiresUser: true,
  async configuredFor(lc, user) {
    return (await credentialsOf(grantCtx(lc), user)).some((c) => c.type === 'otp');
  },
  async authenticate(lc) {
    const ctx = grantCtx(lc);
    const { db, realm } = ctx;
    const user = ctx.user as UserModel;
    const code = ctx.form.otp ?? ctx.form.totp;
    if (code === undefined || !(await verifyUserOtp(db, realm, user.id, code))) {
      await recordLoginFailure(db, realm, user, ctx.ipAddress, ctx.client.clientId);
      return invalidGrant('invalid_user_credentials');
    }
    return { kind: 'success' };
  },
};

/**
 * deny-access-authenticator: 401 with the configured message (denyErrorMessage, a message key or a
 * text) as `error`, the JSON Keycloak's error page becomes for a request that is not a browser's. As
 * any failure of Keycloak's flow, it counts for brute-force detection when the user is known.
 */
const denyAccess: Authenticator = {
  async authenticate(lc, exec) {
    const ctx = grantCtx(lc);
    const configured = (await authenticatorConfig(ctx, exec))?.denyErrorMessage;
    const message = configured ? (ENGLISH[configured] ?? configured) : ENGLISH.accessDeniedMessage;
    if (ctx.user) await recordLoginFailure(ctx.db, ctx.realm, ctx.user, ctx.ipAddress, ctx.client.clientId);
    return { kind: 'failure', error: 'access_denied', reply: { status: 401, error: message } };
  },
};

/** The level a conditional-level-of-authentication step reached in this run. */
const LOA_NOTE = 'LEVEL_OF_AUTHENTICATION';

/**
 * conditional-level-of-authentication (Keycloak's ConditionalLoaAuthenticator) in a direct grant: there
 * is no earlier authentication to reuse and no requested level (`acr_values` is an authorization
 * request parameter), so a level's sub-flow runs while no level has been reached in this request, and
 * the first one that succeeds sets the level (its `loa-condition-level`).
 */
const levelOfAuthentication: Condition = {
  async matchCondition(ctx) {
    return ctx.data.notes[LOA_NOTE] === undefined;
  },
  async onParentFlowSuccess(ctx, exec) {
    const level = Number((await authenticatorConfig(ctx, exec))?.['loa-condition-level']);
    if (Number.isInteger(level)) ctx.data.notes[LOA_NOTE] = String(level);
  },
};

export const DIRECT_GRANT_REGISTRY: Registry = {
  authenticators: {
    'direct-grant-validate-username': validateUsername,
    'direct-grant-validate-password': validatePassword,
    'direct-grant-validate-otp': validateOtp,
    'deny-access-authenticator': denyAccess,
    'allow-access-authenticator': BROWSER_REGISTRY.authenticators['allow-access-authenticator'],
  },
  conditions: {
    'conditional-user-configured': BROWSER_REGISTRY.conditions['conditional-user-configured'],
    'conditional-user-role': BROWSER_REGISTRY.conditions['conditional-user-role'],
    'conditional-level-of-authentication': levelOfAuthentication,
  },
};

/** One password grant's run of the direct grant flow. */
export interface DirectGrantInput {
  db: Db;
  realm: RealmModel;
  client: ClientModel;
  form: Record<string, string | undefined>;
  ev: TokenEvent;
  ipAddress?: string;
}

export type DirectGrantResult =
  /** `level`: the level of authentication a conditional-level-of-authentication step reached (the acr claim's). */
  | { kind: 'success'; user: UserModel; passwordDate?: number; level?: number }
  /** `event` is the LOGIN_ERROR code, `reply` the answer. */
  | { kind: 'failure'; event: string; reply: OAuthReply };

const INVALID: OAuthReply = { status: 400, error: 'invalid_grant', description: 'Invalid user credentials' };

/** The flow a password grant runs: the client's `direct_grant` override when it names a flow of the realm, else the realm's directGrantFlow. */
function directGrantFlowId(
  realm: RealmModel,
  client: ClientModel,
  flows: ReadonlyArray<{ id: string; alias: string }>,
): string | undefined {
  const override = (client.settings.authenticationFlowBindingOverrides as Record<string, string> | undefined)?.direct_grant;
  if (override) {
    const flow = flows.find((f) => f.id === override);
    if (flow) return flow.id;
  }
  const alias = typeof realm.settings.directGrantFlow === 'string' ? realm.settings.directGrantFlow : 'direct grant';
  return flows.find((f) => f.alias === alias)?.id;
}

/**
 * Runs the realm's direct grant flow for a token request (`username`, `password`, `otp`/`totp` in the
 * form). Nothing is stored for the run: as Keycloak's authentication session of a password grant, it
 * lives for this one request. Brute-force failures are recorded by the steps that fail.
 */
export async function runDirectGrant(input: DirectGrantInput): Promise<DirectGrantResult> {
  const { db, realm, client, ev } = input;
  const defs = await realmFlowDefinitions(db, realm);
  const flowId = directGrantFlowId(realm, client, defs.flows);
  if (!flowId) return { kind: 'failure', event: 'invalid_flow', reply: INVALID };
  const form: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.form)) if (typeof v === 'string') form[k] = v;
  const request = { client_id: client.clientId, scope: form.scope ?? '' } as unknown as AuthRequest;
  const data = { request: request as unknown as Record<string, string>, statuses: {}, notes: {} };
  // An authentication session of this request only (never saved), for what reads one.
  const authSession = db.models.AuthSession.build({
    id: randomUUID(),
    rootId: randomUUID(),
    realmId: realm.id,
    clientId: client.id,
    userId: null,
    sessionCode: '',
    expires: 0,
    data,
  });
  const ctx: GrantContext = {
    db,
    realm,
    client,
    authSession,
    data,
    request,
    user: null,
    ev,
    ipAddress: input.ipAddress,
    form,
    authConfigs: defs.configs,
  };
  try {
    const result = await FlowRun.over(ctx, DIRECT_GRANT_REGISTRY, defs.executions as AuthExecutionModel[]).process(flowId);
    if (result.kind === 'challenge') return browserOnly(result.page.page);
    if (!result.successful || !ctx.user) return { kind: 'failure', event: 'invalid_user_credentials', reply: INVALID };
    const level = ctx.data.notes[LOA_NOTE] === undefined ? undefined : Number(ctx.data.notes[LOA_NOTE]);
    return { kind: 'success', user: ctx.user, passwordDate: ctx.passwordDate, ...(level === undefined ? {} : { level }) };
  } catch (e) {
    if (!(e instanceof FlowError)) throw e;
    if (e.reply) return { kind: 'failure', event: e.error, reply: e.reply };
    // The engine's own stops: a step the direct grant does not have (a browser form, an unknown provider) ...
    if (e.error === 'not_implemented' && e.page?.page === 'error' && e.page.message.params?.[0])
      return browserOnly(e.page.message.params[0]);
    // ... or a step that needs a user the flow has not identified, or a credential the user lacks.
    return { kind: 'failure', event: e.error, reply: INVALID };
  }
}

/**
 * A REQUIRED step that needs a browser (a login form, a cookie, an identity provider) or that this
 * server does not know. Keycloak would answer with the step's HTML page, or a 500; the token endpoint
 * answers JSON: 400 invalid_request naming the step, so the admin sees what to change in the flow.
 */
function browserOnly(step: string): DirectGrantResult {
  return {
    kind: 'failure',
    event: 'not_allowed',
    reply: { status: 400, error: 'invalid_request', description: `Authenticator not supported in the direct grant flow: ${step}` },
  };
}
