import { decodeJwt } from 'jose';
import {
  exchange,
  formAction,
  Jar,
  type LoginWorld,
  loginWorld,
  pageError,
  pkcePair,
  REDIRECT,
  redirectParams,
  signIn,
} from './browser-client';

/**
 * The authorization endpoint and the login form (issue 14): Keycloak's error pages for a bad client
 * or redirect URI, errors sent back to a verified redirect URI, the username/password form with its
 * cookies and headers, and the code it ends with.
 */
let w: LoginWorld;
beforeAll(async () => {
  w = await loginWorld('login-a');
});
afterAll(() => w?.ts.close());

const get = (url: string) => fetch(url, { redirect: 'manual' });

describe('requests that cannot be answered to the client: an error page', () => {
  test.each([
    [{ client_id: '' }, 400, 'Missing parameter: client_id'],
    [{ client_id: 'nope' }, 400, 'Client not found.'],
    [{ redirect_uri: 'http://evil.example/cb' }, 400, 'Invalid parameter: redirect_uri'],
    [{ redirect_uri: `${REDIRECT}#frag` }, 400, 'Invalid parameter: redirect_uri'],
    [{ redirect_uri: 'http://wild.example/other' }, 400, 'Invalid parameter: redirect_uri'],
    [{ redirect_uri: 'not a uri' }, 400, 'Invalid parameter: redirect_uri'],
  ])('%j → %i %s', async (params, status, message) => {
    const res = await get(w.authUrl(params as Record<string, string>));
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(pageError(await res.text())).toBe(message);
  });

  test('an unknown realm is a 404 page, a disabled or bearer-only client its own message', async () => {
    const res = await get(w.authUrl().replace('/realms/login-a/', '/realms/nowhere/'));
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/Realm does not exist/);
    await w.api.post('/admin/realms/login-a/clients', { clientId: 'off', enabled: false, redirectUris: [REDIRECT] }).expect(201);
    await w.api.post('/admin/realms/login-a/clients', { clientId: 'api', bearerOnly: true, redirectUris: [REDIRECT] }).expect(201);
    const off = await get(w.authUrl({ client_id: 'off' }));
    expect([off.status, pageError(await off.text())]).toEqual([400, 'Client disabled.']);
    const api = await get(w.authUrl({ client_id: 'api' }));
    expect([api.status, pageError(await api.text())]).toEqual([403, 'Bearer-only applications are not allowed to initiate browser login.']);
  });
});

