import { randomUUID } from 'node:crypto';
import type { ClientModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { nowSeconds } from '../../core/clock';
import type { RequestContext } from '../../core/context';
import { signToken } from '../tokens/signing';

/**
 * Admin-URL notifications (reference §9, config §1.9): logout and not-before pushes are signed
 * JWTs POSTed as text/plain to `{adminUrl}/k_logout` or `{adminUrl}/k_push_not_before` of every
 * client with an admin URL. The GlobalRequestResult lists each admin URL as success (2xx) or
 * failure (anything else, unreachable, or no answer within the timeout); empty lists are omitted.
 */
export interface GlobalRequestResult {
  successRequests?: string[];
  failedRequests?: string[];
}

const TIMEOUT_MS = 3000;

/** The client's admin URL with `${authBaseUrl}`/`${authAdminUrl}` expanded and relative URLs resolved against rootUrl. */
export function managementUrl(ctx: RequestContext, client: ClientModel): string | undefined {
  const s = client.settings;
  let url = typeof s.adminUrl === 'string' ? s.adminUrl.trim() : '';
  if (!url) return undefined;
  url = url.replace(/\$\{authBaseUrl\}|\$\{authAdminUrl\}/g, ctx.baseUrl);
  if (url.startsWith('/')) {
    const root = typeof s.rootUrl === 'string' ? s.rootUrl.replace(/\$\{authBaseUrl\}|\$\{authAdminUrl\}/g, ctx.baseUrl) : '';
    if (!root) return undefined;
    url = root.replace(/\/+$/, '') + url;
  }
  return url;
}

/** Keycloak's AdminAction message (LogoutAction, PushNotBeforeAction) posted to a client's admin URL. */
type AdminAction = {
  id: string;
  expiration: number;
  resource: string;
  action: 'LOGOUT' | 'PUSH_NOT_BEFORE';
  notBefore: number;
};

/** Keycloak's ResourceAdminManager: session.tokens().encode(action), category ADMIN (the realm's default algorithm). */
async function signAction(ctx: RequestContext, realm: RealmModel, body: AdminAction): Promise<string> {
  return (await signToken(ctx.db, realm, undefined, 'admin', body)).jwt;
}

async function post(url: string, body: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status >= 200 && res.status < 300;
  } catch {
    return false;
  }
}

/** Sends the action to every client with an admin URL; `{}` when none has one. */
export async function notifyClients(
  ctx: RequestContext,
  realm: RealmModel,
  clients: ClientModel[],
  action: 'LOGOUT' | 'PUSH_NOT_BEFORE',
  notBefore: number,
): Promise<GlobalRequestResult> {
  const targets = clients.map((c) => ({ c, url: managementUrl(ctx, c) })).filter((t): t is { c: ClientModel; url: string } => !!t.url);
  const outcomes = await Promise.all(
    targets.map(async ({ c, url }) => {
      const message = await signAction(ctx, realm, {
        id: randomUUID(),
        expiration: nowSeconds() + 30,
        resource: c.clientId,
        action,
        notBefore,
      });
      const path = action === 'LOGOUT' ? 'k_logout' : 'k_push_not_before';
      return { url, ok: await post(`${url.replace(/\/+$/, '')}/${path}`, message) };
    }),
  );
  const result: GlobalRequestResult = {};
  const ok = outcomes.filter((o) => o.ok).map((o) => o.url);
  const failed = outcomes.filter((o) => !o.ok).map((o) => o.url);
  if (ok.length) result.successRequests = ok;
  if (failed.length) result.failedRequests = failed;
  return result;
}
