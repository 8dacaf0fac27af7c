import { HOTP, Secret, TOTP } from 'otpauth';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn } from './browser-client';

/**
 * CONFIGURE_TOTP (the secret shown base32 and as an otpauth:// URI, a code proves the set-up, an
 * `otp` credential in Keycloak's layout) and auth-otp-form in the default browser flow's conditional
 * OTP sub-flow.
 */
let w: LoginWorld;
const R = '/admin/realms/login-otp';
beforeAll(async () => {
  w = await loginWorld('login-otp');
});
afterAll(() => w?.ts.close());

const secretOf = (html: string) => (/id="kc-totp-secret-key">([A-Z2-7]+)</.exec(html) as RegExpExecArray)[1];
const uriOf = (html: string) => (/id="kc-totp-uri" href="([^"]+)"/.exec(html) as RegExpExecArray)[1].replace(/&amp;/g, '&');
let secret = '';
const totp = (offset = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() + offset });

test('CONFIGURE_TOTP: a wrong code is refused, a code from the shown secret stores an otp credential', async () => {
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, requiredActions: ['CONFIGURE_TOTP'] }).expect(204);
  const jar = new Jar();
  let html = await (await signIn(jar, w.authUrl())).text();
  secret = secretOf(html);
  const uri = new URL(uriOf(html));
  expect(uri.protocol).toBe('otpauth:');
  expect(uri.host).toBe('totp');
  expect(uri.searchParams.get('secret')).toBe(secret);
  expect(uri.searchParams.get('digits')).toBe('6');
  // The QR code of the URI beside the key: an inline PNG (data: URL) with alt text, which the realm's default CSP allows.
  const qr = /<img id="kc-totp-secret-qr-code" src="data:image\/png;base64,([^"]+)" alt="([^"]+)"/.exec(html) as RegExpExecArray;
  expect(qr).not.toBeNull();
  expect(Buffer.from(qr[1], 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(qr[2]).toBe('QR code of the authenticator key');
  // The same secret on a reload of the page.
  html = await (await jar.fetch(formAction(html))).text();
  expect(secretOf(html)).toBe(secret);
  let res = await jar.post(formAction(html), { totp: '000000' === totp() ? '111111' : '000000', userLabel: 'phone' });
  expect(res.status).toBe(400);
  html = await res.text();
  expect(pageError(html)).toBe('Invalid authenticator code.');
  res = await jar.post(formAction(html), { totp: totp(), userLabel: 'phone' });
  expect(res.status).toBe(302);
  expect((await exchange(w, redirectParams(res).get('code') as string)).status).toBe(200);
  const creds = (await w.api.get(`${R}/users/${w.userId}/credentials`).expect(200)).body as Array<Record<string, unknown>>;
  const otp = creds.find((c) => c.type === 'otp') as Record<string, unknown>;
  expect(otp.userLabel).toBe('phone');
  expect(JSON.parse(otp.credentialData as string)).toMatchObject({
    subType: 'totp',
    digits: 6,
    period: 30,
    algorithm: 'HmacSHA1',
    counter: 0,
  });
  expect((await w.api.get(`${R}/users/${w.userId}`).expect(200)).body.requiredActions).toEqual([]);
  const events = (await w.api.get(`${R}/events?max=50`).expect(200)).body as Array<{ type: string }>;
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['UPDATE_TOTP', 'UPDATE_CREDENTIAL']));
});

test('a later login asks for the code: a wrong one is refused, a right one completes the login', async () => {
  const jar = new Jar();
  const afterPassword = await signIn(jar, w.authUrl());
  expect(afterPassword.status).toBe(200);
  let html = await afterPassword.text();
  expect(html).toContain('name="otp"');
  let res = await jar.post(formAction(html), { otp: totp(-120_000) });
  expect(res.status).toBe(401);
  html = await res.text();
  expect(pageError(html)).toBe('Invalid authenticator code.');
  res = await jar.post(formAction(html), { otp: totp() });
  expect(res.status).toBe(302);
  expect((await exchange(w, redirectParams(res).get('code') as string)).status).toBe(200);
  const errors = (await w.api.get(`${R}/events?type=LOGIN_ERROR&max=50`).expect(200)).body as Array<{ error: string }>;
  expect(errors.map((e) => e.error)).toContain('invalid_user_credentials');
});

test('HOTP policy: the counter moves on, a used code is refused', async () => {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, otpPolicyType: 'hotp', otpPolicyDigits: 8, otpPolicyInitialCounter: 0 }).expect(204);
  const creds = (await w.api.get(`${R}/users/${w.userId}/credentials`).expect(200)).body as Array<{ id: string; type: string }>;
  for (const c of creds.filter((x) => x.type === 'otp')) await w.api.delete(`${R}/users/${w.userId}/credentials/${c.id}`).expect(204);
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, requiredActions: ['CONFIGURE_TOTP'] }).expect(204);
  const jar = new Jar();
  let html = await (await signIn(jar, w.authUrl())).text();
  const s = Secret.fromBase32(secretOf(html));
  const hotp = (counter: number) => new HOTP({ secret: s, digits: 8 }).generate({ counter });
  let res = await jar.post(formAction(html), { totp: hotp(0) });
  expect(res.status).toBe(302);
  const jar2 = new Jar();
  html = await (await signIn(jar2, w.authUrl())).text();
  res = await jar2.post(formAction(html), { otp: hotp(0) });
  expect(res.status).toBe(401);
  html = await res.text();
  res = await jar2.post(formAction(html), { otp: hotp(1) });
  expect(res.status).toBe(302);
  await w.api.put(R, { ...realm, otpPolicyType: 'totp', otpPolicyDigits: 6 }).expect(204);
});
