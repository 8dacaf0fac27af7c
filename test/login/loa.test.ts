import { Secret, TOTP } from 'otpauth';
import { advanceClock, resetClock } from '../helpers/sessions';
import { exchange, formAction, Jar, type LoginWorld, loginWorld, pageError, redirectParams, signIn } from './browser-client';

/**
 * Step-up authentication (level of authentication), as Keycloak's ConditionalLoaAuthenticator,
 * AcrStore, AcrUtils and AcrProtocolMapper do it: a browser flow of two levels (Keycloak's example:
 * level 1 username/password, level 2 OTP, each a CONDITIONAL sub-flow with
 * conditional-level-of-authentication), acr_values / essential acr in `claims` / the client's
 * default.acr.values and minimum.acr.value, acr.loa.map names, and the acr claim of the tokens
 * (also after a refresh).
 */
let w: LoginWorld;
const R = '/admin/realms/login-loa';
let secret = '';
const totp = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
const claimsOf = (jwt: unknown) => JSON.parse(Buffer.from(String(jwt).split('.')[1], 'base64url').toString()) as Record<string, unknown>;

async function addExecution(flow: string, provider: string, requirement: string): Promise<string> {
  await w.api.post(`${R}/authentication/flows/${flow}/executions/execution`, { provider }).expect(201);
  const list = (await w.api.get(`${R}/authentication/flows/${encodeURIComponent(flow)}/executions`).expect(200)).body as Array<{
    id: string;
    providerId?: string;
    level: number;
  }>;
  const exec = list.filter((e) => e.providerId === provider && e.level === 0).pop() as { id: string };
  await w.api.put(`${R}/authentication/flows/${flow}/executions`, { ...exec, requirement }).expect(204);
  return exec.id;
}

async function addSubFlow(flow: string, alias: string, requirement: string): Promise<void> {
  await w.api
    .post(`${R}/authentication/flows/${flow}/executions/flow`, { alias, type: 'basic-flow', provider: 'registration-page-form' })
    .expect(201);
  const list = (await w.api.get(`${R}/authentication/flows/${flow}/executions`).expect(200)).body as Array<{
    id: string;
    displayName: string;
  }>;
  const sub = list.find((e) => e.displayName === alias) as { id: string };
  await w.api.put(`${R}/authentication/flows/${flow}/executions`, { ...sub, requirement }).expect(204);
}

async function levelFlow(flow: string, level: number, maxAge: number, provider: string): Promise<void> {
  await addSubFlow('loa-forms', flow, 'CONDITIONAL');
  const cond = await addExecution(flow, 'conditional-level-of-authentication', 'REQUIRED');
  await w.api
    .post(`${R}/authentication/executions/${cond}/config`, {
      alias: `${flow}-cond`,
      config: { 'loa-condition-level': String(level), 'loa-max-age': String(maxAge) },
    })
    .expect(201);
  await addExecution(flow, provider, 'REQUIRED');
}

let clientId = '';
async function setClientAttributes(attributes: Record<string, string>): Promise<void> {
  const client = (await w.api.get(`${R}/clients/${clientId}`).expect(200)).body;
  await w.api.put(`${R}/clients/${clientId}`, { ...client, attributes: { ...client.attributes, ...attributes } }).expect(204);
}
async function setRealmAttributes(attributes: Record<string, string>): Promise<void> {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, attributes: { ...realm.attributes, ...attributes } }).expect(204);
}

/** The tokens of a login's code: id and access token claims, and the refresh token. */
async function tokensOf(res: Response): Promise<{ id: Record<string, unknown>; access: Record<string, unknown>; refresh: string }> {
  expect(res.status).toBe(302);
  const out = await exchange(w, redirectParams(res).get('code') as string);
  expect(out.status).toBe(200);
  return { id: claimsOf(out.body.id_token), access: claimsOf(out.body.access_token), refresh: String(out.body.refresh_token) };
}

async function refreshAcr(refresh: string): Promise<[unknown, unknown]> {
  const res = await fetch(w.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: refresh }).toString(),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  return [claimsOf(body.id_token).acr, claimsOf(body.access_token).acr];
}

const isPasswordPage = (html: string) => /id="password"/.test(html);
const isOtpPage = (html: string) => /name="otp"/.test(html);

