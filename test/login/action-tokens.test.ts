import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { realmKeys } from '../../src/auth/realm-keys';
import { clock } from '../../src/core/clock';
import { type ReceivedMail, startSmtp, type TestSmtp } from '../helpers/smtp';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * The links of the e-mails (issue 14, item 4) followed by a scripted browser: execute-actions-email
 * and send-verify-email through a real SMTP listener, the VERIFY_EMAIL required action's own mail.
 * A link performs its actions once; used, expired, forged or stale links end on Keycloak's pages.
 */
let w: LoginWorld;
let smtp: TestSmtp;
const R = '/admin/realms/login-at';

beforeAll(async () => {
  smtp = await startSmtp();
  w = await loginWorld('login-at', {
    adminEventsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' },
  });
  const [client] = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body;
  await w.api.put(`${R}/clients/${client.id}`, { ...client, directAccessGrantsEnabled: true }).expect(204);
});
afterAll(async () => {
  await w?.ts.close();
  await smtp?.close();
});
beforeEach(() => {
  smtp.messages.length = 0;
});

const linkOf = (mail: ReceivedMail) => {
  const m = /(http:\/\/\S+\/login-actions\/action-token\?\S+)/.exec(mail.text);
  if (!m) throw new Error(`no link in ${mail.text}`);
  return m[1];
};
const user = async () => (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
const setUser = async (changes: Record<string, unknown>) =>
  w.api.put(`${R}/users/${w.userId}`, { ...(await user()), ...changes }).expect(204);
const passwordGrant = (password: string) =>
  fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'app', username: 'alice', password, scope: 'openid' }),
  });
const infoText = (html: string) => /id="kc-info-message"[^>]*>([^<]*)</.exec(html)?.[1];
const backLink = (html: string) => /id="backToApplication" href="([^"]+)"/.exec(html)?.[1];
const events = async () =>
  (await w.api.get(`${R}/events?max=200`).expect(200)).body as Array<{ type: string; error?: string; details?: Record<string, string> }>;

async function executeActions(actions: string[], query = `client_id=app&redirect_uri=${encodeURIComponent(REDIRECT)}`): Promise<string> {
  await w.api.put(`${R}/users/${w.userId}/execute-actions-email?${query}`, actions).expect(204);
  const [mail] = await smtp.waitFor(1);
  smtp.messages.length = 0;
  return linkOf(mail);
}

test('execute-actions: the link runs UPDATE_PASSWORD, ends on "account updated" with the way back; the new password works; twice is refused', async () => {
  await setUser({ emailVerified: false });
  const link = await executeActions(['UPDATE_PASSWORD']);
  const jar = new Jar();
  let res = await jar.fetch(link);
  expect(res.status).toBe(200);
  let html = await res.text();
  expect(html).toContain('name="password-new"');
  res = await jar.post(formAction(html), { 'password-new': 'other', 'password-confirm': 'mismatch' });
  html = await res.text();
  expect(pageError(html)).toBe("Passwords don't match.");
  res = await jar.post(formAction(html), { 'password-new': 'newpass-1', 'password-confirm': 'newpass-1' });
  expect(res.status).toBe(200);
  html = await res.text();
  expect(infoText(html)).toBe('Your account has been updated.');
  expect(backLink(html)).toBe(REDIRECT);
  // No login came of it: no code, no SSO cookie.
  expect(jar.cookies.has('KEYCLOAK_IDENTITY')).toBe(false);
  expect((await passwordGrant('newpass-1')).status).toBe(200);
  expect((await passwordGrant('pw')).status).toBe(400);
  // The mail reached the user: the address counts as verified.
  expect((await user()).emailVerified).toBe(true);

  // The same link again, in this browser or another: Keycloak's "action expired".
  for (const again of [jar, new Jar()]) {
    res = await again.fetch(link);
    expect(res.status).toBe(400);
    expect(pageError(await res.text())).toBe('Action expired. Please continue with login now.');
  }
  expect((await passwordGrant('newpass-1')).status).toBe(200);
  const types = (await events()).map((e) => `${e.type}${e.error ? `:${e.error}` : ''}`);
  expect(types).toEqual(expect.arrayContaining(['EXECUTE_ACTIONS', 'UPDATE_PASSWORD', 'EXECUTE_ACTIONS_ERROR:expired_code']));
  await w.api.put(`${R}/users/${w.userId}/reset-password`, { type: 'password', value: 'pw', temporary: false }).expect(204);
});

