import type { ClientModel } from '../../db/models/client';

/**
 * Keycloak's redirect URI rules (RedirectUtils): a requested redirect_uri is accepted when it equals
 * one of the client's redirect URIs, or starts with one that ends in `*` (compared without the
 * request's query); relative entries (`/app/*`) are resolved against the client's rootUrl, or the
 * server's address when it has none. Without a redirect_uri, a non-OpenID request may use the client's
 * single redirect URI when it has no wildcard. A URI with a fragment, user info or that does not parse
 * is refused.
 */
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).filter(Boolean) : []);

/** The client's redirect URIs, relative ones resolved. */
export function clientRedirectUris(client: ClientModel, serverBase: string): string[] {
  const root = typeof client.settings.rootUrl === 'string' && client.settings.rootUrl ? client.settings.rootUrl : serverBase;
  return list(client.settings.redirectUris).map((u) => (u.startsWith('/') ? `${root.replace(/\/+$/, '')}${u}` : u));
}

/** The client's post-logout redirect URIs (attribute `post.logout.redirect.uris`, `##`-separated; `+`: its redirect URIs). */
export function postLogoutRedirectUris(client: ClientModel, serverBase: string): string[] {
  const attrs = (client.settings.attributes ?? {}) as Record<string, string>;
  const raw = (attrs['post.logout.redirect.uris'] ?? '').split('##').filter(Boolean);
  const out: string[] = [];
  for (const u of raw) {
    if (u === '+') out.push(...clientRedirectUris(client, serverBase));
    else out.push(u.startsWith('/') ? `${serverBase}${u}` : u);
  }
  return out;
}

function wellFormed(uri: string): boolean {
  if (uri.includes('#')) return false;
  try {
    const u = new URL(uri);
    return !u.username && !u.password;
  } catch {
    return false;
  }
}

/** True when `uri` matches one of `valid` by Keycloak's exact-or-trailing-wildcard rule. */
export function matchesRedirect(uri: string, valid: string[]): boolean {
  const withoutQuery = uri.split('?')[0];
  for (const v of valid) {
    if (v.endsWith('*') && !v.includes('?')) {
      const prefix = v.slice(0, -1);
      if (withoutQuery.startsWith(prefix)) return true;
    } else if (v === uri) return true;
  }
  return false;
}

/** The redirect URI a login answers to, or undefined when the request's is not allowed. */
export function verifyRedirectUri(requested: string | undefined, valid: string[], openid: boolean): string | undefined {
  if (!requested) {
    if (openid || valid.length !== 1 || valid[0].includes('*')) return undefined;
    return valid[0];
  }
  if (!wellFormed(requested)) return undefined;
  return matchesRedirect(requested, valid) ? requested : undefined;
}
