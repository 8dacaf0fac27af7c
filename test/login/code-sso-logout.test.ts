import { decodeJwt } from 'jose';
import { clock } from '../../src/core/clock';
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
 * The code exchange (grant_type=authorization_code), single sign-on with the KEYCLOAK_IDENTITY
 * cookie, prompt and max_age, RP-initiated logout, brute-force lockout and the login events.
 */
let w: LoginWorld;
beforeAll(async () => {
  w = await loginWorld('login-b', { bruteForceProtected: true, failureFactor: 3, waitIncrementSeconds: 60 });
});
afterAll(() => w?.ts.close());

const codeOf = (res: Response) => redirectParams(res).get('code') as string;

describe('the code exchange', () => {
  test('a code works once; a second use fails and the first tokens no longer refresh', async () => {
    const code = codeOf(await signIn(new Jar(), w.authUrl({ nonce: 'n-1' })));
    const first = await exchange(w, code);
    expect(first.status).toBe(200);
    const id = decodeJwt(first.body.id_token as string);
    expect(id.nonce).toBe('n-1');
    expect(typeof id.auth_time).toBe('number');
    const again = await exchange(w, code);
    expect(again).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Code not valid' } });
    const refresh = await fetch(w.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: first.body.refresh_token as string }),
    });
    expect(refresh.status).toBe(400);
  });

  test('is bound to the redirect_uri and the client; an unknown code is not valid', async () => {
    const code = codeOf(await signIn(new Jar(), w.authUrl()));
    expect((await exchange(w, code, { redirect_uri: 'http://app.example/other' })).body.error_description).toBe('Incorrect redirect_uri');
    const code2 = codeOf(await signIn(new Jar(), w.authUrl()));
    await w.api.post('/admin/realms/login-b/clients', { clientId: 'other', publicClient: true, redirectUris: [REDIRECT] }).expect(201);
    expect((await exchange(w, code2, { client_id: 'other' })).body).toEqual({ error: 'invalid_grant', error_description: 'Auth error' });
    expect((await exchange(w, 'made-up')).body.error_description).toBe('Code not valid');
    expect((await exchange(w, '')).body).toEqual({ error: 'invalid_request', error_description: 'Missing parameter: code' });
  });

  test('expires after accessCodeLifespan', async () => {
    const code = codeOf(await signIn(new Jar(), w.authUrl()));
    const real = clock.now;
    clock.now = () => real() + 61_000;
    try {
      expect((await exchange(w, code)).body).toEqual({ error: 'invalid_grant', error_description: 'Code is expired' });
    } finally {
      clock.now = real;
    }
  });

  test('PKCE: S256 and plain verified; missing or wrong verifier refused', async () => {
    const { verifier, challenge } = pkcePair();
    const s256 = codeOf(await signIn(new Jar(), w.authUrl({ code_challenge: challenge, code_challenge_method: 'S256' })));
    expect((await exchange(w, s256, { code_verifier: verifier })).status).toBe(200);
    const plainVerifier = pkcePair().verifier;
    const plain = codeOf(await signIn(new Jar(), w.authUrl({ code_challenge: plainVerifier })));
    expect((await exchange(w, plain, { code_verifier: plainVerifier })).status).toBe(200);
    const missing = codeOf(await signIn(new Jar(), w.authUrl({ code_challenge: challenge, code_challenge_method: 'S256' })));
    expect((await exchange(w, missing)).body.error_description).toBe('PKCE code verifier not specified');
    const wrong = codeOf(await signIn(new Jar(), w.authUrl({ code_challenge: challenge, code_challenge_method: 'S256' })));
    expect((await exchange(w, wrong, { code_verifier: pkcePair().verifier })).body).toEqual({
      error: 'invalid_grant',
      error_description: 'PKCE verification failed',
    });
  });
});

describe('single sign-on', () => {
  test('a second authorization needs no form; prompt=login and max_age ask again; prompt=none without a session is login_required', async () => {
    const jar = new Jar();
    const first = await signIn(jar, w.authUrl());
    const sid = redirectParams(first).get('session_state');
    const second = await jar.fetch(w.authUrl({ state: 'st-2' }));
    expect(second.status).toBe(302);
    expect(redirectParams(second).get('state')).toBe('st-2');
    expect(redirectParams(second).get('session_state')).toBe(sid);
    expect((await exchange(w, codeOf(second))).status).toBe(200);
    const none = await jar.fetch(w.authUrl({ prompt: 'none' }));
    expect(redirectParams(none).get('code')).toBeTruthy();
    const login = await jar.fetch(w.authUrl({ prompt: 'login' }));
    expect(login.status).toBe(200);
    const real = clock.now;
    clock.now = () => real() + 20_000;
    try {
      expect((await jar.fetch(w.authUrl({ max_age: '10' }))).status).toBe(200);
      expect((await jar.fetch(w.authUrl({ max_age: '3600' }))).status).toBe(302);
    } finally {
      clock.now = real;
    }
    const stranger = await new Jar().fetch(w.authUrl({ prompt: 'none' }));
    expect(redirectParams(stranger).get('error')).toBe('login_required');
    expect(redirectParams(stranger).get('state')).toBe('st-1');
  });

  test('ends when the admin API logs the session out', async () => {
    const jar = new Jar();
    const sid = redirectParams(await signIn(jar, w.authUrl())).get('session_state');
    await w.api.delete(`/admin/realms/login-b/sessions/${sid}`).expect(204);
    expect((await jar.fetch(w.authUrl())).status).toBe(200);
  });
});

