import type { AuthExecutionModel } from '../../db/models/authentication';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { actionTokenLink, createActionToken } from '../events/action-tokens';
import { formatLifespan, sendMail, smtpSettingsOf } from '../events/email';
import { TokenEvent } from '../tokens/token-events';
import { ACTION_NOTES } from './action-token-store';
import { authenticatorConfig, BROWSER_REGISTRY } from './authenticators';
import { type FlowDefinitions, flowIdByAlias } from './flow-definitions';
import type { Authenticator, LoginContext, Outcome, Page, Registry } from './flow-engine';
import { userTokenLifespan } from './verify-email';

/**
 * "Forgot password?" (Keycloak's reset-credentials flow, the realm's `resetCredentialsFlow`): the
 * login page links to /login-actions/reset-credentials when the realm's `resetPasswordAllowed` is on;
 * the flow runs with the authenticators below, as configured through the admin API:
 *  - reset-credentials-choose-user: a username or e-mail (an unknown one is not revealed);
 *  - reset-credential-email: mails a reset-credentials action token bound to this login and says
 *    "you should receive an e-mail" whether or not a user was found;
 *  - reset-password: the login then asks for a new password (the UPDATE_PASSWORD required action);
 *  - reset-otp (in the conditional OTP sub-flow, for users with OTP): the OTP devices are removed
 *    and CONFIGURE_TOTP asked.
 * The link (src/services/login/action-tokens.ts) continues the login in the browser it started in.
 */
const log = getLogger('idserver.services.login.reset-credentials');

/** Notes of a reset login. */
export const RESET_NOTES = {
  /** The login runs the realm's reset-credentials flow instead of its browser flow. */
  FLOW_PATH: 'FLOW_PATH',
  /** The execution id of reset-credential-email (the link marks it done) and whether its mail went out. */
  EMAIL_EXECUTION: 'RESET_EMAIL_EXECUTION',
  EMAIL_SENT: 'RESET_EMAIL_SENT',
} as const;
export const RESET_PATH = 'reset-credentials';

export const isResetLogin = (ctx: { data: { notes: Record<string, string> } }) => ctx.data.notes[RESET_NOTES.FLOW_PATH] === RESET_PATH;

const flag = (v: unknown) => v === true || v === 'true';
export const resetAllowed = (realm: RealmModel) => flag(realm.settings.resetPasswordAllowed);

/** The realm's reset-credentials flow (resetCredentialsFlow, "reset credentials" by default), from its flow definitions. */
export function resetFlowId(realm: RealmModel, defs: FlowDefinitions): string | undefined {
  const alias = typeof realm.settings.resetCredentialsFlow === 'string' ? realm.settings.resetCredentialsFlow : 'reset credentials';
  return flowIdByAlias(defs, alias);
}

const resetPage = (exec: AuthExecutionModel, extra: { username?: string; message?: { key: string }; status?: number } = {}): Page => ({
  page: 'reset-password',
  executionId: exec.id,
  ...extra,
});

const emailSent: Page = { page: 'info', status: 200, title: { key: 'emailForgotTitle' }, message: { key: 'emailSentMessage' } };

/** Adds a required action to this login only (Keycloak's authSession.addRequiredAction). */
function addLoginAction(ctx: LoginContext, alias: string): void {
  const raw = ctx.data.notes[ACTION_NOTES.TOKEN_ACTIONS];
  const list = raw ? (JSON.parse(raw) as string[]) : [];
  if (!list.includes(alias)) list.push(alias);
  ctx.data.notes[ACTION_NOTES.TOKEN_ACTIONS] = JSON.stringify(list);
}

/** The user a username or e-mail names (e-mail only when one user has it). */
async function findUser(ctx: LoginContext, name: string): Promise<UserModel | null> {
  const lower = name.trim().toLowerCase();
  const { db, realm } = ctx;
  const byName = await db.models.User.findOne({ where: { realmId: realm.id, username: lower } });
  if (byName) return byName;
  const byEmail = await db.models.User.findAll({ where: { realmId: realm.id, email: lower }, limit: 2 });
  return byEmail.length === 1 ? byEmail[0] : null;
}

/** The user of the reset link a login was started for (another browser): its flow needs no name and no mail. */
export const LINK_USER = 'ACTION_TOKEN_USER_ID';
const linkUser = (ctx: LoginContext) => !!ctx.user && ctx.data.notes[LINK_USER] === ctx.user.id;

const chooseUser: Authenticator = {
  async authenticate(ctx, exec) {
    if (linkUser(ctx)) return { kind: 'success' };
    return { kind: 'challenge', page: resetPage(exec) };
  },
  async action(ctx, exec): Promise<Outcome> {
    const username = typeof ctx.form?.username === 'string' ? ctx.form.username.trim() : '';
    const ev = new TokenEvent(ctx.db, ctx.realm, 'RESET_PASSWORD', ctx.ipAddress);
    ev.clientId = ctx.client.clientId;
    ev.detail('username', username);
    if (!username) {
      await ev.error('username_missing');
      return {
        kind: 'failure',
        error: 'username_missing',
        page: resetPage(exec, { message: { key: 'missingUsernameMessage' }, status: 400 }),
      };
    }
    const user = await findUser(ctx, username);
    if (!user?.enabled) {
      // Not revealed: the next step says an e-mail is on its way all the same.
      await ev.error(user ? 'user_disabled' : 'user_not_found');
      ctx.user = null;
    } else ctx.user = user;
    return { kind: 'success' };
  },
};

