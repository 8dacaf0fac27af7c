// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { BROWSER, type BrowserApp, browserApp, browserMissing } from '../browser/browser';
import { type LoginWorld, loginWorld } from './browser-client';

/**
 * The login in a real browser (Debian's Chromium): the form, the redirect to the application (a local
 * listener that receives the code), single sign-on on a second visit without a form, then logout
 * with its confirmation page, after which the form is shown again.
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('browser login in Chromium', () => {
  let w: LoginWorld;
  let browser: Browser;
  let appUrl: string;
  let received: URLSearchParams[];
  let b: BrowserApp;

  beforeAll(async () => {
    w = await loginWorld('login-ui', { displayName: 'Acme <Staff>' });
    b = await browserApp(w.api, 'login-ui');
    ({ browser, appUrl, received } = b);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await w?.ts.close();
  });

  test('login, SSO without a form, logout', async () => {
    const page = await browser.newPage();
    const auth = w.authUrl({ redirect_uri: appUrl, state: 'ui-1' });
    await page.goto(auth);
    expect(await page.locator('#realm-name').textContent()).toBe('Acme <Staff>');
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Invalid username or password.');
    await page.getByLabel('Password').fill('pw');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor();
    expect(received.at(-1)?.get('state')).toBe('ui-1');
    expect(received.at(-1)?.get('code')).toBeTruthy();

    // Second visit: straight back to the application.
    await page.goto(w.authUrl({ redirect_uri: appUrl, state: 'ui-2' }));
    await page.locator('#app').waitFor();
    expect(received.at(-1)?.get('state')).toBe('ui-2');

    // Logout: confirm, then the next visit shows the form again.
    await page.goto(`${w.base}/realms/login-ui/protocol/openid-connect/logout`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You are logged out.').waitFor();
    await page.goto(w.authUrl({ redirect_uri: appUrl, state: 'ui-3' }));
    await page.getByLabel('Password').waitFor();
    expect(received.some((q) => q.get('state') === 'ui-3')).toBe(false);
  });
});
