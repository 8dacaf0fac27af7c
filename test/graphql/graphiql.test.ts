import { Script, createContext } from 'node:vm';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { type TestServer, startTestServer } from '../helpers/server';

/**
 * The GraphiQL page of `start-dev` (option graphql-ui): served to browsers at /graphql with every
 * script and style from idserver itself, under a Content-Security-Policy; off by default in `start`.
 */

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** The `src` of every script and the `href` of every stylesheet of a page. */
function assetUrls(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b([^>]*)>/gi)].map((m) => /\bsrc="([^"]*)"/i.exec(m[1])?.[1] ?? '');
  const links = [...html.matchAll(/<link\b([^>]*)>/gi)].map((m) => /\bhref="([^"]*)"/i.exec(m[1])?.[1] ?? '');
  // The icon is an empty data: URL (no favicon request).
  return [...scripts, ...links].filter((u) => u !== 'data:,');
}

describe('with graphql-ui on (the start-dev default)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ graphqlUi: true });
  }, 60_000);
  afterAll(() => ts.close());

  const page = () => request(ts.app).get('/graphql').set('Accept', BROWSER_ACCEPT);

  test('a browser gets the page without a token, under a CSP allowing only its own scripts', async () => {
    const res = await page();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>idserver GraphQL</title>');
    const csp = res.headers['content-security-policy'];
    const directives = Object.fromEntries(
      csp.split(';').map((d: string) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['connect-src']).toContain("'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.vary).toMatch(/Accept/);
  });

  test('every script and stylesheet is served by idserver itself, with its content type', async () => {
    const html = (await page()).text;
    // No inline script: each <script> has a src (the CSP would block an inline one).
    expect([...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].every((m) => m[1].trim() === '')).toBe(true);
    const urls = assetUrls(html);
    expect(urls).toHaveLength(6);
    for (const url of urls) {
      expect(url).toMatch(/^\/graphql\/graphiql\/[\w.-]+$/);
      expect(url).not.toMatch(/^(https?:)?\/\//);
    }
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    for (const url of urls) {
      const res = await request(ts.app).get(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers['content-type']).toMatch(url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text.length).toBeGreaterThan(100);
    }
    // The installed builds: React and ReactDOM as globals, GraphiQL's bundle defining window.GraphiQL.
    expect((await request(ts.app).get('/graphql/graphiql/graphiql.min.js')).text).toContain('window.GraphiQL =');
    expect((await request(ts.app).get('/graphql/graphiql/react.production.min.js')).text).toMatch(/React/);
    expect((await request(ts.app).get('/graphql/graphiql/graphiql.min.css')).text).toContain('.graphiql-container');
  });

  test('the page explains the admin token flow and prefills the Authorization header', async () => {
    const html = (await page()).text;
    expect(html).toContain('/realms/master/protocol/openid-connect/token');
    expect(html).toContain('client_id=admin-cli');
    expect(html).toContain('grant_type=password');
    expect(html).toContain('&lt;paste token&gt;');
    const js = (await request(ts.app).get('/graphql/graphiql/app.js')).text;
    expect(js).toContain('"Authorization": "Bearer \' + PLACEHOLDER');
    expect(() => new Script(js)).not.toThrow();
  });

  test('API clients still reach the GraphQL server: JSON GETs and POSTs need a token', async () => {
    const json = await request(ts.app).get('/graphql?query=%7B__typename%7D').set('Accept', 'application/json');
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ error: 'HTTP 401 Unauthorized' });
    const anyType = await request(ts.app).get('/graphql?query=%7B__typename%7D');
    expect(anyType.status).toBe(401);
    const post = await request(ts.app).post('/graphql').set('Accept', BROWSER_ACCEPT).send({ query: '{ __typename }' });
    expect(post.status).toBe(401);
    const token = await ts.token();
    const ok = await request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ __typename }' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ __typename: 'Query' });
  });

  test('only the listed files are served', async () => {
    for (const name of ['package.json', 'constructor', '..%2Fpackage.json', 'graphiql.js']) {
      const res = await request(ts.app).get(`/graphql/graphiql/${name}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
  });

  test("the page's script gets a token with the form and sends it with every query", async () => {
    const url = await ts.listen();
    const page = fakeBrowser(url, (await request(ts.app).get('/graphql/graphiql/app.js')).text);
    const gql = page.graphiql();
    expect(gql.defaultHeaders).toContain('"Authorization": "Bearer <paste token>"');
    expect(gql.defaultEditorToolsVisibility).toBe('headers');
    expect(gql.shouldPersistHeaders).toBe(false);
    expect(page.fetcherOptions).toEqual({ url: `${url}/graphql`, subscriptionUrl: `${url.replace('http:', 'ws:')}/graphql` });

    // No token yet: the placeholder header is not sent, nor is the request; the answer says what to do.
    const placeholder = { headers: { Authorization: 'Bearer <paste token>' } };
    expect(await gql.fetcher({ query: '{ realms { name } }' }, placeholder)).toEqual({
      errors: [{ message: 'No token yet: use "Get token" above, or paste a token into the Headers tab.' }],
    });

    await page.signIn('admin', 'wrong');
    expect(page.status()).toEqual({ text: 'No token: Invalid user credentials', kind: 'error' });

    await page.signIn('admin', 'admin');
    expect(page.status().kind).toBe('ok');
    const signedIn = page.graphiql();
    expect(signedIn.fetcher).not.toBe(gql.fetcher); // a new fetcher: GraphiQL fetches the schema again
    const realms = await signedIn.fetcher({ query: '{ realms { name } }' }, placeholder);
    expect(realms.data.realms.map((r: { name: string }) => r.name)).toContain('master');
    expect((await signedIn.fetcher({ query: '{ __typename }' }, undefined)).data).toEqual({ __typename: 'Query' });
    // The token is renewed with the refresh token at three quarters of its lifetime (3600 s here).
    expect(page.timers.map((t) => t.ms)).toEqual([2_700_000]);
    const first = page.sent.at(-1);
    expect(first).toMatch(/^Bearer ey/);
    page.timers[0].fn();
    for (let i = 0; i < 200 && page.timers.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(page.timers.map((t) => t.ms)).toEqual([2_700_000, 2_700_000]);
    expect((await signedIn.fetcher({ query: '{ __typename }' }, placeholder)).data).toEqual({ __typename: 'Query' });
    expect(page.sent.at(-1)).toMatch(/^Bearer ey/);
    expect(page.sent.at(-1)).not.toBe(first);
    // A header written in the Headers tab wins over the form's token.
    expect(await signedIn.fetcher({ query: '{ __typename }' }, { headers: { authorization: 'Bearer nope' } })).toEqual({
      error: 'HTTP 401 Unauthorized',
    });

    page.click('signout');
    expect(await page.graphiql().fetcher({ query: '{ __typename }' }, placeholder)).toEqual({
      errors: [{ message: 'No token yet: use "Get token" above, or paste a token into the Headers tab.' }],
    });
  });
});

describe('with graphql-ui off (the start default)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  }, 60_000);
  afterAll(() => ts.close());

  test('a browser gets no page, and the assets are not served', async () => {
    const res = await request(ts.app).get('/graphql').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).not.toContain('<html');
    const asset = await request(ts.app).get('/graphql/graphiql/app.js');
    expect(asset.status).not.toBe(200);
    expect(asset.headers['content-type']).not.toMatch(/javascript/);
  });
});

test('graphql-ui is on in start-dev, off in start unless enabled', () => {
  const load = (mode: 'start' | 'start-dev', args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    loadConfig({ mode, args, env, confFile: '/nonexistent' }).values['graphql-ui'];
  expect(load('start-dev')).toBe(true);
  expect(load('start')).toBe(false);
  expect(load('start', ['--graphql-ui=true'])).toBe(true);
  expect(load('start', [], { IDSERVER_GRAPHQL_UI: 'true' })).toBe(true);
  expect(load('start-dev', ['--graphql-ui=false'])).toBe(false);
  expect(() => load('start', ['--graphql-ui=yes'])).toThrow("Invalid value for option '--graphql-ui'");
});

// biome-ignore lint/suspicious/noExplicitAny: a stand-in for the browser's loosely typed objects
type Loose = any;

/**
 * Runs the page's app.js as a browser would, at `origin`, with just enough of a DOM: React,
 * ReactDOM and GraphiQL are stand-ins that record what the script renders, and GraphiQL's fetcher
 * is a plain JSON POST (as GraphiQL's own simple fetcher) to the real server.
 */
function fakeBrowser(origin: string, appJs: string) {
  const elements: Record<string, Loose> = {};
  const element = (id: string): Loose => {
    elements[id] ??= {
      id,
      textContent: '',
      className: '',
      hidden: id === 'signout' || id === 'copy',
      listeners: {} as Record<string, (ev: unknown) => void>,
      addEventListener(type: string, fn: (ev: unknown) => void) {
        this.listeners[type] = fn;
      },
    };
    return elements[id];
  };
  const form = element('signin');
  form.elements = { realm: { value: 'master' }, client: { value: 'admin-cli' }, username: { value: '' }, password: { value: '' } };
  let rendered: Loose;
  const out = { fetcherOptions: undefined as unknown };
  /** The Authorization header of every query sent, and the renewal the script scheduled. */
  const sent: (string | undefined)[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  function graphiqlComponent() {}
  graphiqlComponent.createFetcher = (opts: { url: string; subscriptionUrl: string }) => {
    out.fetcherOptions = opts;
    return async (params: unknown, fetcherOpts: { headers?: Record<string, string> }) => {
      sent.push(fetcherOpts?.headers?.Authorization);
      const res = await fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...fetcherOpts?.headers },
        body: JSON.stringify(params),
      });
      return res.json();
    };
  };
  const u = new URL(origin);
  const context: Loose = {
    location: { origin: u.origin, protocol: u.protocol, host: u.host },
    document: { getElementById: element, querySelectorAll: () => [] },
    React: { createElement: (type: unknown, props: unknown) => ({ type, props }) },
    ReactDOM: { createRoot: () => ({ render: (el: unknown) => (rendered = el) }) },
    GraphiQL: graphiqlComponent,
    fetch,
    URLSearchParams,
    setTimeout: (fn: () => void, ms: number) => timers.push({ fn, ms }),
    clearTimeout: (id: number) => {
      if (timers[id - 1]) timers[id - 1].fn = () => {};
    },
    navigator: {},
  };
  context.window = context;
  new Script(appJs).runInContext(createContext(context));
  const status = () => ({ text: element('status').textContent as string, kind: element('status').className as string });
  return {
    get fetcherOptions() {
      return out.fetcherOptions;
    },
    graphiql: () => {
      expect(rendered.type).toBe(graphiqlComponent);
      return rendered.props;
    },
    status,
    sent,
    timers,
    click: (id: string) => elements[id].listeners.click({}),
    async signIn(username: string, password: string) {
      form.elements.username.value = username;
      form.elements.password.value = password;
      element('status').className = '';
      form.listeners.submit({ preventDefault() {}, target: form });
      for (let i = 0; i < 200 && !status().kind; i++) await new Promise((r) => setTimeout(r, 10));
    },
  };
}