/** reset-credential-email: the mail with the link, once per login (a reload only shows the page again). */
const sendEmail: Authenticator = {
  async authenticate(ctx, exec): Promise<Outcome> {
    const user = ctx.user;
    if (linkUser(ctx)) return { kind: 'success' };
    if (ctx.data.notes[RESET_NOTES.EMAIL_SENT] || !user) return { kind: 'challenge', page: emailSent };
    const ev = new TokenEvent(ctx.db, ctx.realm, 'SEND_RESET_PASSWORD', ctx.ipAddress);
    ev.clientId = ctx.client.clientId;
    ev.userId = user.id;
    ev.detail('username', user.username).detail('email', user.email);
    if (!user.email) {
      await ev.error('invalid_email');
      return { kind: 'challenge', page: emailSent };
    }
    const lifespan = userTokenLifespan(ctx.realm.settings, 'reset-credentials');
    const base = { db: ctx.db, baseUrl: ctx.baseUrl ?? '' };
    const { token } = await createActionToken(base, ctx.realm, {
      typ: 'reset-credentials',
      userId: user.id,
      email: user.email,
      clientId: ctx.client.clientId,
      lifespan,
      authSessionId: ctx.authSession.id,
    });
    const link = actionTokenLink(base, ctx.realm, token, ctx.client.clientId, ctx.authSession.id);
    const realmName = (typeof ctx.realm.settings.displayName === 'string' && ctx.realm.settings.displayName) || ctx.realm.name;
    try {
      await sendMail(smtpSettingsOf(ctx.realm), {
        to: user.email,
        subject: 'Reset password',
        text:
          `Someone just requested to change your ${realmName} account's credentials. If this was you, click on the link below to reset them.\n\n` +
          `${link}\n\nThis link and code will expire within ${formatLifespan(lifespan)}.\n\n` +
          "If you don't want to reset your credentials, just ignore this message and nothing will be changed.\n",
      });
    } catch (e) {
      log.error(`Failed to send password reset email: ${(e as Error).message}`);
      await ev.error('email_send_failed');
      return {
        kind: 'failure',
        error: 'email_send_failed',
        page: { page: 'error', status: 500, message: { key: 'emailSendErrorMessage' } },
      };
    }
    ctx.data.notes[RESET_NOTES.EMAIL_SENT] = 'true';
    ctx.data.notes[RESET_NOTES.EMAIL_EXECUTION] = exec.id;
    await ev.success();
    return { kind: 'challenge', page: emailSent };
  },
};

/** reset-password: the new password is asked by the UPDATE_PASSWORD required action of this login. */
const resetPassword: Authenticator = {
  requiresUser: true,
  async authenticate(ctx) {
    addLoginAction(ctx, 'UPDATE_PASSWORD');
    return { kind: 'success' };
  },
};

/** reset-otp's choice of what to remove (Keycloak's ResetOTP `action_on_otp_reset_flag`; absent: Remove none). */
async function otpResetOption(ctx: LoginContext, exec: AuthExecutionModel): Promise<string> {
  return String((await authenticatorConfig(ctx, exec))?.action_on_otp_reset_flag ?? 'Remove none');
}

const otpDevices = (ctx: LoginContext) =>
  ctx.db.models.Credential.findAll({ where: { userId: (ctx.user as UserModel).id, type: 'otp' }, order: [['priority', 'ASC']] });

const otpResetPage = async (ctx: LoginContext, exec: AuthExecutionModel, missing = false): Promise<Page> => ({
  page: 'otp-reset',
  executionId: exec.id,
  credentials: (await otpDevices(ctx)).map((c) => ({ id: c.id, label: c.userLabel || 'otp' })),
  ...(missing ? { message: { key: 'resetOtpMissingIdError' }, status: 400 } : {}),
});

/**
 * reset-otp (Keycloak's ResetOTP): "Remove all" removes the user's OTP devices, "Remove one" asks
 * which one (field `selectedCredentialId`), "Remove none" (the default) keeps them; a new device is
 * set up in any case (CONFIGURE_TOTP).
 */
const resetOtp: Authenticator = {
  requiresUser: true,
  async configuredFor(ctx, user) {
    return (await ctx.db.models.Credential.count({ where: { userId: user.id, type: 'otp' } })) > 0;
  },
  async authenticate(ctx, exec) {
    const option = await otpResetOption(ctx, exec);
    if (option === 'Remove all') await ctx.db.models.Credential.destroy({ where: { userId: (ctx.user as UserModel).id, type: 'otp' } });
    else if (option === 'Remove one' && (await otpDevices(ctx)).length) return { kind: 'challenge', page: await otpResetPage(ctx, exec) };
    addLoginAction(ctx, 'CONFIGURE_TOTP');
    return { kind: 'success' };
  },
  async action(ctx, exec) {
    const id = typeof ctx.form?.selectedCredentialId === 'string' ? ctx.form.selectedCredentialId : '';
    const removed = id ? await ctx.db.models.Credential.destroy({ where: { id, userId: (ctx.user as UserModel).id, type: 'otp' } }) : 0;
    if (!removed) return { kind: 'challenge', page: await otpResetPage(ctx, exec, true) };
    addLoginAction(ctx, 'CONFIGURE_TOTP');
    return { kind: 'success' };
  },
};

/** The reset-credentials flow's registry (its conditions are the browser flow's). */
export const RESET_REGISTRY: Registry = {
  authenticators: {
    'reset-credentials-choose-user': chooseUser,
    'reset-credential-email': sendEmail,
    'reset-password': resetPassword,
    'reset-otp': resetOtp,
  },
  conditions: BROWSER_REGISTRY.conditions,
};
