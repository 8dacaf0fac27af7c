import request from 'supertest';
import { adminEvents } from '../../helpers/fixtures';
import { startTestServer, type TestServer } from '../../helpers/server';
import { advanceClock, resetClock, type SessionFixture, sessionFixture } from '../../helpers/sessions';

let ts: TestServer;
let f: SessionFixture;
const R = 'bf';
const A = `/admin/realms/${R}`;
const BASE = {
  bruteForceProtected: true,
  permanentLockout: false,
  maxTemporaryLockouts: 0,
  failureFactor: 3,
  waitIncrementSeconds: 60,
  maxFailureWaitSeconds: 900,
  quickLoginCheckMilliSeconds: 1000,
  minimumQuickLoginWaitSeconds: 30,
  maxDeltaTimeSeconds: 43200,
};

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['usr1', 'usr2', 'usr3', 'usr4', 'usr5', 'usr6', 'usr7'], BASE);
});
afterAll(async () => {
  resetClock();
  await ts.close();
});
beforeEach(async () => {
  // Each test starts from the same realm settings, the real clock and no failure records.
  resetClock();
  expect((await f.admin.put(A, BASE)).status).toBe(204);
  expect((await f.admin.delete(`${A}/attack-detection/brute-force/users`)).status).toBe(204);
});

const INVALID = { error: 'invalid_grant', error_description: 'Invalid user credentials' };
const wrong = (u: string) => f.login(u, { password: 'wrong' });
const status = (u: string) => f.admin.get(`${A}/attack-detection/brute-force/users/${f.users[u]}`);
const nowS = () => Math.floor(Date.now() / 1000);

