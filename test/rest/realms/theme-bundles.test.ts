import request from 'supertest';
import { realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * Theme message bundles, GET /resources/{realm}/{themeType}/{locale}, as Keycloak 26's
 * ThemeResource#getLocalizationTexts with LocaleUtil's locale chain (de-CH → de → en), against the
 * real server and database.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'bundlerealm';

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  expect((await api.post(`/admin/realms/${R}/localization/en`, { loginTitle: 'Welcome to {0}', customEn: 'only en' })).status).toBe(204);
  expect((await api.post(`/admin/realms/${R}/localization/de`, { doLogIn: 'Anmelden', customDe: 'nur de' })).status).toBe(204);
  expect((await api.post(`/admin/realms/${R}/localization/de-CH`, { doLogIn: 'Iiloggä' })).status).toBe(204);
});
afterAll(() => ts.close());

const asMap = (body: { key: string; value: string }[]) => Object.fromEntries(body.map((e) => [e.key, e.value]));

describe('theme message bundles', () => {
  test('login/en without a token: the built-in texts under the realm English texts, as {key, value} entries', async () => {
    const res = await request(ts.app).get(`/resources/${R}/login/en`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Array.isArray(res.body)).toBe(true);
    for (const e of res.body) expect(Object.keys(e).sort()).toEqual(['key', 'value']);
    const texts = asMap(res.body);
    expect(texts.loginTitle).toBe('Welcome to {0}');
    expect(texts.doLogIn).toBe('Sign in');
    expect(texts.invalidUserMessage).toBe('Invalid username or password.');
    expect(texts.customEn).toBe('only en');
    expect(texts.customDe).toBeUndefined();
  });

  test('de-CH reads de-CH, then de, then en; a realm text wins over a built-in one', async () => {
    const texts = asMap((await request(ts.app).get(`/resources/${R}/login/de-CH`)).body);
    expect(texts.doLogIn).toBe('Iiloggä');
    expect(texts.customDe).toBe('nur de');
    expect(texts.customEn).toBe('only en');
    expect(texts.loginTitle).toBe('Welcome to {0}');
    expect(texts.password).toBe('Password');
    const de = asMap((await request(ts.app).get(`/resources/${R}/login/de`)).body);
    expect(de.doLogIn).toBe('Anmelden');
  });

  test('source=true: the theme texts of the locale itself and every realm text of the chain, each with its source', async () => {
    const en = (await request(ts.app).get(`/resources/${R}/login/en?source=true`)).body as { key: string; value: string; source: string }[];
    expect(en).toContainEqual({ key: 'loginTitle', value: 'Sign in to {0}', source: 'THEME' });
    expect(en).toContainEqual({ key: 'loginTitle', value: 'Welcome to {0}', source: 'REALM' });
    expect(en).toContainEqual({ key: 'doLogIn', value: 'Sign in', source: 'THEME' });
    const de = (await request(ts.app).get(`/resources/${R}/login/de?source=true`)).body as { key: string; source: string }[];
    // No built-in German texts: only the realm's texts of de and en.
    expect(de.every((e) => e.source === 'REALM')).toBe(true);
    expect(de.map((e) => e.key).sort()).toEqual(['customDe', 'customEn', 'doLogIn', 'loginTitle']);
  });

  test('other theme types: email has the event mail texts; account and admin the realm texts alone; type case-insensitive', async () => {
    const email = asMap((await request(ts.app).get(`/resources/${R}/email/en`)).body);
    expect(email.eventLoginErrorSubject).toBe('Failed sign-in to your account');
    expect(email.customEn).toBe('only en');
    const account = await request(ts.app).get(`/resources/${R}/ACCOUNT/de`);
    expect(account.status).toBe(200);
    expect(asMap(account.body)).toEqual({ loginTitle: 'Welcome to {0}', customEn: 'only en', doLogIn: 'Anmelden', customDe: 'nur de' });
  });

  test('unknown realm or theme type: 404 without a body', async () => {
    const noRealm = await request(ts.app).get('/resources/no-such-realm/login/en');
    expect(noRealm.status).toBe(404);
    expect(noRealm.text).toBe('');
    const noType = await request(ts.app).get(`/resources/${R}/nosuchtype/en`);
    expect(noType.status).toBe(404);
    expect(noType.text).toBe('');
  });

  test('CORS: any origin may read the bundle; the preflight is answered', async () => {
    const res = await request(ts.app).get(`/resources/${R}/admin/en`).set('Origin', 'https://app.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    const pre = await request(ts.app).options(`/resources/${R}/admin/en`).set('Origin', 'https://app.example');
    expect(pre.status).toBe(200);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.example');
  });
});
