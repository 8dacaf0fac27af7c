import { createHash, randomBytes } from 'node:crypto';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createRealm } from '../helpers/fixtures';
import type { AppOptions } from '../../src/server';
import { type AdminApi, startTestServer, type TestServer } from '../helpers/server';

/**
 * A scripted browser for the login tests: plain fetch with redirect: 'manual' and a cookie jar that
 * keeps what the server sets (path and expiry honoured enough for one host), plus the fixtures of a
 * realm with a public client `app` and a user `alice` / `pw`.
 */
export class Jar {
  readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (attrs.some((a) => a.trim().toLowerCase() === 'max-age=0') || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.take(res);
    return res;
  }

  /** A form POST; pairs for a repeated field (several values of one multi-valued attribute). */
  post(url: string, fields: Record<string, string> | Array<[string, string]>): Promise<Response> {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The action URL of the page's first form. */
export function formAction(html: string): string {
  const m = /<form[^>]*action="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no form in page: ${html.slice(0, 400)}`);
  return htmlText(m[1]);
}

/** The text of the page's error message, if any. */
export const pageError = (html: string) => {
  const m = /id="(?:input-error|kc-error-message)"[^>]*>([^<]*)</.exec(html);
  return m ? htmlText(m[1]) : undefined;
};

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export const REDIRECT = 'http://app.example/cb';

export interface LoginWorld {
  ts: TestServer;
  api: AdminApi;
  base: string;
  realm: string;
  userId: string;
  authUrl(params?: Record<string, string>): string;
  tokenUrl: string;
}

/** A server listening on a port (issuer from the request), realm `realm` with client `app` and user `alice`/`pw`; `serverOptions` e.g. `x509`. */
export async function loginWorld(
  realm: string,
  realmExtra: Record<string, unknown> = {},
  serverOptions: Omit<AppOptions, 'hostname'> = {},
): Promise<LoginWorld> {
  // The issuer must be the address clients use: the listener takes its port first (no window in which
  // another socket can take a port picked and released) and hands requests to the app once it exists.
  let app: TestServer['app'] | undefined;
  const server = createServer((req, res) => (app as TestServer['app'])(req, res));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let ts: TestServer;
  try {
    ts = await startTestServer({ ...serverOptions, hostname: base });
  } catch (e) {
    server.close();
    throw e;
  }
  app = ts.app;
  const close = ts.close;
  ts.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
  };
  const api = await ts.api();
  await createRealm(api, realm, { eventsEnabled: true, ...realmExtra });
  await createClient(api, realm, {
    clientId: 'app',
    publicClient: true,
    redirectUris: [REDIRECT, 'http://wild.example/app/*', '/relative/cb'],
    rootUrl: 'http://root.example',
    attributes: { 'post.logout.redirect.uris': '+' },
  });
  const created = await api
    .post(`/admin/realms/${realm}/users`, {
      username: 'alice',
      enabled: true,
      email: 'alice@example.org',
      firstName: 'Alice',
      lastName: 'Liddell',
      credentials: [{ type: 'password', value: 'pw', temporary: false }],
    })
    .expect(201);
  const userId = String(created.headers.location).split('/').pop() as string;
  const authUrl = (params: Record<string, string> = {}) =>
    `${base}/realms/${realm}/protocol/openid-connect/auth?${new URLSearchParams({
      client_id: 'app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st-1',
      ...params,
    })}`;
  return { ts, api, base, realm, userId, authUrl, tokenUrl: `${base}/realms/${realm}/protocol/openid-connect/token` };
}

/** A password grant of `admin-cli` at the world's token endpoint (the direct grant flow). */
export const passwordGrant = (w: Pick<LoginWorld, 'tokenUrl'>, username: string, password: string) =>
  fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password }).toString(),
  });

/** Signs in through the login form (GET the auth URL, POST the credentials); returns the final response. */
export async function signIn(jar: Jar, url: string, username = 'alice', password = 'pw'): Promise<Response> {
  const page = await jar.fetch(url);
  if (page.status !== 200) return page;
  return jar.post(formAction(await page.text()), { username, password });
}

/** The query parameters of a redirect response's Location. */
export function redirectParams(res: Response): URLSearchParams {
  const location = res.headers.get('location');
  if (!location) throw new Error(`no redirect: ${res.status}`);
  return new URL(location).searchParams;
}

/** Exchanges a code at the token endpoint (public client `app`). */
export async function exchange(
  w: LoginWorld,
  code: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'app', code, redirect_uri: REDIRECT, ...extra }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A login world with organizations on, a real SMTP sink as the realm's mail server, and the organization `acme` redirecting to `redirectUrl`. */
export async function organizationWorld(realm: string, redirectUrl: string): Promise<{ w: LoginWorld; smtp: TestSmtp; orgId: string }> {
  const smtp = await startSmtp();
  const w = await loginWorld(realm, {
    organizationsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' },
  });
  const created = await w.api.post(`/admin/realms/${realm}/organizations`, { name: 'Acme', alias: 'acme', redirectUrl }).expect(201);
  return { w, smtp, orgId: String(created.headers.location).split('/').pop() as string };
}
