import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` (26.x) drives organizations, their
 * members, invitations and linked identity providers unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
let smtp: TestSmtp;
const R = 'compatorg';

beforeAll(async () => {
  ts = await startTestServer();
  smtp = await startSmtp();
  ({ kc } = await realmAdminClient(ts, R, {
    organizationsEnabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idserver@example.org' },
  }));
});
afterAll(async () => {
  await ts.close();
  await smtp.close();
});

describe('@keycloak/keycloak-admin-client: organizations', () => {
  test('create returns the id; find, findOne, updateById, delById; errors carry Keycloak messages', async () => {
    const { id } = await kc.organizations.create({
      name: 'Compat Org',
      alias: 'compat-org',
      domains: [{ name: 'compat.example.org', verified: false }],
      attributes: { tier: ['gold'] },
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await kc.organizations.find({ search: 'compat' })).map((o) => o.name)).toEqual(['Compat Org']);
    expect(await kc.organizations.find({ q: 'tier:gold', briefRepresentation: false } as never)).toEqual([
      expect.objectContaining({ id, attributes: { tier: ['gold'] } }),
    ]);
    const one = await kc.organizations.findOne({ id });
    expect(one).toMatchObject({
      id,
      name: 'Compat Org',
      alias: 'compat-org',
      enabled: true,
      domains: [{ name: 'compat.example.org', verified: false }],
    });
    await kc.organizations.updateById(
      { id },
      { ...one, description: 'changed', domains: [{ name: 'compat.example.org', verified: true }] },
    );
    expect(await kc.organizations.findOne({ id })).toMatchObject({
      description: 'changed',
      domains: [{ name: 'compat.example.org', verified: true }],
    });
    await expect(kc.organizations.create({ name: 'Compat Org', alias: 'other' })).rejects.toThrow(
      'A organization with the same name already exists.',
    );
    await kc.organizations.delById({ id });
    await expect(kc.organizations.findOne({ id })).rejects.toThrow('Organization not found.');
  });

  test('members: addMember, listMembers, getMember, memberOrganizations, delMember', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'member-org' });
    const { id: userId } = await kc.users.create({ username: 'compat-member', email: 'compat-member@example.org', enabled: true });
    await kc.organizations.addMember({ orgId, userId });
    const members = await kc.organizations.listMembers({ orgId });
    expect(members).toEqual([expect.objectContaining({ id: userId, username: 'compat-member', membershipType: 'UNMANAGED' })]);
    expect(await kc.organizations.getMember({ orgId, userId })).toMatchObject({ id: userId, membershipType: 'UNMANAGED' });
    expect((await kc.organizations.memberOrganizations({ userId })).map((o) => o.id)).toEqual([orgId]);
    await expect(kc.organizations.addMember({ orgId, userId })).rejects.toThrow('User is already a member of the organization.');
    await kc.organizations.delMember({ orgId, userId });
    expect(await kc.organizations.listMembers({ orgId })).toEqual([]);
    expect(await kc.users.findOne({ id: userId })).toMatchObject({ username: 'compat-member' });
  });

  test('invite (FormData) and inviteExistingUser send mails', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'invite-org' });
    const { id: userId } = await kc.users.create({ username: 'compat-invitee', email: 'invitee@example.org', enabled: true });
    const before = smtp.messages.length;
    const form = new FormData();
    form.append('email', 'someone-new@example.org');
    await kc.organizations.invite({ orgId }, form);
    const existing = new FormData();
    existing.append('id', userId);
    await kc.organizations.inviteExistingUser({ orgId }, existing);
    const mails = (await smtp.waitFor(before + 2)).slice(before);
    expect(mails.map((m) => m.recipients[0]).sort()).toEqual(['invitee@example.org', 'someone-new@example.org']);
    expect(mails.every((m) => m.subject === 'Invitation to join the invite-org organization')).toBe(true);
  });

  // Keycloak 26's OrganizationInvitationResource (services/src/main/java/org/keycloak/organization/admin/resource/).
  test('invitations: listInvitations with filters, findInvitation, resendInvitation, deleteInvitation', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'invitations-org' });
    const before = smtp.messages.length;
    for (const [email, firstName, lastName] of [
      ['ann@example.org', 'Ann', 'Archer'],
      ['ben@example.org', 'Ben', 'Baker'],
    ]) {
      const form = new FormData();
      form.append('email', email);
      form.append('firstName', firstName);
      form.append('lastName', lastName);
      await kc.organizations.invite({ orgId }, form);
    }
    await smtp.waitFor(before + 2);
    const all = await kc.organizations.listInvitations({ orgId });
    expect(all.map((i) => i.email).sort()).toEqual(['ann@example.org', 'ben@example.org']);
    const [ann] = await kc.organizations.listInvitations({ orgId, search: 'archer' });
    expect(ann).toEqual({
      id: expect.any(String),
      organizationId: orgId,
      email: 'ann@example.org',
      firstName: 'Ann',
      lastName: 'Archer',
      sentDate: expect.any(Number),
      expiresAt: (ann.sentDate as number) + 43200,
      status: 'PENDING',
    });
    expect(await kc.organizations.listInvitations({ orgId, status: 'EXPIRED' })).toEqual([]);
    expect((await kc.organizations.listInvitations({ orgId, email: 'ben@' })).map((i) => i.firstName)).toEqual(['Ben']);
    expect(await kc.organizations.findInvitation({ orgId, invitationId: ann.id as string })).toEqual(ann);
    await kc.organizations.resendInvitation({ orgId, invitationId: ann.id as string });
    const [resentMail] = (await smtp.waitFor(before + 3)).slice(before + 2);
    expect(resentMail.recipients).toEqual(['ann@example.org']);
    const [resent] = await kc.organizations.listInvitations({ orgId, search: 'ann@' });
    expect(resent).toMatchObject({ email: 'ann@example.org', firstName: 'Ann', lastName: 'Archer', status: 'PENDING' });
    await kc.organizations.deleteInvitation({ orgId, invitationId: resent.id as string });
    expect((await kc.organizations.listInvitations({ orgId })).map((i) => i.email)).toEqual(['ben@example.org']);
    await expect(kc.organizations.findInvitation({ orgId, invitationId: resent.id as string })).rejects.toThrow('Invitation not found');
    await expect(kc.organizations.deleteInvitation({ orgId, invitationId: resent.id as string })).rejects.toThrow('Invitation not found');
  });

  test('identity providers: linkIdp, listIdentityProviders, unLinkIdp', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'idp-org' });
    await kc.identityProviders.create({ alias: 'compat-org-idp', providerId: 'oidc', config: { clientSecret: 'x' } });
    await kc.organizations.linkIdp({ orgId, alias: 'compat-org-idp' });
    const idps = await kc.organizations.listIdentityProviders({ orgId });
    expect(idps).toEqual([expect.objectContaining({ alias: 'compat-org-idp', organizationId: orgId })]);
    await expect(kc.organizations.linkIdp({ orgId, alias: 'compat-org-idp' })).rejects.toThrow(
      'Identity provider already associated to the organization',
    );
    await kc.organizations.unLinkIdp({ orgId, alias: 'compat-org-idp' });
    expect(await kc.organizations.listIdentityProviders({ orgId })).toEqual([]);
  });

  test('realm flag: organizationsEnabled false makes find a 404 with Keycloak message', async () => {
    await kc.realms.update({ realm: R }, { organizationsEnabled: false });
    await expect(kc.organizations.find()).rejects.toThrow('Organizations not enabled for this realm.');
    await kc.realms.update({ realm: R }, { organizationsEnabled: true });
    expect(Array.isArray(await kc.organizations.find())).toBe(true);
  });
});
