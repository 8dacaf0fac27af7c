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
