// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { BROWSER, browserMissing } from '../browser/browser';
import { type ReceivedMail, startSmtp, type TestSmtp } from '../helpers/smtp';
import { type LoginWorld, loginWorld, REDIRECT } from './browser-client';

/**
 * E-mail links in a real browser (Debian's Chromium; issue 14, items 4 and 7): the link of an
 * execute-actions mail received by a real SMTP listener, and "Forgot Password?" from the login page to
 * the application. The application at REDIRECT is answered by the browser itself (page.route).
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('e-mail links in Chromium', () => {
  let w: LoginWorld;
  let smtp: TestSmtp;
  let browser: Browser;
  const R = '/admin/realms/login-chromium';

  beforeAll(async () => {
    smtp = await startSmtp();
    w = await loginWorld('login-chromium', {
      resetPasswordAllowed: true,
      smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' },
    });
    const [client] = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body;
    await w.api.put(`${R}/clients/${client.id}`, { ...client, directAccessGrantsEnabled: true }).expect(204);
    browser = await chromium.launch({ executablePath: BROWSER, args: ['--headless', '--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.ts.close();
    await smtp?.close();
  });
  beforeEach(() => {
    smtp.messages.length = 0;
  });

  const linkOf = (mail: ReceivedMail) => /(http:\/\/\S+\/login-actions\/action-token\?\S+)/.exec(mail.text)?.[1] as string;
  const passwordGrant = (password: string) =>
    fetch(w.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'app', username: 'alice', password, scope: 'openid' }),
    });
  /** A page whose requests to the application are answered with a small page of its own. */
  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.route('http://app.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><title>App</title><h1 id="app">The application</h1>' }),
    );
    return page;
  }

  test('execute-actions: the mailed link, a new password, "account updated", back to the application', async () => {
    await w.api
      .put(`${R}/users/${w.userId}/execute-actions-email?client_id=app&redirect_uri=${encodeURIComponent(REDIRECT)}`, ['UPDATE_PASSWORD'])
      .expect(204);
    const [mail] = await smtp.waitFor(1);
    const page = await newPage();
    await page.goto(linkOf(mail));
    await page.fill('#password-new', 'chromium-pw-1');
    await page.fill('#password-confirm', 'chromium-pw-1');
    await page.click('#kc-submit');
    await page.locator('#kc-info-message').waitFor({ timeout: 20_000 });
    expect(await page.locator('#kc-info-message').textContent()).toBe('Your account has been updated.');
    await page.click('#backToApplication');
    await page.locator('#app').waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(REDIRECT);
    expect((await passwordGrant('chromium-pw-1')).status).toBe(200);
    // The link again: Keycloak's "action expired".
    await page.goto(linkOf(mail));
    expect(await page.locator('#kc-error-message').textContent()).toBe('Action expired. Please continue with login now.');
    await page.context().close();
  });

  test('forgot password: from the login page through the mail to the application, signed in', async () => {
    const page = await newPage();
    await page.goto(w.authUrl());
    await page.click('#kc-forgot-password');
    await page.fill('#username', 'alice');
    await page.click('#kc-submit');
    await page.locator('#kc-info-message').waitFor({ timeout: 20_000 });
    expect(await page.locator('#kc-info-message').textContent()).toBe('You should receive an email shortly with further instructions.');
    const [mail] = await smtp.waitFor(1);
    await page.goto(linkOf(mail));
    await page.fill('#password-new', 'chromium-pw-2');
    await page.fill('#password-confirm', 'chromium-pw-2');
    await page.click('#kc-submit');
    await page.locator('#app').waitFor({ timeout: 20_000 });
    const url = new URL(page.url());
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('code')).toBeTruthy();
    expect(url.searchParams.get('state')).toBe('st-1');
    expect((await passwordGrant('chromium-pw-2')).status).toBe(200);
    await page.context().close();
  });
});
