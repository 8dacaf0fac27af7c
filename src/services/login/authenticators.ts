import { dummyPassword, verifyPassword } from '../../auth/passwords';
import { nowSeconds } from '../../core/clock';
import { effectiveRoleIdsForUsers } from '../../core/effective-roles';
import type { AuthExecutionModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { lockoutOf, recordLoginFailure, recordLoginSuccess } from '../sessions/brute-force';
import { organizationScopeOf } from '../organizations/organization-claims';
import { hashSettings } from '../users/password-policy';
import { federatedPasswordValid, findLoginUser } from '../user-storage/federation';
import type { Authenticator, Condition, LoginContext, Outcome, Page, Registry } from './flow-engine';
import { cookieLevel, LOA_CONDITION, levelOfAuthentication } from './loa';
import { verifyUserOtp } from './otp';
import { authTimeOf, ssoFromCookie } from './sso';

/**
 * The authenticators and conditions the browser flow can run, by Keycloak provider id. Add one here
 * (and, for a form, its page in src/oidc/login-pages.ts) to make it available to every flow.
 */
export const ATTEMPTED_USERNAME = 'ATTEMPTED_USERNAME';

export const loginPage = (
  ctx: LoginContext,
  exec: AuthExecutionModel,
  variant: 'username-password' | 'username' | 'password',
  extra: Partial<Page> = {},
): Page =>
  ({
    page: 'login',
    variant,
    executionId: exec.id,
    username: ctx.data.notes[ATTEMPTED_USERNAME] ?? ctx.request.login_hint,
    ...extra,
  }) as Page;

const invalidUser = (ctx: LoginContext, exec: AuthExecutionModel, variant: 'username-password' | 'password', username?: string): Page =>
  loginPage(ctx, exec, variant, {
    message: { key: 'invalidUserMessage' },
    status: 401,
    ...(username !== undefined ? { username } : {}),
  } as Partial<Page>);

/** The user a login form names: by username, or by email when the realm allows it and one user has that email; else from LDAP. */
export const findUserForLogin = (ctx: LoginContext, username: string): Promise<UserModel | null> =>
  findLoginUser(ctx.db, ctx.realm, username);

/** A password check against a dummy hash: an unknown or locked user costs what a wrong password costs. */
async function equalHashWork(realm: RealmModel, password: string | undefined): Promise<void> {
  const { algorithm, iterations } = hashSettings(realm);
  const dummy = await dummyPassword(algorithm, iterations).catch(() => dummyPassword());
  await verifyPassword(password || 'x', dummy);
}

async function hasCredential(ctx: LoginContext, user: UserModel, type: string): Promise<boolean> {
  return (await ctx.db.models.Credential.count({ where: { userId: user.id, type } })) > 0;
}

/**
 * Checks the password of the user a form named (or of nobody): brute-force lockout, the password,
 * then whether the account is enabled, with Keycloak's LOGIN_ERROR codes. Every failure but a disabled
 * account after a right password shows the same "Invalid username or password." (no enumeration).
 */
export async function checkPassword(
  ctx: LoginContext,
  exec: AuthExecutionModel,
  variant: 'username-password' | 'password',
  user: UserModel | null,
  username: string,
  password: string | undefined,
): Promise<Outcome> {
  const { db, realm, ev } = ctx;
  ev.detail('username', username);
  if (!user) {
    await equalHashWork(realm, password);
    await ev.error('user_not_found');
    return { kind: 'failure', error: 'user_not_found', page: invalidUser(ctx, exec, variant, username) };
  }
  ev.userId = user.id;
  const locked = await lockoutOf(db, realm, user);
  if (locked) {
    await equalHashWork(realm, password);
    const code = locked === 'temporary' ? 'user_temporarily_disabled' : 'user_disabled';
    await ev.error(code);
    return { kind: 'failure', error: code, page: invalidUser(ctx, exec, variant, username) };
  }
  const federated = await federatedPasswordValid(db, realm, user, password);
  const creds =
    password && federated === undefined
      ? await db.models.Credential.findAll({ where: { userId: user.id, type: 'password' }, order: [['priority', 'ASC']] })
      : [];
  let matched = federated === true;
  for (const c of creds) if (!matched && password && (await verifyPassword(password, c))) matched = true;
  if (!creds.length && federated === undefined) await equalHashWork(realm, password);
  if (!matched) {
    await recordLoginFailure(db, realm, user, ctx.ipAddress, ctx.client.clientId);
    await ev.error('invalid_user_credentials');
    return { kind: 'failure', error: 'invalid_user_credentials', page: invalidUser(ctx, exec, variant, username) };
  }
  if (!user.enabled) {
    await ev.error('user_disabled');
    return {
      kind: 'failure',
      error: 'user_disabled',
      page: loginPage(ctx, exec, variant, { message: { key: 'accountDisabledMessage' }, status: 401, username } as Partial<Page>),
    };
  }
  await recordLoginSuccess(db, realm, user);
  ctx.user = user;
  ctx.data.notes[ATTEMPTED_USERNAME] = username;
  return { kind: 'success' };
}

const field = (ctx: LoginContext, name: string) => (typeof ctx.form?.[name] === 'string' ? ctx.form[name] : '');

/** auth-cookie: the SSO session of the KEYCLOAK_IDENTITY cookie, unless prompt=login or max_age asks for a new sign-in. */
const cookie: Authenticator = {
  async authenticate(ctx) {
    const sso = await ssoFromCookie(ctx.db, ctx.realm, ctx.identityCookie);
    if (!sso) return { kind: 'attempted' };
    const reauth =
      (ctx.request.prompt ?? '').split(' ').includes('login') ||
      (ctx.request.max_age !== undefined && nowSeconds() - authTimeOf(sso.session) > Number(ctx.request.max_age));
    const notes = (sso.session.notes ?? undefined) as Record<string, string> | undefined;
    if (reauth) {
      cookieLevel(ctx, notes, true);
      return { kind: 'attempted' };
    }
    // Step-up (a higher level than the SSO session still gives): the user is known, the levels asked for follow.
    if (cookieLevel(ctx, notes, false) === 'step-up') {
      ctx.user = sso.user;
      return { kind: 'attempted' };
    }
    ctx.user = sso.user;
    ctx.userSession = sso.session;
    ctx.data.notes.SSO_SESSION = sso.session.id;
    // Keycloak 26.1+: in an organization's scope the organization authenticator finishes a cookie login (it may ask which organization).
    return (await organizationContext(ctx)) ? { kind: 'attempted' } : { kind: 'success' };
  },
};

/** CookieAuthenticator#isOrganizationContext: organizations on and present, and an `organization` form of the scope asked. */
async function organizationContext(ctx: LoginContext): Promise<boolean> {
  if (!organizationScopeOf(ctx.request.scope ?? '')) return false;
  if (!(ctx.realm.settings.organizationsEnabled === true || ctx.realm.settings.organizationsEnabled === 'true')) return false;
  return (await ctx.db.models.Organization.findOne({ where: { realmId: ctx.realm.id }, attributes: ['id'] })) !== null;
}

/** auth-username-password-form: one form for both. */
const usernamePasswordForm: Authenticator = {
  async authenticate(ctx, exec) {
    return { kind: 'challenge', page: loginPage(ctx, exec, 'username-password') };
  },
  async action(ctx, exec) {
    const username = field(ctx, 'username').trim();
    const user = username ? await findUserForLogin(ctx, username) : null;
    return checkPassword(ctx, exec, 'username-password', user, username, field(ctx, 'password'));
  },
};

/**
 * auth-username-form (identity first): the username only. An unknown name is not revealed here: the
 * login goes on to the password form, which then fails as a wrong password does.
 */
const usernameForm: Authenticator = {
  async authenticate(ctx, exec) {
    return { kind: 'challenge', page: loginPage(ctx, exec, 'username') };
  },
  async action(ctx, exec) {
    const username = field(ctx, 'username').trim();
    if (!username) {
      await ctx.ev.error('user_not_found');
      return {
        kind: 'failure',
        error: 'user_not_found',
        page: loginPage(ctx, exec, 'username', { message: { key: 'invalidUserMessage' }, status: 401 } as Partial<Page>),
      };
    }
    ctx.data.notes[ATTEMPTED_USERNAME] = username;
    ctx.user = await findUserForLogin(ctx, username);
    return { kind: 'success' };
  },
};

/** auth-password-form: the password of the user an earlier step named. */
const passwordForm: Authenticator = {
  async configuredFor(ctx, user) {
    return Boolean(user.federationLink) || hasCredential(ctx, user, 'password');
  },
  async authenticate(ctx, exec) {
    if (!ctx.user && !ctx.data.notes[ATTEMPTED_USERNAME]) {
      return { kind: 'failure', error: 'user_not_found', page: { page: 'error', status: 400, message: { key: 'invalidUserMessage' } } };
    }
    return { kind: 'challenge', page: loginPage(ctx, exec, 'password') };
  },
  async action(ctx, exec) {
    const username = ctx.data.notes[ATTEMPTED_USERNAME] ?? ctx.user?.username ?? '';
    return checkPassword(ctx, exec, 'password', ctx.user, username, field(ctx, 'password'));
  },
};

/**
 * auth-otp-form: a code of one of the user's OTP credentials (field `otp`). A user without one gets
 * CONFIGURE_TOTP (Keycloak's setRequiredActions) and the step is passed; a wrong code counts as a
 * login failure for brute-force detection.
 */
const otpForm: Authenticator = {
  requiresUser: true,
  async authenticate(ctx, exec) {
    const user = ctx.user as UserModel;
    if (!(await hasCredential(ctx, user, 'otp'))) {
      await ctx.db.models.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'CONFIGURE_TOTP' }], {
        ignoreDuplicates: true,
      });
      return { kind: 'success' };
    }
    return { kind: 'challenge', page: { page: 'otp', executionId: exec.id } };
  },
  async action(ctx, exec) {
    const { db, realm, ev } = ctx;
    const user = ctx.user as UserModel;
    ev.userId = user.id;
    ev.detail('username', user.username);
    const again = (key: string, error: string): Outcome => ({
      kind: 'failure',
      error,
      page: { page: 'otp', executionId: exec.id, message: { key }, status: 401 },
    });
    if (await lockoutOf(db, realm, user)) {
      await ev.error('user_temporarily_disabled');
      return again('invalidTotpMessage', 'user_temporarily_disabled');
    }
    const code = field(ctx, 'otp').trim();
    if (!code || !(await verifyUserOtp(db, realm, user.id, code))) {
      await recordLoginFailure(db, realm, user, ctx.ipAddress, ctx.client.clientId);
      await ev.error('invalid_user_credentials');
      return again(code ? 'invalidTotpMessage' : 'missingTotpMessage', 'invalid_user_credentials');
    }
    await recordLoginSuccess(db, realm, user);
    return { kind: 'success' };
  },
};

