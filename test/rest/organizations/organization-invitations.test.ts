import { adminEvents, createUser, realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';
import { gqlClient, ok } from '../../graphql/gql';

/**
 * The stored invitations of an organization, as Keycloak 26's OrganizationInvitationResource and
 * JpaInvitationManager (services/src/main/java/org/keycloak/organization/admin/resource/
 * OrganizationInvitationResource.java, model/jpa/.../organization/jpa/JpaInvitationManager.java):
 * a mailed invitation is listed by id with its status, filtered by status, e-mail, names or search,
 * paged; read and deleted by id (404 `Invitation not found`); resent as a new invitation; a second
 * pending invitation of an address is 409; a mail that cannot be sent leaves none.
 */
let ts: TestServer;
let api: AdminApi;
let smtp: TestSmtp;
const R = 'orginvites';
const base = `/admin/realms/${R}/organizations`;
let orgId: string;

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
const invite = (email: string, extra: Record<string, string> = {}) =>
  api
    .post(`${base}/${orgId}/members/invite-user`)
    .type('form')
    .send({ email, ...extra });
const list = async (q = '') => (await api.get(`${base}/${orgId}/invitations${q}`).expect(200)).body as Array<Record<string, unknown>>;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  smtp = await startSmtp();
  const res = await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    organizationsEnabled: true,
    adminEventsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idserver@example.org' },
  });
  expect(res.status).toBe(201);
  orgId = idOf((await api.post(base, { name: 'invites-org' })).headers.location);
  await invite('zed@example.org', { firstName: 'Zed', lastName: 'Zimmer' }).expect(204);
  await invite('amy@example.org', { firstName: 'Amy', lastName: 'Adams' }).expect(204);
  await invite('NoName@Example.org').expect(204);
  await smtp.waitFor(3);
});
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

test('listed by id with their status; names only when given; no invite link', async () => {
  const all = await list();
  expect(all.map((i) => i.id)).toEqual([...all.map((i) => i.id as string)].sort());
  expect(all.map((i) => i.email)).toEqual(expect.arrayContaining(['amy@example.org', 'noname@example.org', 'zed@example.org']));
  const noName = all.find((i) => i.email === 'noname@example.org') as Record<string, unknown>;
  expect(Object.keys(noName).sort()).toEqual(['email', 'expiresAt', 'id', 'organizationId', 'sentDate', 'status']);
  expect(all.every((i) => i.status === 'PENDING' && i.organizationId === orgId)).toBe(true);
  expect(Math.abs((noName.sentDate as number) - Date.now() / 1000)).toBeLessThan(120);
});

test('filters: status, email, firstName, lastName, search (infix, any case); paging with first and max', async () => {
  expect((await list('?status=PENDING')).length).toBe((await list()).length);
  expect(await list('?status=EXPIRED')).toEqual([]);
  expect((await list('?email=AMY')).map((i) => i.email)).toEqual(['amy@example.org']);
  expect((await list('?firstName=ze')).map((i) => i.email)).toEqual(['zed@example.org']);
  expect((await list('?lastName=dam')).map((i) => i.email)).toEqual(['amy@example.org']);
  expect((await list('?search=zimm')).map((i) => i.email)).toEqual(['zed@example.org']);
  expect((await list('?search=example.org')).length).toBe((await list()).length);
  expect(await list('?search=%25')).toEqual([]);
  const all = await list();
  expect((await list('?first=1&max=1')).map((i) => i.id)).toEqual([all[1].id]);
  const bad = await api.get(`${base}/${orgId}/invitations?status=ACCEPTED`);
  expect(bad.status).toBe(400);
});

test('a pending invitation of the address is 409, a member 409; bad input 400; nothing stored', async () => {
  const before = (await list()).length;
  const again = await invite('zed@example.org');
  expect(again.status).toBe(409);
  expect(again.body).toEqual({ errorMessage: 'User already has a pending invitation' });
  const userId = await createUser(ts, R, 'member-mia', { email: 'mia@example.org' });
  await api.post(`${base}/${orgId}/members`, JSON.stringify(userId)).set('Content-Type', 'application/json').expect(201);
  expect((await invite('mia@example.org')).body).toEqual({ errorMessage: 'User already a member of the organization' });
  expect((await invite('not-an-email')).status).toBe(400);
  expect((await list()).length).toBe(before);
});

test('invite-existing-user replaces the invitation of the address (one row, a new id)', async () => {
  const userId = await createUser(ts, R, 'again-ava', { email: 'ava@example.org' });
  const send = () => api.post(`${base}/${orgId}/members/invite-existing-user`).type('form').send({ id: userId }).expect(204);
  await send();
  const [first] = await list('?email=ava@');
  await send();
  const now = await list('?email=ava@');
  expect(now).toHaveLength(1);
  expect(now[0].id).not.toBe(first.id);
});

test('concurrent invitations of one address: one 204, the others 409, one row, no 5xx', async () => {
  const live = await ts.api({ live: true });
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => live.post(`${base}/${orgId}/members/invite-user`).type('form').send({ email: 'race@example.org' })),
  );
  const statuses = answers.map((a) => a.status).sort();
  expect(statuses.filter((s) => s === 204)).toHaveLength(1);
  expect(statuses.every((s) => s === 204 || s === 409)).toBe(true);
  expect(await list('?email=race@')).toHaveLength(1);
});