beforeAll(async () => {
  w = await loginWorld('login-loa');
  clientId = (await w.api.get(`${R}/clients?clientId=app`).expect(200)).body[0].id;
  // alice sets up TOTP in the realm's default browser flow first.
  const user = (await w.api.get(`${R}/users/${w.userId}`).expect(200)).body;
  await w.api.put(`${R}/users/${w.userId}`, { ...user, requiredActions: ['CONFIGURE_TOTP'] }).expect(204);
  const setup = new Jar();
  const html = await (await signIn(setup, w.authUrl())).text();
  secret = (/id="kc-totp-secret-key">([A-Z2-7]+)</.exec(html) as RegExpExecArray)[1];
  expect((await setup.post(formAction(html), { totp: totp(), userLabel: 'phone' })).status).toBe(302);
  // Keycloak's step-up example: cookie, or the forms with level 1 (password, 10 hours) and level 2 (OTP, 5 minutes).
  await w.api
    .post(`${R}/authentication/flows`, { alias: 'loa-browser', providerId: 'basic-flow', topLevel: true, builtIn: false })
    .expect(201);
  await addExecution('loa-browser', 'auth-cookie', 'ALTERNATIVE');
  await addSubFlow('loa-browser', 'loa-forms', 'ALTERNATIVE');
  await levelFlow('loa-1', 1, 36000, 'auth-username-password-form');
  await levelFlow('loa-2', 2, 300, 'auth-otp-form');
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, browserFlow: 'loa-browser' }).expect(204);
});
afterAll(async () => {
  resetClock();
  await w?.ts.close();
});

test('level 1, then step-up to level 2 with SSO (only the OTP is asked), kept within loa-max-age, asked again after it', async () => {
  const jar = new Jar();
  // No level requested: level 1 only (the password), acr "1" in both tokens and after a refresh.
  const first = await tokensOf(await signIn(jar, w.authUrl()));
  expect([first.id.acr, first.access.acr]).toEqual(['1', '1']);
  expect(await refreshAcr(first.refresh)).toEqual(['1', '1']);
  const sid = first.id.sid;

  // Step-up: the SSO session gives level 1; only the OTP is asked; the same SSO session goes on.
  let page = await jar.fetch(w.authUrl({ acr_values: '2' }));
  expect(page.status).toBe(200);
  let html = await page.text();
  expect([isOtpPage(html), isPasswordPage(html)]).toEqual([true, false]);
  const wrong = await jar.post(formAction(html), { otp: totp() === '000000' ? '111111' : '000000' });
  expect([wrong.status, pageError(await wrong.clone().text())]).toEqual([401, 'Invalid authenticator code.']);
  const second = await tokensOf(await jar.post(formAction(await wrong.text()), { otp: totp() }));
  expect([second.id.acr, second.access.acr, second.id.sid]).toEqual(['2', '2', sid]);
  expect(await refreshAcr(second.refresh)).toEqual(['2', '2']);

  // Within level 2's max-age: SSO alone is enough for acr_values=2.
  const third = await tokensOf(await jar.fetch(w.authUrl({ acr_values: '2' })));
  expect(third.id.acr).toBe('2');

  // After it (5 minutes), level 1 still holds (10 hours): only the OTP again.
  advanceClock(301);
  page = await jar.fetch(w.authUrl({ acr_values: '2' }));
  expect(page.status).toBe(200);
  html = await page.text();
  expect([isOtpPage(html), isPasswordPage(html)]).toEqual([true, false]);
  const fourth = await tokensOf(await jar.post(formAction(html), { otp: totp() }));
  expect([fourth.id.acr, fourth.id.sid]).toEqual(['2', sid]);
  // An SSO login asking for level 1 needs nothing more; the session's level is 2, and without acr.loa.map the claim is the number.
  const fifth = await tokensOf(await jar.fetch(w.authUrl({ acr_values: '1' })));
  expect(fifth.id.acr).toBe('2');
});

test('without levels in the flow: acr "1" for a login, "0" for an SSO login (AcrProtocolMapper)', async () => {
  const realm = (await w.api.get(R).expect(200)).body;
  await w.api.put(R, { ...realm, browserFlow: 'browser' }).expect(204);
  try {
    const jar = new Jar();
    let res = await signIn(jar, w.authUrl());
    res = await jar.post(formAction(await res.text()), { otp: totp() });
    const first = await tokensOf(res);
    expect([first.id.acr, first.access.acr]).toEqual(['1', '1']);
    const sso = await tokensOf(await jar.fetch(w.authUrl()));
    expect([sso.id.acr, sso.access.acr]).toEqual(['0', '0']);
    expect(await refreshAcr(sso.refresh)).toEqual(['0', '0']);
  } finally {
    await w.api.put(R, { ...realm, browserFlow: 'loa-browser' }).expect(204);
  }
});