/** The config of an execution: from the run's configs (the realm's flow definitions, kept per node) when it has them, else read by id; undefined without one. */
export async function authenticatorConfig(
  ctx: LoginContext,
  exec: AuthExecutionModel,
): Promise<Readonly<Record<string, string>> | undefined> {
  if (!exec.configId) return undefined;
  if (ctx.authConfigs) return ctx.authConfigs[exec.configId];
  const row = await ctx.db.models.AuthenticatorConfig.findByPk(exec.configId);
  return row?.realmId === ctx.realm.id ? (row.config ?? undefined) : undefined;
}

/** deny-access-authenticator: stops the login with its configured message (config denyErrorMessage) or "Access denied". */
const denyAccess: Authenticator = {
  async authenticate(ctx, exec) {
    const text = (await authenticatorConfig(ctx, exec))?.denyErrorMessage;
    return {
      kind: 'failure',
      error: 'access_denied',
      page: { page: 'error', status: 401, message: { key: text || 'accessDeniedMessage' } },
    };
  },
};

const allowAccess: Authenticator = {
  async authenticate() {
    return { kind: 'success' };
  },
};

/** Credential types of authenticators, for conditional-user-configured. */
const CREDENTIAL_OF: Record<string, string> = {
  'auth-otp-form': 'otp',
  'reset-otp': 'otp',
  'webauthn-authenticator': 'webauthn',
  'webauthn-authenticator-passwordless': 'webauthn-passwordless',
  'auth-recovery-authn-code-form': 'recovery-authn-code',
};

