import request from 'supertest';
import { clock } from '../../src/core/clock';
import type { AdminApi, TestServer } from './server';

/** Helpers of the session, brute-force and login-event suites: a realm with users, logins, a movable clock. */
export interface SessionFixture {
  admin: AdminApi;
  realm: string;
  users: Record<string, string>;
  clientUuid(clientId: string): Promise<string>;
  login(username: string, extra?: Record<string, string>): Promise<request.Response>;
  grant(form: Record<string, string>): Promise<request.Response>;
}

let offset = 0;
const realNow = clock.now;

/** Moves the server's session/brute-force clock forward by `seconds` (no sleeping). */
export function advanceClock(seconds: number): void {
  offset += seconds * 1000;
  clock.now = () => realNow() + offset;
}

export function resetClock(): void {
  offset = 0;
  clock.now = realNow;
}

export async function sessionFixture(
  ts: TestServer,
  realm: string,
  usernames: string[],
  settings: Record<string, unknown> = {},
): Promise<SessionFixture> {
  const admin = await ts.api();
  const created = await admin.post('/admin/realms', { realm, enabled: true, ...settings });
  if (created.status !== 201) throw new Error(`realm: ${created.status} ${JSON.stringify(created.body)}`);
  const users: Record<string, string> = {};
  for (const u of usernames) {
    const res = await admin.post(`/admin/realms/${realm}/users`, {
      username: u,
      email: `${u}@example.org`,
      firstName: u,
      lastName: 'Test',
      enabled: true,
      credentials: [{ type: 'password', value: `${u}-pw`, temporary: false }],
    });
    if (res.status !== 201) throw new Error(`user: ${res.status} ${JSON.stringify(res.body)}`);
    users[u] = String(res.headers.location).split('/').pop() as string;
  }
  const grant = (form: Record<string, string>) =>
    request(ts.app).post(`/realms/${realm}/protocol/openid-connect/token`).type('form').send(form);
  return {
    admin,
    realm,
    users,
    async clientUuid(clientId) {
      const r = await ts.db.models.Realm.findOne({ where: { name: realm } });
      const c = await ts.db.models.Client.findOne({ where: { realmId: r?.id, clientId } });
      return String(c?.id);
    },
    login: (username, extra = {}) =>
      grant({ grant_type: 'password', client_id: 'admin-cli', username, password: `${username}-pw`, ...extra }),
    grant,
  };
}
