import { decodeJwt } from 'jose';
import { nowSeconds } from '../../core/clock';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { publicRealm } from '../tokens/oidc-metadata';
import { TokenEvent } from '../tokens/token-events';
import { signedBy } from './action-tokens';
import { dataOf, findAuthSession, loginLifespan, saveAuthSession } from './auth-sessions';
import type { Page } from './flow-engine';
import { authorize, type BrowserRequest, type BrowserResponse, FLOW_DONE, loginAction, realmPage, resumeLogin, rootOf } from './login';
import {
  INVITATION_NOTE,
  invitationOf,
  isRegistrationLogin,
  REGISTRATION_PATH,
  type RegistrationInvitation,
  registrationAllowed,
} from './registration';

/**
 * The ways into self-registration (Keycloak's AuthorizationEndpoint.register and
 * LoginActionsService.registerPage / processRegister):
 *  - `/protocol/openid-connect/registrations` takes the authorization endpoint's parameters and
 *    starts a login that runs the registration flow at once; with `token` (an organization
 *    invitation mailed to an address without a user, organization-invites.ts) the registration is
 *    allowed even when the realm's `registrationAllowed` is off (Keycloak's
 *    Organizations.isRegistrationAllowed), the e-mail is the invitation's, and the new user joins;
 *  - the login page's "Register" link, GET `/login-actions/registration?client_id&tab_id`, moves the
 *    tab's login to the registration flow; the form posts back to the same path.
 */

const refusedPage = (key: string): Page => ({ page: 'error', status: 400, message: { key } });

/** The invitation of an ORGIVT token for a new address, when the token and its stored invitation are still good. */
async function invitationFromToken(db: Db, realm: RealmModel, token: string, baseUrl: string): Promise<RegistrationInvitation | undefined> {
  if (token.length > 8192 || realm.settings.organizationsEnabled !== true) return undefined;
  try {
    const unverified = decodeJwt(token);
    if (unverified.typ !== 'ORGIVT' || typeof unverified.exp !== 'number' || unverified.exp < nowSeconds()) return undefined;
  } catch {
    return undefined;
  }
  const claims = await signedBy(db, realm, token);
  if (claims?.typ !== 'ORGIVT' || claims.iss !== issuerOf(baseUrl, realm.name) || claims.sub) return undefined;
  if (typeof claims.jti !== 'string' || typeof claims.eml !== 'string' || typeof claims.org_id !== 'string') return undefined;
  const org = await db.models.Organization.findOne({ where: { id: claims.org_id, realmId: realm.id } });
  if (!org?.enabled) return undefined;
  const row = await db.models.OrganizationInvitation.findOne({ where: { id: claims.jti, organizationId: org.id } });
  if (!row || row.email !== claims.eml.toLowerCase() || row.expiresAt < nowSeconds()) return undefined;
  return { jti: row.id, orgId: org.id, email: row.email, ...(typeof claims.reduri === 'string' ? { reduri: claims.reduri } : {}) };
}

/** GET/POST /realms/{realm}/protocol/openid-connect/registrations: an authorization request that opens the registration form. */
export async function registrations(db: Db, req: BrowserRequest): Promise<BrowserResponse> {
  const token = req.params.token;
  const params = { ...req.params };
  // The invitation's link names only the account client: its login goes to the account console (then to the organization's URL).
  if (token && !params.redirect_uri) params.redirect_uri = `${issuerOf(req.baseUrl, req.realm)}/account/`;
  return authorize(db, { ...req, params }, async (realm) => {
    const notes: Record<string, string> = { FLOW_PATH: REGISTRATION_PATH };
    const ev = new TokenEvent(db, realm, 'REGISTER', req.ipAddress);
    ev.clientId = params.client_id ?? null;
    if (token) {
      const invitation = await invitationFromToken(db, realm, token, req.baseUrl);
      if (!invitation) {
        await ev.error('invalid_token');
        return { refused: refusedPage('staleInviteOrgLink') };
      }
      notes[INVITATION_NOTE] = JSON.stringify(invitation);
    }
    if (!registrationAllowed(realm, notes)) {
      await ev.error('registration_disabled');
      return { refused: refusedPage('registrationNotAllowedMessage') };
    }
    return { notes };
  });
}

/**
 * GET /realms/{realm}/login-actions/registration?client_id&tab_id: the login page's "Register" link
 * (the tab's login now runs the registration flow); POST: the registration form.
 */
export async function registrationAction(db: Db, req: BrowserRequest, form: Record<string, string> | undefined): Promise<BrowserResponse> {
  if (form) return loginAction(db, req, form, 'registration');
  const realm = await publicRealm(db, req.realm);
  const root = await rootOf(db, realm, req.cookies.AUTH_SESSION_ID);
  const authSession = root && req.params.tab_id ? await findAuthSession(db, realm, root, req.params.tab_id) : null;
  if (!authSession) return loginAction(db, req, undefined, 'registration');
  const data = dataOf(authSession);
  if (isRegistrationLogin({ data }) || data.notes[FLOW_DONE]) return resumeLogin(db, realm, req, authSession);
  const invitation = invitationOf(data.notes);
  const notes: Record<string, string> = {
    FLOW_PATH: REGISTRATION_PATH,
    ...(invitation ? { [INVITATION_NOTE]: JSON.stringify(invitation) } : {}),
  };
  if (!registrationAllowed(realm, notes)) {
    const ev = new TokenEvent(db, realm, 'REGISTER', req.ipAddress);
    ev.clientId = req.params.client_id ?? null;
    await ev.error('registration_disabled');
    return realmPage(db, realm, req, refusedPage('registrationNotAllowedMessage'));
  }
  authSession.userId = null;
  await saveAuthSession(db, authSession, loginLifespan(realm), { ...data, statuses: {}, notes });
  return resumeLogin(db, realm, req, authSession);
}