/**
 * conditional-user-configured: true when the user is set up for the other executions of its flow
 * (all REQUIRED ones, or one of the ALTERNATIVE ones). Without a user, only executions that need none count.
 */
const userConfigured: Condition = {
  async matchCondition(ctx, exec, siblings, registry) {
    const others = siblings.filter(
      (e) =>
        e.id !== exec.id &&
        !e.authenticatorFlow &&
        e.authenticator &&
        !registry.conditions[e.authenticator] &&
        e.requirement !== 'DISABLED',
    );
    const configured = async (e: AuthExecutionModel): Promise<boolean> => {
      const provider = e.authenticator as string;
      const impl = registry.authenticators[provider];
      if (!ctx.user) return Boolean(impl && !impl.requiresUser && !impl.configuredFor);
      if (CREDENTIAL_OF[provider]) return hasCredential(ctx, ctx.user, CREDENTIAL_OF[provider]);
      if (!impl) return false;
      return impl.configuredFor ? impl.configuredFor(ctx, ctx.user) : true;
    };
    const required = others.filter((e) => e.requirement === 'REQUIRED');
    if (required.length) {
      for (const e of required) if (!(await configured(e))) return false;
      return true;
    }
    const alternatives = others.filter((e) => e.requirement === 'ALTERNATIVE');
    if (!alternatives.length) return true;
    for (const e of alternatives) if (await configured(e)) return true;
    return false;
  },
};

