import { randomUUID } from 'node:crypto';
import { type ReceivedMail, startSmtp, type TestSmtp } from '../helpers/smtp';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, REDIRECT, redirectParams } from './browser-client';

/**
 * "Forgot password?" (issue 14, items 2 and 4): the login page's link when the realm allows resets,
 * the realm's reset-credentials flow (choose user, e-mail with a reset-credentials action token, new
 * password, OTP reset for users with OTP), the link followed in the browser that asked (the login goes
 * on to the application) or in another one (ends on "account updated"); once only.
 */
let w: LoginWorld;
let smtp: TestSmtp;
const R = '/admin/realms/login-reset';

beforeAll(async () => {
  smtp = await startSmtp();
  w = await loginWorld('login-reset', { smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@idserver.test' } });
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

const setRealm = async (changes: Record<string, unknown>) =>
  w.api.put(R, { ...(await w.api.get(R).expect(200)).body, ...changes }).expect(204);
const linkOf = (mail: ReceivedMail) => {
  const m = /(http:\/\/\S+\/login-actions\/action-token\?\S+)/.exec(mail.text);
  if (!m) throw new Error(`no link in ${mail.text}`);
  return m[1];
};
const forgotLink = (html: string) => /id="kc-forgot-password" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
const infoText = (html: string) => /id="kc-info-message"[^>]*>([^<]*)</.exec(html)?.[1];
const passwordGrant = (password: string) =>
  fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'app', username: 'alice', password, scope: 'openid' }),
  });
const resetPassword = (password: string) =>
  w.api.put(`${R}/users/${w.userId}/reset-password`, { type: 'password', value: password, temporary: false }).expect(204);

/** Opens the login page and follows its "Forgot Password?" link: the reset form. */
async function openReset(jar: Jar): Promise<string> {
  const login = await jar.fetch(w.authUrl());
  const href = forgotLink(await login.text());
  expect(href).toBeDefined();
  const res = await jar.fetch(new URL(href as string, w.base).toString());
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('id="kc-reset-password-form"');
  return html;
}

test('not allowed by the realm: no link on the login page, the endpoint refuses', async () => {
  const jar = new Jar();
  const login = await jar.fetch(w.authUrl());
  expect(forgotLink(await login.text())).toBeUndefined();
  const res = await jar.fetch(`${w.base}/realms/login-reset/login-actions/reset-credentials?client_id=app`);
  expect(res.status).toBe(400);
  expect(pageError(await res.text())).toBe('Reset Credential not allowed');
});

test('forgot password in one browser: e-mail, link, new password, then the login goes on to the application; once only', async () => {
  await setRealm({ resetPasswordAllowed: true });
  const jar = new Jar();
  let html = await openReset(jar);
  let res = await jar.post(formAction(html), { username: '' });
  html = await res.text();
  expect(pageError(html)).toBe('Please specify username.');
  // An unknown name is not revealed: the same page, but no mail.
  res = await jar.post(formAction(html), { username: 'nobody' });
  expect(infoText(await res.text())).toBe('You should receive an email shortly with further instructions.');
  html = await openReset(jar);
  res = await jar.post(formAction(html), { username: 'alice@example.org' });
  expect(res.status).toBe(200);
  expect(infoText(await res.text())).toBe('You should receive an email shortly with further instructions.');
  const mails = await smtp.waitFor(1);
  expect(mails).toHaveLength(1);
  expect(mails[0].recipients).toEqual(['alice@example.org']);
  expect(mails[0].subject).toBe('Reset password');
  expect(mails[0].text).toContain('This link and code will expire within 5 minutes.');
  const link = linkOf(mails[0]);
  res = await jar.fetch(link);
  expect(res.status).toBe(200);
  html = await res.text();
  expect(html).toContain('name="password-new"');
  res = await jar.post(formAction(html), { 'password-new': 'reset-pw-1', 'password-confirm': 'reset-pw-1' });
  expect(res.status).toBe(302);
  const params = redirectParams(res);
  expect(res.headers.get('location')?.startsWith(REDIRECT)).toBe(true);
  expect(params.get('state')).toBe('st-1');
  expect((await exchange(w, params.get('code') as string)).status).toBe(200);
  expect((await passwordGrant('reset-pw-1')).status).toBe(200);
  expect((await passwordGrant('pw')).status).toBe(400);
  res = await new Jar().fetch(link);
  expect(res.status).toBe(400);
  expect(pageError(await res.text())).toBe('Action expired. Please continue with login now.');
  const events = (await w.api.get(`${R}/events?max=100`).expect(200)).body as Array<{ type: string; error?: string }>;
  const types = events.map((e) => `${e.type}${e.error ? `:${e.error}` : ''}`);
  expect(types).toEqual(
    expect.arrayContaining(['SEND_RESET_PASSWORD', 'RESET_PASSWORD', 'RESET_PASSWORD_ERROR:user_not_found', 'UPDATE_PASSWORD', 'LOGIN']),
  );
  await resetPassword('pw');
});

