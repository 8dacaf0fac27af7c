import { clientUuid, realmIdOf, userId } from '../../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../../helpers/server';

/**
 * Admin events recorded by every admin write of the foundation (reference §1.11, Appendix D):
 * operation type, resource type, resource path, representation (details on/off) and authDetails.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'ae';
const P = `/admin/realms/${R}`;
let masterId: string;
let adminId: string;
let adminCliId: string;

const idOf = (res: { headers: Record<string, string> }) => String(res.headers.location).split('/').pop() as string;
type Ev = { operationType: string; resourceType: string; resourcePath?: string; representation?: string; details?: Record<string, string> };
const summary = (e: Ev) => [e.operationType, e.resourceType, e.resourcePath];

type Res = { status: number; body: unknown; headers: Record<string, string> };
async function ok(res: Promise<Res> | Res) {
  const r = await res;
  if (![200, 201, 204].includes(r.status)) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

async function adminEvents(realm = R): Promise<Ev[]> {
  return (await api.get(`/admin/realms/${realm}/admin-events?direction=asc&max=1000`)).body;
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  masterId = await realmIdOf(api, 'master');
  adminId = await userId(api, 'master', 'admin');
  adminCliId = await clientUuid(api, 'master', 'admin-cli');
  await ok(api.put('/admin/realms/master/events/config', { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
});
afterAll(() => ts.close());

test('realm create is recorded in the caller’s realm (master), with authDetails', async () => {
  await ok(api.post('/admin/realms', { realm: R, enabled: true, smtpServer: { host: 'h', password: 'pw-secret' } }));
  const [ev] = (await adminEvents('master')).filter((e) => e.resourceType === 'REALM' && e.operationType === 'CREATE');
  expect(ev).toMatchObject({
    realmId: masterId,
    authDetails: { realmId: masterId, clientId: adminCliId, userId: adminId, ipAddress: expect.any(String) },
    resourcePath: R,
  });
  expect(JSON.parse(ev.representation as string)).toMatchObject({ realm: R, enabled: true });
  expect(ev.representation).not.toContain('pw-secret');
});

test('no admin events are stored while the realm has them disabled', async () => {
  await ok(api.post(`${P}/roles`, { name: 'before' }));
  expect(await adminEvents()).toEqual([]);
});

test('every write of users, groups, roles, composites, mappings and the realm (details on)', async () => {
  await ok(api.put(`${P}/events/config`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
  await api.delete(`${P}/admin-events`);
  const account = (await api.get(`${P}/clients?clientId=account`)).body[0].id as string;

  const uid = idOf(
    await ok(api.post(`${P}/users`, { username: 'user1', email: 'u1@x.org', credentials: [{ type: 'password', value: 'top-secret' }] })),
  );
  await ok(api.put(`${P}/users/${uid}`, { firstName: 'Uno' }));
  const profile = (await api.get(`${P}/users/profile`)).body;
  await ok(api.put(`${P}/users/profile`, profile));
  const g1 = idOf(await ok(api.post(`${P}/groups`, { name: 'g1' })));
  await ok(api.put(`${P}/groups/${g1}`, { name: 'g1b' }));
  await ok(api.post(`${P}/groups/${g1}/children`, { name: 'c1' }));
  const g2 = idOf(await ok(api.post(`${P}/groups`, { name: 'g2' })));
  await ok(api.post(`${P}/groups/${g1}/children`, { id: g2, name: 'g2' }));
  await ok(api.post(`${P}/groups`, { id: g2, name: 'g2' }));
  await ok(api.put(`${P}/users/${uid}/groups/${g1}`));
  await ok(api.delete(`${P}/users/${uid}/groups/${g1}`));
  await ok(api.put(`${P}/default-groups/${g1}`));
  await ok(api.delete(`${P}/default-groups/${g1}`));
  await ok(api.post(`${P}/roles`, { name: 'r1' }));
  await ok(api.put(`${P}/roles/r1`, { name: 'r1', description: 'd' }));
  await ok(api.post(`${P}/roles`, { name: 'r2' }));
  const r1 = (await api.get(`${P}/roles/r1`)).body.id as string;
  const r2 = (await api.get(`${P}/roles/r2`)).body.id as string;
  await ok(api.put(`${P}/roles-by-id/${r2}`, { name: 'r2', description: 'by id' }));
  await ok(api.post(`${P}/clients/${account}/roles`, { name: 'cr' }));
  const cr = (await api.get(`${P}/clients/${account}/roles/cr`)).body.id as string;
  await ok(api.post(`${P}/roles-by-id/${r1}/composites`, [{ id: r2 }]));
  await ok(api.delete(`${P}/roles/r1/composites`, [{ id: r2 }]));
  await ok(api.post(`${P}/users/${uid}/role-mappings/realm`, [{ id: r1, name: 'r1' }]));
  await ok(api.delete(`${P}/users/${uid}/role-mappings/realm`, [{ id: r1, name: 'r1' }]));
  await ok(api.post(`${P}/groups/${g1}/role-mappings/clients/${account}`, [{ id: cr, name: 'cr' }]));
  await ok(api.delete(`${P}/groups/${g1}/role-mappings/clients/${account}`));
  await ok(api.delete(`${P}/roles/r2`));
  await ok(api.delete(`${P}/roles-by-id/${cr}`));
  await ok(api.delete(`${P}/groups/${g2}`));
  await ok(api.delete(`${P}/users/${uid}`));
  await ok(api.put(P, { displayName: 'Admin Events' }));

  const events = await adminEvents();
  expect(events.map(summary)).toEqual([
    ['CREATE', 'USER', `users/${uid}`],
    ['UPDATE', 'USER', `users/${uid}`],
    ['UPDATE', 'USER_PROFILE', 'users/profile'],
    ['CREATE', 'GROUP', `groups/${g1}`],
    ['UPDATE', 'GROUP', `groups/${g1}`],
    ['CREATE', 'GROUP', `groups/${g1}/children`],
    ['CREATE', 'GROUP', `groups/${g2}`],
    ['UPDATE', 'GROUP', `groups/${g1}/children`],
    ['UPDATE', 'GROUP', 'groups'],
    ['CREATE', 'GROUP_MEMBERSHIP', `users/${uid}/groups/${g1}`],
    ['DELETE', 'GROUP_MEMBERSHIP', `users/${uid}/groups/${g1}`],
    ['CREATE', 'GROUP', `default-groups/${g1}`],
    ['DELETE', 'GROUP', `default-groups/${g1}`],
    ['CREATE', 'REALM_ROLE', 'roles/r1'],
    ['UPDATE', 'REALM_ROLE', 'roles/r1'],
    ['CREATE', 'REALM_ROLE', 'roles/r2'],
    ['UPDATE', 'REALM_ROLE', `roles-by-id/${r2}`],
    ['CREATE', 'CLIENT_ROLE', `clients/${account}/roles/cr`],
    ['CREATE', 'REALM_ROLE', `roles-by-id/${r1}/composites`],
    ['DELETE', 'REALM_ROLE', 'roles/r1/composites'],
    ['CREATE', 'REALM_ROLE_MAPPING', `users/${uid}/role-mappings/realm`],
    ['DELETE', 'REALM_ROLE_MAPPING', `users/${uid}/role-mappings/realm`],
    ['CREATE', 'CLIENT_ROLE_MAPPING', `groups/${g1}/role-mappings/clients/${account}`],
    ['DELETE', 'CLIENT_ROLE_MAPPING', `groups/${g1}/role-mappings/clients/${account}`],
    ['DELETE', 'REALM_ROLE', 'roles/r2'],
    ['DELETE', 'CLIENT_ROLE', `roles-by-id/${cr}`],
    ['DELETE', 'GROUP', `groups/${g2}`],
    ['DELETE', 'USER', `users/${uid}`],
    ['UPDATE', 'REALM', undefined],
  ]);
  const rep = (i: number) => JSON.parse(events[i].representation as string);
  expect(rep(0)).toMatchObject({ username: 'user1', email: 'u1@x.org' });
  expect(events[0].representation).not.toContain('top-secret');
  expect(rep(1)).toEqual({ firstName: 'Uno' });
  expect(rep(3)).toEqual({ name: 'g1', id: g1 });
  expect(rep(9)).toMatchObject({ id: g1, name: 'g1b', path: '/g1b' });
  expect(events[9].details).toEqual({ username: 'user1', email: 'u1@x.org' });
  expect(rep(18)).toEqual([{ id: r2 }]);
  expect(rep(20)).toEqual([{ id: r1, name: 'r1' }]);
  expect(rep(23)).toEqual([{ id: cr, name: 'cr' }]);
  expect(events[27].representation).toBeUndefined();
  expect(rep(28)).toEqual({ displayName: 'Admin Events' });
  for (const e of events) expect(e).toMatchObject({ authDetails: { realmId: masterId, clientId: adminCliId, userId: adminId } });
});

test('details off: events without representation; failed writes record nothing', async () => {
  await ok(api.put(`${P}/events/config`, { adminEventsEnabled: true, adminEventsDetailsEnabled: false }));
  await api.delete(`${P}/admin-events`);
  await ok(api.post(`${P}/roles`, { name: 'plain' }));
  expect((await api.post(`${P}/roles`, { name: 'plain' })).status).toBe(409);
  const events = await adminEvents();
  expect(events.map(summary)).toEqual([['CREATE', 'REALM_ROLE', 'roles/plain']]);
  expect(events[0].representation).toBeUndefined();
});

test('realm delete is recorded in master', async () => {
  await ok(api.delete(P));
  const del = (await adminEvents('master')).filter((e) => e.operationType === 'DELETE');
  expect(del.map(summary)).toEqual([['DELETE', 'REALM', R]]);
  expect(await ts.db.models.AdminEvent.count({ where: { resourcePath: 'roles/plain' } })).toBe(0);
});

describe('secrets never reach admin events', () => {
  test('a realm import with user passwords, a client secret and an SMTP password is recorded without them', async () => {
    await ok(
      api.post('/admin/realms', {
        realm: 'secretive',
        enabled: true,
        smtpServer: { host: 'localhost', password: 'smtp-pass-1' },
        users: [{ username: 'holder', credentials: [{ type: 'password', value: 'user-pass-1' }] }],
      }),
    );
    const created = (await adminEvents('master')).filter((e) => e.resourcePath === 'secretive');
    expect(created).toHaveLength(1);
    const text = created[0].representation as string;
    expect(text).toContain('holder');
    for (const secret of ['smtp-pass-1', 'user-pass-1']) expect(text).not.toContain(secret);
    await ok(api.put('/admin/realms/secretive/events/config', { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
    const client = await ok(api.post('/admin/realms/secretive/clients', { clientId: 'with-secret', secret: 'client-secret-1' }));
    const clientEvent = (await adminEvents('secretive')).find((e) => e.resourcePath === `clients/${idOf(client as never)}`);
    expect(clientEvent?.representation).toBeDefined();
    expect(clientEvent?.representation).not.toContain('client-secret-1');
  });
});
