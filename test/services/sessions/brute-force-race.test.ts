import { recordLoginFailure } from '../../../src/services/sessions/brute-force';
import { startTestServer, type TestServer } from '../../helpers/server';

/**
 * The failure record of a user is created by whichever failed login comes first. Many first
 * failures at once race to create it (a unique-key race, and on MySQL a gap-lock deadlock that
 * db.transaction runs again): every one of them is counted, none fails.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

test('concurrent first failures of a user without a record are all counted', async () => {
  const realm = await ts.db.models.Realm.findOne({ where: { name: 'master' } });
  const user = await ts.db.models.User.findOne({ where: { realmId: realm?.id, username: 'admin' } });
  if (!realm || !user) throw new Error('bootstrap data missing');
  realm.settings = { ...realm.settings, bruteForceProtected: true, failureFactor: 1000, quickLoginCheckMilliSeconds: 0 };
  const n = 20;
  for (const round of [1, 2]) {
    await ts.db.models.LoginFailure.destroy({ where: { userId: user.id } });
    const outcomes = await Promise.allSettled(Array.from({ length: n }, () => recordLoginFailure(ts.db, realm, user, '10.0.0.1')));
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    const row = await ts.db.models.LoginFailure.findByPk(user.id);
    expect({ round, numFailures: row?.numFailures }).toEqual({ round, numFailures: n });
  }
});
