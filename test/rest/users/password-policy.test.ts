import request from 'supertest';
import { clock } from '../../../src/core/clock';
import { realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'pwpol';
const U = `/admin/realms/${R}/users`;
const idOf = (location: string) => location.split('/').pop() as string;

const setPolicy = async (passwordPolicy: string) => expect((await api.put(`/admin/realms/${R}`, { passwordPolicy })).status).toBe(204);
const reset = (id: string, value: string) => api.put(`${U}/${id}/reset-password`, { type: 'password', value, temporary: false });
const login = (username: string, password: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username, password });

let userId: string;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const res = await api.post(U, { username: 'polly', email: 'polly@example.org', firstName: 'P', lastName: 'Q', enabled: true });
  userId = idOf(res.headers.location);
});
afterAll(() => ts.close());

const err = (error: string, error_description: string) => ({ error, error_description });

describe('password policy on reset-password, one rule at a time', () => {
  test.each([
    ['length(8)', 'short1', err('invalidPasswordMinLengthMessage', 'Invalid password: minimum length 8.'), 'longenough'],
    ['maxLength(10)', 'waytoolongpassword', err('invalidPasswordMaxLengthMessage', 'Invalid password: maximum length 10.'), 'fits10'],
    ['digits(2)', 'abc1', err('invalidPasswordMinDigitsMessage', 'Invalid password: must contain at least 2 numerical digits.'), 'abc12'],
    [
      'lowerCase(2)',
      'ABCd',
      err('invalidPasswordMinLowerCaseCharsMessage', 'Invalid password: must contain at least 2 lower case characters.'),
      'ABcd',
    ],
    [
      'upperCase(1)',
      'abcd',
      err('invalidPasswordMinUpperCaseCharsMessage', 'Invalid password: must contain at least 1 upper case characters.'),
      'aBcd',
    ],
    [
      'specialChars(1)',
      'abc123',
      err('invalidPasswordMinSpecialCharsMessage', 'Invalid password: must contain at least 1 special characters.'),
      'abc-123',
    ],
    [
      'notUsername(undefined)',
      'Polly',
      err('invalidPasswordNotUsernameMessage', 'Invalid password: must not be equal to the username.'),
      'polly2',
    ],
    [
      'notContainsUsername',
      'xxpollyxx',
      err('invalidPasswordNotContainsUsernameMessage', 'Invalid password: Can not contain the username.'),
      'pol-ly',
    ],
    [
      'notEmail(undefined)',
      'polly@example.org',
      err('invalidPasswordNotEmailMessage', 'Invalid password: must not be equal to the email.'),
      'polly@example',
    ],
    [
      'regexPattern([a-z]+[0-9]+)',
      'abc',
      err('invalidPasswordRegexPatternMessage', 'Invalid password: fails to match regex pattern(s).'),
      'abc9',
    ],
  ])('%s', async (policy, bad, body, good) => {
    await setPolicy(policy);
    const before = (await api.get(`${U}/${userId}/credentials`)).body;
    const res = await reset(userId, bad);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(body);
    expect((await api.get(`${U}/${userId}/credentials`)).body).toEqual(before);
    expect((await reset(userId, good)).status).toBe(204);
  });

  test('several rules: the first violated one is reported', async () => {
    await setPolicy('length(8) and digits(1) and notUsername(undefined) and passwordHistory(3)');
    expect((await reset(userId, 'abc')).body.error).toBe('invalidPasswordMinLengthMessage');
    expect((await reset(userId, 'abcdefghi')).body.error).toBe('invalidPasswordMinDigitsMessage');
    expect((await reset(userId, 'abcdefgh1')).status).toBe(204);
  });
});

describe('passwordHistory', () => {
  test('the last n passwords (current included) cannot be reused; history rows are kept and trimmed', async () => {
    await setPolicy('passwordHistory(3)');
    for (const p of ['hist-1', 'hist-2', 'hist-3']) expect((await reset(userId, p)).status).toBe(204);
    for (const p of ['hist-3', 'hist-2', 'hist-1']) {
      const res = await reset(userId, p);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(err('invalidPasswordHistoryMessage', 'Invalid password: must not be equal to any of last 3 passwords.'));
    }
    expect((await reset(userId, 'hist-4')).status).toBe(204);
    expect((await reset(userId, 'hist-1')).status).toBe(204);
    const history = await ts.db.models.Credential.count({ where: { userId, type: 'password-history' } });
    expect(history).toBe(2);
    // history is internal: not listed
    expect((await api.get(`${U}/${userId}/credentials`)).body.map((c: { type: string }) => c.type)).toEqual(['password']);
    expect((await login('polly', 'hist-1')).status).toBe(200);
  });

  test('without the policy no history is kept', async () => {
    await setPolicy('length(4)');
    expect((await reset(userId, 'nohist-1')).status).toBe(204);
    expect(await ts.db.models.Credential.count({ where: { userId, type: 'password-history' } })).toBe(0);
    expect((await reset(userId, 'nohist-1')).status).toBe(204);
  });
});

