import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` (26.7) drives organization groups through
 * `organizations.groups(orgId)` unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatorggroups';

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R, { organizationsEnabled: true }));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client: organization groups', () => {
  test('create, find, findOne, update, createChildGroup, listSubGroups, del; errors carry Keycloak messages', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'groups-org' });
    const groups = kc.organizations.groups(orgId);
    const { id } = await groups.create({ name: 'compat-eng', description: 'Builds' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect(groups.create({ name: 'compat-eng' })).rejects.toThrow('Group with the given name already exists.');
    expect((await groups.find()).map((g) => g.name)).toEqual(['compat-eng']);
    expect(await groups.find({ search: 'ENG' })).toEqual([expect.objectContaining({ id, path: `/${orgId}/compat-eng` })]);
    expect(await groups.findOne({ id })).toMatchObject({ id, name: 'compat-eng', description: 'Builds' });
    expect(await groups.findOne({ id: 'no-such-group' })).toBeNull();

    await groups.update({ id }, { name: 'compat-engineering', attributes: { floor: ['4'] } });
    expect(await groups.findOne({ id })).toMatchObject({ name: 'compat-engineering' });
    const child = await groups.createChildGroup({ id }, { name: 'compat-backend' });
    expect(child.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await groups.listSubGroups({ parentId: id })).map((g) => g.name)).toEqual(['compat-backend']);
    // Organization groups stay out of the realm's own groups.
    expect((await kc.groups.find()).map((g) => g.name)).not.toContain('compat-engineering');

    await groups.del({ id });
    expect(await groups.find()).toEqual([]);
  });

  test('members: addMemberToOrgGroup, listMembers, listOrgGroups, removeMemberFromOrgGroup', async () => {
    const { id: orgId } = await kc.organizations.create({ name: 'groups-members-org' });
    const groups = kc.organizations.groups(orgId);
    const { id: groupId } = await groups.create({ name: 'compat-team' });
    const { id: userId } = await kc.users.create({ username: 'compat-team-member', enabled: true });
    await expect(groups.addMemberToOrgGroup({ groupId, userId })).rejects.toThrow('User is not member of the organization');
    await kc.organizations.addMember({ orgId, userId });
    await groups.addMemberToOrgGroup({ groupId, userId });
    expect(await groups.listMembers({ id: groupId })).toEqual([
      expect.objectContaining({ id: userId, username: 'compat-team-member', membershipType: 'UNMANAGED' }),
    ]);
    expect((await groups.listOrgGroups({ id: userId })).map((g) => g.id)).toEqual([groupId]);
    expect(await kc.users.listGroups({ id: userId })).toEqual([]);
    await groups.removeMemberFromOrgGroup({ groupId, userId });
    expect(await groups.listMembers({ id: groupId })).toEqual([]);
  });
});
