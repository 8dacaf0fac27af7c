import type { JWTPayload } from 'jose';
import type { Db } from '../../../db';
import type { AuthSessionModel } from '../../../db/models/login';
import type { RealmModel } from '../../../db/models/realm';
import type { UserModel } from '../../../db/models/user';
import { getLogger } from '../../../logging';
import { actionTokenLink, createActionToken } from '../../events/action-tokens';
import { formatLifespan, sendMail, smtpSettingsOf } from '../../events/email';
import type { TokenEvent } from '../../tokens/token-events';
import { TokenEvent as Event } from '../../tokens/token-events';
import { dataOf, saveAuthSession, userActionLifespan } from '../auth-sessions';
import type { Authenticator, Page } from '../flow-engine';
import { userTokenLifespan } from '../verify-email';
import { BROKER_NOTES, FIRST_BROKER_LOGIN_PATH, identityOf } from './brokered-identity';

/**
 * idp-email-verification (Keycloak's IdpEmailVerificationAuthenticator): the existing account's owner
 * confirms the link by following a mailed link (an `idp-verify-account-via-email` action token bound
 * to this login). Followed in the browser of the login, the login goes on with the account linked
 * (event IDENTITY_PROVIDER_LINK_ACCOUNT). Without SMTP or an e-mail address it is not applicable (the
 * re-authentication alternative follows).
 */
const log = getLogger('idserver.services.login.broker');
export const IDP_LINK_TYP = 'idp-verify-account-via-email';
const VERIFIED = 'VERIFY_ACCOUNT_IDP_USERNAME';
const SENT = 'IDP_LINK_EMAIL_SENT';

const sentPage = (alias: string, username: string, realm: string): Page => ({
  page: 'info',
  status: 200,
  title: { key: 'emailLinkIdpTitle', params: [alias] },
  message: { key: 'emailLinkIdp1', params: [alias, username, realm] },
});

export const idpEmailVerification: Authenticator = {
  async authenticate(ctx) {
    const id = identityOf(ctx.data.notes);
    const existingId = ctx.data.notes[BROKER_NOTES.EXISTING_USER] ? JSON.parse(ctx.data.notes[BROKER_NOTES.EXISTING_USER]).id : undefined;
    const user = existingId ? await ctx.db.models.User.findByPk(existingId) : null;
    if (!id || !user) return { kind: 'failure', error: 'identity_provider_error' };
    if (ctx.data.notes[VERIFIED] === id.username) {
      ctx.user = user;
      return { kind: 'success' };
    }
    const smtp = smtpSettingsOf(ctx.realm);
    if (!smtp.host || !user.email) return { kind: 'attempted' };
    const realmName = (typeof ctx.realm.settings.displayName === 'string' && ctx.realm.settings.displayName) || ctx.realm.name;
    const page = sentPage(id.alias, id.username, realmName);
    if (ctx.data.notes[SENT]) return { kind: 'challenge', page };
    const ev = new Event(ctx.db, ctx.realm, 'SEND_IDENTITY_PROVIDER_LINK', ctx.ipAddress);
    ev.clientId = ctx.client.clientId;
    ev.userId = user.id;
    ev.detail('username', user.username)
      .detail('email', user.email)
      .detail('identity_provider', id.alias)
      .detail('identity_provider_identity', id.username);
    const lifespan = userTokenLifespan(ctx.realm.settings, IDP_LINK_TYP);
    const base = { db: ctx.db, baseUrl: ctx.baseUrl ?? '' };
    const { token } = await createActionToken(base, ctx.realm, {
      typ: IDP_LINK_TYP,
      userId: user.id,
      email: user.email,
      clientId: ctx.client.clientId,
      lifespan,
      authSessionId: ctx.authSession.id,
      idpAlias: id.alias,
      idpUsername: id.username,
    });
    const link = actionTokenLink(base, ctx.realm, token, ctx.client.clientId, ctx.authSession.id);
    try {
      await sendMail(smtp, {
        to: user.email,
        subject: `Link ${id.alias}`,
        text:
          `Someone wants to link your "${id.alias}" account "${id.username}" with your "${realmName}" account of user ${user.username}. ` +
          `If this was you, click the link below to link the accounts.\n\n${link}\n\nThis link will expire within ${formatLifespan(lifespan)}.\n\n` +
          "If you don't want to link the accounts, just ignore this message.\n",
      });
    } catch (e) {
      log.error(`Failed to send the account link email: ${(e as Error).message}`);
      await ev.error('email_send_failed');
      return {
        kind: 'failure',
        error: 'email_send_failed',
        page: { page: 'error', status: 500, message: { key: 'emailSendErrorMessage' } },
      };
    }
    ctx.data.notes[SENT] = 'true';
    await ev.success();
    return { kind: 'challenge', page };
  },
};

/**
 * The link of that mail (checked by the action-token endpoint), followed in the login's browser: the
 * first broker login of that login goes on with the account confirmed; undefined when the link does
 * not belong to a first broker login of this browser for this user.
 */
export async function confirmAccountLink(
  db: Db,
  realm: RealmModel,
  origin: AuthSessionModel | null,
  user: UserModel,
  claims: JWTPayload,
  ev: TokenEvent,
): Promise<AuthSessionModel | undefined> {
  if (!origin) return undefined;
  const data = dataOf(origin);
  const id = identityOf(data.notes);
  const existing = data.notes[BROKER_NOTES.EXISTING_USER] ? JSON.parse(data.notes[BROKER_NOTES.EXISTING_USER]).id : undefined;
  if (
    !id ||
    data.notes.FLOW_PATH !== FIRST_BROKER_LOGIN_PATH ||
    existing !== user.id ||
    claims.idpalias !== id.alias ||
    claims.idpu !== id.username
  ) {
    return undefined;
  }
  data.notes[VERIFIED] = id.username;
  await saveAuthSession(db, origin, userActionLifespan(realm), data);
  await ev.detail('identity_provider', id.alias).detail('identity_provider_identity', id.username).success();
  return origin;
}
