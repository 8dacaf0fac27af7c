// @browser-once: Chromium drives these pages in the SQLite pass only (jest.config.js); their database behaviour is pinned over HTTP in both passes.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { ADMIN, type TestServer, startTestServer } from '../helpers/server';
import { BROWSER, browserMissing } from './browser';

/**
 * The GraphiQL page of `start-dev` in a real browser (Debian's Chromium): it loads under its
 * Content-Security-Policy with no error, "Get token" signs in with the password grant, and the
 * default query runs and shows the realms.
 */
const run = existsSync(BROWSER) ? describe : describe.skip;
if (!existsSync(BROWSER)) browserMissing();

run('GraphiQL in Chromium', () => {
  let ts: TestServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    ts = await startTestServer({ graphqlUi: true });
    base = await ts.listen();
    browser = await chromium.launch({ executablePath: BROWSER, args: ['--headless', '--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await ts?.close();
  });

  test('the page loads with no error, gets a token and runs the default query', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`response: ${r.status()} ${r.request().method()} ${r.url()}`);
    });

    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-container').waitFor({ timeout: 20_000 });
    expect(await page.locator('#status').textContent()).toMatch(/^No token yet/);
    // Before a token, the schema is not asked for (the server could only answer 401): the page says why.
    await page.click('.graphiql-execute-button');
    await page.locator('.graphiql-response').getByText('No token yet').waitFor({ timeout: 20_000 });

    await page.fill('#signin input[name=username]', ADMIN.username);
    await page.fill('#signin input[name=password]', ADMIN.password);
    await page.click('#signin button[type=submit]');
    await page.locator('#status.ok').waitFor({ timeout: 20_000 });
    expect(await page.locator('#status').textContent()).toMatch(/^Token of admin \(realm master, client admin-cli\)/);

    const answer = page.waitForResponse((r) => r.url() === `${base}/graphql` && /query Realms/.test(r.request().postData() ?? ''));
    await page.click('.graphiql-execute-button');
    const body = await (await answer).json();
    expect(body.data.realms).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'master', enabled: true })]));
    await page.locator('.graphiql-response').getByText('"master"').waitFor({ timeout: 20_000 });
    // The token never leaves the tab: it is not in the page's storage.
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).not.toMatch(/eyJ/);
    expect(problems).toEqual([]);
  }, 90_000);
});
