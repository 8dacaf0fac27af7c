import { requireManageUser } from '../../auth/fgap';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import { badRequest, cannotParse, errorA } from '../../core/errors';
import { getLogger } from '../../logging';
import { actionTokenLink, createActionToken } from './action-tokens';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { formatLifespan, sendMail, smtpSettingsOf } from './email';

/**
 * E-mails sent by an admin to a user (reference §4.14): execute-actions-email and
 * send-verify-email. Each carries a link with a signed action token; the checks run in
 * Keycloak's order with its 400 messages, and a failed send is Keycloak's 500.
 */
const log = getLogger('idserver.services.user-emails');

export interface EmailParams {
  clientId?: string;
  redirectUri?: string;
  /** Seconds; default the realm's `actionTokenGeneratedByAdminLifespan` (43200). */
  lifespan?: number;
}

/**
 * True when `uri` is allowed by one of the client's redirect URIs (`*` suffix wildcards); relative
 * ones are resolved against the client's rootUrl (`${authBaseUrl}` = the server), else the server.
 */
export function isValidRedirectUri(client: ClientModel, uri: string, baseUrl: string): boolean {
  const s = client.settings;
  const root = typeof s.rootUrl === 'string' && s.rootUrl ? s.rootUrl : baseUrl;
  const rootUrl = root.replace(/\$\{authBaseUrl\}|\$\{authAdminUrl\}/g, baseUrl).replace(/\/+$/, '');
  const patterns = Array.isArray(s.redirectUris) ? s.redirectUris.map(String) : [];
  const strip = (u: string) => u.replace(/\/+$/, '');
  return patterns.some((p) => {
    const full = p.startsWith('/') ? `${rootUrl}${p}` : p;
    if (full === '*') return true;
    if (full.endsWith('*')) return uri.startsWith(full.slice(0, -1));
    return strip(full) === strip(uri);
  });
}

/** Steps 2–7 of §4.14: the user's e-mail and state, the client, the redirect URI, the lifespan. */
async function verifyParams(ctx: RequestContext, realm: RealmModel, user: UserModel, p: EmailParams) {
  if (!user.email) throw badRequest('User email missing');
  if (!user.enabled) throw badRequest('User is disabled');
  if (p.redirectUri && !p.clientId) throw badRequest('Client id missing');
  const clientId = p.clientId || 'account';
  const client = await ctx.db.models.Client.findOne({ where: { realmId: realm.id, clientId } });
  if (!client) throw badRequest("Client doesn't exist");
  if (!client.enabled) throw badRequest('Client is not enabled');
  if (p.redirectUri && !isValidRedirectUri(client, p.redirectUri, ctx.baseUrl)) throw badRequest('Invalid redirect uri.');
  const lifespan = p.lifespan ?? Number(realm.settings.actionTokenGeneratedByAdminLifespan ?? 43200);
  return { email: user.email, clientId, lifespan };
}

const actionEvent = (ctx: RequestContext, realm: RealmModel, user: UserModel, sub: string) =>
  ctx.db.transaction(() =>
    recordAdminEvent(ctx, realm, { operationType: 'ACTION', resourceType: 'USER', resourcePath: `users/${user.id}/${sub}` }),
  );

/**
 * PUT /admin/realms/{realm}/users/{id}/execute-actions-email (manage of the user): mails a link to perform
 * the required actions. The user is resolved by the front (its 404/403 comes first); `readActions`
 * yields the body (parsed after the permission check, as Keycloak).
 */