test('a link left half-way can be followed again; several actions run in the realm order, the user keeps no action', async () => {
  const terms = (await w.api.get(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`).expect(200)).body;
  await w.api.put(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`, { ...terms, enabled: true }).expect(204);
  const link = await executeActions(['UPDATE_PASSWORD', 'TERMS_AND_CONDITIONS'], 'client_id=app');
  // The realm's order: terms (priority 20) before the password (30).
  const first = await new Jar().fetch(link);
  expect(await first.text()).toContain('id="kc-terms-text"');
  const jar = new Jar();
  let res = await jar.fetch(link);
  let html = await res.text();
  expect(html).toContain('id="kc-terms-text"');
  res = await jar.post(formAction(html), { accept: 'accept' });
  html = await res.text();
  expect(html).toContain('name="password-new"');
  res = await jar.post(formAction(html), { 'password-new': 'pw', 'password-confirm': 'pw' });
  html = await res.text();
  expect(infoText(html)).toBe('Your account has been updated.');
  // Without a redirect URI there is no way back to show.
  expect(backLink(html)).toBeUndefined();
  const u = await user();
  expect(u.requiredActions).toEqual([]);
  // Keycloak's terms_and_conditions attribute (unmanaged: not in the admin representation by default).
  expect(await w.ts.db.models.UserAttribute.count({ where: { userId: w.userId, name: 'terms_and_conditions' } })).toBe(1);
  expect((await jar.fetch(link)).status).toBe(400);
});

test('an expired link shows "Action expired."; nothing changes', async () => {
  const link = await executeActions(['UPDATE_PASSWORD'], 'client_id=app&lifespan=60');
  const real = clock.now;
  clock.now = () => real() + 61_000;
  try {
    const res = await new Jar().fetch(link);
    expect(res.status).toBe(400);
    expect(pageError(await res.text())).toBe('Action expired.');
  } finally {
    clock.now = real;
  }
  const ev = (await events()).find((e) => e.type === 'EXECUTE_ACTION_TOKEN_ERROR');
  expect(ev?.error).toBe('expired_code');
  // Still valid before its time.
  expect((await new Jar().fetch(link)).status).toBe(200);
});

test('forged, missing and stale links: Keycloak error pages', async () => {
  const link = await executeActions(['UPDATE_PASSWORD']);
  const url = new URL(link);
  const key = url.searchParams.get('key') as string;
  const [h, p, s] = key.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
  const page = async (k: string | null) => {
    const u = new URL(link);
    if (k === null) u.searchParams.delete('key');
    else u.searchParams.set('key', k);
    const res = await new Jar().fetch(u.toString());
    return { status: res.status, error: pageError(await res.text()) };
  };
  expect(await page(forged)).toEqual({ status: 400, error: 'An error occurred, please login again through your application.' });
  expect(await page(null)).toEqual({ status: 400, error: 'Invalid Request' });
  expect(await page('not-a-token')).toEqual({ status: 400, error: 'Invalid Request' });
  // The client's redirect URIs changed since the mail: the way back is no longer allowed.
  const [client] = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body;
  await w.api.put(`${R}/clients/${client.id}`, { ...client, redirectUris: ['http://elsewhere.example/*'] }).expect(204);
  try {
    expect(await page(key)).toEqual({ status: 400, error: 'Invalid redirect uri' });
  } finally {
    await w.api.put(`${R}/clients/${client.id}`, client).expect(204);
  }
  // The user changed the address since the mail.
  await setUser({ email: 'alice2@example.org' });
  try {
    expect(await page(key)).toEqual({ status: 400, error: 'An error occurred, please login again through your application.' });
  } finally {
    await setUser({ email: 'alice@example.org' });
  }
  await setUser({ enabled: false });
  try {
    expect(await page(key)).toEqual({ status: 400, error: 'Account is disabled, contact your administrator.' });
  } finally {
    await setUser({ enabled: true });
  }
  expect((await page(key)).status).toBe(200);
});

test('a link is signed with the realm HS512 key; one signed RS256 by the realm (as before) still opens, an unsigned one does not', async () => {
  const link = await executeActions(['UPDATE_PASSWORD']);
  const key = new URL(link).searchParams.get('key') as string;
  // Keycloak's action tokens are TokenCategory.INTERNAL (DefaultTokenManager#signatureAlgorithm): HS512.
  const active = (await w.api.get(`${R}/keys`).expect(200)).body.active;
  expect(decodeProtectedHeader(key)).toEqual({ alg: 'HS512', typ: 'JWT', kid: active.HS512 });
  const claims = decodeJwt(key);
  const realmId = (await w.api.get(R).expect(200)).body.id as string;
  const rs = (await realmKeys(w.ts.db, { id: realmId })).find((k) => k.kid === active.RS256);
  const open = async (k: string) => {
    const u = new URL(link);
    u.searchParams.set('key', k);
    const res = await new Jar().fetch(u.toString());
    return { status: res.status, error: pageError(await res.text()) };
  };
  const resigned = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: active.RS256 })
    .sign(rs?.privateKey as Parameters<SignJWT['sign']>[0]);
  expect((await open(resigned)).status).toBe(200);
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${key.split('.')[1]}.`;
  expect(await open(unsigned)).toEqual({ status: 400, error: 'An error occurred, please login again through your application.' });
});

test('send-verify-email: the link verifies the address directly, once', async () => {
  await setUser({ emailVerified: false, requiredActions: ['VERIFY_EMAIL'] });
  await w.api.put(`${R}/users/${w.userId}/send-verify-email?client_id=app&redirect_uri=${encodeURIComponent(REDIRECT)}`).expect(204);
  const [mail] = await smtp.waitFor(1);
  const link = linkOf(mail);
  let res = await new Jar().fetch(link);
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(infoText(html)).toBe('Your email address has been verified.');
  expect(backLink(html)).toBe(REDIRECT);
  const u = await user();
  expect(u.emailVerified).toBe(true);
  expect(u.requiredActions).toEqual([]);
  res = await new Jar().fetch(link);
  expect(res.status).toBe(400);
  expect(pageError(await res.text())).toBe('Action expired. Please continue with login now.');
  const verified = (await events()).find((e) => e.type === 'VERIFY_EMAIL');
  expect(verified?.details?.email).toBe('alice@example.org');
});

test('VERIFY_EMAIL required action: the login mails a link (and again on request); the link in that browser finishes the login', async () => {
  await setUser({ emailVerified: false, requiredActions: ['VERIFY_EMAIL'] });
  const jar = new Jar();
  let res = await signIn(jar, w.authUrl());
  expect(res.status).toBe(200);
  let html = await res.text();
  expect(html).toContain('has been sent to your address alice@example.org.');
  const [first] = await smtp.waitFor(1);
  expect(first.subject).toBe('Verify email');
  expect(first.text).toContain('This link will expire within 5 minutes.');
  // A reload does not send another mail; the button does.
  res = await jar.fetch(formAction(html));
  html = await res.text();
  res = await jar.post(formAction(html), { resend: 'resend' });
  expect(res.status).toBe(200);
  html = await res.text();
  const mails = await smtp.waitFor(2);
  expect(mails).toHaveLength(2);
  // The code is only issued after the link is followed.
  res = await jar.fetch(linkOf(mails[1]));
  expect(res.status).toBe(302);
  const params = redirectParams(res);
  expect(params.get('state')).toBe('st-1');
  expect((await exchange(w, params.get('code') as string)).status).toBe(200);
  const u = await user();
  expect(u.emailVerified).toBe(true);
  expect(u.requiredActions).toEqual([]);
  const types = (await events()).map((e) => e.type);
  expect(types.filter((t) => t === 'SEND_VERIFY_EMAIL')).toHaveLength(2);
  expect(types).toContain('VERIFY_EMAIL');
  // The other link, in another browser: the address is verified already, the link still verifies once.
  res = await new Jar().fetch(linkOf(mails[0]));
  expect(infoText(await res.text())).toBe('Your email address has been verified.');
});

test("the realm's verifyEmail switch asks an unverified user at login; a verified one passes", async () => {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, verifyEmail: true }).expect(204);
  try {
    await setUser({ emailVerified: false, requiredActions: [] });
    let res = await signIn(new Jar(), w.authUrl());
    expect(await res.text()).toContain('id="kc-verify-email-form"');
    await smtp.waitFor(1);
    await setUser({ emailVerified: true, requiredActions: ['VERIFY_EMAIL'] });
    res = await signIn(new Jar(), w.authUrl());
    expect(res.status).toBe(302);
    expect((await user()).requiredActions).toEqual([]);
  } finally {
    await w.api.put(R, { ...realm, verifyEmail: false }).expect(204);
  }
});

test("reset-password-email (Keycloak's deprecated spelling): an execute-actions link for UPDATE_PASSWORD, the realm's lifespan", async () => {
  await w.api
    .put(`${R}/users/${w.userId}/reset-password-email?client_id=app&redirect_uri=${encodeURIComponent(REDIRECT)}&lifespan=60`)
    .expect(204);
  const [mail] = await smtp.waitFor(1);
  expect(mail.subject).toBe('Update Your Account');
  expect(mail.text).toContain('Update Password');
  expect(mail.text).toContain('This link will expire within 12 hours.');
  const jar = new Jar();
  let res = await jar.fetch(linkOf(mail));
  const html = await res.text();
  res = await jar.post(formAction(html), { 'password-new': 'via-reset-1', 'password-confirm': 'via-reset-1' });
  expect(infoText(await res.text())).toBe('Your account has been updated.');
  expect((await passwordGrant('via-reset-1')).status).toBe(200);
  const admin = (await w.api.get(`${R}/admin-events?max=5`).expect(200)).body as Array<{ resourcePath: string }>;
  expect(admin.map((e) => e.resourcePath)).toContain(`users/${w.userId}/reset-password-email`);
  await w.api.put(`${R}/users/${w.userId}/reset-password`, { type: 'password', value: 'pw', temporary: false }).expect(204);
});

test('declining the terms on a link ends on an error page; nothing is sent to the application and the link is not spent', async () => {
  const terms = (await w.api.get(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`).expect(200)).body;
  await w.api.put(`${R}/authentication/required-actions/TERMS_AND_CONDITIONS`, { ...terms, enabled: true }).expect(204);
  const link = await executeActions(['TERMS_AND_CONDITIONS']);
  const jar = new Jar();
  let res = await jar.fetch(link);
  res = await jar.post(formAction(await res.text()), { cancel: 'cancel' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(pageError(await res.text())).toBe('Access denied');
  res = await jar.fetch(link);
  expect(await res.text()).toContain('id="kc-terms-text"');
});
