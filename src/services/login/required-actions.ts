import QRCode from 'qrcode';
import { hashPassword } from '../../auth/passwords';
import { clock, nowSeconds } from '../../core/clock';
import { orderedUuid } from '../users/users-input';
import { storeCredentialRows } from '../users/password-history';
import { checkPasswordPolicy, hashSettings, passwordExpired } from '../users/password-policy';
import { TokenEvent } from '../tokens/token-events';
import type { Message } from './authorize';
import type { LoginContext } from './flow-engine';
import { checkOtp, encodedSecret, newOtpSecret, type OtpData, otpPolicy, otpUri } from './otp';
import { ACTION_NOTES } from './action-token-store';
import { verifyEmailAction } from './verify-email';
import { updateProfileAction, verifyProfileAction } from './update-profile';
import { deleteCredentialAction } from './delete-credential';
import { realmRequiredActions } from './flow-definitions';
import { pendingKcAction, setKcActionStatus } from './kc-action';
import { getLogger } from '../../logging';
import {
  DirectoryReadOnly,
  DirectoryWriteFailed,
  type PasswordTarget,
  passwordTarget,
  writeTargetPassword,
} from '../user-storage/edit-modes';

const log = getLogger('idserver.services.login');

/**
 * Required actions run after the flow authenticated the user and before the code is issued
 * (Keycloak's AuthenticationManager.nextRequiredAction / executionActions): the user's pending
 * actions that the realm has enabled, in the realm's order (priority, then name); an action the realm
 * lacks, disables, or this server does not implement is skipped. Each is a page (GET shows it, POST
 * processes it) in the same authentication session. A success removes the action from the user; a
 * failure (terms declined) ends the login with `access_denied` to the client.
 */

export type { ActionOutcome, ActionPage, RequiredActionImpl } from './action-types';

import type { ActionOutcome, ActionPage, RequiredActionImpl } from './action-types';

const field = (form: Record<string, string>, name: string) => (typeof form[name] === 'string' ? form[name] : '');

const userEvent = (
  ctx: LoginContext,
  type: 'UPDATE_PASSWORD' | 'UPDATE_CREDENTIAL' | 'UPDATE_TOTP' | 'RESET_PASSWORD',
  credentialType: string,
) => {
  const ev = new TokenEvent(ctx.db, ctx.realm, type, ctx.ipAddress);
  ev.clientId = ctx.client.clientId;
  ev.userId = ctx.user?.id ?? null;
  ev.detail('username', ctx.user?.username).detail('credential_type', credentialType);
  return ev;
};

/** UPDATE_PASSWORD: password-new and password-confirm, the realm's policy (history included), the realm's hash. */
const updatePassword: RequiredActionImpl = {
  async challenge(ctx, alias) {
    return { page: 'update-password', executionId: alias, username: ctx.user?.username ?? '' };
  },
  async process(ctx, alias, form) {
    const user = ctx.user as NonNullable<LoginContext['user']>;
    const again = (message: Message, status = 400): ActionOutcome => ({
      kind: 'challenge',
      page: { page: 'update-password', executionId: alias, username: user.username, message, status },
    });
    const fail = userEvent(ctx, 'UPDATE_PASSWORD', 'password');
    const password = field(form, 'password-new');
    if (!password) {
      await fail.error('password_missing');
      return again({ key: 'missingPasswordMessage' });
    }
    if (password !== field(form, 'password-confirm')) {
      await fail.error('password_confirm_error');
      return again({ key: 'notMatchPasswordMessage' });
    }
    // The user's storage first (Keycloak's credential manager): a READ_ONLY directory refuses, a WRITABLE one
    // takes the password (the realm's policy only with validatePasswordPolicy), else it is stored here.
    const rejected = async (reason: string, params?: string[]): Promise<ActionOutcome> => {
      fail.detail('reason', reason);
      await fail.error('password_rejected');
      return again(params?.length ? { key: reason, params } : { key: reason });
    };
    let target: PasswordTarget;
    try {
      target = await passwordTarget(ctx.db, ctx.realm, user);
    } catch (e) {
      if (e instanceof DirectoryReadOnly) return rejected(e.message);
      throw e;
    }
    if (target.kind === 'local' || target.checkPolicy) {
      const violation = await checkPasswordPolicy(
        ctx.db,
        ctx.realm,
        { userId: user.id, username: user.username, email: user.email },
        password,
      );
      if (violation) {
        fail.detail('reason', String(violation.body.error_description ?? ''));
        await fail.error('password_rejected');
        return again({ key: String(violation.body.error), params: [violation.policyParam] });
      }
    }
    if (target.kind === 'directory') {
      try {
        await writeTargetPassword(log, target, user, password, true);
      } catch (e) {
        if (e instanceof DirectoryWriteFailed) return rejected(e.key, e.params);
        throw e;
      }
    } else {
      const { algorithm, iterations } = hashSettings(ctx.realm);
      const secret = await hashPassword(password, algorithm, iterations);
      await ctx.db.transaction(async () => {
        const row = { id: orderedUuid(), type: 'password', userLabel: null, priority: 10, createdDate: clock.now(), ...secret };
        await storeCredentialRows(ctx.db, ctx.realm, user.id, [row]);
      });
    }
    // Keycloak 26 records both: the deprecated UPDATE_PASSWORD and UPDATE_CREDENTIAL (credential_type=password).
    await userEvent(ctx, 'UPDATE_PASSWORD', 'password').success();
    await userEvent(ctx, 'UPDATE_CREDENTIAL', 'password').success();
    // A "forgot password" login (or its e-mail link) records the reset too.
    if (ctx.data.notes.FLOW_PATH === 'reset-credentials') await userEvent(ctx, 'RESET_PASSWORD', 'password').success();
    return { kind: 'success' };
  },
};

