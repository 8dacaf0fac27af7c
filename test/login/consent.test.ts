import { createClient } from '../helpers/fixtures';
import { formAction, Jar, type LoginWorld, loginWorld, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * The consent screen (issue 14): a client with consentRequired asks after authentication for the
 * requested client scopes shown on the consent screen (texts `${key}` through the realm's texts), Yes
 * stores the consent (what GET /users/{id}/consents lists), No sends access_denied; a later login with
 * the same scopes does not ask, a new optional scope does; revoking the consent asks again and stops
 * the refresh of tokens issued on it (their client session is revoked with it).
 */
let w: LoginWorld;
const R = '/admin/realms/login-consent';

beforeAll(async () => {
  w = await loginWorld('login-consent', { internationalizationEnabled: true, supportedLocales: ['en'], defaultLocale: 'en' });
  await createClient(w.api, 'login-consent', {
    clientId: 'third',
    name: 'Third Party',
    publicClient: true,
    consentRequired: true,
    directAccessGrantsEnabled: true,
    redirectUris: [REDIRECT],
  });
  await w.api.put(`${R}/localization/en/profileScopeConsentText`).set('Content-Type', 'text/plain').send('Your profile').expect(204);
});
afterAll(() => w?.ts.close());

const auth = (params: Record<string, string> = {}) => w.authUrl({ client_id: 'third', ...params });
const htmlText = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
/** The lines of a consent page (null when the answer is no consent page). */
const grants = (html: string) => {
  const list = /<ul id="kc-oauth-scopes">([\s\S]*?)<\/ul>/.exec(html);
  return list ? [...list[1].matchAll(/<span>([^<]*)<\/span>/g)].map((m) => htmlText(m[1])).sort() : null;
};
const consents = async () => (await w.api.get(`${R}/users/${w.userId}/consents`).expect(200)).body as Array<Record<string, unknown>>;
const revoke = () => w.api.delete(`${R}/users/${w.userId}/consents/third`);
const lastLogin = async (type = 'LOGIN') =>
  ((await w.api.get(`${R}/events?type=${type}&client=third&max=1`).expect(200)).body as Array<Record<string, unknown>>)[0];
const exchange = async (code: string) => {
  const res = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'third', code, redirect_uri: REDIRECT }),
  });
  return (await res.json()) as Record<string, string>;
};
const refresh = (token: string) =>
  fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'third', refresh_token: token }),
  });

beforeEach(async () => {
  const res = await revoke();
  expect([204, 404]).toContain(res.status);
});

test('Yes stores the consent; the same scopes later do not ask again; a new optional scope asks for it alone', async () => {
  const res = await signIn(new Jar(), auth());
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('Grant Access to Third Party');
  // Default scopes shown on the consent screen: profile (the realm's text for its key), email, roles; not web-origins, acr, basic.
  expect(grants(html)).toEqual(['Email address', 'User roles', 'Your profile']);
  const jar = new Jar();
  const page = await signIn(jar, auth());
  const yes = await jar.post(formAction(await page.text()), { accept: 'yes' });
  expect(yes.status).toBe(302);
  expect(redirectParams(yes).get('code')).toBeTruthy();
  expect(redirectParams(yes).get('state')).toBe('st-1');
  expect((await lastLogin()).details).toMatchObject({ consent: 'consent_granted' });
  const [consent] = await consents();
  expect(consent).toMatchObject({ clientId: 'third', additionalGrants: [] });
  expect((consent.grantedClientScopes as string[]).sort()).toEqual(['email', 'profile', 'roles']);
  expect(typeof consent.createdDate).toBe('number');

  const again = await signIn(new Jar(), auth());
  expect(again.status).toBe(302);
  expect((await lastLogin()).details).toMatchObject({ consent: 'persistent_consent' });

  const phoneJar = new Jar();
  const phone = await signIn(phoneJar, auth({ scope: 'openid phone' }));
  const phoneHtml = await phone.text();
  expect(grants(phoneHtml)).toEqual(['Phone number']);
  const granted = await phoneJar.post(formAction(phoneHtml), { accept: 'yes' });
  expect(granted.status).toBe(302);
  // The token's scopes are the granted ones.
  expect((await exchange(redirectParams(granted).get('code') as string)).scope.split(' ').sort()).toEqual([
    'email',
    'openid',
    'phone',
    'profile',
  ]);
  expect(((await consents())[0].grantedClientScopes as string[]).sort()).toEqual(['email', 'phone', 'profile', 'roles']);
});

