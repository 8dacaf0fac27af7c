import type { Db } from '../../db';
import type { UserModel } from '../../db/models/user';
import { getLogger } from '../../logging';
import { actionTokenLink, createActionToken } from '../events/action-tokens';
import { sendMail, smtpSettingsOf } from '../events/email';
import { verifyEmailText } from '../events/user-emails';
import { TokenEvent } from '../tokens/token-events';
import type { LoginContext } from './flow-engine';
import type { ActionOutcome, ActionPage, RequiredActionImpl } from './action-types';

/**
 * E-mail verification (Keycloak's VerifyEmail required action and verify-email action token): the
 * required action mails a link (a verify-email action token bound to this login) and shows where it
 * went, with a button to send it again; following the link marks the address verified and continues
 * the login in the browser it started in, or ends with "e-mail verified" anywhere else.
 */
const log = getLogger('idserver.services.login.verify-email');

/** Note of the login: the address a verification mail was sent to. */
const SENT_TO = 'VERIFY_EMAIL_SENT_TO';

/** How long links mailed during a login live: the realm's actionTokenGeneratedByUserLifespan (5 min by default). */
export function userTokenLifespan(settings: Record<string, unknown>, typ: string): number {
  const specific = Number(settings[`actionTokenGeneratedByUserLifespan.${typ}`]);
  if (Number.isFinite(specific) && specific > 0) return specific;
  const v = Number(settings.actionTokenGeneratedByUserLifespan ?? 300);
  return Number.isFinite(v) && v > 0 ? v : 300;
}

/** Marks the user's address verified and drops a pending VERIFY_EMAIL. */
export async function markEmailVerified(db: Db, user: UserModel): Promise<void> {
  await db.transaction(async () => {
    if (!user.emailVerified) {
      user.emailVerified = true;
      await user.save();
    }
    await db.models.UserRequiredAction.destroy({ where: { userId: user.id, requiredAction: 'VERIFY_EMAIL' } });
  });
}

/** Mails the verification link of this login; records SEND_VERIFY_EMAIL (or its error). */
async function sendLink(ctx: LoginContext): Promise<boolean> {
  const user = ctx.user as UserModel;
  const email = user.email as string;
  const lifespan = userTokenLifespan(ctx.realm.settings, 'verify-email');
  const ev = new TokenEvent(ctx.db, ctx.realm, 'SEND_VERIFY_EMAIL', ctx.ipAddress);
  ev.clientId = ctx.client.clientId;
  ev.userId = user.id;
  ev.detail('username', user.username).detail('email', email);
  const base = { db: ctx.db, baseUrl: ctx.baseUrl ?? '' };
  const { token } = await createActionToken(base, ctx.realm, {
    typ: 'verify-email',
    userId: user.id,
    email,
    clientId: ctx.client.clientId,
    lifespan,
    authSessionId: ctx.authSession.id,
  });
  const link = actionTokenLink(base, ctx.realm, token, ctx.client.clientId, ctx.authSession.id);
  try {
    await sendMail(smtpSettingsOf(ctx.realm), { to: email, subject: 'Verify email', text: verifyEmailText(ctx.realm, link, lifespan) });
  } catch (e) {
    log.error(`Failed to send verification email: ${(e as Error).message}`);
    await ev.error('email_send_failed');
    return false;
  }
  ctx.data.notes[SENT_TO] = email;
  await ev.success();
  return true;
}

const page = (ctx: LoginContext, alias: string, sent: boolean): ActionPage => ({
  page: 'verify-email',
  executionId: alias,
  email: ctx.user?.email ?? '',
  ...(sent ? {} : { status: 500, message: { key: 'emailSendErrorMessage' } }),
});

/** VERIFY_EMAIL: nothing to do for a verified address; passed over for a user without one. */
export const verifyEmailAction: RequiredActionImpl = {
  async skip(ctx) {
    if (!ctx.user?.email) return 'ignore';
    return ctx.user.emailVerified ? 'done' : undefined;
  },
  async challenge(ctx, alias) {
    // One mail per login and address; a reload of the page does not send another.
    const sent = ctx.data.notes[SENT_TO] === ctx.user?.email ? true : await sendLink(ctx);
    return page(ctx, alias, sent);
  },
  async process(ctx, alias, form): Promise<ActionOutcome> {
    const sent = 'resend' in form ? await sendLink(ctx) : true;
    return { kind: 'challenge', page: page(ctx, alias, sent) };
  },
};