describe('errors sent back to the verified redirect URI', () => {
  test.each([
    [{ response_type: 'tokens' }, 'unsupported_response_type', null],
    [{ response_type: '' }, 'invalid_request', 'Missing parameter: response_type'],
    [{ response_mode: 'jwt-magic' }, 'invalid_request', 'Invalid parameter: response_mode'],
    [{ scope: 'openid not-a-scope' }, 'invalid_scope', 'Invalid scopes: openid not-a-scope'],
    [{ code_challenge_method: 'S256' }, 'invalid_request', 'Missing parameter: code_challenge'],
    [
      { code_challenge: pkcePair().challenge, code_challenge_method: 'S512' },
      'invalid_request',
      'Invalid parameter: code_challenge_method',
    ],
    [{ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request', 'Invalid parameter: code_challenge'],
  ])('%j → %s', async (params, error, description) => {
    const res = await get(w.authUrl(params as Record<string, string>));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')?.startsWith(`${REDIRECT}?`)).toBe(true);
    const q = redirectParams(res);
    expect(q.get('error')).toBe(error);
    expect(q.get('error_description')).toBe(description);
    expect(q.get('state')).toBe('st-1');
    expect(q.get('iss')).toBe(`${w.base}/realms/login-a`);
  });

  test('a client that requires PKCE names what is missing or wrong', async () => {
    await w.api
      .post('/admin/realms/login-a/clients', {
        clientId: 'strict',
        publicClient: true,
        redirectUris: [REDIRECT],
        attributes: { 'pkce.code.challenge.method': 'S256' },
      })
      .expect(201);
    const missing = redirectParams(await get(w.authUrl({ client_id: 'strict' })));
    expect([missing.get('error'), missing.get('error_description')]).toEqual([
      'invalid_request',
      'Missing parameter: code_challenge_method',
    ]);
    const plain = redirectParams(
      await get(w.authUrl({ client_id: 'strict', code_challenge: pkcePair().challenge, code_challenge_method: 'plain' })),
    );
    expect(plain.get('error_description')).toBe('Invalid parameter: code challenge method is not matching the configured one');
    const ok = await get(w.authUrl({ client_id: 'strict', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
    expect(ok.status).toBe(200);
  });

  test('a client with the standard flow disabled: unauthorized_client', async () => {
    await w.api
      .post('/admin/realms/login-a/clients', {
        clientId: 'nostd',
        publicClient: true,
        standardFlowEnabled: false,
        redirectUris: [REDIRECT],
      })
      .expect(201);
    const q = redirectParams(await get(w.authUrl({ client_id: 'nostd' })));
    expect(q.get('error')).toBe('unauthorized_client');
  });
});

describe('the login form', () => {
  test('is an accessible HTML form with the realm headers, cookies and no caching', async () => {
    const jar = new Jar();
    const res = await jar.fetch(w.authUrl({ login_hint: 'al"ice<' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('content-security-policy')).toBe("frame-src 'self'; frame-ancestors 'self'; object-src 'none';");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-robots-tag')).toBe('none');
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('AUTH_SESSION_ID='));
    expect(setCookie?.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/realms/login-a/', 'SameSite=Lax']);
    const html = await res.text();
    expect(html).toMatch(/<label for="username">Username or email<\/label>/);
    expect(html).toMatch(/<input id="password" name="password" type="password" autocomplete="current-password"/);
    // login_hint pre-fills the username, escaped.
    expect(html).toContain('value="al&quot;ice&lt;"');
    expect(formAction(html)).toMatch(
      new RegExp(`^${w.base}/realms/login-a/login-actions/authenticate\\?session_code=.+&execution=.+&client_id=app&tab_id=`),
    );
  });

  test('signs in: a redirect with code, state, session_state and iss; SSO cookies set', async () => {
    const jar = new Jar();
    const res = await signIn(jar, w.authUrl());
    expect(res.status).toBe(302);
    const q = redirectParams(res);
    expect(q.get('code')).toBeTruthy();
    expect(q.get('state')).toBe('st-1');
    expect(q.get('iss')).toBe(`${w.base}/realms/login-a`);
    expect(q.get('session_state')).toBeTruthy();
    const cookies = res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('KEYCLOAK_IDENTITY='))).toMatch(/HttpOnly/);
    expect(cookies.find((c) => c.startsWith('KEYCLOAK_SESSION='))).not.toMatch(/HttpOnly/);
    const tokens = await exchange(w, q.get('code') as string);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token as string).sid).toBe(q.get('session_state'));
    // The session is the admin API's.
    const sessions = await w.api.get(`/admin/realms/login-a/users/${w.userId}/sessions`).expect(200);
    expect(sessions.body.map((s: { id: string }) => s.id)).toContain(q.get('session_state'));
  });

  test("a wrong password shows the form again with Keycloak's message, and no code", async () => {
    const jar = new Jar();
    for (const [user, password] of [
      ['alice', 'wrong'],
      ['nobody', 'pw'],
      ['', ''],
    ]) {
      const res = await signIn(jar, w.authUrl(), user, password);
      expect(res.status).toBe(401);
      const html = await res.text();
      expect(pageError(html)).toBe('Invalid username or password.');
      expect(html).toContain(`value="${user}"`);
    }
  });

  test('a stale form (an old session_code) does not sign in: the current page is shown again', async () => {
    const jar = new Jar();
    const first = formAction(await (await jar.fetch(w.authUrl())).text());
    const wrong = await jar.post(first, { username: 'alice', password: 'bad' });
    expect(wrong.status).toBe(401);
    const again = await jar.post(first, { username: 'alice', password: 'pw' });
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBeNull();
    // Without the AUTH_SESSION_ID cookie the form is refused.
    const stranger = new Jar();
    const res = await stranger.post(first, { username: 'alice', password: 'pw' });
    expect(res.status).toBe(400);
    expect(pageError(await res.text())).toBe('Cookie not found. Please make sure cookies are enabled in your browser.');
  });

  test('response_mode fragment and form_post', async () => {
    const frag = await signIn(new Jar(), w.authUrl({ response_mode: 'fragment' }));
    const location = frag.headers.get('location') as string;
    expect(location.startsWith(`${REDIRECT}#`)).toBe(true);
    expect(new URLSearchParams(location.split('#')[1]).get('code')).toBeTruthy();
    const post = await signIn(new Jar(), w.authUrl({ response_mode: 'form_post' }));
    expect(post.status).toBe(200);
    const html = await post.text();
    expect(formAction(html)).toBe(REDIRECT);
    expect(html).toMatch(/name="code" value="[^"]+"/);
    expect(html).toContain('name="state" value="st-1"');
  });

  test('a wildcard and a relative redirect URI (resolved against rootUrl) are accepted', async () => {
    const wild = await signIn(new Jar(), w.authUrl({ redirect_uri: 'http://wild.example/app/deep/page?x=1' }));
    expect(wild.headers.get('location')).toMatch(/^http:\/\/wild\.example\/app\/deep\/page\?x=1&code=/);
    const rel = await get(w.authUrl({ redirect_uri: 'http://root.example/relative/cb' }));
    expect(rel.status).toBe(200);
  });
});
