import { clock } from '../../src/core/clock';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn } from './browser-client';

/**
 * Required actions after the browser flow (Keycloak's nextRequiredAction): UPDATE_PASSWORD with the
 * realm's password policy, TERMS_AND_CONDITIONS accepted or declined, disabled actions skipped.
 */
let w: LoginWorld;
const R = '/admin/realms/login-ra';
beforeAll(async () => {
  w = await loginWorld('login-ra');
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, passwordPolicy: 'length(8) and digits(1) and passwordHistory(2)' }).expect(204);
  const [client] = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body;
  await w.api.put(`${R}/clients/${client.id}`, { ...client, directAccessGrantsEnabled: true }).expect(204);
});
afterAll(() => w?.ts.close());

const setActions = async (actions: string[]) => {
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, requiredActions: actions }).expect(204);
};
const actionsOf = async () => (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body.requiredActions as string[];
/** The page again by GET (a new session code): the form it replaced is stale afterwards. */
async function reload2(jar: Jar, html: string): Promise<string> {
  const action = formAction(html);
  await jar.fetch(action);
  return html;
}
const setEnabled = async (alias: string, enabled: boolean) => {
  const rep = (await w.api.get(`${R}/authentication/required-actions/${alias}`).expect(200)).body;
  await w.api.put(`${R}/authentication/required-actions/${alias}`, { ...rep, enabled }).expect(204);
};
const passwordGrant = (password: string) =>
  fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'app', username: 'alice', password, scope: 'openid' }),
  });

test('UPDATE_PASSWORD: the form, the policy with its message, then a code; the new password works', async () => {
  await setActions(['UPDATE_PASSWORD']);
  const jar = new Jar();
  const form = await signIn(jar, w.authUrl(), 'alice', 'pw');
  expect(form.status).toBe(200);
  let html = await form.text();
  expect(html).toContain('name="password-new"');
  expect(formAction(html)).toContain('/login-actions/required-action?');
  // A GET of the page (a reload) shows the form again.
  const reload = await jar.fetch(formAction(html));
  expect(reload.status).toBe(200);
  html = await reload.text();
  let res = await jar.post(formAction(html), { 'password-new': 'short1', 'password-confirm': 'short1' });
  expect(res.status).toBe(400);
  html = await res.text();
  expect(pageError(html)).toBe('Invalid password: minimum length 8.');
  res = await jar.post(formAction(html), { 'password-new': 'longenough1', 'password-confirm': 'other' });
  html = await res.text();
  expect(pageError(html)).toBe("Passwords don't match.");
  res = await jar.post(formAction(html), { 'password-new': 'pw', 'password-confirm': 'pw' });
  html = await res.text();
  expect(pageError(html)).toBe('Invalid password: minimum length 8.');
  // A stale form (an earlier session_code) only shows the current page again, changing nothing.
  const stale = await jar.post(formAction(await reload2(jar, html)), { 'password-new': 'stale0000', 'password-confirm': 'stale0000' });
  html = await stale.text();
  expect(html).toContain('name="password-new"');
  expect(pageError(html)).toBeUndefined();
  res = await jar.post(formAction(html), { 'password-new': 'longenough1', 'password-confirm': 'longenough1' });
  expect(res.status).toBe(302);
  const code = redirectParams(res).get('code') as string;
  expect((await exchange(w, code)).status).toBe(200);
  expect(await actionsOf()).toEqual([]);
  expect((await passwordGrant('longenough1')).status).toBe(200);
  expect((await passwordGrant('pw')).status).toBe(400);
  const events = (await w.api.get(`${R}/events?max=100`).expect(200)).body as Array<{
    type: string;
    error?: string;
    details?: Record<string, string>;
  }>;
  const types = events.map((e) => e.type);
  expect(types).toContain('UPDATE_PASSWORD');
  expect(events.find((e) => e.type === 'UPDATE_CREDENTIAL')?.details?.credential_type).toBe('password');
  expect(events.filter((e) => e.type === 'UPDATE_PASSWORD_ERROR').map((e) => e.error)).toContain('password_confirm_error');
});