describe('brute-force detection', () => {
  test('failures are counted; failureFactor failures lock the user temporarily, even with the right password', async () => {
    const zero = await status('usr1');
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({
      numFailures: 0,
      disabled: false,
      lastIPFailure: 'n/a',
      lastFailure: 0,
      failedLoginNotBefore: 0,
      numTemporaryLockouts: 0,
      numSecondaryAuthFailures: 0,
    });
    expect((await wrong('usr1')).body).toEqual(INVALID);
    advanceClock(2);
    expect((await wrong('usr1')).body).toEqual(INVALID);
    const two = await status('usr1');
    expect(two.body).toMatchObject({ numFailures: 2, disabled: false, failedLoginNotBefore: 0, numTemporaryLockouts: 0 });
    expect(two.body.lastIPFailure).toEqual(expect.any(String));
    expect(two.body.lastIPFailure).not.toBe('n/a');
    expect(two.body.lastFailure).toBeGreaterThan(0);
    advanceClock(2);
    await wrong('usr1');
    const locked = await status('usr1');
    expect(locked.body).toMatchObject({ numFailures: 3, disabled: true, numTemporaryLockouts: 1 });
    // the lockout is 60 s from the (shifted) clock
    expect(locked.body.failedLoginNotBefore - nowS()).toBeGreaterThanOrEqual(60 + 4 - 2);
    expect(locked.body.failedLoginNotBefore - nowS()).toBeLessThanOrEqual(60 + 4 + 2);
    const right = await f.login('usr1');
    expect(right.status).toBe(400);
    expect(right.body).toEqual(INVALID);
    advanceClock(61);
    const ok = await f.login('usr1');
    expect(ok.status).toBe(200);
    // a successful login clears the record
    expect((await status('usr1')).body).toMatchObject({ numFailures: 0, disabled: false });
  });

  test('quick-login check: two failures within quickLoginCheckMilliSeconds lock for minimumQuickLoginWaitSeconds', async () => {
    // A wide window: each failed login hashes a password, and on a loaded CI machine two of them
    // can be more than a second apart. The clock is not advanced between the two failures.
    expect((await f.admin.put(A, { quickLoginCheckMilliSeconds: 20000 })).status).toBe(204);
    await wrong('usr2');
    await wrong('usr2');
    const s = await status('usr2');
    expect(s.body).toMatchObject({ numFailures: 2, disabled: true, numTemporaryLockouts: 0 });
    expect(s.body.failedLoginNotBefore).toBeGreaterThan(nowS());
    expect((await f.login('usr2')).body).toEqual(INVALID);
    advanceClock(31);
    expect((await f.login('usr2')).status).toBe(200);
  });

  test('permanent lockout disables the user; clearing failures keeps it disabled; enabling it releases it', async () => {
    await f.admin.put(A, { permanentLockout: true, maxTemporaryLockouts: 0, adminEventsEnabled: true });
    for (let i = 0; i < 3; i++) {
      advanceClock(2);
      expect((await wrong('usr3')).body).toEqual(INVALID);
    }
    const user = await f.admin.get(`${A}/users/${f.users.usr3}`);
    expect(user.body.enabled).toBe(false);
    const raw = await status('usr3');
    expect(raw.body).toMatchObject({ numFailures: 3, disabled: true });
    expect(raw.text).toContain('"failedLoginNotBefore":9223372036854775807');
    expect((await f.login('usr3')).body).toEqual(INVALID);

    expect((await f.admin.delete(`${A}/attack-detection/brute-force/users`)).status).toBe(204);
    expect((await f.admin.get(`${A}/users/${f.users.usr3}`)).body.enabled).toBe(false);
    expect((await status('usr3')).body).toMatchObject({ numFailures: 0, disabled: true });

    expect((await f.admin.put(`${A}/users/${f.users.usr3}`, { enabled: true })).status).toBe(204);
    expect((await status('usr3')).body).toMatchObject({ numFailures: 0, disabled: false, failedLoginNotBefore: 0 });
    expect((await f.login('usr3')).status).toBe(200);
    const events = await adminEvents(f.admin, R, { resourceTypes: 'USER_LOGIN_FAILURE' });
    expect(events.map((e) => `${e.operationType} ${e.resourcePath}`)).toEqual(
      expect.arrayContaining(['DELETE attack-detection/brute-force/users', `DELETE users/${f.users.usr3}`]),
    );
    await f.admin.put(A, { adminEventsEnabled: false });
  });

  test('maxTemporaryLockouts: temporary lockouts first, then permanent', async () => {
    await f.admin.put(A, { permanentLockout: true, maxTemporaryLockouts: 1, failureFactor: 2 });
    advanceClock(2);
    await wrong('usr4');
    advanceClock(2);
    await wrong('usr4');
    expect((await status('usr4')).body).toMatchObject({ numFailures: 2, disabled: true, numTemporaryLockouts: 1 });
    expect((await f.admin.get(`${A}/users/${f.users.usr4}`)).body.enabled).toBe(true);
    advanceClock(61);
    await wrong('usr4');
    expect((await f.admin.get(`${A}/users/${f.users.usr4}`)).body.enabled).toBe(false);
    expect((await status('usr4')).text).toContain('9223372036854775807');
  });

  test('DELETE users/{id} releases a temporary lockout; unknown ids answer 200 zero / 204', async () => {
    await wrong('usr5');
    await wrong('usr5');
    expect((await status('usr5')).body.disabled).toBe(true);
    expect((await f.admin.delete(`${A}/attack-detection/brute-force/users/${f.users.usr5}`)).status).toBe(204);
    expect((await status('usr5')).body).toMatchObject({ numFailures: 0, disabled: false });
    expect((await f.login('usr5')).status).toBe(200);
    const unknown = await f.admin.get(`${A}/attack-detection/brute-force/users/nope`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.numFailures).toBe(0);
    expect((await f.admin.delete(`${A}/attack-detection/brute-force/users/nope`)).status).toBe(204);
  });

  test('maxDeltaTimeSeconds resets the counter; failures of unknown users are not recorded', async () => {
    await f.admin.put(A, { maxDeltaTimeSeconds: 100 });
    advanceClock(2);
    await wrong('usr6');
    advanceClock(2);
    await wrong('usr6');
    expect((await status('usr6')).body.numFailures).toBe(2);
    advanceClock(101);
    await wrong('usr6');
    expect((await status('usr6')).body).toMatchObject({ numFailures: 1, disabled: false });
    expect((await f.login('nobody', { password: 'x' })).body).toEqual(INVALID);
    // Read from the table: the API answers zero failures for any unknown id, recorded or not.
    expect(await ts.db.models.LoginFailure.count({ where: { userId: 'nobody' } })).toBe(0);
  });

  test('concurrent failed logins are all counted', async () => {
    await f.admin.put(A, { failureFactor: 100, quickLoginCheckMilliSeconds: 0 });
    const n = 12;
    const results = await Promise.all(
      Array.from({ length: n }, () =>
        request(ts.app)
          .post(`/realms/${R}/protocol/openid-connect/token`)
          .type('form')
          .send({ grant_type: 'password', client_id: 'admin-cli', username: 'usr7', password: 'wrong' }),
      ),
    );
    expect(results.every((r) => r.status === 400)).toBe(true);
    expect((await status('usr7')).body).toMatchObject({ numFailures: n, disabled: false });
  });

  test('permissions and protection off', async () => {
    await f.admin.put(A, { bruteForceProtected: false });
    await wrong('usr6');
    expect((await status('usr6')).body.numFailures).toBe(0);
    const anon = await request(ts.app).get(`${A}/attack-detection/brute-force/users/${f.users.usr6}`);
    expect(anon.status).toBe(401);
  });
});
