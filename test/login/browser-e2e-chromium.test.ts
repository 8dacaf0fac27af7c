// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { type Browser, chromium, type Page } from 'playwright-core';
import { BROWSER, browserMissing } from '../browser/browser';
import { exchange, type LoginWorld, loginWorld, REDIRECT } from './browser-client';

/**
 * The login in a real browser (Debian's Chromium; issue 14, item 7): OTP set up as a required action
 * and asked for at the next login, UPDATE_PASSWORD, a browser flow edited through the admin API,
 * single sign-on and RP-initiated logout. Each test signs in through the pages a person sees. The
 * application at REDIRECT is a small HTTP server the browser reaches through a host-resolver rule
 * (page.route does not see the targets of redirects, and the logins end in redirects).
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('browser login end to end in Chromium', () => {
  let w: LoginWorld;
  let browser: Browser;
  let app: Server;
  const R = '/admin/realms/login-e2e';

  beforeAll(async () => {
    w = await loginWorld('login-e2e');
    app = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><title>App</title><h1 id="app">The application</h1>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appHost = new URL(REDIRECT).host;
    const rule = `MAP ${appHost} 127.0.0.1:${(app.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: BROWSER, args: ['--headless', '--no-sandbox', `--host-resolver-rules=${rule}`] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.ts.close();
    app?.closeAllConnections();
    await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  });

  /** A fresh browser profile. */
  const newPage = async (): Promise<Page> => (await browser.newContext()).newPage();
  async function addUser(username: string, password: string, requiredActions: string[] = []): Promise<string> {
    const res = await w.api
      .post(`${R}/users`, {
        username,
        enabled: true,
        email: `${username}@example.org`,
        firstName: username,
        lastName: 'Tester',
        requiredActions,
        credentials: [{ type: 'password', value: password, temporary: false }],
      })
      .expect(201);
    return String(res.headers.location).split('/').pop() as string;
  }
  /** Waits for the application page; returns the code and checks the state it was sent with. */
  async function codeAtApp(page: Page): Promise<string> {
    await page.locator('#app').waitFor({ timeout: 20_000 });
    const url = new URL(page.url());
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('state')).toBe('st-1');
    return url.searchParams.get('code') as string;
  }
  async function submitLogin(page: Page, username: string, password: string): Promise<void> {
    await page.fill('#username', username);
    await page.fill('#password', password);
    await page.click('#kc-login');
  }
  const errorText = async (page: Page) => {
    await page.locator('#input-error').waitFor({ timeout: 20_000 });
    return page.locator('#input-error').textContent();
  };

  test('OTP: CONFIGURE_TOTP set up in the browser, then a later login asks for the code', async () => {
    const id = await addUser('otto', 'otto-pw', ['CONFIGURE_TOTP']);
    const page = await newPage();
    await page.goto(w.authUrl());
    await submitLogin(page, 'otto', 'otto-pw');
    await page.locator('#kc-totp-secret-key').waitFor({ timeout: 20_000 });
    const secret = (await page.locator('#kc-totp-secret-key').textContent())?.trim() as string;
    const uri = new URL((await page.locator('#kc-totp-uri').getAttribute('href')) as string);
    expect(uri.searchParams.get('secret')).toBe(secret);
    // The QR code image is shown (the page's CSP lets the inline PNG load).
    expect(
      await page.locator('#kc-totp-secret-qr-code').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(100);
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
    const code = () => totp.generate({ timestamp: Date.now() });
    // A wrong code first: the page says so and stays.
    const wrong = code() === '000000' ? '111111' : '000000';
    await page.fill('#totp', wrong);
    await page.click('#saveTOTPBtn');
    expect(await errorText(page)).toBe('Invalid authenticator code.');
    await page.fill('#totp', code());
    await page.fill('#userLabel', 'phone');
    await page.click('#saveTOTPBtn');
    expect((await exchange(w, await codeAtApp(page))).status).toBe(200);
    const creds = (await w.api.get(`${R}/users/${id}/credentials`).expect(200)).body as Array<{ type: string; userLabel?: string }>;
    expect(creds.filter((c) => c.type === 'otp').map((c) => c.userLabel)).toEqual(['phone']);
    await page.context().close();

    // Another browser: password, then the OTP page; a wrong code is refused, the right one signs in.
    const later = await newPage();
    await later.goto(w.authUrl());
    await submitLogin(later, 'otto', 'otto-pw');
    await later.locator('#otp').waitFor({ timeout: 20_000 });
    await later.fill('#otp', totp.generate({ timestamp: Date.now() - 300_000 }));
    await later.click('#kc-login');
    expect(await errorText(later)).toBe('Invalid authenticator code.');
    await later.fill('#otp', code());
    await later.click('#kc-login');
    expect((await exchange(w, await codeAtApp(later))).status).toBe(200);
    await later.context().close();
  });

  test('UPDATE_PASSWORD in the browser; the new password signs in, the old one no longer', async () => {
    await addUser('upd', 'old-pw', ['UPDATE_PASSWORD']);
    const page = await newPage();
    await page.goto(w.authUrl());
    await submitLogin(page, 'upd', 'old-pw');
    await page.locator('#password-new').waitFor({ timeout: 20_000 });
    // Mismatched confirmation: Keycloak's message, still on the form.
    await page.fill('#password-new', 'new-pw-1');
    await page.fill('#password-confirm', 'new-pw-2');
    await page.click('#kc-submit');
    expect(await errorText(page)).toBe("Passwords don't match.");
    await page.fill('#password-new', 'new-pw-1');
    await page.fill('#password-confirm', 'new-pw-1');
    await page.click('#kc-submit');
    expect((await exchange(w, await codeAtApp(page))).status).toBe(200);
    await page.context().close();

    const again = await newPage();
    await again.goto(w.authUrl());
    await submitLogin(again, 'upd', 'old-pw');
    expect(await errorText(again)).toBe('Invalid username or password.');
    await submitLogin(again, 'upd', 'new-pw-1');
    expect((await exchange(w, await codeAtApp(again))).status).toBe(200);
    await again.context().close();
  });

  test('a browser flow edited through the admin API: username form and password form on two pages', async () => {
    await w.api.post(`${R}/authentication/flows/browser/copy`, { newName: 'two-pages' }).expect(201);
    const forms = encodeURIComponent('two-pages forms');
    type Exec = { id: string; providerId?: string; level: number; requirement: string };
    const executions = async () => (await w.api.get(`${R}/authentication/flows/${forms}/executions`).expect(200)).body as Exec[];
    const combined = (await executions()).find((e) => e.providerId === 'auth-username-password-form') as Exec;
    await w.api.put(`${R}/authentication/flows/${forms}/executions`, { ...combined, requirement: 'DISABLED' }).expect(204);
    for (const provider of ['auth-username-form', 'auth-password-form']) {
      await w.api.post(`${R}/authentication/flows/${forms}/executions/execution`, { provider }).expect(201);
      const exec = (await executions()).find((e) => e.providerId === provider && e.level === 0) as Exec;
      await w.api.put(`${R}/authentication/flows/${forms}/executions`, { ...exec, requirement: 'REQUIRED' }).expect(204);
    }
    const realm = (await w.api.get(R).expect(200)).body;
    await w.api.put(R, { ...realm, browserFlow: 'two-pages' }).expect(204);
    try {
      const page = await newPage();
      await page.goto(w.authUrl());
      await page.locator('#username').waitFor({ timeout: 20_000 });
      expect(await page.locator('#password').count()).toBe(0);
      await page.fill('#username', 'alice');
      await page.click('#kc-login');
      await page.locator('#password').waitFor({ timeout: 20_000 });
      expect(await page.locator('#kc-attempted-username').textContent()).toBe('alice');
      expect(await page.locator('#username').count()).toBe(0);
      await page.fill('#password', 'pw');
      await page.click('#kc-login');
      expect((await exchange(w, await codeAtApp(page))).status).toBe(200);
      await page.context().close();
    } finally {
      await w.api.put(R, { ...realm, browserFlow: 'browser' }).expect(204);
    }
    // Bound back to the built-in flow: one page with both fields again.
    const page = await newPage();
    await page.goto(w.authUrl());
    await page.locator('#username').waitFor({ timeout: 20_000 });
    expect(await page.locator('#password').count()).toBe(1);
    await page.context().close();
  });

  test('SSO, then RP-initiated logout with id_token_hint and post_logout_redirect_uri ends it', async () => {
    const page = await newPage();
    await page.goto(w.authUrl());
    await submitLogin(page, 'alice', 'pw');
    const first = await exchange(w, await codeAtApp(page));
    expect(first.status).toBe(200);
    const sid = decodeJwt(first.body.id_token as string).sid as string;

    // SSO: a second authorization request in the same browser gets a code without a form.
    await page.goto(w.authUrl({ nonce: 'n-2' }));
    const second = await exchange(w, await codeAtApp(page));
    expect(second.status).toBe(200);
    const idToken = decodeJwt(second.body.id_token as string);
    expect([idToken.sid, idToken.nonce]).toEqual([sid, 'n-2']);
    const sessions = async () =>
      ((await w.api.get(`${R}/users/${w.userId}/sessions`).expect(200)).body as Array<{ id: string }>).map((s) => s.id);
    expect(await sessions()).toContain(sid);

    // RP-initiated logout: back at the application with the state, the session gone.
    const logout = `${w.base}/realms/login-e2e/protocol/openid-connect/logout?${new URLSearchParams({
      id_token_hint: second.body.id_token as string,
      post_logout_redirect_uri: REDIRECT,
      state: 'bye',
    })}`;
    await page.goto(logout);
    await page.locator('#app').waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(`${REDIRECT}?state=bye`);
    expect(await sessions()).not.toContain(sid);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('KEYCLOAK_IDENTITY');

    // The next authorization request shows the login form again.
    await page.goto(w.authUrl());
    await page.locator('#username').waitFor({ timeout: 20_000 });
    expect(await page.locator('#password').count()).toBe(1);
    expect(new URL(page.url()).host).toBe(new URL(w.base).host);
    await page.context().close();
  });
});