test('UPDATE_PASSWORD: the password history of the policy is enforced', async () => {
  await setActions(['UPDATE_PASSWORD']);
  const jar = new Jar();
  let html = await (await signIn(jar, w.authUrl(), 'alice', 'longenough1')).text();
  const res = await jar.post(formAction(html), { 'password-new': 'longenough1', 'password-confirm': 'longenough1' });
  html = await res.text();
  expect(pageError(html)).toBe('Invalid password: must not be equal to any of last 2 passwords.');
  const ok = await jar.post(formAction(html), { 'password-new': 'another22', 'password-confirm': 'another22' });
  expect(redirectParams(ok).get('code')).toBeTruthy();
});

test('TERMS_AND_CONDITIONS: accept completes the login and records the time; decline is access_denied', async () => {
  await setEnabled('TERMS_AND_CONDITIONS', true); // Keycloak registers it disabled
  await setActions(['TERMS_AND_CONDITIONS']);
  const jar = new Jar();
  let html = await (await signIn(jar, w.authUrl(), 'alice', 'another22')).text();
  expect(html).toContain('id="kc-terms-text"');
  const declined = await jar.post(formAction(html), { cancel: 'cancel' });
  expect(declined.status).toBe(302);
  expect(redirectParams(declined).get('error')).toBe('access_denied');
  expect(redirectParams(declined).get('state')).toBe('st-1');
  expect(await actionsOf()).toEqual(['TERMS_AND_CONDITIONS']);
  const jar2 = new Jar();
  html = await (await signIn(jar2, w.authUrl(), 'alice', 'another22')).text();
  const accepted = await jar2.post(formAction(html), { accept: 'accept' });
  expect(redirectParams(accepted).get('code')).toBeTruthy();
  expect(await actionsOf()).toEqual([]);
  // Keycloak's terms_and_conditions attribute (unmanaged, so not in the admin representation by default).
  const row = await w.ts.db.models.UserAttribute.findOne({ where: { userId: w.userId, name: 'terms_and_conditions' } });
  expect(Number(row?.value)).toBeGreaterThan(0);
});

test('several actions run in the realm order; a disabled one is skipped; prompt=none is interaction_required', async () => {
  await setActions(['TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD']);
  const jar = new Jar();
  let html = await (await signIn(jar, w.authUrl(), 'alice', 'another22')).text();
  // The default order: TERMS_AND_CONDITIONS before UPDATE_PASSWORD.
  expect(html).toContain('id="kc-terms-text"');
  let res = await jar.post(formAction(html), { accept: 'accept' });
  html = await res.text();
  expect(html).toContain('name="password-new"');
  res = await jar.post(formAction(html), { 'password-new': 'third333', 'password-confirm': 'third333' });
  expect(redirectParams(res).get('code')).toBeTruthy();
  // With SSO, prompt=none and a pending action: interaction_required.
  await setActions(['TERMS_AND_CONDITIONS']);
  const passive = await jar.fetch(w.authUrl({ prompt: 'none' }));
  expect(redirectParams(passive).get('error')).toBe('interaction_required');
  await setEnabled('TERMS_AND_CONDITIONS', false);
  const skipped = await signIn(new Jar(), w.authUrl(), 'alice', 'third333');
  expect(redirectParams(skipped).get('code')).toBeTruthy();
});

test('an expired password (forceExpiredPasswordChange) asks for a new one before the code', async () => {
  await setActions([]);
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, passwordPolicy: 'length(8) and forceExpiredPasswordChange(1)' }).expect(204);
  const real = clock.now;
  clock.now = () => real() + 2 * 86_400_000;
  try {
    const jar = new Jar();
    const html = await (await signIn(jar, w.authUrl(), 'alice', 'third333')).text();
    expect(html).toContain('name="password-new"');
    const res = await jar.post(formAction(html), { 'password-new': 'fourth444', 'password-confirm': 'fourth444' });
    expect(redirectParams(res).get('code')).toBeTruthy();
    expect(redirectParams(await signIn(new Jar(), w.authUrl(), 'alice', 'fourth444')).get('code')).toBeTruthy();
  } finally {
    clock.now = real; // the admin token must not have expired for the checks below
  }
  expect(await actionsOf()).toEqual([]);
  await w.api.put(R, realm).expect(204);
});