export async function executeActionsEmail(
  ctx: RequestContext,
  realm: RealmModel,
  user: UserModel,
  readActions: unknown | (() => unknown),
  params: EmailParams = {},
  eventPath = 'execute-actions-email',
): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const body = typeof readActions === 'function' ? (readActions as () => unknown)() : readActions;
  if (body !== undefined && body !== null && (!Array.isArray(body) || body.some((a) => typeof a !== 'string')))
    throw cannotParse('mapping');
  const actions = [...new Set((body ?? []) as string[])];
  const { email, clientId, lifespan } = await verifyParams(ctx, realm, user, params);
  const rows = await ctx.db.models.RequiredAction.findAll({ where: { realmId: realm.id, enabled: true }, attributes: ['alias', 'name'] });
  const names = new Map(rows.map((r) => [r.alias, r.name]));
  if (actions.some((a) => !names.has(a))) throw badRequest('Provided invalid required actions');
  const { token } = await createActionToken(ctx, realm, {
    typ: 'execute-actions',
    userId: user.id,
    email,
    clientId,
    lifespan,
    actions,
    redirectUri: params.redirectUri,
  });
  const link = actionTokenLink(ctx, realm, token, clientId);
  const list = actions.map((a) => names.get(a) ?? a).join(', ');
  try {
    await sendMail(smtpSettingsOf(realm), {
      to: email,
      subject: 'Update Your Account',
      text:
        `Your administrator has just requested that you update your ${realmTitle(realm)} account by performing the following action(s): ${list}. ` +
        `Click on the link below to start this process.\n\n${link}\n\nThis link will expire within ${formatLifespan(lifespan)}.\n\n` +
        'If you are unaware that your administrator has requested this, just ignore this message and nothing will be changed.\n',
    });
  } catch (e) {
    log.error(`Failed to send execute actions email: ${(e as Error).message}`);
    throw errorA(500, `Failed to send execute actions email: ${(e as Error).message}`);
  }
  await actionEvent(ctx, realm, user, eventPath);
}

/**
 * PUT /admin/realms/{realm}/users/{id}/reset-password-email (deprecated in Keycloak): execute-actions-email
 * with UPDATE_PASSWORD; a `lifespan` parameter is not read (the realm's admin lifespan applies).
 */
export async function resetPasswordEmail(ctx: RequestContext, realm: RealmModel, user: UserModel, params: EmailParams = {}): Promise<void> {
  await executeActionsEmail(
    ctx,
    realm,
    user,
    ['UPDATE_PASSWORD'],
    { clientId: params.clientId, redirectUri: params.redirectUri },
    'reset-password-email',
  );
}

/** PUT /admin/realms/{realm}/users/{id}/send-verify-email (manage of the user): mails an e-mail verification link. */
export async function sendVerifyEmail(ctx: RequestContext, realm: RealmModel, user: UserModel, params: EmailParams = {}): Promise<void> {
  await requireManageUser(ctx, realm, user.id);
  const { email, clientId, lifespan } = await verifyParams(ctx, realm, user, params);
  const { token } = await createActionToken(ctx, realm, {
    typ: 'verify-email',
    userId: user.id,
    email,
    clientId,
    lifespan,
    redirectUri: params.redirectUri,
  });
  const link = actionTokenLink(ctx, realm, token, clientId);
  try {
    await sendMail(smtpSettingsOf(realm), {
      to: email,
      subject: 'Verify email',
      text: verifyEmailText(realm, link, lifespan),
    });
  } catch (e) {
    log.error(`Failed to send verify email: ${(e as Error).message}`);
    throw errorA(500, 'Failed to send verify email');
  }
  await actionEvent(ctx, realm, user, 'send-verify-email');
}

/** The body of the e-mail verification mail (the admin's send-verify-email and the VERIFY_EMAIL required action). */
export const verifyEmailText = (realm: RealmModel, link: string, lifespan: number) =>
  `Someone has created a ${realmTitle(realm)} account with this email address. If this was you, click the link below to verify your email address\n\n` +
  `${link}\n\nThis link will expire within ${formatLifespan(lifespan)}.\n\nIf you didn't create this account, just ignore this message.\n`;

const realmTitle = (realm: RealmModel) => (typeof realm.settings.displayName === 'string' && realm.settings.displayName) || realm.name;
