import { adminEvents, createUser } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';

/**
 * Members, invitations and linked identity providers of an organization (Keycloak 26's
 * OrganizationMemberResource, OrganizationInvitationResource, OrganizationIdentityProvidersResource).
 */
let ts: TestServer;
let api: AdminApi;
let smtp: TestSmtp;
const R = 'orgmembers';
const base = `/admin/realms/${R}/organizations`;
let orgId: string;
const users: Record<string, string> = {};

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
/** POST with a raw JSON text body, as the admin client sends a user id or an alias. */
const postText = (path: string, text: string) => api.post(path, text).set('Content-Type', 'application/json');

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  smtp = await startSmtp();
  const res = await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    organizationsEnabled: true,
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idserver@example.org' },
  });
  expect(res.status).toBe(201);
  orgId = idOf((await api.post(base, { name: 'members-org', domains: [{ name: 'members.example.org' }] })).headers.location);
  for (const [name, first, last] of [
    ['alice', 'Alice', 'Anders'],
    ['bob', 'Bob', 'Brown'],
    ['carol', 'Carol', 'Clark'],
  ]) {
    users[name] = await createUser(ts, R, name, { firstName: first, lastName: last });
  }
});
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

describe('organization members', () => {
  test('add: 201 with Location of the member; quoted or bare id; 409 when already a member; 400 for an unknown user', async () => {
    const res = await postText(`${base}/${orgId}/members`, JSON.stringify(users.alice));
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/${orgId}/members/${users.alice}`);
    expect((await postText(`${base}/${orgId}/members`, ` ${users.bob} `)).status).toBe(201);
    const again = await postText(`${base}/${orgId}/members`, JSON.stringify(users.alice));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ errorMessage: 'User is already a member of the organization.' });
    const unknown = await postText(`${base}/${orgId}/members`, '"no-such-user"');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ errorMessage: 'User does not exist' });
    expect(await ts.db.models.OrganizationMember.count({ where: { organizationId: orgId } })).toBe(2);
  });

  test('list: by username, full user with membershipType; search, exact, paging, membershipType; count', async () => {
    const list = (await api.get(`${base}/${orgId}/members`)).body;
    expect(list.map((m: { username: string }) => m.username)).toEqual(['alice', 'bob']);
    expect(list[0]).toMatchObject({
      id: users.alice,
      username: 'alice',
      firstName: 'Alice',
      lastName: 'Anders',
      email: 'alice@example.org',
      enabled: true,
      membershipType: 'UNMANAGED',
    });
    const names = async (qs: string) =>
      ((await api.get(`${base}/${orgId}/members?${qs}`)).body as Array<{ username: string }>).map((m) => m.username);
    expect(await names('search=BROWN')).toEqual(['bob']);
    expect(await names('search=alice@example')).toEqual(['alice']);
    expect(await names('search=ali&exact=true')).toEqual([]);
    expect(await names('search=alice&exact=true')).toEqual(['alice']);
    expect(await names('first=1&max=1')).toEqual(['bob']);
    expect(await names('membershipType=unmanaged')).toEqual(['alice', 'bob']);
    expect(await names('membershipType=MANAGED')).toEqual([]);
    expect(await names('search=carol')).toEqual([]);
    expect((await api.get(`${base}/${orgId}/members/count`)).body).toBe(2);
  });

  test('get one member; a non-member or unknown user is 404', async () => {
    const one = await api.get(`${base}/${orgId}/members/${users.bob}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: users.bob, username: 'bob', membershipType: 'UNMANAGED' });
    for (const id of [users.carol, 'nobody']) {
      const res = await api.get(`${base}/${orgId}/members/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'HTTP 404 Not Found' });
    }
  });

  test("a user's organizations: under the organization and at /organizations/members/{id}/organizations", async () => {
    const second = idOf((await api.post(base, { name: 'second-org', attributes: { x: ['y'] } })).headers.location);
    expect((await postText(`${base}/${second}/members`, JSON.stringify(users.alice))).status).toBe(201);
    const top = await api.get(`${base}/members/${users.alice}/organizations`);
    expect(top.status).toBe(200);
    expect(top.body.map((o: { name: string }) => o.name)).toEqual(['members-org', 'second-org']);
    expect(top.body[1].attributes).toBeUndefined();
    const full = await api.get(`${base}/members/${users.alice}/organizations?briefRepresentation=false`);
    expect(full.body[1].attributes).toEqual({ x: ['y'] });
    const nested = await api.get(`${base}/${orgId}/members/${users.alice}/organizations`);
    expect(nested.body.map((o: { name: string }) => o.name)).toEqual(['members-org', 'second-org']);
    expect((await api.get(`${base}/members/${users.carol}/organizations`)).body).toEqual([]);
    expect((await api.get(`${base}/members/nobody/organizations`)).status).toBe(404);
  });

  test('remove: 204, the user stays; then 404; admin events CREATE and DELETE of ORGANIZATION_MEMBERSHIP', async () => {
    expect((await api.delete(`${base}/${orgId}/members/${users.bob}`)).status).toBe(204);
    expect((await api.get(`/admin/realms/${R}/users/${users.bob}`)).status).toBe(200);
    expect((await api.delete(`${base}/${orgId}/members/${users.bob}`)).status).toBe(404);
    const events = await adminEvents(api, R, { resourceTypes: 'ORGANIZATION_MEMBERSHIP' });
    const create = events.find((e) => e.operationType === 'CREATE' && e.resourcePath === `organizations/${orgId}/members`);
    expect(create).toMatchObject({ details: { username: 'alice', email: 'alice@example.org' } });
    expect(JSON.parse(create?.representation as string)).toMatchObject({ id: orgId, name: 'members-org' });
    expect(events.find((e) => e.operationType === 'DELETE')).toMatchObject({
      resourcePath: `organizations/${orgId}/members/${users.bob}`,
      details: { username: 'bob' },
    });
  });

  test('a managed member is deleted with its membership; deleting a user drops its memberships', async () => {
    const managed = await createUser(ts, R, 'managed-one');
    await ts.db.models.OrganizationMember.create({ organizationId: orgId, userId: managed, membershipType: 'MANAGED' });
    expect((await api.get(`${base}/${orgId}/members?membershipType=MANAGED`)).body.map((m: { id: string }) => m.id)).toEqual([managed]);
    expect((await api.delete(`${base}/${orgId}/members/${managed}`)).status).toBe(204);
    expect((await api.get(`/admin/realms/${R}/users/${managed}`)).status).toBe(404);
    const dave = await createUser(ts, R, 'dave');
    expect((await postText(`${base}/${orgId}/members`, JSON.stringify(dave))).status).toBe(201);
    expect((await api.delete(`/admin/realms/${R}/users/${dave}`)).status).toBe(204);
    expect(await ts.db.models.OrganizationMember.count({ where: { userId: dave } })).toBe(0);
  });

  test('deleting the organization: unmanaged members stay users, managed ones are deleted', async () => {
    const org = idOf((await api.post(base, { name: 'short-lived' })).headers.location);
    const stays = await createUser(ts, R, 'stays');
    const goes = await createUser(ts, R, 'goes');
    expect((await postText(`${base}/${org}/members`, JSON.stringify(stays))).status).toBe(201);
    await ts.db.models.OrganizationMember.create({ organizationId: org, userId: goes, membershipType: 'MANAGED' });
    expect((await api.delete(`${base}/${org}`)).status).toBe(204);
    expect((await api.get(`/admin/realms/${R}/users/${stays}`)).status).toBe(200);
    expect((await api.get(`/admin/realms/${R}/users/${goes}`)).status).toBe(404);
  });
});

describe('organization invitations', () => {
  test('invite-existing-user (form): a mail with an action-token link whose token names the organization; ACTION event', async () => {
    const before = smtp.messages.length;
    const res = await api.post(`${base}/${orgId}/members/invite-existing-user`).type('form').send({ id: users.carol });
    expect(res.status).toBe(204);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail.recipients).toEqual(['carol@example.org']);
    expect(mail.subject).toBe('Invitation to join the members-org organization');
    const link = /http:\/\/\S+/.exec(mail.text)?.[0] as string;
    expect(link).toMatch(new RegExp(`^http://localhost:8080/realms/${R}/login-actions/action-token\\?key=`));
    const token = new URL(link).searchParams.get('key') as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ typ: 'ORGIVT', sub: users.carol, eml: 'carol@example.org', org_id: orgId, azp: 'account' });
    const events = await adminEvents(api, R, { operationTypes: 'ACTION' });
    expect(events.map((e) => e.resourcePath)).toContain(`organizations/${orgId}/members/invite-existing-user`);
  });

  test('invite-user: an unknown address gets a registration link; a member is 409; bad input 400', async () => {
    const before = smtp.messages.length;
    const res = await api
      .post(`${base}/${orgId}/members/invite-user`)
      .type('form')
      .send({ email: 'New.Person@Example.org', firstName: 'New', lastName: 'Person' });
    expect(res.status).toBe(204);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail.recipients).toEqual(['new.person@example.org']);
    expect(mail.text).toContain('Hello New Person');
    expect(mail.text).toContain(
      `http://localhost:8080/realms/${R}/protocol/openid-connect/registrations?response_type=code&client_id=account&token=`,
    );
    const member = await api.post(`${base}/${orgId}/members/invite-user`).type('form').send({ email: 'alice@example.org' });
    expect(member.status).toBe(409);
    expect(member.body).toEqual({ errorMessage: 'User already a member of the organization' });
    expect((await api.post(`${base}/${orgId}/members/invite-user`).type('form').send({})).body).toEqual({
      errorMessage: 'Email is required to invite a member',
    });
    expect((await api.post(`${base}/${orgId}/members/invite-user`).type('form').send({ email: 'nope' })).body).toEqual({
      errorMessage: 'Invalid email format',
    });
    expect((await api.post(`${base}/${orgId}/members/invite-existing-user`).type('form').send({ id: 'nobody' })).body).toEqual({
      errorMessage: 'User does not exist',
    });
    expect(smtp.messages.length).toBe(before + 1);
  });

  test('a realm without SMTP: 500 Failed to send invite email', async () => {
    expect((await api.post('/admin/realms', { realm: 'orgnosmtp', enabled: true, organizationsEnabled: true })).status).toBe(201);
    const org = idOf((await api.post('/admin/realms/orgnosmtp/organizations', { name: 'o' })).headers.location);
    const res = await api
      .post(`/admin/realms/orgnosmtp/organizations/${org}/members/invite-user`)
      .type('form')
      .send({ email: 'x@example.org' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errorMessage: 'Failed to send invite email' });
  });
});