describe('passwordAge', () => {
  const GENERIC = err('invalidPasswordGenericMessage', "Invalid password: new password doesn't match password policies.");
  const history = () => ts.db.models.Credential.findAll({ where: { userId, type: 'password-history' } });
  /** Makes the kept passwords `days` older (their createdDate is the time that password was set). */
  const ageHistory = async (days: number) => {
    // Each moved back by the same amount, so that their order stays.
    for (const c of await history()) await c.update({ createdDate: Number(c.createdDate) - days * 86_400_000 });
  };

  test('passwordAge(days): neither the current password nor one used in the last days may be set again (AgePasswordPolicyProvider)', async () => {
    await setPolicy('passwordAge(10)');
    for (const p of ['age-1', 'age-2', 'age-3']) expect((await reset(userId, p)).status).toBe(204);
    for (const p of ['age-3', 'age-2', 'age-1']) {
      const res = await reset(userId, p);
      expect([res.status, res.body]).toEqual([400, GENERIC]);
    }
    // Without passwordHistory, the history is kept for the policy's sake.
    expect((await history()).length).toBeGreaterThanOrEqual(2);
    await ageHistory(11);
    // Older than 10 days: allowed again; the current one never is.
    expect((await reset(userId, 'age-3')).body).toEqual(GENERIC);
    expect((await reset(userId, 'age-1')).status).toBe(204);
    // That change removed the entries older than 10 days but the one it just made (the old age-3).
    const kept = await history();
    expect(kept).toHaveLength(1);
    expect((await reset(userId, 'age-3')).body).toEqual(GENERIC);
    expect((await login('polly', 'age-1')).status).toBe(200);
  });

  test('passwordAge(0) refuses only the current password and keeps no history', async () => {
    await setPolicy('passwordAge(0)');
    expect((await reset(userId, 'zero-1')).status).toBe(204);
    expect((await reset(userId, 'zero-1')).body).toEqual(GENERIC);
    expect((await reset(userId, 'zero-2')).status).toBe(204);
    expect(await history()).toHaveLength(0);
    expect((await reset(userId, 'zero-1')).status).toBe(204);
  });

  test('with passwordHistory too, an entry goes only when both let it go (the stricter policy wins)', async () => {
    await setPolicy('passwordAge(10) and passwordHistory(3)');
    for (const p of ['both-1', 'both-2', 'both-3', 'both-4']) expect((await reset(userId, p)).status).toBe(204);
    await ageHistory(11);
    // passwordHistory(3) still refuses both-2 and both-3 (the last 3, current included), though old.
    expect((await reset(userId, 'both-3')).body).toEqual(
      err('invalidPasswordHistoryMessage', 'Invalid password: must not be equal to any of last 3 passwords.'),
    );
    expect((await reset(userId, 'both-1')).status).toBe(204);
  });
});

