import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** Client policies and profiles (config reference §10.1) against the real server and database. */
let ts: TestServer;
let api: AdminApi;
const R = 'cpolrealm';
const base = `/admin/realms/${R}/client-policies`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true }));
});
afterAll(() => ts.close());

const GLOBAL = [
  'fapi-1-baseline',
  'fapi-1-advanced',
  'fapi-ciba',
  'fapi-2-security-profile',
  'fapi-2-message-signing',
  'oauth-2-1-for-confidential-client',
  'oauth-2-1-for-public-client',
  'saml-security-profile',
];

const expectError = async (res: Promise<{ status: number; body: unknown }>, message: string) => {
  const r = await res;
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ errorMessage: message });
};

describe('client profiles', () => {
  test('a new realm: {profiles: []}; include-global-profiles adds the global profiles in order', async () => {
    const plain = await api.get(`${base}/profiles`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ profiles: [] });
    const all = (await api.get(`${base}/profiles?include-global-profiles=true`)).body;
    expect(all.profiles).toEqual([]);
    expect(all.globalProfiles.map((p: { name: string }) => p.name)).toEqual(GLOBAL);
    const baseline = all.globalProfiles[0];
    expect(baseline.description).toMatch(/^Client profile, which enforce clients to conform '.*' specification\.$/);
    expect(baseline.executors[1]).toEqual({ executor: 'pkce-enforcer', configuration: { 'auto-configure': true } });
    const oauth = all.globalProfiles.find((p: { name: string }) => p.name === 'oauth-2-1-for-public-client');
    expect(oauth.executors[1]).toEqual({ executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } });
    expect((await api.get(`${base}/profiles?include-global-profiles=false`)).body).toEqual({ profiles: [] });
  });

  test('PUT replaces the profiles (204); GET returns them', async () => {
    const profiles = [
      {
        name: 'p1',
        description: 'first',
        executors: [
          { executor: 'secure-session', configuration: {} },
          { executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } },
        ],
      },
      { name: 'p2' },
    ];
    const put = await api.put(`${base}/profiles`, { profiles });
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    expect((await api.get(`${base}/profiles`)).body).toEqual({ profiles });
    expect((await api.put(`${base}/profiles`, { profiles: [profiles[1]] })).status).toBe(204);
    expect((await api.get(`${base}/profiles`)).body).toEqual({ profiles: [{ name: 'p2' }] });
  });

  test('sending back the unchanged globalProfiles is allowed; changed ones are refused', async () => {
    const all = (await api.get(`${base}/profiles?include-global-profiles=true`)).body;
    expect((await api.put(`${base}/profiles`, { profiles: [{ name: 'p3' }], globalProfiles: all.globalProfiles })).status).toBe(204);
    const changed = structuredClone(all.globalProfiles);
    changed[0].description = 'mine';
    await expectError(api.put(`${base}/profiles`, { profiles: [], globalProfiles: changed }), 'Global profiles cannot be updated');
    expect((await api.get(`${base}/profiles`)).body).toEqual({ profiles: [{ name: 'p3' }] });
  });

  test('validation: names, duplicates, global names, executors; nothing is stored', async () => {
    await expectError(api.put(`${base}/profiles`, { profiles: [{ description: 'x' }] }), 'client profile without its name not allowed.');
    await expectError(api.put(`${base}/profiles`, { profiles: [{ name: '' }] }), 'client profile without its name not allowed.');
    await expectError(
      api.put(`${base}/profiles`, { profiles: [{ name: 'a' }, { name: 'a' }] }),
      'proposed client profile name duplicated.',
    );
    await expectError(
      api.put(`${base}/profiles`, { profiles: [{ name: 'fapi-ciba' }] }),
      "Proposed profile name 'fapi-ciba' is duplicated as a global profile",
    );
    const badExecutor = 'proposed client profile contains the executor, which does not have valid provider, or has invalid configuration.';
    await expectError(
      api.put(`${base}/profiles`, { profiles: [{ name: 'x', executors: [{ executor: 'no-such-executor' }] }] }),
      badExecutor,
    );
    await expectError(
      api.put(`${base}/profiles`, {
        profiles: [
          {
            name: 'x',
            executors: [
              {
                executor: 'secure-client-authenticator',
                configuration: { 'allowed-client-authenticators': ['client-jwt'], 'default-client-authenticator': 'client-secret' },
              },
            ],
          },
        ],
      }),
      badExecutor,
    );
    const unknown = await api.put(`${base}/profiles`, { profiles: [], bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Invalid json representation for ClientProfilesRepresentation\. Unrecognized field "bogus"/);
    expect((await api.get(`${base}/profiles`)).body).toEqual({ profiles: [{ name: 'p3' }] });
  });
});

