// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { type Browser, chromium } from 'playwright-core';
import { BROWSER, browserMissing } from '../browser/browser';
import { createClient } from '../helpers/fixtures';
import { exchange, type LoginWorld, loginWorld, REDIRECT } from './browser-client';

/**
 * The consent page and front-channel logout in a real browser (Debian's Chromium; issue 14): a
 * client with consentRequired shows its scopes after the password, Yes goes on to the application;
 * RP-initiated logout shows the page whose hidden iframe calls the client's frontchannel.logout.url
 * (received by a small HTTP server the browser reaches through a host-resolver rule), then goes on to
 * the post-logout redirect.
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('consent and front-channel logout in Chromium', () => {
  let w: LoginWorld;
  let browser: Browser;
  let app: Server;
  let front: Server;
  const calls: string[] = [];
  const R = 'login-consent-e2e';

  const listen = async (s: Server) => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return (s.address() as AddressInfo).port;
  };
  beforeAll(async () => {
    w = await loginWorld(R);
    await createClient(w.api, R, {
      clientId: 'third',
      name: 'Third Party',
      publicClient: true,
      consentRequired: true,
      redirectUris: [REDIRECT],
      frontchannelLogout: true,
      attributes: { 'frontchannel.logout.url': 'http://front.example/logout', 'post.logout.redirect.uris': '+' },
    });
    app = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><title>App</title><h1 id="app">The application</h1>');
    });
    front = createServer((req, res) => {
      calls.push(String(req.url));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><title>Logged out</title>');
    });
    const rules = `MAP ${new URL(REDIRECT).host} 127.0.0.1:${await listen(app)}, MAP front.example 127.0.0.1:${await listen(front)}`;
    browser = await chromium.launch({ executablePath: BROWSER, args: ['--headless', '--no-sandbox', `--host-resolver-rules=${rules}`] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.ts.close();
    for (const s of [app, front]) {
      s?.closeAllConnections();
      await new Promise((resolve) => (s ? s.close(resolve) : resolve(undefined)));
    }
  });

  test('the consent page after the password, Yes to the application; logout frames the client, then goes on', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(w.authUrl({ client_id: 'third' }));
    await page.fill('#username', 'alice');
    await page.fill('#password', 'pw');
    await page.click('#kc-login');
    await page.locator('#kc-oauth').waitFor({ timeout: 20_000 });
    expect(await page.locator('#kc-page-title').textContent()).toBe('Grant Access to Third Party');
    expect((await page.locator('#kc-oauth-scopes li').allTextContents()).sort()).toEqual(['Email address', 'User profile', 'User roles']);
    await page.click('#kc-login');
    await page.locator('#app').waitFor({ timeout: 20_000 });
    const code = new URL(page.url()).searchParams.get('code') as string;
    const tokens = await exchange(w, code, { client_id: 'third' });
    expect(tokens.status).toBe(200);
    const sid = decodeJwt(tokens.body.id_token as string).sid as string;

    const logout = `${w.base}/realms/${R}/protocol/openid-connect/logout?${new URLSearchParams({
      id_token_hint: tokens.body.id_token as string,
      post_logout_redirect_uri: REDIRECT,
      state: 'bye',
    })}`;
    await page.goto(logout);
    await page.waitForURL(`${REDIRECT}?state=bye`, { timeout: 20_000 });
    await page.locator('#app').waitFor({ timeout: 20_000 });
    expect(calls).toHaveLength(1);
    const called = new URL(calls[0], 'http://front.example');
    expect(called.pathname).toBe('/logout');
    expect(called.searchParams.get('sid')).toBe(sid);
    expect(called.searchParams.get('iss')).toBe(`${w.base}/realms/${R}`);
    await page.context().close();
  });
});
