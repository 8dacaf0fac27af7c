import request from 'supertest';
import { grantClientRoles, idOf, realmServer, serviceAccountClient, userId } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'imper';
const U = `/admin/realms/${R}/users`;

async function createUser(realm: string, username: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post(`/admin/realms/${realm}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'F',
    lastName: 'L',
    enabled: true,
    credentials: [{ type: 'password', value: `${username}-pw` }],
    ...extra,
  });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

const grant = (realm: string, userId: string, roles: string[]) => grantClientRoles(api, realm, userId, 'realm-management', roles);

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { eventsEnabled: true }));
});
afterAll(() => ts.close());

describe('POST /users/{id}/impersonation', () => {
  test('master admin: 200 with redirect, sameRealm false; session for the target with impersonator notes; event', async () => {
    const id = await createUser(R, 'victim');
    const res = await api.post(`${U}/${id}/impersonation`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ redirect: `http://localhost:8080/realms/${R}/account`, sameRealm: false });
    expect(res.headers['cache-control']).toBe('no-cache');
    // The impersonator notes are not part of the session representation: read from the table.
    const sessions = await ts.db.models.UserSession.findAll({ where: { userId: id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0].notes).toEqual({ IMPERSONATOR_ID: await userId(api, 'master', 'admin'), IMPERSONATOR_USERNAME: 'admin' });
    const event = await ts.db.models.Event.findOne({ where: { userId: id, type: 'IMPERSONATE' } });
    expect(event?.details).toEqual({ impersonator_realm: 'master', impersonator: 'admin' });
    expect(event?.sessionId).toBe(sessions[0].id);
    // the master admin's token still works
    expect((await api.get(`${U}/${id}`)).status).toBe(200);
  });

  test('same-realm admin: sameRealm true and its own session ends (token → 401)', async () => {
    const adminId = await createUser(R, 'localadmin');
    await grant(R, adminId, ['impersonation', 'view-users']);
    const target = await createUser(R, 'target');
    const local = await ts.api({ realm: R, username: 'localadmin', password: 'localadmin-pw' });
    const res = await local.post(`${U}/${target}/impersonation`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ redirect: `http://localhost:8080/realms/${R}/account`, sameRealm: true });
    expect((await local.get(`${U}/${target}`)).status).toBe(401);
  });

  test('403 without the impersonation role; 400 for disabled users and service accounts; 404 unknown', async () => {
    const managerId = await createUser(R, 'manager');
    await grant(R, managerId, ['manage-users']);
    const manager = await ts.api({ realm: R, username: 'manager', password: 'manager-pw' });
    const target = await createUser(R, 'target2');
    const denied = await manager.post(`${U}/${target}/impersonation`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });

    const disabled = await createUser(R, 'disabled', { enabled: false });
    const d = await api.post(`${U}/${disabled}/impersonation`);
    expect(d.status).toBe(400);
    expect(d.body).toEqual({ errorMessage: 'User is disabled' });

    const { userId: sa } = await serviceAccountClient(api, R, 'sa-client', 'sa-secret');
    const s = await api.post(`${U}/${sa}/impersonation`);
    expect(s.status).toBe(400);
    expect(s.body).toEqual({ errorMessage: 'Service accounts cannot be impersonated' });

    const unknown = await api.post(`${U}/00000000-0000-0000-0000-000000000000/impersonation`);
    expect(unknown.status).toBe(404);
    expect((await api.get(`${U}/${disabled}/sessions`)).body).toEqual([]);
    expect((await request(ts.app).post(`${U}/${target}/impersonation`)).status).toBe(401);
  });
});
