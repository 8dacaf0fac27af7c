import { createUser } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';
import { acceptOrganizationInvitation } from '../../../src/services/organizations/organization-invites';
import type { RealmModel } from '../../../src/db/models/realm';

/**
 * Accepting an invitation (Keycloak's InviteOrgActionTokenHandler), below HTTP: the token of a real
 * invitation mail makes its user a member; a tampered, foreign or stale token is refused.
 */
let ts: TestServer;
let api: AdminApi;
let smtp: TestSmtp;
let realm: RealmModel;
const R = 'orgaccept';
const BASE = 'http://localhost:8080';
const base = `/admin/realms/${R}/organizations`;
let orgId: string;
let userId: string;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  smtp = await startSmtp();
  const rep = {
    realm: R,
    enabled: true,
    organizationsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idserver@example.org' },
  };
  expect((await api.post('/admin/realms', rep)).status).toBe(201);
  realm = (await ts.db.models.Realm.findOne({ where: { name: R } })) as RealmModel;
  const res = await api.post(base, { name: 'Accept Org', alias: 'accept', redirectUrl: 'https://accept.example.org/welcome' });
  orgId = res.headers.location.split('/').pop() as string;
  userId = await createUser(ts, R, 'invitee');
});
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

async function invitationToken(): Promise<string> {
  const before = smtp.messages.length;
  expect((await api.post(`${base}/${orgId}/members/invite-existing-user`).type('form').send({ id: userId })).status).toBe(204);
  const [mail] = (await smtp.waitFor(before + 1)).slice(before);
  const link = /http:\/\/\S+/.exec(mail.text)?.[0] as string;
  return new URL(link).searchParams.get('key') as string;
}

test('the token of an invitation mail makes the user a member; accepting again changes nothing', async () => {
  const token = await invitationToken();
  expect(await acceptOrganizationInvitation(ts.db, realm, BASE, token)).toEqual({
    organizationId: orgId,
    userId,
    redirectUri: 'https://accept.example.org/welcome',
  });
  expect((await api.get(`${base}/${orgId}/members/${userId}`)).body).toMatchObject({ username: 'invitee', membershipType: 'UNMANAGED' });
  await acceptOrganizationInvitation(ts.db, realm, BASE, token);
  expect((await api.get(`${base}/${orgId}/members/count`)).body).toBe(1);
});

test('refused: a tampered token, another issuer, a changed e-mail, a deleted organization', async () => {
  const token = await invitationToken();
  const [h, p, s] = token.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
  await expect(acceptOrganizationInvitation(ts.db, realm, BASE, forged)).rejects.toThrow('Invalid invitation: not signed by the realm');
  await expect(acceptOrganizationInvitation(ts.db, realm, 'http://other.example.org', token)).rejects.toThrow('not signed by the realm');
  await expect(acceptOrganizationInvitation(ts.db, realm, BASE, 'garbage')).rejects.toThrow('Invalid invitation');
  expect((await api.put(`/admin/realms/${R}/users/${userId}`, { email: 'moved@example.org' })).status).toBe(204);
  await expect(acceptOrganizationInvitation(ts.db, realm, BASE, token)).rejects.toThrow('Invalid invitation: e-mail changed');
  expect((await api.delete(`${base}/${orgId}`)).status).toBe(204);
  await expect(acceptOrganizationInvitation(ts.db, realm, BASE, token)).rejects.toThrow('Invalid invitation: organization not found');
});