/** A new credential's OTP data under the realm's policy (the counter starts at the policy's initial counter). */
const newOtpData = (policy: ReturnType<typeof otpPolicy>): OtpData => ({
  subType: policy.type,
  digits: policy.digits,
  counter: policy.initialCounter,
  period: policy.period,
  algorithm: policy.algorithm,
});

/** TERMS_AND_CONDITIONS: `accept` records the time in the user's terms_and_conditions attribute; `cancel` ends the login. */
const terms: RequiredActionImpl = {
  async challenge(_ctx, alias) {
    return { page: 'terms', executionId: alias };
  },
  async process(ctx, alias, form) {
    const user = ctx.user as NonNullable<LoginContext['user']>;
    const { UserAttribute } = ctx.db.models;
    await UserAttribute.destroy({ where: { userId: user.id, name: 'terms_and_conditions' } });
    if ('cancel' in form) return { kind: 'failure', error: 'rejected_by_user' };
    if (!('accept' in form)) return { kind: 'challenge', page: { page: 'terms', executionId: alias } };
    await UserAttribute.create({ id: orderedUuid(), userId: user.id, name: 'terms_and_conditions', value: String(nowSeconds()) });
    return { kind: 'success' };
  },
};

const SETUP_SECRET = 'TOTP_SECRET';

async function totpPage(ctx: LoginContext, alias: string, message?: Message): Promise<ActionPage> {
  const policy = otpPolicy(ctx.realm);
  let value = ctx.data.notes[SETUP_SECRET];
  if (!value) {
    value = newOtpSecret();
    ctx.data.notes[SETUP_SECRET] = value;
  }
  const data = newOtpData(policy);
  const realmName =
    typeof ctx.realm.settings.displayName === 'string' && ctx.realm.settings.displayName ? ctx.realm.settings.displayName : ctx.realm.name;
  const uri = otpUri(value, data, realmName, ctx.user?.username ?? '');
  return {
    page: 'totp-setup',
    executionId: alias,
    secret: encodedSecret(value),
    uri,
    // Keycloak's TotpBean: a PNG of the otpauth URI, inline (a data: URL, so the page needs nothing from elsewhere).
    qr: await QRCode.toDataURL(uri, { width: 246, margin: 1, errorCorrectionLevel: 'M' }),
    digits: policy.digits,
    period: policy.period,
    algorithm: policy.algorithm,
    type: policy.type,
    ...(message ? { message, status: 400 } : {}),
  };
}

/**
 * CONFIGURE_TOTP: a secret kept in the authentication session (never in the form), shown base32 and
 * as an otpauth:// URI; a code from the application proves the set-up and stores an `otp` credential.
 */
const configureTotp: RequiredActionImpl = {
  async challenge(ctx, alias) {
    return await totpPage(ctx, alias);
  },
  async process(ctx, alias, form) {
    const user = ctx.user as NonNullable<LoginContext['user']>;
    const value = ctx.data.notes[SETUP_SECRET];
    const code = field(form, 'totp').trim();
    const fail = userEvent(ctx, 'UPDATE_TOTP', 'otp');
    if (!value) return { kind: 'challenge', page: await totpPage(ctx, alias) };
    if (!code) {
      await fail.error('invalid_totp');
      return { kind: 'challenge', page: await totpPage(ctx, alias, { key: 'missingTotpMessage' }) };
    }
    const policy = otpPolicy(ctx.realm);
    const data = newOtpData(policy);
    const next = checkOtp(value, data, code, policy.lookAheadWindow);
    if (next === null) {
      await fail.error('invalid_totp');
      return { kind: 'challenge', page: await totpPage(ctx, alias, { key: 'invalidTotpMessage' }) };
    }
    const label = field(form, 'userLabel').trim().slice(0, 255) || null;
    await ctx.db.models.Credential.create({
      id: orderedUuid(),
      userId: user.id,
      type: 'otp',
      userLabel: label,
      priority: 20,
      createdDate: clock.now(),
      secretData: JSON.stringify({ value }),
      credentialData: JSON.stringify({ ...data, counter: next }),
    });
    delete ctx.data.notes[SETUP_SECRET];
    await userEvent(ctx, 'UPDATE_TOTP', 'otp').success();
    await userEvent(ctx, 'UPDATE_CREDENTIAL', 'otp').success();
    return { kind: 'success' };
  },
};