test('No sends access_denied to the client and stores nothing', async () => {
  const jar = new Jar();
  const page = await signIn(jar, auth());
  const no = await jar.post(formAction(await page.text()), { cancel: 'no' });
  expect(no.status).toBe(302);
  expect(no.headers.get('location')?.startsWith(REDIRECT)).toBe(true);
  expect(redirectParams(no).get('error')).toBe('access_denied');
  expect(redirectParams(no).get('state')).toBe('st-1');
  expect(redirectParams(no).get('code')).toBeNull();
  expect((await lastLogin('LOGIN_ERROR')).error).toBe('rejected_by_user');
  expect(await consents()).toEqual([]);
});

test('revoking the consent asks again and ends the refresh of the tokens issued on it', async () => {
  const jar = new Jar();
  const page = await signIn(jar, auth());
  const tokens = await exchange(redirectParams(await jar.post(formAction(await page.text()), { accept: 'yes' })).get('code') as string);
  expect((await refresh(tokens.refresh_token)).status).toBe(200);
  expect((await revoke()).status).toBe(204);
  const refused = await refresh(tokens.refresh_token);
  expect(refused.status).toBe(400);
  // Keycloak's revokeConsent logs the client out of the user's sessions (backchannelLogoutUserFromClient),
  // so TokenManager#validateToken refuses before its consent check: the client session is gone.
  expect(await refused.json()).toEqual({ error: 'invalid_grant', error_description: "Session doesn't have required client" });
  expect(await consents()).toEqual([]);
  expect(grants(await (await signIn(new Jar(), auth())).text())).toEqual(['Email address', 'User roles', 'Your profile']);
  expect((await revoke()).status).toBe(404);
});

test("revoking a refresh token at the revocation endpoint revokes the consent too (Keycloak's revokeClient)", async () => {
  const jar = new Jar();
  const page = await signIn(jar, auth());
  const tokens = await exchange(redirectParams(await jar.post(formAction(await page.text()), { accept: 'yes' })).get('code') as string);
  expect(await consents()).toHaveLength(1);
  const res = await fetch(`${w.base}/realms/login-consent/protocol/openid-connect/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'third', token: tokens.refresh_token }),
  });
  expect(res.status).toBe(200);
  expect(await consents()).toEqual([]);
  expect((await refresh(tokens.refresh_token)).status).toBe(400);
});

test('prompt=consent asks although granted; prompt=none with a consent to give is interaction_required', async () => {
  const jar = new Jar();
  const page = await signIn(jar, auth());
  expect((await jar.post(formAction(await page.text()), { accept: 'yes' })).status).toBe(302);
  // Signed in (SSO): prompt=consent shows the page again at once.
  const asked = await jar.fetch(auth({ prompt: 'consent' }));
  expect(grants(await asked.text())).toEqual(['Email address', 'User roles', 'Your profile']);
  const silent = await jar.fetch(auth({ prompt: 'none', scope: 'openid address' }));
  expect(silent.status).toBe(302);
  expect(redirectParams(silent).get('error')).toBe('interaction_required');
});

test('a stale consent form does not grant: the page is shown again', async () => {
  const jar = new Jar();
  const page = await signIn(jar, auth());
  const action = formAction(await page.text());
  const forged = action.replace(/session_code=[^&]+/, 'session_code=forged');
  const res = await jar.post(forged, { accept: 'yes' });
  expect(res.status).toBe(200);
  expect(grants(await res.text())).toEqual(['Email address', 'User roles', 'Your profile']);
  expect(await consents()).toEqual([]);
});

test('the password grant refuses a client that requires consent', async () => {
  const res = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'third', username: 'alice', password: 'pw' }),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'Client requires user consent' });
});
