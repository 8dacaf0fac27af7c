import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { adminEvents, grantClientRoles, idOf, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'creds';
const U = `/admin/realms/${R}/users`;

async function createUser(username: string, password?: string): Promise<string> {
  const res = await api.post(U, {
    username,
    email: `${username}@example.org`,
    firstName: 'F',
    lastName: 'L',
    enabled: true,
    ...(password ? { credentials: [{ type: 'password', value: password }] } : {}),
  });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

const login = (username: string, password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });

/** An OTP credential, written to the table: the admin API cannot create one (only the login flow's OTP setup can). */
async function addOtp(userId: string, priority: number): Promise<string> {
  const id = randomUUID();
  await ts.db.models.Credential.create({
    id,
    userId,
    type: 'otp',
    userLabel: 'phone',
    secretData: '{"value":"secret"}',
    credentialData: '{"subType":"totp","digits":6,"counter":0,"period":30,"algorithm":"HmacSHA1"}',
    priority,
    createdDate: Date.now(),
  });
  return id;
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true }));
});
afterAll(() => ts.close());

describe('GET /users/{id}/credentials', () => {
  test('metadata only, ordered by priority, no secrets', async () => {
    const id = await createUser('lister', 'pw-lister');
    const otp = await addOtp(id, 20);
    const res = await api.get(`${U}/${id}/credentials`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { type: string }) => c.type)).toEqual(['password', 'otp']);
    const [pw, o] = res.body;
    expect(Object.keys(pw)).toEqual(['id', 'type', 'createdDate', 'credentialData', 'priority']);
    expect(JSON.parse(pw.credentialData)).toMatchObject({ algorithm: 'argon2', hashIterations: 5 });
    expect(o).toMatchObject({ id: otp, type: 'otp', userLabel: 'phone' });
    expect(JSON.stringify(res.body)).not.toMatch(/secretData|"value"/);
  });

  test('unknown user 404; configured-user-storage-credential-types is []', async () => {
    expect((await api.get(`${U}/${randomUUID()}/credentials`)).body).toEqual({ error: 'User not found' });
    const id = await createUser('storage');
    const res = await api.get(`${U}/${id}/configured-user-storage-credential-types`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('credential writes', () => {
  test('move to first and after another; unknown previous is a no-op; unknown credential 404', async () => {
    const id = await createUser('mover', 'pw-mover');
    const a = await addOtp(id, 20);
    const b = await addOtp(id, 30);
    const order = async () => (await api.get(`${U}/${id}/credentials`)).body.map((c: { id: string }) => c.id);
    const [pw] = await order();
    expect((await api.post(`${U}/${id}/credentials/${b}/moveToFirst`)).status).toBe(204);
    expect(await order()).toEqual([b, pw, a]);
    expect((await api.post(`${U}/${id}/credentials/${b}/moveAfter/${a}`)).status).toBe(204);
    expect(await order()).toEqual([pw, a, b]);
    const prios = (await api.get(`${U}/${id}/credentials`)).body.map((c: { priority: number }) => c.priority);
    expect(prios).toEqual([10, 20, 30]);
    expect((await api.post(`${U}/${id}/credentials/${a}/moveAfter/${randomUUID()}`)).status).toBe(204);
    expect(await order()).toEqual([pw, a, b]);
    const missing = await api.post(`${U}/${id}/credentials/${randomUUID()}/moveToFirst`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Credential not found' });
  });

  test('userLabel takes a text/plain body; blank is 400', async () => {
    const id = await createUser('labeler', 'pw-labeler');
    const [pw] = (await api.get(`${U}/${id}/credentials`)).body;
    const res = await api.put(`${U}/${id}/credentials/${pw.id}/userLabel`).set('Content-Type', 'text/plain').send('My password');
    expect(res.status).toBe(204);
    expect((await api.get(`${U}/${id}/credentials`)).body[0].userLabel).toBe('My password');
    const blank = await api.put(`${U}/${id}/credentials/${pw.id}/userLabel`).set('Content-Type', 'text/plain').send('  ');
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ error: 'missingCredentialLabel', error_description: 'Credential label must not be empty' });
    expect((await api.get(`${U}/${id}/credentials`)).body[0].userLabel).toBe('My password');
    const missing = await api.put(`${U}/${id}/credentials/${randomUUID()}/userLabel`).set('Content-Type', 'text/plain').send('x');
    expect(missing.status).toBe(404);
  });

  test('delete: 204, then 404; admin event ACTION; login fails without a password', async () => {
    const id = await createUser('deleter', 'pw-deleter');
    const [pw] = (await api.get(`${U}/${id}/credentials`)).body;
    expect((await api.delete(`${U}/${id}/credentials/${pw.id}`)).status).toBe(204);
    expect((await api.get(`${U}/${id}/credentials`)).body).toEqual([]);
    const again = await api.delete(`${U}/${id}/credentials/${pw.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Credential not found' });
    expect((await login('deleter', 'pw-deleter')).status).toBe(400);
    const [ev] = await adminEvents(api, R, { resourcePath: `users/${id}/credentials/${pw.id}` });
    expect(ev).toMatchObject({ operationType: 'ACTION', resourceType: 'USER' });
  });

  test('disable-credential-types removes OTP, keeps the password', async () => {
    const id = await createUser('disabler', 'pw-disabler');
    await addOtp(id, 20);
    expect((await api.get(`${U}/${id}`)).body).toMatchObject({ totp: true, disableableCredentialTypes: ['otp'] });
    expect((await api.put(`${U}/${id}/disable-credential-types`, ['otp', 'password'])).status).toBe(204);
    expect((await api.get(`${U}/${id}/credentials`)).body.map((c: { type: string }) => c.type)).toEqual(['password']);
    expect((await api.get(`${U}/${id}`)).body).toMatchObject({ totp: false, disableableCredentialTypes: [] });
    expect((await api.put(`${U}/${id}/disable-credential-types`, { not: 'an array' })).status).toBe(400);
  });
});

describe('PUT /users/{id}/reset-password', () => {
  test('sets the password: new one logs in, old one does not; id kept; never returned', async () => {
    const id = await createUser('resetter', 'old-password');
    const [before] = (await api.get(`${U}/${id}/credentials`)).body;
    const res = await api.put(`${U}/${id}/reset-password`, { type: 'password', value: 'new-password', temporary: false });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await login('resetter', 'new-password')).status).toBe(200);
    const old = await login('resetter', 'old-password');
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('invalid_grant');
    const after = (await api.get(`${U}/${id}/credentials`)).body;
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(before.id);
    expect(after[0].createdDate).toBeGreaterThanOrEqual(before.createdDate);
  });

  test('rawPassword is read too; a user without password gets one', async () => {
    const id = await createUser('rawuser');
    expect((await api.put(`${U}/${id}/reset-password`, { type: 'password', rawPassword: 'raw-secret' })).status).toBe(204);
    expect((await login('rawuser', 'raw-secret')).status).toBe(200);
  });

  test('temporary adds UPDATE_PASSWORD, false removes it', async () => {
    const id = await createUser('temp', 'first-pw');
    expect((await api.put(`${U}/${id}/reset-password`, { value: 'temp-pw', temporary: true })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.requiredActions).toEqual(['UPDATE_PASSWORD']);
    const blocked = await login('temp', 'temp-pw');
    expect(blocked.body).toMatchObject({ error: 'invalid_grant', error_description: 'Account is not fully set up' });
    expect((await api.put(`${U}/${id}/reset-password`, { value: 'final-pw', temporary: false })).status).toBe(204);
    expect((await api.get(`${U}/${id}`)).body.requiredActions).toEqual([]);
    expect((await login('temp', 'final-pw')).status).toBe(200);
  });

  test('missing, null and blank values; data unchanged', async () => {
    const id = await createUser('badinput', 'keep-me');
    const [before] = (await api.get(`${U}/${id}/credentials`)).body;
    for (const body of [undefined, {}, { value: null }]) {
      const res = await api.put(`${U}/${id}/reset-password`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'No password provided' });
    }
    const blank = await api.put(`${U}/${id}/reset-password`, { value: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ error: 'Empty password not allowed' });
    const unknown = await api.put(`${U}/${id}/reset-password`, { value: 'x', bogus: 1 });
    expect(unknown.status).toBe(400);
    const malformed = await api.put(`${U}/${id}/reset-password`).set('Content-Type', 'application/json').send('{"value":');
    expect(malformed.status).toBe(400);
    expect((await api.get(`${U}/${id}/credentials`)).body).toEqual([before]);
    expect((await login('badinput', 'keep-me')).status).toBe(200);
  });

  test('admin event ACTION without representation', async () => {
    await api.put(`/admin/realms/${R}`, { adminEventsDetailsEnabled: true });
    const id = await createUser('evented', 'pw-evented');
    expect((await api.put(`${U}/${id}/reset-password`, { value: 'pw-evented-2' })).status).toBe(204);
    const [ev] = await adminEvents(api, R, { resourcePath: `users/${id}/reset-password` });
    expect(ev).toMatchObject({ operationType: 'ACTION', resourceType: 'USER' });
    expect(ev.representation ?? null).toBeNull();
  });

  test('roles: view-users may list but not reset; 403 bodies', async () => {
    const id = await createUser('target', 'pw-target');
    const viewerId = await createUser('viewer', 'pw-viewer');
    await grantClientRoles(api, R, viewerId, 'realm-management', ['view-users']);
    const viewer = await ts.api({ realm: R, username: 'viewer', password: 'pw-viewer' });
    expect((await viewer.get(`${U}/${id}/credentials`)).status).toBe(200);
    const denied = await viewer.put(`${U}/${id}/reset-password`, { value: 'hacked' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
    const [pw] = (await api.get(`${U}/${id}/credentials`)).body;
    expect((await viewer.delete(`${U}/${id}/credentials/${pw.id}`)).status).toBe(403);
    expect((await viewer.post(`${U}/${id}/credentials/${pw.id}/moveToFirst`)).status).toBe(403);
    expect((await viewer.put(`${U}/${id}/disable-credential-types`, ['otp'])).status).toBe(403);
    expect((await login('target', 'pw-target')).status).toBe(200);
    expect((await request(ts.app).get(`${U}/${id}/credentials`)).status).toBe(401);
  });
});