const IMPLEMENTED: Record<string, RequiredActionImpl> = {
  UPDATE_PASSWORD: updatePassword,
  TERMS_AND_CONDITIONS: terms,
  CONFIGURE_TOTP: configureTotp,
  VERIFY_EMAIL: verifyEmailAction,
  UPDATE_PROFILE: updateProfileAction,
  VERIFY_PROFILE: verifyProfileAction,
  delete_credential: deleteCredentialAction,
};

/**
 * The realm's triggers (Keycloak's evaluateTriggers): an expired password (passwordExpiration policy)
 * adds UPDATE_PASSWORD when that action is enabled.
 */
async function evaluateTriggers(ctx: LoginContext, enabled: Set<string>): Promise<void> {
  const user = ctx.user as NonNullable<LoginContext['user']>;
  // The realm's "Verify email" switch asks every user with an unverified address (VerifyEmail.evaluateTriggers).
  const verify = ctx.realm.settings.verifyEmail;
  if (enabled.has('VERIFY_EMAIL') && (verify === true || verify === 'true') && !user.emailVerified) {
    await ctx.db.models.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'VERIFY_EMAIL' }], { ignoreDuplicates: true });
  }
  if (!enabled.has('UPDATE_PASSWORD')) return;
  const password = await ctx.db.models.Credential.findOne({ where: { userId: user.id, type: 'password' }, attributes: ['createdDate'] });
  if (password && passwordExpired(ctx.realm, Number(password.createdDate), clock.now())) {
    await ctx.db.models.UserRequiredAction.bulkCreate([{ userId: user.id, requiredAction: 'UPDATE_PASSWORD' }], { ignoreDuplicates: true });
  }
}

/** The next required action the user must complete (its alias and implementation, when this server has one), or undefined. */
export async function nextRequiredAction(
  ctx: LoginContext,
): Promise<{ alias: string; impl?: RequiredActionImpl; kcAction?: boolean } | undefined> {
  const { db, realm } = ctx;
  const user = ctx.user as NonNullable<LoginContext['user']>;
  // The realm's actions in order, kept per node under the realm's cache version (flow-definitions.ts).
  const defs = (await realmRequiredActions(db, realm)).filter((d) => d.enabled);
  await evaluateTriggers(ctx, new Set(defs.map((d) => d.providerId)));
  const stored = new Set((await db.models.UserRequiredAction.findAll({ where: { userId: user.id } })).map((r) => r.requiredAction));
  const pending = new Set(stored);
  // An e-mail link's login also runs the actions its token carries.
  for (const a of tokenActions(ctx)) pending.add(a);
  // VERIFY_PROFILE asks whenever the stored profile fails the realm's user profile (its skip() checks).
  pending.add('VERIFY_PROFILE');
  for (const d of defs) {
    if (!pending.has(d.alias)) continue;
    const impl = IMPLEMENTED[d.providerId];
    const skip = impl?.skip ? await impl.skip(ctx) : undefined;
    if (skip === 'ignore') continue;
    if (skip === 'done') {
      if (stored.has(d.alias) || tokenActions(ctx).includes(d.alias)) await completeRequiredAction(ctx, d.alias);
      continue;
    }
    // An enabled action this server cannot run yet (UPDATE_PROFILE ...) stops the login: skipping it would bypass it.
    return { alias: d.alias, impl };
  }
  // Then the action the application asked for (kc_action): enabled and implemented, else kc_action_status=error.
  const kc = pendingKcAction(ctx);
  if (!kc) return undefined;
  const def = defs.find((d) => d.alias === kc.alias);
  const impl = def ? IMPLEMENTED[def.providerId] : undefined;
  const skip = impl?.skip ? await impl.skip(ctx) : undefined;
  if (!def || !impl || skip) {
    setKcActionStatus(ctx, kc.alias, skip === 'done' ? 'success' : 'error');
    return undefined;
  }
  return { alias: def.alias, impl, kcAction: true };
}

function tokenActions(ctx: LoginContext): string[] {
  const raw = ctx.data.notes[ACTION_NOTES.TOKEN_ACTIONS];
  if (!raw) return [];
  const list = JSON.parse(raw) as unknown;
  return Array.isArray(list) ? list.map(String) : [];
}

/** Removes a completed action from the user (and from the e-mail link's list). */
export async function completeRequiredAction(ctx: LoginContext, alias: string): Promise<void> {
  const carried = tokenActions(ctx);
  if (carried.includes(alias)) ctx.data.notes[ACTION_NOTES.TOKEN_ACTIONS] = JSON.stringify(carried.filter((a) => a !== alias));
  setKcActionStatus(ctx, alias, 'success');
  await ctx.db.models.UserRequiredAction.destroy({
    where: { userId: (ctx.user as NonNullable<LoginContext['user']>).id, requiredAction: alias },
  });
}