describe('client policies', () => {
  test('a new realm: {policies: []}; include-global-policies adds an empty globalPolicies', async () => {
    expect((await api.get(`${base}/policies`)).body).toEqual({ policies: [] });
    expect((await api.get(`${base}/policies?include-global-policies=true`)).body).toEqual({ policies: [], globalPolicies: [] });
  });

  test('PUT stores policies with enabled defaulting to false and empty conditions/profiles', async () => {
    expect((await api.put(`${base}/profiles`, { profiles: [{ name: 'mine' }] })).status).toBe(204);
    const put = await api.put(`${base}/policies`, {
      policies: [
        { name: 'new_test_policy' },
        {
          name: 'full',
          description: 'd',
          enabled: true,
          conditions: [{ condition: 'client-access-type', configuration: { type: ['confidential'] } }],
          profiles: ['mine', 'fapi-1-baseline'],
        },
      ],
    });
    expect(put.status).toBe(204);
    expect((await api.get(`${base}/policies`)).body).toEqual({
      policies: [
        { name: 'new_test_policy', enabled: false, conditions: [], profiles: [] },
        {
          name: 'full',
          description: 'd',
          enabled: true,
          conditions: [{ condition: 'client-access-type', configuration: { type: ['confidential'] } }],
          profiles: ['mine', 'fapi-1-baseline'],
        },
      ],
    });
  });

  test('validation errors are 400 with Keycloak messages and change nothing', async () => {
    const before = (await api.get(`${base}/policies`)).body;
    await expectError(api.put(`${base}/policies`, { policies: [{ name: 'a' }, { name: 'a' }] }), 'proposed client policy name duplicated');
    await expectError(api.put(`${base}/policies`, { policies: [{ description: 'x' }] }), 'client policy without name not allowed');
    await expectError(
      api.put(`${base}/policies`, { policies: [{ name: 'a', conditions: [{ condition: 'nope' }] }] }),
      'Policy a contains invalid condition nope',
    );
    await expectError(
      api.put(`${base}/policies`, { policies: [{ name: 'a', profiles: ['mine', 'mine'] }] }),
      'Policy a contains duplicated profiles',
    );
    await expectError(
      api.put(`${base}/policies`, { policies: [{ name: 'a', profiles: ['ghost'] }] }),
      'Policy a contains invalid profile ghost',
    );
    await expectError(api.put(`${base}/policies`, { policies: [], globalPolicies: [{ name: 'g' }] }), 'Global policies cannot be updated');
    expect((await api.get(`${base}/policies`)).body).toEqual(before);
  });

  test('writes record admin events; permissions: view-realm reads, manage-realm writes', async () => {
    const events = (await api.get(`/admin/realms/${R}/admin-events?resourceTypes=REALM`)).body as Array<Record<string, unknown>>;
    expect(events.map((e) => e.resourcePath)).toEqual(expect.arrayContaining(['client-policies/profiles', 'client-policies/policies']));
    const viewer = await realmAdmin(ts, R, 'cp-viewer', ['view-realm']);
    expect((await viewer.get(`${base}/policies`)).status).toBe(200);
    expect((await viewer.get(`${base}/profiles`)).status).toBe(200);
    const denied = await viewer.put(`${base}/policies`, { policies: [] });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
    const other = await realmAdmin(ts, R, 'cp-other', ['view-users']);
    expect((await other.get(`${base}/profiles`)).status).toBe(403);
    expect((await api.get('/admin/realms/nosuch/client-policies/policies')).body).toEqual({ error: 'Realm not found.' });
    expect((await api.get(`${base}/policies`)).body.policies).toHaveLength(2);
  });

  test('realm import validates and stores clientProfiles and clientPolicies', async () => {
    const ok = await api.post('/admin/realms', {
      realm: 'cpolimport',
      clientProfiles: { profiles: [{ name: 'imp', executors: [{ executor: 'secure-session', configuration: {} }] }] },
      clientPolicies: { policies: [{ name: 'pol', enabled: true, profiles: ['imp'] }] },
    });
    expect(ok.status).toBe(201);
    expect((await api.get('/admin/realms/cpolimport/client-policies/profiles')).body).toEqual({
      profiles: [{ name: 'imp', executors: [{ executor: 'secure-session', configuration: {} }] }],
    });
    expect((await api.get('/admin/realms/cpolimport/client-policies/policies')).body).toEqual({
      policies: [{ name: 'pol', enabled: true, conditions: [], profiles: ['imp'] }],
    });
    const bad = await api.post('/admin/realms', { realm: 'cpolbad', clientPolicies: { policies: [{ name: 'p', profiles: ['ghost'] }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errorMessage: 'Policy p contains invalid profile ghost' });
    expect((await api.get('/admin/realms/cpolbad')).status).toBe(404);
  });

  test('PUT /{realm} with clientProfiles and clientPolicies validates and stores them like their endpoints', async () => {
    await api.post('/admin/realms', { realm: 'cpolput', enabled: true });
    const realmUrl = '/admin/realms/cpolput';
    const profiles = { profiles: [{ name: 'viaput', executors: [{ executor: 'secure-session', configuration: {} }] }] };
    const policies = { policies: [{ name: 'pp', enabled: true, profiles: ['viaput'] }] };
    expect((await api.put(realmUrl, { clientProfiles: profiles, clientPolicies: policies })).status).toBe(204);
    expect((await api.get(`${realmUrl}/client-policies/policies`)).body).toEqual({
      policies: [{ name: 'pp', enabled: true, conditions: [], profiles: ['viaput'] }],
    });
    const bad = await api.put(realmUrl, { displayName: 'changed', clientPolicies: { policies: [{ name: 'q', profiles: ['ghost'] }] } });
    expect([bad.status, bad.body]).toEqual([400, { errorMessage: 'Policy q contains invalid profile ghost' }]);
    const after = (await api.get(realmUrl)).body;
    expect(after.displayName).toBeUndefined();
    expect(after.clientPolicies).toEqual({ policies: [{ name: 'pp', enabled: true, conditions: [], profiles: ['viaput'] }] });
  });
});