test('read and delete by id: 404 Invitation not found for an unknown id or another organization; admin events', async () => {
  await invite('del@example.org').expect(204);
  const [inv] = await list('?email=del@');
  expect((await api.get(`${base}/${orgId}/invitations/${inv.id}`).expect(200)).body).toEqual(inv);
  const other = idOf((await api.post(base, { name: 'other-org' })).headers.location);
  const foreign = await api.get(`${base}/${other}/invitations/${inv.id}`);
  expect([foreign.status, foreign.body]).toEqual([404, { errorMessage: 'Invitation not found' }]);
  expect((await api.delete(`${base}/${other}/invitations/${inv.id}`)).status).toBe(404);
  await api.delete(`${base}/${orgId}/invitations/${inv.id}`).expect(204);
  const gone = await api.get(`${base}/${orgId}/invitations/${inv.id}`);
  expect([gone.status, gone.body]).toEqual([404, { errorMessage: 'Invitation not found' }]);
  expect((await api.post(`${base}/${orgId}/invitations/${inv.id}/resend`)).status).toBe(404);
  const events = await adminEvents(api, R, { resourceTypes: 'ORGANIZATION_MEMBERSHIP' });
  expect(events.map((e) => `${e.operationType} ${e.resourcePath}`)).toEqual(
    expect.arrayContaining([`ACTION organizations/${orgId}/members/invite-user`, `DELETE organizations/${orgId}/invitations/${inv.id}`]),
  );
});

test('resend: a new invitation (new id) to the same address and names, mailed again', async () => {
  const [zed] = await list('?email=zed@');
  const mails = smtp.messages.length;
  await api.post(`${base}/${orgId}/invitations/${zed.id}/resend`).expect(204);
  const [mail] = (await smtp.waitFor(mails + 1)).slice(mails);
  expect(mail.recipients).toEqual(['zed@example.org']);
  expect(mail.text).toContain('Hello Zed Zimmer');
  const [now] = await list('?email=zed@');
  expect(now).toMatchObject({ email: 'zed@example.org', firstName: 'Zed', lastName: 'Zimmer', status: 'PENDING' });
  expect(now.id).not.toBe(zed.id);
});

test('a mail that cannot be sent: 500 Failed to send invite email, no invitation stored', async () => {
  const realm = (await api.get(`/admin/realms/${R}`).expect(200)).body;
  await api.put(`/admin/realms/${R}`, { ...realm, smtpServer: { host: '127.0.0.1', port: '1', from: 'idserver@example.org' } }).expect(204);
  try {
    const res = await invite('unsent@example.org');
    expect([res.status, res.body]).toEqual([500, { errorMessage: 'Failed to send invite email' }]);
    expect(await list('?email=unsent')).toEqual([]);
  } finally {
    await api.put(`/admin/realms/${R}`, realm).expect(204);
  }
});

test('only manage-realm: a view-realm admin is refused (403) and nothing changes', async () => {
  const viewer = await realmAdmin(ts, R, 'inv-viewer', ['view-realm']);
  const [inv] = await list();
  expect((await viewer.get(`${base}/${orgId}/invitations`)).status).toBe(403);
  expect((await viewer.get(`${base}/${orgId}/invitations/${inv.id}`)).status).toBe(403);
  expect((await viewer.delete(`${base}/${orgId}/invitations/${inv.id}`)).status).toBe(403);
  expect((await viewer.post(`${base}/${orgId}/invitations/${inv.id}/resend`)).status).toBe(403);
  expect((await api.get(`${base}/${orgId}/invitations/${inv.id}`)).status).toBe(200);
});

test('GraphQL: the same list and item as REST; resend and delete', async () => {
  const gql = gqlClient(ts);
  await invite('gql-person@example.org', { firstName: 'Gee', lastName: 'Quell' }).expect(204);
  const rest = await list('?search=gql-person');
  const q = `query($r: String!, $id: ID!, $inv: ID!) { organization(realm: $r, id: $id) {
    invitations(search: "gql-person") { id organizationId email firstName lastName sentDate expiresAt status }
    invitation(invitationId: $inv) { id email status } } }`;
  const data = ok(await gql(q, { r: R, id: orgId, inv: rest[0].id }));
  expect(data.organization.invitations).toEqual(rest);
  expect(data.organization.invitation).toEqual({ id: rest[0].id, email: 'gql-person@example.org', status: 'PENDING' });
  const vars = { r: R, id: orgId, inv: rest[0].id };
  ok(
    await gql(
      'mutation($r: String!, $id: ID!, $inv: ID!) { resendOrganizationInvitation(realm: $r, id: $id, invitationId: $inv) { ok } }',
      vars,
    ),
  );
  const [resent] = await list('?search=gql-person');
  expect(resent.id).not.toBe(rest[0].id);
  const del = { ...vars, inv: resent.id };
  ok(
    await gql(
      'mutation($r: String!, $id: ID!, $inv: ID!) { deleteOrganizationInvitation(realm: $r, id: $id, invitationId: $inv) { ok } }',
      del,
    ),
  );
  expect(await list('?search=gql-person')).toEqual([]);
  const missing = await gql(
    'mutation($r: String!, $id: ID!, $inv: ID!) { deleteOrganizationInvitation(realm: $r, id: $id, invitationId: $inv) { ok } }',
    del,
  );
  expect(missing.errors?.[0].extensions.http?.status).toBe(404);
});
