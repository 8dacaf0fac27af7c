import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { nowSeconds } from '../../core/clock';
import { systemContext } from '../../core/context';
import { issuerOf } from '../../core/issuer';
import type { Db } from '../../db';
import type { ClientModel } from '../../db/models/client';
import type { UserSessionModel } from '../../db/models/component';
import type { RealmModel } from '../../db/models/realm';
import { getLogger } from '../../logging';
import { notifyClients } from './revocation';
import { signForClient } from '../tokens/signing';

const log = getLogger('idserver.services.sessions.logout');

/**
 * Telling the clients of ended sessions (Keycloak's AuthenticationManager.backchannelLogout and
 * browserLogout, OIDCLoginProtocol.frontchannelLogout / backchannelLogout): a client with
 * `frontchannelLogout` and a `frontchannel.logout.url` is called by the browser from the logout page
 * (an iframe, `iss` and `sid` when `frontchannel.logout.session.required`); otherwise a client with a
 * `backchannel.logout.url` gets a signed logout token POSTed by the server (OpenID Connect
 * Back-Channel Logout 1.0), and one with only an admin URL the adapter's `k_logout`. A receiver has
 * BACKCHANNEL_TIMEOUT_MS to answer; all are called at once, so a slow one delays the request by that
 * much at most, and a failure is logged, never shown to the user.
 */
export const BACKCHANNEL_TIMEOUT_MS = 2000;

/** One client of one ended session. */
export interface ClientOfSession {
  session: Pick<UserSessionModel, 'id' | 'userId'>;
  client: ClientModel;
}

const attrs = (c: ClientModel) => (c.settings.attributes ?? {}) as Record<string, string>;

/** The clients taking part in the sessions (their client sessions), two statements for any number of sessions. */
export async function clientsOfSessions(db: Db, sessions: Array<Pick<UserSessionModel, 'id' | 'userId'>>): Promise<ClientOfSession[]> {
  if (!sessions.length) return [];
  const links = await db.models.ClientSession.findAll({
    where: { userSessionId: { [Op.in]: sessions.map((s) => s.id) } },
    attributes: ['userSessionId', 'clientId'],
  });
  if (!links.length) return [];
  const clients = await db.models.Client.findAll({ where: { id: { [Op.in]: [...new Set(links.map((l) => l.clientId))] } } });
  const byId = new Map(clients.map((c) => [c.id, c]));
  const sessionById = new Map(sessions.map((s) => [s.id, s]));
  const out: ClientOfSession[] = [];
  for (const l of links) {
    const client = byId.get(l.clientId);
    const session = sessionById.get(l.userSessionId);
    if (client && session) out.push({ session, client });
  }
  return out;
}

/** The client's front-channel logout URL, when it logs out through the browser. */
export function frontchannelLogoutUrl(client: ClientModel): string | undefined {
  if (client.settings.frontchannelLogout !== true || client.protocol !== 'openid-connect') return undefined;
  const url = attrs(client)['frontchannel.logout.url']?.trim();
  return url || undefined;
}

/** The URL the browser's iframe loads for the client: with `iss` and `sid` when `frontchannel.logout.session.required` (default true). */
export function frontchannelCallUrl(client: ClientModel, iss: string, sid: string): string | undefined {
  const url = frontchannelLogoutUrl(client);
  if (!url) return undefined;
  try {
    const u = new URL(url);
    // Only a web page may be framed (a javascript: URL would run in the realm's page).
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    if (attrs(client)['frontchannel.logout.session.required'] !== 'false') {
      u.searchParams.set('sid', sid);
      u.searchParams.set('iss', iss);
    }
    return u.toString();
  } catch {
    return undefined;
  }
}

/** The client's back-channel logout URL (`${authBaseUrl}` expanded; a relative one resolved against rootUrl). */
export function backchannelLogoutUrl(client: ClientModel, baseUrl: string): string | undefined {
  let url = attrs(client)['backchannel.logout.url']?.trim() ?? '';
  if (!url) return undefined;
  url = url.replace(/\$\{authBaseUrl\}|\$\{authAdminUrl\}/g, baseUrl);
  if (url.startsWith('/')) {
    const root = typeof client.settings.rootUrl === 'string' ? client.settings.rootUrl.replace(/\$\{authBaseUrl\}/g, baseUrl) : '';
    if (!root) return undefined;
    url = root.replace(/\/+$/, '') + url;
  }
  return /^https?:\/\//i.test(url) ? url : undefined;
}

/** The logout token of a client's session (Keycloak's TokenManager.initLogoutToken), signed by the realm's active key. */
export async function logoutToken(
  db: Db,
  realm: RealmModel,
  client: ClientModel,
  session: ClientOfSession['session'],
  iss: string,
): Promise<string> {
  const a = attrs(client);
  const iat = nowSeconds();
  const events: Record<string, unknown> = { 'http://schemas.openid.net/event/backchannel-logout': {} };
  if (a['backchannel.logout.revoke.offline.tokens'] === 'true') events.revoke_offline_access = true;
  const claims = {
    iat,
    exp: iat + 120,
    jti: randomUUID(),
    iss,
    aud: client.clientId,
    sub: session.userId,
    typ: 'Logout',
    ...(a['backchannel.logout.session.required'] !== 'false' ? { sid: session.id } : {}),
    events,
  };
  // Keycloak's TokenCategory.LOGOUT: the client's ID token algorithm, else the realm's default.
  return signForClient(db, realm, client, 'logout', claims, 'logout+jwt');
}

async function postLogoutToken(url: string, token: string): Promise<void> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
      signal: AbortSignal.timeout(BACKCHANNEL_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) log.warn(`Back-channel logout to ${url} answered ${res.status}`);
  } catch (e) {
    log.warn(`Back-channel logout to ${url} failed: ${(e as Error).name}`);
  }
}

/**
 * Back-channel notifications for ended sessions: a logout token to each client with a
 * `backchannel.logout.url` (per session), `k_logout` to those with only an admin URL (once per
 * client). `skipFrontchannel` leaves out the clients the logout page calls through the browser.
 */
export async function notifyBackchannel(
  db: Db,
  realm: RealmModel,
  baseUrl: string,
  pairs: ClientOfSession[],
  skipFrontchannel = false,
): Promise<void> {
  const iss = issuerOf(baseUrl, realm.name);
  const adminOnly = new Map<string, ClientModel>();
  const calls: Promise<void>[] = [];
  for (const { session, client } of pairs) {
    // A front-channel client is the logout page's to call (Keycloak: no back-channel call for it).
    if (skipFrontchannel && client.settings.frontchannelLogout === true) continue;
    const url = backchannelLogoutUrl(client, baseUrl);
    if (url) calls.push(logoutToken(db, realm, client, session, iss).then((t) => postLogoutToken(url, t)));
    else adminOnly.set(client.id, client);
  }
  if (adminOnly.size)
    calls.push(notifyClients(systemContext(db, baseUrl), realm, [...adminOnly.values()], 'LOGOUT', nowSeconds()).then(() => undefined));
  await Promise.all(calls.map((c) => c.catch((e: unknown) => log.warn(`Logout notification failed: ${(e as Error).message}`))));
}
