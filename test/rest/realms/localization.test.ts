import request from 'supertest';
import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** Realm localization texts (config reference §10.4) against the real server and database. */
let ts: TestServer;
let api: AdminApi;
const R = 'l10nrealm';
const base = `/admin/realms/${R}/localization`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
});
afterAll(() => ts.close());

const putText = async (locale: string, key: string, text: string) =>
  request(ts.app)
    .put(`${base}/${locale}/${encodeURIComponent(key)}`)
    .set('Authorization', `Bearer ${await ts.token()}`)
    .set('Content-Type', 'text/plain')
    .send(text);

/**
 * The texts the later tests read, as the first tests of this file leave them (en, de and fr): written
 * again by each test that reads them, so it passes on its own (POST merges, PUT replaces: idempotent).
 */
async function seedTexts(): Promise<void> {
  expect((await api.post(`${base}/en`, { hello: 'Hello!', bye: 'Bye', extra: 'x' })).status).toBe(204);
  expect((await api.post(`${base}/de`, { hello: 'Hallo' })).status).toBe(204);
  expect((await putText('fr', 'greeting msg', 'Salut')).status).toBe(204);
}

describe('realm localization', () => {
  test('a new realm has no texts: [] and {}', async () => {
    const locales = await api.get(base);
    expect(locales.status).toBe(200);
    expect(locales.body).toEqual([]);
    expect((await api.get(`${base}/en`)).body).toEqual({});
  });

  test('POST merges texts; GET lists sorted locales and the texts; GET one key is text/plain', async () => {
    expect((await api.post(`${base}/en`, { hello: 'Hello', bye: 'Bye' })).status).toBe(204);
    expect((await api.post(`${base}/en`, { hello: 'Hello!', extra: 'x' })).status).toBe(204);
    expect((await api.post(`${base}/de`, { hello: 'Hallo' })).status).toBe(204);
    expect((await api.get(base)).body).toEqual(['de', 'en']);
    expect((await api.get(`${base}/en`)).body).toEqual({ hello: 'Hello!', bye: 'Bye', extra: 'x' });
    const one = await api.get(`${base}/de/hello`);
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toMatch(/^text\/plain/);
    expect(one.text).toBe('Hallo');
  });

  test('PUT one key (text/plain) creates or replaces it; other content types are 415', async () => {
    expect((await putText('fr', 'greeting msg', 'Bonjour à tous')).status).toBe(204);
    expect((await api.get(`${base}/fr/greeting%20msg`)).text).toBe('Bonjour à tous');
    expect((await putText('fr', 'greeting msg', 'Salut')).status).toBe(204);
    expect((await api.get(`${base}/fr`)).body).toEqual({ 'greeting msg': 'Salut' });
    const json = await api.put(`${base}/fr/k`, { a: 1 });
    expect(json.status).toBe(415);
    expect((await api.get(`${base}/fr/k`)).status).toBe(404);
  });

  test('useRealmDefaultLocaleFallback overlays the locale on the realm default locale', async () => {
    await seedTexts();
    expect(
      (await api.put(`/admin/realms/${R}`, { defaultLocale: 'en', internationalizationEnabled: true, supportedLocales: ['en', 'de'] }))
        .status,
    ).toBe(204);
    expect((await api.get(`${base}/de?useRealmDefaultLocaleFallback=true`)).body).toEqual({ hello: 'Hallo', bye: 'Bye', extra: 'x' });
    expect((await api.get(`${base}/de?useRealmDefaultLocaleFallback=false`)).body).toEqual({ hello: 'Hallo' });
    expect((await api.get(`${base}/de`)).body).toEqual({ hello: 'Hallo' });
  });

  test('missing texts: 404 with Keycloak messages; DELETE key and DELETE locale', async () => {
    await seedTexts();
    expect((await api.get(`${base}/en/nope`)).body).toEqual({ error: 'Localization text not found' });
    const delMissing = await api.delete(`${base}/en/nope`);
    expect(delMissing.status).toBe(404);
    expect(delMissing.body).toEqual({ error: 'Localization text not found' });
    expect((await api.delete(`${base}/en/extra`)).status).toBe(204);
    expect((await api.get(`${base}/en`)).body).toEqual({ hello: 'Hello!', bye: 'Bye' });
    expect((await api.delete(`${base}/de`)).status).toBe(204);
    expect((await api.get(base)).body).toEqual(['en', 'fr']);
    const again = await api.delete(`${base}/de`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'No localization texts for locale de found.' });
  });

  test('multipart upload: field `file` with a JSON map; missing file 400; unreadable file 400', async () => {
    const token = await ts.token();
    const ok = await request(ts.app)
      .post(`${base}/it`)
      .set('Authorization', `Bearer ${token}`)
      .attach('file', Buffer.from(JSON.stringify({ hello: 'Ciao' })), 'it.json');
    expect(ok.status).toBe(204);
    expect((await api.get(`${base}/it`)).body).toEqual({ hello: 'Ciao' });
    const missing = await request(ts.app).post(`${base}/it`).set('Authorization', `Bearer ${token}`).field('other', 'x');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'HTTP 400 Bad Request' });
    const bad = await request(ts.app)
      .post(`${base}/it`)
      .set('Authorization', `Bearer ${token}`)
      .attach('file', Buffer.from('not json'), 'it.json');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Could not read file.' });
  });

  test('bad JSON bodies are 400 and write nothing', async () => {
    const nested = await api.post(`${base}/es`, { a: { b: 1 } });
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    const arr = await api.post(`${base}/es`, ['x']);
    expect(arr.status).toBe(400);
    expect((await api.get(`${base}/es`)).body).toEqual({});
  });

  test('writes record admin events (resource REALM, path localization/...)', async () => {
    await seedTexts();
    expect((await api.delete(`${base}/de`)).status).toBe(204);
    const events = (await api.get(`/admin/realms/${R}/admin-events?resourceTypes=REALM`)).body as Array<Record<string, unknown>>;
    const paths = events.map((e) => `${e.operationType} ${e.resourcePath}`);
    expect(paths).toEqual(
      expect.arrayContaining(['UPDATE localization/en', 'UPDATE localization/fr/greeting msg', 'DELETE localization/de']),
    );
  });

  test('permissions: reads need an admin role, writes manage-realm; unknown realm 404 first; no token 401', async () => {
    await seedTexts();
    const viewer = await realmAdmin(ts, R, 'l10n-viewer', ['view-users']);
    expect((await viewer.get(base)).status).toBe(200);
    expect((await viewer.get(`${base}/en/hello`)).text).toBe('Hello!');
    const denied = await viewer.post(`${base}/en`, { hello: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await viewer.delete(`${base}/en`)).status).toBe(403);
    expect((await api.get(`${base}/en/hello`)).text).toBe('Hello!');
    const nobody = await realmAdmin(ts, R, 'l10n-nobody', []);
    expect((await nobody.get(base)).status).toBe(403);
    expect((await api.get('/admin/realms/nosuch/localization')).body).toEqual({ error: 'Realm not found.' });
    expect((await request(ts.app).get(base)).status).toBe(401);
  });

  test('realm import accepts localizationTexts', async () => {
    const created = await api.post('/admin/realms', {
      realm: 'l10nimport',
      enabled: true,
      localizationTexts: { en: { a: 'A' }, pl: { a: 'Ą', b: 'B' } },
    });
    expect(created.status).toBe(201);
    expect((await api.get('/admin/realms/l10nimport/localization')).body).toEqual(['en', 'pl']);
    expect((await api.get('/admin/realms/l10nimport/localization/pl')).body).toEqual({ a: 'Ą', b: 'B' });
    expect((await api.get('/admin/realms/l10nimport')).body.localizationTexts).toBeUndefined();
  });
});
