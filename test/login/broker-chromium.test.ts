// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { BROWSER, type BrowserApp, browserApp, browserMissing } from '../browser/browser';
import { type BrokerWorld, brokerWorld } from './broker-world';

/**
 * A brokered login in a real browser (Debian's Chromium): the application's login page offers the
 * provider, its link leads to the provider's (another realm's) login form, and the browser comes back
 * with the code, signed in as the account the first login created.
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('brokered login in Chromium', () => {
  let w: BrokerWorld;
  let browser: Browser;
  let appUrl: string;
  let received: URLSearchParams[];
  let b: BrowserApp;

  beforeAll(async () => {
    w = await brokerWorld();
    b = await browserApp(w.api, 'rp');
    ({ browser, appUrl, received } = b);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await w?.ts.close();
  });

  test('sign in with the provider from the login page', async () => {
    const page = await browser.newPage();
    await page.goto(w.authUrl({ redirect_uri: appUrl, state: 'br-1' }));
    await page.getByRole('link', { name: 'External' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/realms/ext/'));
    await page.getByLabel('Username or email').fill('bob');
    await page.getByLabel('Password').fill('pw');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor();
    expect(received.at(-1)?.get('state')).toBe('br-1');
    expect(received.at(-1)?.get('code')).toBeTruthy();
    const users = (await w.api.get('/admin/realms/rp/users?username=bob&exact=true').expect(200)).body;
    const links = (await w.api.get(`/admin/realms/rp/users/${users[0].id}/federated-identity`).expect(200)).body;
    expect(links).toEqual([expect.objectContaining({ identityProvider: 'ext', userName: 'bob' })]);
    await page.close();
  }, 60_000);
});
