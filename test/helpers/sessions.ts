import request from 'supertest';
import { clock } from '../../src/core/clock';
import { clientUuid, createRealm, createUser } from './fixtures';
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
let frozenAt: number | undefined;
const realNow = clock.now;

/** Moves the server's session/brute-force clock forward by `seconds` (no sleeping). */
export function advanceClock(seconds: number): void {
  offset += seconds * 1000;
  clock.now = () => (frozenAt ?? realNow()) + offset;
}

/**
 * Stops the clock where it is (it moves only with `advanceClock`): for assertions on remaining
 * lifetimes in whole seconds, which a real second passing on a loaded machine would shift.
 */
export function freezeClock(): void {
  frozenAt = realNow();
  clock.now = () => (frozenAt as number) + offset;
}

export function resetClock(): void {
  offset = 0;
  frozenAt = undefined;
  clock.now = realNow;
}

export async function sessionFixture(
  ts: TestServer,
  realm: string,
  usernames: string[],
  settings: Record<string, unknown> = {},
): Promise<SessionFixture> {
  const admin = await ts.api();
  await createRealm(admin, realm, settings);
  const users: Record<string, string> = {};
  for (const u of usernames)
    users[u] = await createUser(ts, realm, u, { password: `${u}-pw`, firstName: u, lastName: 'Test', defaultRoles: true });
  const grant = (form: Record<string, string>) =>
    request(ts.app).post(`/realms/${realm}/protocol/openid-connect/token`).type('form').send(form);
  return {
    admin,
    realm,
    users,
    clientUuid: (clientId) => clientUuid(admin, realm, clientId),
    login: (username, extra = {}) =>
      grant({ grant_type: 'password', client_id: 'admin-cli', username, password: `${username}-pw`, ...extra }),
    grant,
  };
}
