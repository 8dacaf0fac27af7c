import request from 'supertest';
import * as passwords from '../../../src/auth/passwords';
import { createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * Username enumeration by timing on the token endpoint (issue 10): an unknown user, a locked user and
 * a user without a password cost the same password hash as a wrong password. Measured by the hash work
 * done (a pass-through spy on `verifyPassword`, counting calls and the algorithm each ran with), never
 * by the clock.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'timing';

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { bruteForceProtected: true, failureFactor: 2, permanentLockout: true, maxTemporaryLockouts: 0 }));
  expect(
    (await api.post(`/admin/realms/${R}/clients`, { clientId: 'app', publicClient: true, directAccessGrantsEnabled: true })).status,
  ).toBe(201);
});
afterAll(() => ts.close());

const grant = (username: string, password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'app', username, password });

/** The status of a password grant and the hashes it verified: [algorithm, iterations] per call. */
async function hashWork(username: string, password: string): Promise<{ status: number; error: string; hashes: unknown[] }> {
  const spy = jest.spyOn(passwords, 'verifyPassword');
  try {
    const res = await grant(username, password);
    const hashes = spy.mock.calls.map(([, stored]) => {
      const data = JSON.parse(stored.credentialData) as { algorithm: string; hashIterations: number };
      return [data.algorithm, data.hashIterations];
    });
    return { status: res.status, error: res.body.error_description, hashes };
  } finally {
    spy.mockRestore();
  }
}

test('an unknown user costs the same one hash as a wrong password, and the same answer', async () => {
  await createUser(ts, R, 'known', { password: 'right-pw' });
  const wrong = await hashWork('known', 'wrong-pw');
  const unknown = await hashWork('nobody-here', 'wrong-pw');
  expect(wrong).toEqual({ status: 400, error: 'Invalid user credentials', hashes: [['argon2', 5]] });
  expect(unknown).toEqual(wrong);
  expect((await hashWork('known', 'right-pw')).hashes).toEqual([['argon2', 5]]);
});

test("the dummy hash follows the realm's hash policy", async () => {
  expect((await api.put(`/admin/realms/${R}`, { passwordPolicy: 'hashAlgorithm(pbkdf2-sha256) and hashIterations(1000)' })).status).toBe(
    204,
  );
  try {
    await createUser(ts, R, 'pbkdf', { password: 'right-pw' });
    const wrong = await hashWork('pbkdf', 'wrong-pw');
    expect(wrong.hashes).toEqual([['pbkdf2-sha256', 1000]]);
    expect(await hashWork('nobody-at-all', 'wrong-pw')).toEqual(wrong);
  } finally {
    expect((await api.put(`/admin/realms/${R}`, { passwordPolicy: '' })).status).toBe(204);
  }
});

test('a locked-out user and a user without a password cost one hash too', async () => {
  await createUser(ts, R, 'locked', { password: 'right-pw' });
  for (let i = 0; i < 2; i++) expect((await grant('locked', 'wrong-pw')).status).toBe(400);
  expect(await hashWork('locked', 'right-pw')).toEqual({ status: 400, error: 'Invalid user credentials', hashes: [['argon2', 5]] });
  await createUser(ts, R, 'nopassword', { password: null });
  expect(await hashWork('nopassword', 'any-pw')).toEqual({ status: 400, error: 'Invalid user credentials', hashes: [['argon2', 5]] });
});