describe('hashing policy', () => {
  test.each([
    ['hashAlgorithm(pbkdf2-sha256) and hashIterations(1000)', 'pbkdf2-sha256', 1000],
    ['hashAlgorithm(pbkdf2-sha512)', 'pbkdf2-sha512', 210000],
    ['hashAlgorithm(pbkdf2)', 'pbkdf2', 27500],
    ['hashAlgorithm(argon2) and hashIterations(2)', 'argon2', 2],
  ])('%s', async (policy, algorithm, hashIterations) => {
    await setPolicy(policy);
    const pw = `pw-${algorithm}-${hashIterations}`;
    expect((await reset(userId, pw)).status).toBe(204);
    const [cred] = (await api.get(`${U}/${userId}/credentials`)).body;
    expect(JSON.parse(cred.credentialData)).toMatchObject({ algorithm, hashIterations });
    expect((await login('polly', pw)).status).toBe(200);
  });

  test('forceExpiredPasswordChange(days): an older password must be updated before a password grant succeeds', async () => {
    await setPolicy('forceExpiredPasswordChange(90) and length(6)');
    expect((await api.get(`/admin/realms/${R}`)).body.passwordPolicy).toBe('forceExpiredPasswordChange(90) and length(6)');
    expect((await reset(userId, 'fresh-pw-1')).status).toBe(204);
    // Logins `days` from now (the admin calls in between run on the real clock: admin tokens expire too).
    const loginAfter = async (days: number, password: string) => {
      clock.now = () => Date.now() + days * 86_400_000;
      try {
        return await login('polly', password);
      } finally {
        clock.now = () => Date.now();
      }
    };
    expect((await loginAfter(89, 'fresh-pw-1')).status).toBe(200);
    const expired = await loginAfter(91, 'fresh-pw-1');
    expect([expired.status, expired.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Account is not fully set up' }]);
    // Only while the UPDATE_PASSWORD required action is enabled, as in Keycloak.
    const ra = `/admin/realms/${R}/authentication/required-actions/UPDATE_PASSWORD`;
    const action = (await api.get(ra)).body;
    expect((await api.put(ra, { ...action, enabled: false })).status).toBe(204);
    expect((await loginAfter(91, 'fresh-pw-1')).status).toBe(200);
    expect((await api.put(ra, { ...action, enabled: true })).status).toBe(204);
    // A new password starts a new period.
    expect((await reset(userId, 'fresh-pw-2')).status).toBe(204);
    expect((await loginAfter(30, 'fresh-pw-2')).status).toBe(200);
    await setPolicy('');
  });
});

describe('policy enforced for credentials on create and update', () => {
  test('create: 400 shape B and no user created', async () => {
    await setPolicy('length(10)');
    const res = await api.post(U, {
      username: 'tooshort',
      enabled: true,
      credentials: [{ type: 'password', value: 'short', temporary: false }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(err('invalidPasswordMinLengthMessage', 'Invalid password: minimum length 10.'));
    expect((await api.get(`${U}?username=tooshort&exact=true`)).body).toEqual([]);
  });

  test('notUsername on create uses the new username; update keeps the old password on violation', async () => {
    await setPolicy('notUsername(undefined)');
    const bad = await api.post(U, { username: 'samename', credentials: [{ type: 'password', value: 'samename' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalidPasswordNotUsernameMessage');
    const ok = await api.post(U, {
      username: 'updater',
      email: 'updater@example.org',
      firstName: 'U',
      lastName: 'P',
      enabled: true,
      credentials: [{ type: 'password', value: 'good-one' }],
    });
    expect(ok.status).toBe(201);
    const id = idOf(ok.headers.location);
    await setPolicy('passwordHistory(2) and digits(1)');
    const upd = await api.put(`${U}/${id}`, { credentials: [{ type: 'password', value: 'no-digits' }] });
    expect(upd.status).toBe(400);
    expect(upd.body.error).toBe('invalidPasswordMinDigitsMessage');
    expect((await login('updater', 'good-one')).status).toBe(200);
    expect((await api.put(`${U}/${id}`, { credentials: [{ type: 'password', value: 'digit-1' }] })).status).toBe(204);
    expect((await login('updater', 'digit-1')).status).toBe(200);
    expect(await ts.db.models.Credential.count({ where: { userId: id, type: 'password-history' } })).toBe(1);
    const reuse = await api.put(`${U}/${id}`, { credentials: [{ type: 'password', value: 'digit-1' }] });
    expect(reuse.body.error).toBe('invalidPasswordHistoryMessage');
  });
});

describe('invalid policy strings on realm update', () => {
  test.each([
    ['noSuchPolicy(1)', 'Password policy not found'],
    ['length(abc)', 'Invalid config for length: Not a valid number'],
    ['regexPattern([a-)', 'Invalid config for regexPattern: Not a valid regular expression'],
    ['hashAlgorithm(md5)', 'Invalid config for hashAlgorithm: Password hashing provider not found'],
  ])('%s → 400', async (passwordPolicy, errorMessage) => {
    await setPolicy('length(3)');
    const res = await api.put(`/admin/realms/${R}`, { passwordPolicy, displayName: 'changed' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage });
    const realm = (await api.get(`/admin/realms/${R}`)).body;
    expect(realm.passwordPolicy).toBe('length(3)');
    expect(realm.displayName).toBeUndefined();
  });
});