test('the link in another browser: the new password, then "account updated"; by default (no reset-otp config) the OTP device is kept and a new one set up', async () => {
  await setRealm({ resetPasswordAllowed: true });
  const jar = new Jar();
  let html = await openReset(jar);
  let res = await jar.post(formAction(html), { username: 'alice' });
  const [mail] = await smtp.waitFor(1);
  const other = new Jar();
  res = await other.fetch(linkOf(mail));
  html = await res.text();
  expect(html).toContain('name="password-new"');
  res = await other.post(formAction(html), { 'password-new': 'elsewhere-1', 'password-confirm': 'elsewhere-1' });
  expect(res.status).toBe(200);
  expect(infoText(await res.text())).toBe('Your account has been updated.');
  expect((await passwordGrant('elsewhere-1')).status).toBe(200);
  await resetPassword('pw');

  // A user with an OTP device: the default flow's conditional OTP reset (no config: "Remove none") keeps it and asks for a new one.
  await addOtpDevice('phone');
  smtp.messages.length = 0;
  const again = new Jar();
  html = await openReset(again);
  await again.post(formAction(html), { username: 'alice' });
  const [mail2] = await smtp.waitFor(1);
  res = await again.fetch(linkOf(mail2));
  html = await res.text();
  res = await again.post(formAction(html), { 'password-new': 'withotp-1', 'password-confirm': 'withotp-1' });
  html = await res.text();
  expect(html).toContain('id="kc-totp-settings-form"');
  // Read below the API: the credential rows themselves.
  expect(await otpCount()).toBe(1);
  await w.ts.db.models.Credential.destroy({ where: { userId: w.userId, type: 'otp' } });
  await resetPassword('pw');
});

/** Gives alice an OTP device (a credential row in Keycloak's layout). */
async function addOtpDevice(label: string): Promise<string> {
  const id = randomUUID();
  await w.ts.db.models.Credential.create({
    id,
    userId: w.userId,
    type: 'otp',
    userLabel: label,
    priority: 20,
    createdDate: Date.now(),
    secretData: JSON.stringify({ value: 'JBSWY3DPEHPK3PXP' }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
  });
  return id;
}
const otpCount = () => w.ts.db.models.Credential.count({ where: { userId: w.userId, type: 'otp' } });

/** Sets reset-otp's `action_on_otp_reset_flag` in the realm's reset credentials flow. */
async function setOtpResetOption(option: string): Promise<void> {
  const execs = (await w.api.get(`${R}/authentication/flows/reset%20credentials/executions`).expect(200)).body as Array<{
    id: string;
    providerId?: string;
    authenticationConfig?: string;
  }>;
  const exec = execs.find((e) => e.providerId === 'reset-otp');
  if (!exec) throw new Error('no reset-otp execution');
  if (exec.authenticationConfig) {
    await w.api
      .put(`${R}/authentication/config/${exec.authenticationConfig}`, { alias: 'otp-reset', config: { action_on_otp_reset_flag: option } })
      .expect(204);
  } else {
    await w.api
      .post(`${R}/authentication/executions/${exec.id}/config`, { alias: 'otp-reset', config: { action_on_otp_reset_flag: option } })
      .expect(201);
  }
}

/** Asks for a reset in one browser and opens the mailed link in a new one: its first page. */
async function linkInOtherBrowser(): Promise<{ jar: Jar; html: string }> {
  smtp.messages.length = 0;
  const asker = new Jar();
  const html = await openReset(asker);
  await asker.post(formAction(html), { username: 'alice' });
  const [mail] = await smtp.waitFor(1);
  const jar = new Jar();
  const res = await jar.fetch(linkOf(mail));
  return { jar, html: await res.text() };
}

test('reset-otp "Remove all" and "Remove one" (action_on_otp_reset_flag) apply to a link opened in another browser too', async () => {
  await setRealm({ resetPasswordAllowed: true });
  await setOtpResetOption('Remove all');
  await addOtpDevice('phone');
  await addOtpDevice('tablet');
  let { jar, html } = await linkInOtherBrowser();
  // reset-otp ran before the actions; CONFIGURE_TOTP comes first in the realm's order, then the new password.
  expect(html).toContain('id="kc-totp-settings-form"');
  expect(await otpCount()).toBe(0);

  // "Remove one": the user picks the device that goes; none picked shows the page again.
  await setOtpResetOption('Remove one');
  const phone = await addOtpDevice('phone');
  await addOtpDevice('tablet');
  ({ jar, html } = await linkInOtherBrowser());
  expect(html).toContain('id="kc-otp-reset-form"');
  expect(html).toContain('tablet');
  let res = await jar.post(formAction(html), {});
  html = await res.text();
  expect(res.status).toBe(400);
  expect(pageError(html)).toBe('You must select an OTP configuration.');
  res = await jar.post(formAction(html), { selectedCredentialId: phone });
  html = await res.text();
  expect(html).toContain('id="kc-totp-settings-form"');
  expect(await otpCount()).toBe(1);
  expect(await w.ts.db.models.Credential.count({ where: { id: phone } })).toBe(0);
  await setOtpResetOption('Remove none');
  await w.ts.db.models.Credential.destroy({ where: { userId: w.userId, type: 'otp' } });
  await resetPassword('pw');
});

test('resets turned off after the mail: the link is refused', async () => {
  await setRealm({ resetPasswordAllowed: true });
  const jar = new Jar();
  const html = await openReset(jar);
  await jar.post(formAction(html), { username: 'alice' });
  const [mail] = await smtp.waitFor(1);
  await setRealm({ resetPasswordAllowed: false });
  const res = await jar.fetch(linkOf(mail));
  expect(res.status).toBe(400);
  expect(pageError(await res.text())).toBe('Reset Credential not allowed');
});