/** A role named as Keycloak's condUserRole does: `role` for a realm role, `clientId.role` for a client role. */
export async function roleIdOf(ctx: Pick<LoginContext, 'db' | 'realm'>, name: string): Promise<string | undefined> {
  const { db, realm } = ctx;
  const realmRole = await db.models.Role.findOne({ where: { containerId: realm.id, clientId: null, name }, attributes: ['id'] });
  if (realmRole) return realmRole.id;
  for (let i = name.indexOf('.'); i > 0; i = name.indexOf('.', i + 1)) {
    const client = await db.models.Client.findOne({ where: { realmId: realm.id, clientId: name.slice(0, i) }, attributes: ['id'] });
    if (!client) continue;
    const role = await db.models.Role.findOne({ where: { clientId: client.id, name: name.slice(i + 1) }, attributes: ['id'] });
    if (role) return role.id;
  }
  return undefined;
}

/** conditional-user-role: the user has the configured role (directly, by composite or group), or not when `negate`. */
const userRole: Condition = {
  async matchCondition(ctx, exec) {
    if (!ctx.user || !exec.configId) return false;
    const config = (await authenticatorConfig(ctx, exec)) ?? {};
    const name = config.condUserRole;
    if (!name) return false;
    const roleId = await roleIdOf(ctx, name);
    if (!roleId) return false;
    const effective = (await effectiveRoleIdsForUsers(ctx.db, [ctx.user.id])).get(ctx.user.id) ?? new Set<string>();
    const has = effective.has(roleId);
    return config.negate === 'true' ? !has : has;
  },
};

const AUTHENTICATORS: Record<string, Authenticator> = {
  'auth-cookie': cookie,
  'auth-username-password-form': usernamePasswordForm,
  'auth-username-form': usernameForm,
  'auth-password-form': passwordForm,
  'auth-otp-form': otpForm,
  'deny-access-authenticator': denyAccess,
  'allow-access-authenticator': allowAccess,
};

const CONDITIONS: Record<string, Condition> = {
  'conditional-user-configured': userConfigured,
  'conditional-user-role': userRole,
  [LOA_CONDITION]: levelOfAuthentication,
};

/** The browser flow's own authenticators (identity brokering adds its own, broker/idp-redirect.ts). */
export const BROWSER_REGISTRY: Registry = { authenticators: AUTHENTICATORS, conditions: CONDITIONS };