describe('organization identity providers', () => {
  beforeAll(async () => {
    for (const alias of ['org-idp', 'other-idp', 'free-idp']) {
      expect(
        (await api.post(`/admin/realms/${R}/identity-provider/instances`, { alias, providerId: 'oidc', config: { clientSecret: 's' } }))
          .status,
      ).toBe(201);
    }
  });

  test('link by alias: 204; listed with secrets masked; GET by alias; the provider shows organizationId', async () => {
    expect((await postText(`${base}/${orgId}/identity-providers`, '"org-idp"')).status).toBe(204);
    const list = (await api.get(`${base}/${orgId}/identity-providers`)).body;
    expect(list.map((p: { alias: string }) => p.alias)).toEqual(['org-idp']);
    expect(list[0]).toMatchObject({ alias: 'org-idp', organizationId: orgId, config: { clientSecret: '**********' } });
    expect((await api.get(`${base}/${orgId}/identity-providers/org-idp`)).body).toMatchObject({ alias: 'org-idp' });
    expect((await api.get(`/admin/realms/${R}/identity-provider/instances/org-idp`)).body.organizationId).toBe(orgId);
    expect(
      (await api.get(`/admin/realms/${R}/identity-provider/instances?realmOnly=true`)).body.map((p: { alias: string }) => p.alias),
    ).not.toContain('org-idp');
  });

  test('link by internal id; errors: unknown 400, linked here 409, linked elsewhere 400, not linked 404', async () => {
    const internalId = (await api.get(`/admin/realms/${R}/identity-provider/instances/other-idp`)).body.internalId;
    const other = idOf((await api.post(base, { name: 'idp-other-org' })).headers.location);
    expect((await postText(`${base}/${other}/identity-providers`, internalId)).status).toBe(204);
    const unknown = await postText(`${base}/${orgId}/identity-providers`, '"nope"');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ errorMessage: 'Identity provider not found with the given alias' });
    const again = await postText(`${base}/${orgId}/identity-providers`, '"org-idp"');
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ errorMessage: 'Identity provider already associated to the organization' });
    const elsewhere = await postText(`${base}/${orgId}/identity-providers`, '"other-idp"');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({ errorMessage: 'Identity provider already associated with a different organization' });
    const notLinked = await api.get(`${base}/${orgId}/identity-providers/free-idp`);
    expect(notLinked.status).toBe(404);
    expect(notLinked.body).toEqual({ errorMessage: 'Identity provider not associated with the organization' });
    const delNotLinked = await api.delete(`${base}/${orgId}/identity-providers/free-idp`);
    expect(delNotLinked.status).toBe(404);
    expect(delNotLinked.body).toEqual({ errorMessage: 'Identity provider not found with the given alias' });
  });

  test('unlink: 204, the provider stays without organizationId and kc.org.domain; deleting an organization unlinks', async () => {
    const p = (await api.get(`/admin/realms/${R}/identity-provider/instances/org-idp`)).body;
    await api.put(`/admin/realms/${R}/identity-provider/instances/org-idp`, {
      ...p,
      config: { ...p.config, 'kc.org.domain': 'members.example.org' },
    });
    expect((await api.delete(`${base}/${orgId}/identity-providers/org-idp`)).status).toBe(204);
    const after = (await api.get(`/admin/realms/${R}/identity-provider/instances/org-idp`)).body;
    expect(after.organizationId).toBeUndefined();
    expect(after.config['kc.org.domain']).toBeUndefined();
    const other = (await api.get(`${base}?search=idp-other-org&exact=true`)).body[0].id;
    expect((await api.delete(`${base}/${other}`)).status).toBe(204);
    expect((await api.get(`/admin/realms/${R}/identity-provider/instances/other-idp`)).body.organizationId).toBeUndefined();
  });
});
