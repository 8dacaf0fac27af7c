import type { ClientModel } from '../../db/models/client';

/**
 * Keycloak's redirect URI rules (RedirectUtils): a requested redirect_uri is accepted when it equals
 * one of the client's redirect URIs, or starts with one that ends in `*` (compared without the
 * request's query); relative entries (`/app/*`) are resolved against the client's rootUrl, or the
 * server's address when it has none. Without a redirect_uri, a non-OpenID request may use the client's
 * single redirect URI when it has no wildcard. A URI with a fragment, user info or that does not parse
 * is refused, and so is a scheme other than http(s) unless the matching entry names it.
 */
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).filter(Boolean) : []);

/** The client's redirect URIs, relative ones resolved. */
export function clientRedirectUris(client: ClientModel, serverBase: string): string[] {
  const configured = typeof client.settings.rootUrl === 'string' && client.settings.rootUrl ? client.settings.rootUrl : serverBase;
  // Keycloak's ResolveRelative: `${authBaseUrl}` / `${authAdminUrl}` (the built-in account clients' rootUrl) are this server.
  const root = configured.replace(/^\$\{auth(?:Base|Admin)Url\}/, serverBase.replace(/\/+$/, ''));
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

/**
 * The form of a requested URI that matching uses, as Keycloak 26's RedirectUtils: percent-decoded until
 * it no longer changes (at most 5 times; an URI still changing is refused), parsed, without user info
 * or fragment, with dot segments removed and scheme and host in lower case. Matching the raw text
 * instead would let `https://app/cb/../../evil` pass a `https://app/cb/*` entry, and the browser then
 * lands on `https://app/evil`. undefined: not acceptable at all.
 */
function normalized(uri: string): URL | undefined {
  if (uri.includes('#')) return undefined;
  let decoded = uri;
  for (let i = 0; ; i++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return undefined;
    }
    if (next === decoded) break;
    if (i === 4) return undefined;
    decoded = next;
  }
  try {
    const u = new URL(decoded);
    if (u.username || u.password || decoded.includes('#')) return undefined;
    return u;
  } catch {
    return undefined;
  }
}

/** A URL as text for matching: the parser's normal form, without the `/` it adds to a bare origin. */
function text(u: URL, original: string): string {
  const href = u.href;
  return u.pathname === '/' && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(original) && href.startsWith(`${u.origin}/`)
    ? `${u.origin}${href.slice(u.origin.length + 1)}`
    : href;
}

/**
 * The entry of `valid` that `uri` matches, by Keycloak's rule: `*` matches anything; an entry ending in
 * `*` (and holding no `?`) is a prefix of the URI without its query, or the URI without its query is the
 * entry without `*` and trailing `/`; any other entry must equal the URI, query included.
 */
function matching(valid: string[], uri: string, wildcards: boolean): string | undefined {
  const withoutQuery = uri.split('?')[0];
  for (const v of valid) {
    if (v === '*') return v;
    if (wildcards && v.endsWith('*') && !v.includes('?')) {
      const prefix = v.slice(0, -1);
      if (withoutQuery.startsWith(prefix)) return v;
      if (prefix.length > 1 && prefix.endsWith('/') && withoutQuery === prefix.slice(0, -1)) return v;
    } else if (v === uri) return v;
  }
  return undefined;
}

/** True when `uri` matches one of `valid` (after normalising it), with an allowed scheme. */
export function matchesRedirect(uri: string, valid: string[]): boolean {
  const u = normalized(uri);
  if (!u) return false;
  // First the normalised form, wildcards allowed; then the text as sent, exact entries only.
  const entry = matching(valid, text(u, uri), true) ?? matching(valid, uri, false);
  if (!entry) return false;
  // Only http(s), unless the entry itself names the scheme (`myapp:/cb`, `com.example.app:/*`).
  const scheme = u.protocol.slice(0, -1);
  return scheme === 'http' || scheme === 'https' || entry.toLowerCase().startsWith(`${scheme}:`);
}

/** The redirect URI a login answers to, or undefined when the request's is not allowed. */
export function verifyRedirectUri(requested: string | undefined, valid: string[], openid: boolean): string | undefined {
  if (!requested) {
    if (openid || valid.length !== 1 || valid[0].includes('*')) return undefined;
    return valid[0];
  }
  if (!matchesRedirect(requested, valid)) return undefined;
  // Answered to in its normal form (still encoded as sent), which is the form that was matched.
  try {
    return text(new URL(requested), requested);
  } catch {
    return undefined;
  }
}
