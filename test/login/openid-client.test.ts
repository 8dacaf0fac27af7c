import { formAction, Jar, type LoginWorld, loginWorld, REDIRECT } from './browser-client';

type OidcClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' }});

/**
 * A real relying party: openid-client (v6) discovers the realm, builds an authorization URL with PKCE
 * (S256), state and nonce, and, after the login form is filled in, exchanges the code and checks the
 * ID token (signature, issuer, audience, nonce) and refreshes.
 */
let w: LoginWorld;
let oidc: OidcClient;
beforeAll(async () => {
  oidc = (await import('openid-client')) as OidcClient;
  w = await loginWorld('login-rp');
});
afterAll(() => w?.ts.close());

test('authorization code + PKCE with openid-client', async () => {
  const config = await oidc.discovery(new URL(`${w.base}/realms/login-rp`), 'app', undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const jar = new Jar();
  const form = await jar.fetch(url.href);
  expect(form.status).toBe(200);
  const back = await jar.post(formAction(await form.text()), { username: 'alice', password: 'pw' });
  expect(back.status).toBe(302);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(back.headers.get('location') as string), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  expect(claims?.sub).toBe(w.userId);
  expect(claims?.preferred_username).toBe('alice');
  expect(claims?.nonce).toBe(nonce);
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(refreshed.access_token).toBeTruthy();
  // A wrong verifier is refused by the server.
  const again = await jar.fetch(
    oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    }).href,
  );
  await expect(
    oidc.authorizationCodeGrant(config, new URL(again.headers.get('location') as string), {
      pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
      expectedState: state,
    }),
  ).rejects.toMatchObject({ error: 'invalid_grant', error_description: 'PKCE verification failed' });
});

/** Signs in at `url` (a fresh browser) and returns the response back to the client. */
async function signInAt(url: URL): Promise<Response> {
  const jar = new Jar();
  const form = await jar.fetch(url.href);
  expect(form.status).toBe(200);
  return jar.post(formAction(await form.text()), { username: 'alice', password: 'pw' });
}

test('openid-client: the hybrid flow (code id_token, form_post) and JARM (response_mode=jwt) responses validate', async () => {
  await w.api
    .post('/admin/realms/login-rp/clients', { clientId: 'hyb', publicClient: true, implicitFlowEnabled: true, redirectUris: [REDIRECT] })
    .expect(201);
  const discover = () =>
    oidc.discovery(new URL(`${w.base}/realms/login-rp`), 'hyb', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const pkce = { code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' };

  // Hybrid: openid-client checks the front-channel ID token (signature, nonce, c_hash, s_hash) before the exchange.
  const hybrid = await discover();
  oidc.useCodeIdTokenResponseType(hybrid);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(hybrid, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    response_mode: 'form_post',
    state,
    nonce,
    ...pkce,
  });
  const page = await signInAt(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(m[1], m[2]);
  const callback = new Request(REDIRECT, {
    method: 'POST',
    body: fields,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const tokens = await oidc.authorizationCodeGrant(hybrid, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  expect(tokens.claims()?.preferred_username).toBe('alice');

  // JARM: the signed `response` is verified against the realm's JWKS (iss, aud, exp) before the exchange.
  const jarm = await discover();
  oidc.useJwtResponseMode(jarm);
  const state2 = oidc.randomState();
  const back = await signInAt(oidc.buildAuthorizationUrl(jarm, { redirect_uri: REDIRECT, scope: 'openid', state: state2, ...pkce }));
  const location = new URL(back.headers.get('location') as string);
  expect([...location.searchParams.keys()]).toEqual(['response']);
  const viaJarm = await oidc.authorizationCodeGrant(jarm, location, { pkceCodeVerifier: verifier, expectedState: state2 });
  expect(viaJarm.access_token).toBeTruthy();
});
