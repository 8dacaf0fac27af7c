import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Organizations in realm import and export (Keycloak 26's ExportUtils / DefaultExportImportManager):
 * a realm created from a representation gets its organizations, their linked providers and members by
 * username; partial export writes them back the same way.
 */
let ts: TestServer;
let api: AdminApi;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

const realmRep = (realm: string) => ({
  realm,
  enabled: true,
  organizationsEnabled: true,
  users: [
    { username: 'ann', enabled: true, email: 'ann@acme.example.org' },
    { username: 'ben', enabled: true },
  ],
  identityProviders: [{ alias: 'acme-idp', providerId: 'oidc', config: { clientId: 'c' } }],
  organizations: [
    {
      id: '0b4c2f1e-6f5a-4c1e-9a57-2a7c1f0d9e11',
      name: 'Acme',
      alias: 'acme',
      description: 'imported',
      attributes: { tier: ['gold'] },
      domains: [{ name: 'acme.example.org', verified: true }],
      members: [{ username: 'ann' }, { username: 'nobody' }],
      identityProviders: [{ alias: 'acme-idp' }],
    },
    { name: 'Empty' },
  ],
});

describe('organizations: realm import and export', () => {
  test('POST /admin/realms with organizations: created with id, domains, attributes, members and providers', async () => {
    expect((await api.post('/admin/realms', realmRep('orgimport'))).status).toBe(201);
    const base = '/admin/realms/orgimport/organizations';
    const id = '0b4c2f1e-6f5a-4c1e-9a57-2a7c1f0d9e11';
    expect((await api.get(`${base}/${id}`)).body).toEqual({
      id,
      name: 'Acme',
      alias: 'acme',
      enabled: true,
      description: 'imported',
      attributes: { tier: ['gold'] },
      domains: [{ name: 'acme.example.org', verified: true }],
    });
    expect((await api.get(`${base}/${id}/members`)).body.map((u: { username: string }) => u.username)).toEqual(['ann']);
    expect((await api.get(`${base}/${id}/identity-providers`)).body.map((p: { alias: string }) => p.alias)).toEqual(['acme-idp']);
    expect((await api.get(`${base}?search=Empty&exact=true`)).body).toHaveLength(1);
  });

  test('partial export writes organizations with member usernames and provider aliases; the export imports again', async () => {
    const exported = (await api.post('/admin/realms/orgimport/partial-export?exportGroupsAndRoles=true&exportClients=true')).body;
    expect(exported.organizations).toEqual([
      {
        id: '0b4c2f1e-6f5a-4c1e-9a57-2a7c1f0d9e11',
        name: 'Acme',
        alias: 'acme',
        enabled: true,
        description: 'imported',
        attributes: { tier: ['gold'] },
        domains: [{ name: 'acme.example.org', verified: true }],
        members: [{ username: 'ann' }],
        identityProviders: [{ alias: 'acme-idp' }],
      },
      expect.objectContaining({ name: 'Empty', alias: 'Empty', attributes: {} }),
    ]);
    // Ids are global (as Keycloak's): a second realm on the same server takes the organizations without them.
    const withoutIds = exported.organizations.map(({ id: _id, ...o }: { id: string }) => o);
    const again = { ...realmRep('orgimport2'), organizations: withoutIds };
    expect((await api.post('/admin/realms', again)).status).toBe(201);
    const orgs = (await api.get('/admin/realms/orgimport2/organizations?briefRepresentation=false')).body;
    expect(orgs.map((o: { name: string }) => o.name)).toEqual(['Acme', 'Empty']);
    expect(orgs[0].id).not.toBe(exported.organizations[0].id);
    expect(
      (await api.get(`/admin/realms/orgimport2/organizations/${orgs[0].id}/members`)).body.map((u: { username: string }) => u.username),
    ).toEqual(['ann']);
  });

  test('a realm without organizations exports none; an unknown provider fails the import with nothing created', async () => {
    expect((await api.post('/admin/realms', { realm: 'orgnone', enabled: true })).status).toBe(201);
    expect((await api.post('/admin/realms/orgnone/partial-export')).body.organizations).toBeUndefined();
    const bad = await api.post('/admin/realms', {
      realm: 'orgbad',
      enabled: true,
      organizations: [{ name: 'x', identityProviders: [{ alias: 'missing' }] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errorMessage: 'Identity provider missing of organization x not found' });
    expect((await api.get('/admin/realms/orgbad')).status).toBe(404);
  });
});
