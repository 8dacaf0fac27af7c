import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import type { AdminApi } from '../helpers/server';

/**
 * The browser of the browser tests: Debian's Chromium (`apt-get install chromium`), or the one in
 * IDSERVER_TEST_BROWSER. Without it the suites are skipped with a warning, except where
 * IDSERVER_REQUIRE_BROWSER is set (CI installs Chromium and sets it, so a missing browser fails there).
 */
export const BROWSER = process.env.IDSERVER_TEST_BROWSER ?? '/usr/bin/chromium';

export function browserMissing(): void {
  const message = `${BROWSER} not found: browser tests skipped (install Debian's chromium, or set IDSERVER_TEST_BROWSER)`;
  if (process.env.IDSERVER_REQUIRE_BROWSER) throw new Error(message);
  console.warn(message);
}

/** Chromium with an application beside it: a local listener whose `/cb` records the query of each redirect it receives. */
export interface BrowserApp {
  browser: Browser;
  /** The application's redirect URI, set as the only one of the realm's client `app`. */
  appUrl: string;
  received: URLSearchParams[];
  close(): Promise<void>;
}

/** Starts Chromium (headless) and the application, and points the realm's client `app` at it. */
export async function browserApp(api: AdminApi, realm: string): Promise<BrowserApp> {
  const received: URLSearchParams[] = [];
  const app: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/cb') received.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1 id="app">Signed in</h1>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/cb`;
  const client = (await api.get(`/admin/realms/${realm}/clients?clientId=app`).expect(200)).body[0];
  await api.put(`/admin/realms/${realm}/clients/${client.id}`, { ...client, redirectUris: [appUrl] }).expect(204);
  const browser = await chromium.launch({ executablePath: BROWSER, args: ['--headless', '--no-sandbox'] });
  return {
    browser,
    appUrl,
    received,
    close: async () => {
      await browser.close();
      await new Promise<void>((resolve) => app.close(() => resolve()));
    },
  };
}