test('a fresh login asking for level 2 runs both levels; prompt=login asks both again', async () => {
  const jar = new Jar();
  const afterPassword = await signIn(jar, w.authUrl({ acr_values: '2' }));
  expect(afterPassword.status).toBe(200);
  const html = await afterPassword.text();
  expect(isOtpPage(html)).toBe(true);
  expect((await tokensOf(await jar.post(formAction(html), { otp: totp() }))).id.acr).toBe('2');
  const again = await jar.fetch(w.authUrl({ acr_values: '2', prompt: 'login' }));
  expect(isPasswordPage(await again.text())).toBe(true);
});

test('essential acr: an unknown value is refused, one the flow cannot reach fails, one it reaches is the claim', async () => {
  const essential = (values: string[]) => JSON.stringify({ id_token: { acr: { essential: true, values } } });
  const refused = await new Jar().fetch(w.authUrl({ claims: essential(['gold']) }));
  expect([refused.status, pageError(await refused.text())]).toEqual([400, 'Invalid parameter: claims']);
  const events = (await w.api.get(`${R}/events?type=LOGIN_ERROR&max=5`).expect(200)).body as Array<{
    error: string;
    details: Record<string, string>;
  }>;
  expect(events[0]).toMatchObject({ error: 'invalid_request', details: { reason: 'Invalid requested essential acr value' } });

  await setRealmAttributes({ 'acr.loa.map': JSON.stringify({ silver: 1, gold: 2, platinum: 3 }) });
  // Level 3 does not exist in the flow: both levels run, then "Authentication requirements not fulfilled".
  let jar = new Jar();
  let res = await signIn(jar, w.authUrl({ claims: essential(['platinum']) }));
  res = await jar.post(formAction(await res.text()), { otp: totp() });
  expect([res.status, pageError(await res.text())]).toEqual([400, 'Authentication requirements not fulfilled']);
  // gold (level 2) is reached: the claim is the name.
  jar = new Jar();
  res = await signIn(jar, w.authUrl({ claims: essential(['gold']) }));
  const gold = await tokensOf(await jar.post(formAction(await res.text()), { otp: totp() }));
  expect([gold.id.acr, gold.access.acr]).toEqual(['gold', 'gold']);
  expect(await refreshAcr(gold.refresh)).toEqual(['gold', 'gold']);
});

test("acr.loa.map names: the realm's, then the client's own; default.acr.values and minimum.acr.value of the client", async () => {
  await setRealmAttributes({ 'acr.loa.map': JSON.stringify({ silver: 1, gold: 2 }) });
  // acr_values=silver is level 1: the password only, acr "silver".
  let silver = await tokensOf(await signIn(new Jar(), w.authUrl({ acr_values: 'silver' })));
  expect(silver.id.acr).toBe('silver');
  // No level asked: the name of the level reached (the map's).
  silver = await tokensOf(await signIn(new Jar(), w.authUrl()));
  expect(silver.id.acr).toBe('silver');

  // The client's own map wins over the realm's.
  await setClientAttributes({ 'acr.loa.map': JSON.stringify({ 'urn:low': 1, 'urn:high': 2 }) });
  const low = await tokensOf(await signIn(new Jar(), w.authUrl({ acr_values: 'urn:low' })));
  expect(low.id.acr).toBe('urn:low');

  // default.acr.values: a request without a level gets the client's default (level 2: the OTP too).
  await setClientAttributes({ 'default.acr.values': 'urn:high' });
  let jar = new Jar();
  let res = await signIn(jar, w.authUrl());
  let html = await res.text();
  expect(isOtpPage(html)).toBe(true);
  expect((await tokensOf(await jar.post(formAction(html), { otp: totp() }))).id.acr).toBe('urn:high');

  // minimum.acr.value: a lower request is raised to it; an essential lower one is refused.
  await setClientAttributes({ 'default.acr.values': '', 'minimum.acr.value': 'urn:high' });
  jar = new Jar();
  res = await signIn(jar, w.authUrl({ acr_values: 'urn:low' }));
  html = await res.text();
  expect(isOtpPage(html)).toBe(true);
  expect((await tokensOf(await jar.post(formAction(html), { otp: totp() }))).id.acr).toBe('urn:high');
  const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:low'] } } });
  const refused = await new Jar().fetch(w.authUrl({ claims }));
  expect([refused.status, pageError(await refused.text())]).toEqual([400, 'Invalid parameter: claims']);
  await setClientAttributes({ 'minimum.acr.value': '', 'acr.loa.map': '' });
});
