// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes (registration.test.ts).
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { BROWSER, type BrowserApp, browserApp, browserMissing } from '../browser/browser';
import { exchange, type LoginWorld, loginWorld } from './browser-client';

/**
 * Self-registration in a real browser (Keycloak's registration flow): the login page's "Register"
 * link, the form filled by its labels with JavaScript disabled (no script needed), a field error
 * announced next to its field, then the new user is signed in and the application receives a code;
 * a multi-valued attribute's "Add" button and Enter in one of its inputs, still without script.
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('registration in Chromium', () => {
  let w: LoginWorld;
  let browser: Browser;
  let appUrl: string;
  let received: URLSearchParams[];
  let b: BrowserApp;

  beforeAll(async () => {
    w = await loginWorld('login-register-ui', { registrationAllowed: true });
    b = await browserApp(w.api, 'login-register-ui');
    ({ browser, appUrl, received } = b);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await w?.ts.close();
  });

  test('Register link, the form by its labels without JavaScript, a field error, then signed in', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(w.authUrl({ redirect_uri: appUrl, state: 'reg-ui' }));
    await page.getByRole('link', { name: 'Register' }).click();
    expect(await page.locator('#kc-page-title').textContent()).toBe('Register');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Email').fill('carol@example.org');
    await page.getByLabel('First name').fill('Carol');
    await page.getByLabel('Last name').fill('Danvers');
    await page.getByLabel(/^Password/).fill('Secret123');
    await page.getByLabel('Confirm password').fill('Secret123');
    await page.getByRole('button', { name: 'Register' }).click();
    // alice exists: the error is announced next to the username, the other values are kept.
    const username = page.getByLabel('Username');
    expect(await username.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#input-error-username').textContent()).toBe('Username already exists.');
    expect(await page.getByLabel('Email').inputValue()).toBe('carol@example.org');
    await username.fill('carol');
    await page.getByLabel(/^Password/).fill('Secret123');
    await page.getByLabel('Confirm password').fill('Secret123');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#app').waitFor();
    const params = received.at(-1) as URLSearchParams;
    expect(params.get('state')).toBe('reg-ui');
    const tokens = await exchange(w, params.get('code') as string, { redirect_uri: appUrl });
    expect(tokens.status).toBe(200);
    const [user] = (await w.api.get('/admin/realms/login-register-ui/users?username=carol&exact=true').expect(200)).body;
    expect(user).toMatchObject({ email: 'carol@example.org', firstName: 'Carol', lastName: 'Danvers' });
    await context.close();
  }, 60_000);

  test('a multi-valued attribute without JavaScript: "Add" shows one more input, Enter in a field submits the form', async () => {
    const R = '/admin/realms/login-register-ui';
    const config = (await w.api.get(`${R}/users/profile`).expect(200)).body;
    config.attributes.push({
      name: 'phones',
      displayName: 'Phones',
      multivalued: true,
      permissions: { view: ['admin', 'user'], edit: ['admin', 'user'] },
    });
    await w.api.put(`${R}/users/profile`, config).expect(200);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(w.authUrl({ redirect_uri: appUrl, state: 'reg-mv' }));
    await page.getByRole('link', { name: 'Register' }).click();
    await page.getByLabel('Username').fill('dora');
    await page.getByLabel('Email').fill('dora@example.org');
    await page.getByLabel('First name').fill('Dora');
    await page.getByLabel('Last name').fill('Explorer');
    await page.locator('#phones').fill('555-1');
    await page.getByRole('button', { name: 'Add Phones' }).click();
    // The form again: what was typed is kept, a second, empty input for the next value.
    expect(await page.locator('#phones').inputValue()).toBe('555-1');
    expect(await page.locator('#phones-1').inputValue()).toBe('');
    expect(await page.getByLabel('Username').inputValue()).toBe('dora');
    await page.getByLabel(/^Password/).fill('Secret123');
    await page.getByLabel('Confirm password').fill('Secret123');
    await page.locator('#phones-1').fill('555-2');
    await page.locator('#phones-1').press('Enter');
    await page.locator('#app').waitFor();
    expect(received.at(-1)?.get('state')).toBe('reg-mv');
    const [user] = (await w.api.get(`${R}/users?username=dora&exact=true&briefRepresentation=false`).expect(200)).body;
    expect(user.attributes.phones).toEqual(['555-1', '555-2']);
    await context.close();
  }, 60_000);
});
