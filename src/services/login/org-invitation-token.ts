import type { JWTPayload } from 'jose';
import { UniqueConstraintError } from 'sequelize';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import type { TokenEvent } from '../tokens/token-events';
import { createAuthSession, dataOf, findAuthSession, removeAuthSession, saveAuthSession, userActionLifespan } from './auth-sessions';
import { type BrowserRequest, type BrowserResponse, type CookieOp, realmPage, signRoot } from './login';

/**
 * The link of an organization invitation mail, for a user of the realm (Keycloak 26's
 * InviteOrgActionTokenHandler): action-tokens.ts has checked the token (signed by the realm, not
 * expired, its user enabled and the addressee, the `account` client). Then, in Keycloak's order:
 * an unknown organization and a user already member are info pages; an invitation that is no longer
 * stored (deleted, resent, accepted) makes the link stale; the first visit shows the confirmation
 * page whose link (the same token, with this browser's tab) makes the user an UNMANAGED member,
 * deletes the invitation and redirects to the token's redirect URI (the organization's redirect URL,
 * else the account console).
 */
const INVITATION_NOTE = 'ORG_INVITATION_ID';

export async function organizationInvitationLink(
  db: Db,
  realm: RealmModel,
  req: BrowserRequest,
  claims: JWTPayload,
  user: UserModel,
  client: ClientModel,
  ev: TokenEvent,
  root: string | undefined,
): Promise<BrowserResponse> {
  const m = db.models;
  const orgId = String(claims.org_id ?? '');
  const jti = String(claims.jti);
  ev.detail('org_id', orgId);
  const org = orgId ? await m.Organization.findOne({ where: { id: orgId, realmId: realm.id } }) : null;
  const info = (title: string, message: string, params: string[], backUrl?: string) =>
    realmPage(db, realm, req, { page: 'info', status: 200, title: { key: title, params }, message: { key: message, params }, backUrl });
  if (!org) {
    await ev.error('org_not_found');
    return info('errorTitle', 'orgNotFoundMessage', [orgId]);
  }
  if (await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } })) {
    await ev.error('user_org_member_already');
    return info('staleInviteOrgLink', 'orgMemberAlready', [user.username, org.name], org.redirectUrl || undefined);
  }
  const invitation = await m.OrganizationInvitation.findOne({ where: { id: jti, organizationId: org.id } });
  if (!invitation || invitation.email !== user.email) {
    await ev.error('invalid_token');
    return realmPage(db, realm, req, { page: 'error', status: 400, message: { key: 'staleInviteOrgLink' } });
  }

  const confirmed = root && req.params.tab_id ? await findAuthSession(db, realm, root, req.params.tab_id) : null;
  if (!confirmed || dataOf(confirmed).notes[INVITATION_NOTE] !== jti || confirmed.userId !== user.id) {
    // The first visit: a login of its own for the link, and the page that asks to confirm.
    const request = { client_id: client.clientId, redirect_uri: '', redirect_uri_param: '', response_type: 'code', response_mode: 'query' };
    const authSession = await createAuthSession(db, realm, root, client.id, request);
    const data = dataOf(authSession);
    data.notes[INVITATION_NOTE] = jti;
    authSession.userId = user.id;
    await saveAuthSession(db, authSession, userActionLifespan(realm), data);
    const params = new URLSearchParams({ key: String(req.params.key), client_id: client.clientId, tab_id: authSession.id });
    const actionUrl = `${issuerOf(req.baseUrl, realm.name)}/login-actions/action-token?${params}`;
    const out = await realmPage(db, realm, req, {
      page: 'info',
      status: 200,
      title: { key: 'confirmOrganizationMembershipTitle', params: [org.name] },
      message: { key: 'confirmOrganizationMembership', params: [org.name] },
      actionUrl,
    });
    const cookies: CookieOp[] = root
      ? []
      : [{ name: 'AUTH_SESSION_ID', value: await signRoot(db, realm, authSession.rootId), maxAge: -1, httpOnly: true }];
    return { ...out, cookies: [...cookies, ...out.cookies] };
  }

  // Confirmed in the browser that was asked: the user joins, the invitation is done.
  try {
    await db.transaction(async () => {
      if (!(await m.OrganizationMember.findOne({ where: { organizationId: org.id, userId: user.id } }))) {
        await m.OrganizationMember.create({ organizationId: org.id, userId: user.id, membershipType: 'UNMANAGED' });
      }
      await m.OrganizationInvitation.destroy({ where: { id: invitation.id } });
    });
  } catch (e) {
    // The same confirmation twice at once: the other request made the user a member.
    if (!(e instanceof UniqueConstraintError)) throw e;
  }
  await removeAuthSession(db, confirmed.id);
  ev.detail('username', user.username);
  await ev.success();
  const redirectUri = typeof claims.reduri === 'string' && claims.reduri ? claims.reduri : `${issuerOf(req.baseUrl, realm.name)}/account/`;
  return { kind: 'redirect', location: redirectUri, realm, cookies: [] };
}