describe('logout', () => {
  test('with id_token_hint: ends the session, clears the cookies, redirects with state', async () => {
    const jar = new Jar();
    const code = codeOf(await signIn(jar, w.authUrl()));
    const tokens = await exchange(w, code);
    const sid = decodeJwt(tokens.body.id_token as string).sid as string;
    const listed = async () =>
      (await w.api.get(`/admin/realms/login-b/users/${w.userId}/sessions`).expect(200)).body.map((s: { id: string }) => s.id);
    expect(await listed()).toContain(sid);
    const url = `${w.base}/realms/login-b/protocol/openid-connect/logout?${new URLSearchParams({
      id_token_hint: tokens.body.id_token as string,
      post_logout_redirect_uri: REDIRECT,
      state: 'bye',
    })}`;
    const res = await jar.fetch(url);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${REDIRECT}?state=bye`);
    expect(jar.cookies.has('KEYCLOAK_IDENTITY')).toBe(false);
    expect(await listed()).not.toContain(sid);
    expect((await jar.fetch(w.authUrl())).status).toBe(200);
  });

  test('without id_token_hint: a confirmation form first; a bad redirect is an error page', async () => {
    const jar = new Jar();
    const sid = redirectParams(await signIn(jar, w.authUrl())).get('session_state');
    const logoutUrl = `${w.base}/realms/login-b/protocol/openid-connect/logout`;
    const bad = await jar.fetch(`${logoutUrl}?client_id=app&post_logout_redirect_uri=${encodeURIComponent('http://evil.example/')}`);
    expect([bad.status, pageError(await bad.text())]).toEqual([400, 'Invalid redirect uri']);
    const confirm = await jar.fetch(logoutUrl);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toMatch(/Do you want to log out\?/);
    // A forged confirmation does nothing.
    const forged = await jar.post(formAction(html), { session_code: 'forged' });
    expect(forged.status).toBe(400);
    const code = /name="session_code" value="([^"]+)"/.exec(html)?.[1] as string;
    const done = await jar.post(formAction(html), { session_code: code });
    expect(done.status).toBe(200);
    expect(await done.text()).toMatch(/You are logged out/);
    const sessions = (await w.api.get(`/admin/realms/login-b/users/${w.userId}/sessions`).expect(200)).body;
    expect(sessions.map((s: { id: string }) => s.id)).not.toContain(sid);
  });
});

describe('brute force and events', () => {
  test('failures lock the user out (still "Invalid username or password."), and LOGIN_ERROR events say why', async () => {
    await w.api
      .post('/admin/realms/login-b/users', { username: 'bob', enabled: true, credentials: [{ type: 'password', value: 'pw' }] })
      .expect(201);
    const jar = new Jar();
    for (let i = 0; i < 3; i++) expect((await signIn(jar, w.authUrl(), 'bob', `bad-${i}`)).status).toBe(401);
    const locked = await signIn(jar, w.authUrl(), 'bob', 'pw');
    expect(locked.status).toBe(401);
    expect(pageError(await locked.text())).toBe('Invalid username or password.');
    const events = (await w.api.get('/admin/realms/login-b/events?type=LOGIN_ERROR&max=100').expect(200)).body as Array<{
      error: string;
      details?: Record<string, string>;
    }>;
    const errors = events.filter((e) => e.details?.username === 'bob').map((e) => e.error);
    expect(errors).toEqual(expect.arrayContaining(['invalid_user_credentials', 'user_temporarily_disabled']));
    const ok = (await w.api.get('/admin/realms/login-b/events?type=LOGIN&type=CODE_TO_TOKEN&type=LOGOUT&max=200').expect(200))
      .body as Array<{ type: string }>;
    expect(new Set(ok.map((e) => e.type))).toEqual(new Set(['LOGIN', 'CODE_TO_TOKEN', 'LOGOUT']));
  });
});
