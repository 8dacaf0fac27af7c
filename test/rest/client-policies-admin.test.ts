import { createClient, createGroup, createRole, realmAdmin, userId } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, type gqlClient, startWithRealm, userErrors } from '../graphql/gql';

/**
 * Client policies enforced on admin writes (issue 16 item 2, ADR 0032): each executor and condition
 * on POST / PUT /clients and on GraphQL's createClient / updateClient, through one call in the
 * client service. Keycloak's error `{"error", "error_description"}` with 400; nothing written.
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'cpadmin';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

type Json = Record<string, unknown>;
const ex = (executor: string, configuration: Json = {}) => ({ executor, configuration });
const cond = (condition: string, configuration: Json = {}) => ({ condition, configuration });

/** Stores one profile with these executors and one enabled policy with these conditions using it. */
async function enforce(executors: Json[], conditions: Json[] = [cond('any-client')], profiles = ['p']) {
  await api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
  await api.put(`${base}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles }] }).expect(204);
}
async function clear() {
  await api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204);
}
afterEach(clear);

const create = (rep: Json) => api.post(`${base}/clients`, rep);
const stored = async (clientId: string) => (await api.get(`${base}/clients?clientId=${clientId}`)).body[0] as Json | undefined;
const attr = async (clientId: string, key: string) => ((await stored(clientId))?.attributes as Json | undefined)?.[key];
const refused = (res: { status: number; body: unknown }, error: string, description: string) => {
  expect([res.status, res.body]).toEqual([400, { error, error_description: description }]);
};

describe('executors on POST /clients (REGISTER) and PUT /clients/{id} (UPDATE)', () => {
  test('pkce-enforcer: without auto-configure a client without S256 is refused; with it S256 is set', async () => {
    await enforce([ex('pkce-enforcer')]);
    refused(await create({ clientId: 'pk1' }), 'invalid_client_metadata', 'Invalid client metadata: code_challenge_method');
    expect(await stored('pk1')).toBeUndefined();
    await create({ clientId: 'pk2', attributes: { 'pkce.code.challenge.method': 'S256' } }).expect(201);
    const id = (await stored('pk2'))?.id;
    refused(
      await api.put(`${base}/clients/${id}`, { clientId: 'pk2', attributes: { 'pkce.code.challenge.method': 'plain' } }),
      'invalid_client_metadata',
      'Invalid client metadata: code_challenge_method',
    );
    expect(await attr('pk2', 'pkce.code.challenge.method')).toBe('S256');
    await enforce([ex('pkce-enforcer', { 'auto-configure': 'true' })]);
    await create({ clientId: 'pk3' }).expect(201);
    expect(await attr('pk3', 'pkce.code.challenge.method')).toBe('S256');
  });

  test('secure-client-authenticator: the default is set when none is named; a disallowed one is refused; public clients pass', async () => {
    await enforce([
      ex('secure-client-authenticator', {
        'allowed-client-authenticators': ['client-jwt', 'client-secret-jwt'],
        'default-client-authenticator': 'client-jwt',
      }),
    ]);
    await create({ clientId: 'sca1' }).expect(201);
    expect((await stored('sca1'))?.clientAuthenticatorType).toBe('client-jwt');
    refused(
      await create({ clientId: 'sca2', clientAuthenticatorType: 'client-secret' }),
      'invalid_client_metadata',
      'Invalid client metadata: token_endpoint_auth_method',
    );
    expect(await stored('sca2')).toBeUndefined();
    await create({ clientId: 'sca3', publicClient: true, clientAuthenticatorType: 'client-secret' }).expect(201);
  });

  test('full-scope-disabled and consent-required: refused when enabled/disabled, auto-configured otherwise', async () => {
    await enforce([ex('full-scope-disabled', { 'auto-configure': false })]);
    refused(await create({ clientId: 'fs1', fullScopeAllowed: true }), 'invalid_registration', 'Not permitted to enable fullScopeAllowed');
    await enforce([ex('full-scope-disabled', { 'auto-configure': true })]);
    await create({ clientId: 'fs2', fullScopeAllowed: true }).expect(201);
    expect((await stored('fs2'))?.fullScopeAllowed).toBe(false);

    await enforce([ex('consent-required', { 'auto-configure': false })]);
    refused(await create({ clientId: 'cr1' }), 'invalid_registration', 'Client is required to enable consentRequired');
    await create({ clientId: 'cr2', consentRequired: true }).expect(201);
    const id = (await stored('cr2'))?.id;
    // An update that leaves consentRequired out keeps it; one turning it off is refused.
    await api.put(`${base}/clients/${id}`, { clientId: 'cr2', name: 'renamed' }).expect(204);
    refused(
      await api.put(`${base}/clients/${id}`, { clientId: 'cr2', consentRequired: false }),
      'invalid_registration',
      'Client is required to enable consentRequired',
    );
    expect(await stored('cr2')).toMatchObject({ name: 'renamed', consentRequired: true });
    await enforce([ex('consent-required', { 'auto-configure': true })]);
    await create({ clientId: 'cr3' }).expect(201);
    expect((await stored('cr3'))?.consentRequired).toBe(true);
  });

  test('reject-implicit-grant, reject-ropc-grant and secure-response-type on writes', async () => {
    await enforce([ex('reject-implicit-grant')]);
    refused(
      await create({ clientId: 'ri1', implicitFlowEnabled: true }),
      'invalid_client_metadata',
      'Invalid client metadata: implicit flow enabled',
    );
    await enforce([ex('reject-implicit-grant', { 'auto-configure': 'true' })]);
    await create({ clientId: 'ri2', implicitFlowEnabled: true }).expect(201);
    expect((await stored('ri2'))?.implicitFlowEnabled).toBe(false);

    await enforce([ex('reject-ropc-grant')]);
    refused(
      await create({ clientId: 'ro1', directAccessGrantsEnabled: true }),
      'invalid_client_metadata',
      'Invalid client metadata: resource owner password credentials grant enabled',
    );
    await enforce([ex('reject-ropc-grant', { 'auto-configure': 'true' })]);
    await create({ clientId: 'ro2', directAccessGrantsEnabled: true }).expect(201);
    expect((await stored('ro2'))?.directAccessGrantsEnabled).toBe(false);

    await enforce([ex('secure-response-type')]);
    refused(
      await create({ clientId: 'srt1' }),
      'invalid_client_metadata',
      'Invalid client metadata: ID Token as detached signature in disabled',
    );
    await enforce([ex('secure-response-type', { 'auto-configure': true })]);
    await create({ clientId: 'srt2' }).expect(201);
    expect(await attr('srt2', 'id.token.as.detached.signature')).toBe('true');
  });

  test('secure-redirect-uris-enforcer: https only by default; loopback, private-use schemes, http and wildcards as allowed', async () => {
    await enforce([ex('secure-redirect-uris-enforcer')]);
    const invalid = 'Invalid Redirect Uri: invalid uri';
    refused(await create({ clientId: 'ru1' }), 'invalid_request', invalid);
    refused(await create({ clientId: 'ru2', redirectUris: ['http://app.example/cb'] }), 'invalid_request', invalid);
    refused(await create({ clientId: 'ru3', redirectUris: ['https://app.example/*'] }), 'invalid_request', invalid);
    refused(
      await create({ clientId: 'ru4', redirectUris: ['https://127.0.0.1/cb'] }),
      'invalid_request',
      'Invalid Redirect Uri: invalid loopback address',
    );
    refused(
      await create({ clientId: 'ru5', redirectUris: ['com.example.app:/cb'] }),
      'invalid_request',
      'Invalid Redirect Uri: invalid private use scheme',
    );
    refused(
      await create({
        clientId: 'ru6',
        redirectUris: ['https://app.example/cb'],
        attributes: { 'post.logout.redirect.uris': 'http://app.example/bye' },
      }),
      'invalid_request',
      invalid,
    );
    await create({ clientId: 'ru7', redirectUris: ['https://app.example/cb'], attributes: { 'post.logout.redirect.uris': '+' } }).expect(
      201,
    );
    await create({ clientId: 'ru8', standardFlowEnabled: false }).expect(201);
    await create({ clientId: 'ru9', rootUrl: 'https://root.example', redirectUris: ['/cb'] }).expect(201);
    expect(await stored('ru1')).toBeUndefined();

    await enforce([
      ex('secure-redirect-uris-enforcer', {
        'allow-ipv4-loopback-address': 'true',
        'allow-private-use-uri-scheme': 'true',
        'allow-http-scheme': true,
        'allow-wildcard-context-path': true,
        'allow-permitted-domains': ['(.*)\\.example'],
      }),
    ]);
    await create({
      clientId: 'ru10',
      redirectUris: [
        'http://127.0.0.1:8000/cb',
        'com.example.app:/cb',
        'http://app.example/cb',
        'https://app.example/*',
        'https://app.example/a/*',
      ],
    }).expect(201);
    refused(await create({ clientId: 'ru11', redirectUris: ['https://evil.test/cb'] }), 'invalid_request', invalid);
    refused(await create({ clientId: 'ru12', redirectUris: ['https://app.example/*/b*'] }), 'invalid_request', invalid);

    await enforce([ex('secure-redirect-uris-enforcer', { 'allow-ipv4-loopback-address': true, 'oauth-2-1-compliant': true })]);
    refused(
      await create({ clientId: 'ru13', redirectUris: ['https://localhost/cb'] }),
      'invalid_request',
      'Invalid Redirect Uri: invalid loopback address',
    );
    await create({ clientId: 'ru14', redirectUris: ['https://127.0.0.1/cb'] }).expect(201);
    refused(await create({ clientId: 'ru15', redirectUris: ['https://app.example/cb#x'] }), 'invalid_request', invalid);
  });

  test('a global profile named by a realm policy acts: fapi-1-baseline auto-configures PKCE, consent and full scope', async () => {
    await api
      .put(`${base}/client-policies/policies`, {
        policies: [{ name: 'fapi', enabled: true, conditions: [cond('any-client')], profiles: ['fapi-1-baseline'] }],
      })
      .expect(204);
    refused(
      await create({ clientId: 'fapi1', clientAuthenticatorType: 'client-secret' }),
      'invalid_client_metadata',
      'Invalid client metadata: token_endpoint_auth_method',
    );
    await create({ clientId: 'fapi2', fullScopeAllowed: true }).expect(201);
    expect(await stored('fapi2')).toMatchObject({
      clientAuthenticatorType: 'client-jwt',
      consentRequired: true,
      fullScopeAllowed: false,
      attributes: expect.objectContaining({ 'pkce.code.challenge.method': 'S256' }),
    });
  });

  test('a disabled policy, a policy without conditions or with a condition voting no does nothing', async () => {
    await api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors: [ex('pkce-enforcer')] }] }).expect(204);
    await api
      .put(`${base}/client-policies/policies`, {
        policies: [
          { name: 'off', enabled: false, conditions: [cond('any-client')], profiles: ['p'] },
          { name: 'none', enabled: true, conditions: [], profiles: ['p'] },
          { name: 'neg', enabled: true, conditions: [cond('any-client', { 'is-negative-logic': true })], profiles: ['p'] },
        ],
      })
      .expect(204);
    await create({ clientId: 'free1' }).expect(201);
  });
});

describe('conditions on admin writes', () => {
  test('client-updater-context: ByAuthenticatedUser matches the admin API, ByAnonymous does not', async () => {
    await enforce([ex('pkce-enforcer')], [cond('client-updater-context', { 'update-client-source': ['ByAnonymous'] })]);
    await create({ clientId: 'ctx1' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-context', { 'update-client-source': ['ByAuthenticatedUser'] })]);
    refused(await create({ clientId: 'ctx2' }), 'invalid_client_metadata', 'Invalid client metadata: code_challenge_method');
  });

  test('client-access-type: the proposed type on create, the stored or proposed one on update', async () => {
    await enforce([ex('pkce-enforcer')], [cond('client-access-type', { type: ['public'] })]);
    await create({ clientId: 'at1' }).expect(201);
    refused(
      await create({ clientId: 'at2', publicClient: true }),
      'invalid_client_metadata',
      'Invalid client metadata: code_challenge_method',
    );
    const id = (await stored('at1'))?.id;
    refused(
      await api.put(`${base}/clients/${id}`, { clientId: 'at1', publicClient: true }),
      'invalid_client_metadata',
      'Invalid client metadata: code_challenge_method',
    );
    expect((await stored('at1'))?.publicClient).toBe(false);
  });

  test('client-access-type without `type` matches no client (ClientAccessTypeCondition: no configured type, no match)', async () => {
    await enforce([ex('pkce-enforcer')], [cond('client-access-type')]);
    await create({ clientId: 'at-none1' }).expect(201);
    await create({ clientId: 'at-none2', publicClient: true }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-access-type', { type: ['confidential'] })]);
    refused(await create({ clientId: 'at-none3' }), 'invalid_client_metadata', 'Invalid client metadata: code_challenge_method');
  });

  test('client-roles abstains on client writes (ClientRolesCondition judges requests only): a client defining the role is updated freely', async () => {
    const withRole = await createClient(api, R, { clientId: 'cro1' });
    await api.post(`${base}/clients/${withRole}/roles`, { name: 'special' }).expect(201);
    await enforce([ex('full-scope-disabled')], [cond('client-roles', { roles: ['special'] })]);
    await api.put(`${base}/clients/${withRole}`, { clientId: 'cro1', fullScopeAllowed: true }).expect(204);
    expect((await stored('cro1'))?.fullScopeAllowed).toBe(true);
    // The same executor under any-client does refuse the write.
    await enforce([ex('full-scope-disabled')]);
    refused(
      await api.put(`${base}/clients/${withRole}`, { clientId: 'cro1', fullScopeAllowed: true }),
      'invalid_registration',
      'Not permitted to enable fullScopeAllowed',
    );
  });

  test('client-updater-source-roles and -groups: the writing user holds the realm role / is in the group', async () => {
    const writer = await realmAdmin(ts, R, 'writer', ['manage-clients']);
    await createRole(api, R, 'writers');
    const uid = await userId(api, R, 'writer');
    const roles = (await api.get(`${base}/roles/writers`)).body;
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: ['writers'] })]);
    await writer.post(`${base}/clients`, { clientId: 'sr1' }).expect(201);
    await api.post(`${base}/users/${uid}/role-mappings/realm`, [roles]).expect(204);
    refused(
      await writer.post(`${base}/clients`, { clientId: 'sr2' }),
      'invalid_client_metadata',
      'Invalid client metadata: code_challenge_method',
    );

    const group = await createGroup(api, R, 'team');
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups', { groups: ['team'] })]);
    await writer.post(`${base}/clients`, { clientId: 'sg1' }).expect(201);
    await api.put(`${base}/users/${uid}/groups/${group}`).expect(204);
    refused(
      await writer.post(`${base}/clients`, { clientId: 'sg2' }),
      'invalid_client_metadata',
      'Invalid client metadata: code_challenge_method',
    );
  });
});

describe("conditions read their stored configuration as Keycloak's classes do (no console form defaults)", () => {
  const pkceRefused = (res: { status: number; body: unknown }) =>
    refused(res, 'invalid_client_metadata', 'Invalid client metadata: code_challenge_method');

  test('ClientUpdaterSourceRolesCondition: no roles votes NO; composites, groups and clientId.role count', async () => {
    const writer = await realmAdmin(ts, R, 'rwriter', ['manage-clients']);
    const uid = await userId(api, R, 'rwriter');
    const admin = await createRole(api, R, 'admin');
    await api.post(`${base}/users/${uid}/role-mappings/realm`, [admin]).expect(204);
    // The console's form default `admin` is not the condition's: without `roles` nothing matches.
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles')]);
    await writer.post(`${base}/clients`, { clientId: 'rd1' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: [] })]);
    await writer.post(`${base}/clients`, { clientId: 'rd2' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: ['admin'] })]);
    pkceRefused(await writer.post(`${base}/clients`, { clientId: 'rd3' }));
    // A role held through a composite of a group's role (user.hasRole).
    const inner = await createRole(api, R, 'inner-role');
    const outer = await createRole(api, R, 'outer-role');
    await api.post(`${base}/roles-by-id/${outer.id}/composites`, [inner]).expect(204);
    const g = await createGroup(api, R, 'role-holders');
    await api.post(`${base}/groups/${g}/role-mappings/realm`, [outer]).expect(204);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: ['inner-role'] })]);
    await writer.post(`${base}/clients`, { clientId: 'rd4' }).expect(201);
    await api.put(`${base}/users/${uid}/groups/${g}`).expect(204);
    pkceRefused(await writer.post(`${base}/clients`, { clientId: 'rd5' }));
    // `clientId.role` names a client role (KeycloakModelUtils#getRoleFromString).
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: ['realm-management.manage-clients'] })]);
    pkceRefused(await writer.post(`${base}/clients`, { clientId: 'rd6' }));
  });

  test('ClientUpdaterSourceGroupsCondition: no groups votes NO; a name is a top-level group, a path any group', async () => {
    const writer = await realmAdmin(ts, R, 'gwriter', ['manage-clients']);
    const uid = await userId(api, R, 'gwriter');
    const top = await createGroup(api, R, 'topGroup');
    await api.put(`${base}/users/${uid}/groups/${top}`).expect(204);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups')]);
    await writer.post(`${base}/clients`, { clientId: 'gd1' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups', { groups: ['topGroup'] })]);
    pkceRefused(await writer.post(`${base}/clients`, { clientId: 'gd2' }));
    const org = await createGroup(api, R, 'org');
    const sub = await createGroup(api, R, 'squad', org);
    await api.put(`${base}/users/${uid}/groups/${sub}`).expect(204);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups', { groups: ['squad'] })]);
    await writer.post(`${base}/clients`, { clientId: 'gd3' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups', { groups: ['/org/squad'] })]);
    pkceRefused(await writer.post(`${base}/clients`, { clientId: 'gd4' }));
    // Membership is direct: the parent of the user's group does not match.
    await api.delete(`${base}/users/${uid}/groups/${top}`).expect(204);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-groups', { groups: ['org'] })]);
    await writer.post(`${base}/clients`, { clientId: 'gd5' }).expect(201);
  });

  test('ClientUpdaterSourceHostsCondition: no trusted-hosts votes NO; a host name is resolved', async () => {
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-host')]);
    await create({ clientId: 'hd1' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-host', { 'trusted-hosts': ['10.255.255.1'] })]);
    await create({ clientId: 'hd2' }).expect(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-host', { 'trusted-hosts': ['localhost'] })]);
    pkceRefused(await create({ clientId: 'hd3' }));
  });
});

describe('GraphQL createClient / updateClient are evaluated the same way', () => {
  test('refused with the same error; auto-configure applies', async () => {
    await enforce([ex('pkce-enforcer')]);
    const res = await gql(`mutation { createClient(realm: "${R}", input: {clientId: "gq1"}) { client { id } ${USER_ERRORS} } }`);
    expect(res.data?.createClient.client).toBeNull();
    expect(userErrors(res, 'createClient')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: 'Invalid client metadata: code_challenge_method' },
    ]);
    expect(await stored('gq1')).toBeUndefined();
    await enforce([ex('full-scope-disabled', { 'auto-configure': true })]);
    const made = await gql(`mutation { createClient(realm: "${R}", input: {clientId: "gq2", fullScopeAllowed: true}) { client { id } } }`);
    const id = made.data?.createClient.client.id;
    expect((await stored('gq2'))?.fullScopeAllowed).toBe(false);
    await enforce([ex('full-scope-disabled', { 'auto-configure': false })]);
    const upd = await gql(
      `mutation { updateClient(realm: "${R}", id: "${id}", input: {fullScopeAllowed: true}) { client { id } ${USER_ERRORS} } }`,
    );
    expect(userErrors(upd, 'updateClient').map((e) => e.message)).toEqual(['Not permitted to enable fullScopeAllowed']);
    expect((await stored('gq2'))?.fullScopeAllowed).toBe(false);
  });
});

test('server info lists the executors and conditions that act, and only those', async () => {
  const info = (await api.get('/admin/serverinfo').expect(200)).body;
  const executors = info.componentTypes['org.keycloak.services.clientpolicy.executor.ClientPolicyExecutorProvider'].map((t: Json) => t.id);
  expect(executors).toEqual([
    'auth-flow-enforcer',
    'confidential-client',
    'consent-required',
    'dpop-bind-enforcer',
    'full-scope-disabled',
    'holder-of-key-enforcer',
    'intent-client-bind-checker',
    'pkce-enforcer',
    'registration-access-token-rotation-disabled',
    'reject-implicit-grant',
    'reject-request',
    'reject-ropc-grant',
    'secret-rotation',
    'secure-ciba-req-sig-algorithm',
    'secure-ciba-session',
    'secure-ciba-signed-authn-req',
    'secure-client-authenticator',
    'secure-client-uris',
    'secure-logout',
    'secure-par-content',
    'secure-redirect-uris-enforcer',
    'secure-request-object',
    'secure-response-type',
    'secure-session',
    'secure-signature-algorithm',
    'secure-signature-algorithm-signed-jwt',
    'suppress-refresh-token-rotation',
    'use-lightweight-access-token',
  ]);
  expect(Object.keys(info.providers['client-policy-executor'].providers).sort()).toEqual(executors);
  const conditions = info.componentTypes['org.keycloak.services.clientpolicy.condition.ClientPolicyConditionProvider'].map(
    (t: Json) => t.id,
  );
  expect(conditions).toEqual([
    'acr-condition',
    'any-client',
    'client-access-type',
    'client-attributes',
    'client-roles',
    'client-scopes',
    'client-type',
    'client-updater-context',
    'client-updater-source-groups',
    'client-updater-source-host',
    'client-updater-source-roles',
    'grant-type',
  ]);
});

test('a realm import is not evaluated: its clients are stored as exported, its policies act afterwards', async () => {
  const rep = {
    realm: 'cpimport',
    enabled: true,
    clientProfiles: { profiles: [{ name: 'p', executors: [ex('pkce-enforcer')] }] },
    clientPolicies: { policies: [{ name: 'pol', enabled: true, conditions: [cond('any-client')], profiles: ['p'] }] },
    clients: [{ clientId: 'old-app', publicClient: true, redirectUris: ['https://old.example/cb'] }],
  };
  await api.post('/admin/realms', rep).expect(201);
  expect((await api.get('/admin/realms/cpimport/clients?clientId=old-app')).body).toHaveLength(1);
  refused(
    await api.post('/admin/realms/cpimport/clients', { clientId: 'new-app' }),
    'invalid_client_metadata',
    'Invalid client metadata: code_challenge_method',
  );
});

test('a partial import of clients is not evaluated either (as Keycloak, which imports the representation as is)', async () => {
  await enforce([ex('pkce-enforcer')]);
  await api.post(`${base}/partialImport`, { ifResourceExists: 'FAIL', clients: [{ clientId: 'partial-app' }] }).expect(200);
  expect(await stored('partial-app')).toMatchObject({ clientId: 'partial-app' });
  await clear();
});
