import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { AdminApi, TestServer } from '../../helpers/server';
import { adminEvents, realmAdmin, realmServer } from '../../helpers/fixtures';
import { activeKey, realmKeys } from '../../../src/auth/realm-keys';

/** `/clients-initial-access`: create (201 + Location + body with the token), list without tokens, delete. */
let ts: TestServer;
let api: AdminApi;
const R = 'iarealm';
const base = `/admin/realms/${R}/clients-initial-access`;
let realmId: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R, { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
});
afterAll(() => ts.close());

describe('POST /clients-initial-access', () => {
  test('201 with Location and the entry with its HS512 token', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await api.post(base, { expiration: 3600, count: 5 });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      token: expect.any(String),
      timestamp: expect.any(Number),
      expiration: 3600,
      count: 5,
      remainingCount: 5,
    });
    expect(res.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: 'HS512', typ: 'JWT' });
    // The HMAC secret: the keys endpoint never shows it.
    const key = activeKey(await realmKeys(ts.db, { id: realmId }), 'HS512');
    const { payload } = await jwtVerify(res.body.token, key?.secret as Buffer, { algorithms: ['HS512'] });
    const issuer = `http://localhost:8080/realms/${R}`;
    expect(payload).toEqual({
      jti: res.body.id,
      typ: 'InitialAccessToken',
      iss: issuer,
      aud: issuer,
      iat: res.body.timestamp,
      exp: res.body.timestamp + 3600,
    });
    const events = await adminEvents(api, R, { resourcePath: `clients-initial-access/${res.body.id}` });
    expect(events.map((e) => [e.operationType, e.resourceType])).toEqual([['CREATE', 'CLIENT_INITIAL_ACCESS_MODEL']]);
    expect(events[0].representation).not.toContain(res.body.token);
  });

  test('defaults: expiration 0 (never), count 1; an empty body is the defaults', async () => {
    for (const body of [{}, undefined]) {
      const res = await api.post(base, body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ expiration: 0, count: 1, remainingCount: 1 });
      expect(decodeJwt(res.body.token).exp).toBe(0);
    }
  });

  test('negative values → 400 with Keycloak bodies; unknown fields and bad JSON → 400; nothing stored', async () => {
    const count = (await api.get(base)).body.length;
    const exp = await api.post(base, { expiration: -1, count: 1 });
    expect(exp.status).toBe(400);
    expect(exp.body).toEqual({
      error: 'Invalid value for expiration',
      error_description: 'The expiration time interval cannot be less than 0',
    });
    const cnt = await api.post(base, { expiration: 10, count: -2 });
    expect(cnt.status).toBe(400);
    expect(cnt.body).toEqual({ error: 'Invalid value for count', error_description: 'The count cannot be less than 0' });
    expect((await api.post(base, { expiration: 10, foo: 1 })).status).toBe(400);
    expect((await api.post(base, { expiration: 'soon' })).status).toBe(400);
    expect((await api.post(base).set('Content-Type', 'application/json').send('{"count":')).status).toBe(400);
    expect((await api.get(base)).body).toHaveLength(count);
  });
});

describe('GET and DELETE', () => {
  test('lists entries without tokens, expired ones left out; delete → 204 (also for unknown ids)', async () => {
    const created = (await api.post(base, { expiration: 600, count: 2 })).body;
    // An entry created 100 s ago that expired after 10 s: the API only creates entries as of now.
    const expired = randomUUID();
    await ts.db.models.ClientInitialAccess.create({
      id: expired,
      realmId,
      timestamp: Math.floor(Date.now() / 1000) - 100,
      expiration: 10,
      count: 1,
      remainingCount: 1,
    });
    const list = await api.get(base);
    expect(list.status).toBe(200);
    const mine = list.body.find((e: { id: string }) => e.id === created.id);
    const { token: _token, ...withoutToken } = created;
    expect(mine).toEqual(withoutToken);
    expect(list.body.every((e: object) => !('token' in e))).toBe(true);
    expect(list.body.map((e: { id: string }) => e.id)).not.toContain(expired);

    const del = await api.delete(`${base}/${created.id}`);
    expect(del.status).toBe(204);
    expect((await api.get(base)).body.map((e: { id: string }) => e.id)).not.toContain(created.id);
    expect((await api.delete(`${base}/${randomUUID()}`)).status).toBe(204);
    const events = await adminEvents(api, R, { resourcePath: `clients-initial-access/${created.id}`, operationTypes: 'DELETE' });
    expect(events).toHaveLength(1);
  });

  test('an entry of another realm is neither listed nor deleted', async () => {
    const other = (await api.post('/admin/realms/master/clients-initial-access', { count: 3 })).body;
    expect((await api.get(base)).body.map((e: { id: string }) => e.id)).not.toContain(other.id);
    await api.delete(`${base}/${other.id}`).expect(204);
    expect((await api.get('/admin/realms/master/clients-initial-access')).body.map((e: { id: string }) => e.id)).toContain(other.id);
  });

  test('permissions: view-clients lists; create/delete need manage-clients; unknown realm 404', async () => {
    const viewer = await realmAdmin(ts, R, 'ia-viewer', ['view-clients']);
    expect((await viewer.get(base)).status).toBe(200);
    const post = await viewer.post(base, { count: 1 });
    expect(post.status).toBe(403);
    expect(post.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await viewer.delete(`${base}/${randomUUID()}`)).status).toBe(403);
    const manager = await realmAdmin(ts, R, 'ia-manager', ['manage-clients']);
    expect((await manager.post(base, { count: 1 })).status).toBe(201);
    const nobody = await realmAdmin(ts, R, 'ia-nobody', ['view-users']);
    expect((await nobody.get(base)).status).toBe(403);
    expect((await api.get('/admin/realms/nope/clients-initial-access')).body).toEqual({ error: 'Realm not found.' });
  });
});

test('deleting a realm deletes its initial access entries', async () => {
  expect((await api.post('/admin/realms', { realm: 'ia-gone', enabled: true })).status).toBe(201);
  const id = (await api.post('/admin/realms/ia-gone/clients-initial-access', { count: 1 })).body.id;
  expect((await api.get('/admin/realms/ia-gone/clients-initial-access')).body.map((e: { id: string }) => e.id)).toEqual([id]);
  expect((await api.delete('/admin/realms/ia-gone')).status).toBe(204);
  // The API cannot show the entries of a deleted realm: the table shows none is left behind.
  expect(await ts.db.models.ClientInitialAccess.count({ where: { id } })).toBe(0);
});
