import { decodeJwt } from 'jose';
import request from 'supertest';
import { createClientScope, expectStatus } from '../helpers/fixtures';
import { type RegistrationFixture, registrationFixture } from './client-registration-fixture';

/**
 * Client registration policies (issue 16): the realm's ClientRegistrationPolicy components, per
 * `anonymous` and `authenticated` sub-type, with their configuration; a refusal is Keycloak's 403
 * `insufficient_scope` naming the policy, and creates nothing.
 */

let f: RegistrationFixture;
const R = 'client-reg-policies';

beforeAll(async () => {
  f = await registrationFixture(R);
});
afterAll(() => f.ts.close());

const refused = (policy: string, details: string) => ({
  error: 'insufficient_scope',
  error_description: `Policy '${policy}' rejected request to client-registration service. Details: ${details}`,
});

/** Registers anonymously (no Authorization header). */
const anonymous = (body: Record<string, unknown>) => f.call('POST', '/default', { body });
const withInitial = async (body: Record<string, unknown>) => f.call('POST', '/default', { token: await f.initialToken(), body });

describe('the default policies of a new realm', () => {
  test("are Keycloak's: anonymous and authenticated components with their configuration", async () => {
    const expected: Array<[string, string, string]> = [
      ['Trusted Hosts', 'trusted-hosts', 'anonymous'],
      ['Consent Required', 'consent-required', 'anonymous'],
      ['Full Scope Disabled', 'scope', 'anonymous'],
      ['Max Clients Limit', 'max-clients', 'anonymous'],
      ['Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'anonymous'],
      ['Allowed Client Scopes', 'allowed-client-templates', 'anonymous'],
      ['Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'authenticated'],
      ['Allowed Client Scopes', 'allowed-client-templates', 'authenticated'],
    ];
    for (const [name, providerId, subType] of expected) {
      expect(await f.policy(name, subType)).toMatchObject({ providerId });
    }
    expect((await f.policy('Max Clients Limit', 'anonymous')).config['max-clients']).toEqual(['200']);
  });

  test('refuse an anonymous registration from an untrusted host, and create nothing', async () => {
    const before = await f.clientCount();
    const res = await anonymous({ clientId: 'anon-untrusted' });
    expect([res.status, res.body]).toEqual([403, refused('Trusted Hosts', 'Host not trusted.')]);
    expect(await f.clientCount()).toBe(before);
    expect((await f.events('CLIENT_REGISTER_ERROR'))[0]).toMatchObject({ error: 'not_allowed' });
  });
});

describe('anonymous registration where the policies allow it', () => {
  beforeAll(async () => {
    await f.setPolicyConfig('Trusted Hosts', 'anonymous', {
      'trusted-hosts': ['localhost', '*.example.org'],
      'host-sending-registration-request-must-match': ['true'],
      'client-uris-must-match': ['true'],
    });
  });

  test('a trusted host registers; the client needs consent, has no full scope; its token says anonymous', async () => {
    const res = await anonymous({ clientId: 'anon-ok', redirectUris: ['https://app.example.org/cb', 'http://localhost/cb'] });
    expect(res.status).toBe(201);
    expect(decodeJwt(res.body.registrationAccessToken).registration_auth).toBe('anonymous');
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=anon-ok`), 200, 'client').body;
    expect(stored).toMatchObject({ consentRequired: true, fullScopeAllowed: false, enabled: true });

    // The anonymous policies keep applying to updates with its registration token.
    const rat = res.body.registrationAccessToken;
    const consent = await f.call('PUT', '/default/anon-ok', { token: rat, body: { clientId: 'anon-ok', consentRequired: false } });
    expect([consent.status, consent.body]).toEqual([403, refused('Consent Required', 'Not permitted to update consentRequired to false')]);
    const scope = await f.call('PUT', '/default/anon-ok', { token: rat, body: { clientId: 'anon-ok', fullScopeAllowed: true } });
    expect([scope.status, scope.body]).toEqual([403, refused('Full Scope Disabled', 'Not permitted to enable fullScopeAllowed')]);
    const [after] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=anon-ok`), 200, 'client').body;
    expect(after).toMatchObject({ consentRequired: true, fullScopeAllowed: false });
    expect((await f.call('PUT', '/default/anon-ok', { token: rat, body: { clientId: 'anon-ok', name: 'Fine' } })).status).toBe(200);
  });

  test('client URIs outside the trusted hosts and domains are refused', async () => {
    const redirect = await anonymous({ clientId: 'anon-evil', redirectUris: ['https://evil.example.com/cb'] });
    expect([redirect.status, redirect.body]).toEqual([
      403,
      refused('Trusted Hosts', "URI doesn't match any trusted host or trusted domain"),
    ]);
    const root = await anonymous({ clientId: 'anon-root', rootUrl: 'https://evil.example.com' });
    expect([root.status, root.body]).toEqual([403, refused('Trusted Hosts', "URL doesn't match any trusted host or trusted domain")]);
    expect(expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=anon-evil`), 200, 'none').body).toEqual([]);
  });

  test('the max-clients limit counts every client of the realm', async () => {
    const count = await f.clientCount();
    await f.setPolicyConfig('Max Clients Limit', 'anonymous', { 'max-clients': [String(count)] });
    const res = await anonymous({ clientId: 'anon-too-many' });
    expect([res.status, res.body]).toEqual([403, refused('Max Clients Limit', `It's allowed to have max ${count} clients per realm`)]);
    // An authenticated registration is not limited by the anonymous policy.
    expect((await withInitial({ clientId: 'auth-not-limited' })).status).toBe(201);
    await f.setPolicyConfig('Max Clients Limit', 'anonymous', { 'max-clients': ['200'] });
    expect((await anonymous({ clientId: 'anon-within-limit' })).status).toBe(201);
  });

  test('trusted hosts by address, trusted domains for URIs only, and each check switched off on its own', async () => {
    const trusted = (hosts: string[], hostMustMatch: boolean, urisMustMatch: boolean) =>
      f.setPolicyConfig('Trusted Hosts', 'anonymous', {
        'trusted-hosts': hosts,
        'host-sending-registration-request-must-match': [String(hostMustMatch)],
        'client-uris-must-match': [String(urisMustMatch)],
      });
    await trusted(['127.0.0.1'], true, false);
    expect((await anonymous({ clientId: 'by-ip', redirectUris: ['https://anywhere.example.com/cb'] })).status).toBe(201);
    await trusted(['*.example.net'], false, true);
    expect((await anonymous({ clientId: 'by-domain', redirectUris: ['https://app.example.net/cb'] })).status).toBe(201);
    const lookalike = await anonymous({ clientId: 'lookalike', redirectUris: ['https://example.net.evil.org/cb'] });
    expect([lookalike.status, lookalike.body]).toEqual([
      403,
      refused('Trusted Hosts', "URI doesn't match any trusted host or trusted domain"),
    ]);
    await trusted(['*.example.net'], true, true);
    const host = await anonymous({ clientId: 'untrusted-caller', redirectUris: ['https://app.example.net/cb'] });
    expect([host.status, host.body]).toEqual([403, refused('Trusted Hosts', 'Host not trusted.')]);
    await trusted(['localhost', '*.example.org'], true, true);
  });
});

describe("the policies' configuration is checked when stored, as Keycloak's factories do", () => {
  test('max-clients needs a number; trusted-hosts needs one of its checks on; a refused write changes nothing', async () => {
    const max = await f.policy('Max Clients Limit', 'anonymous');
    const put = (p: { id: string }, config: Record<string, string[]>) =>
      f.api.put(`/admin/realms/${R}/components/${p.id}`, { ...p, config });
    const answer = (res: { status: number; body: unknown }) => [res.status, res.body];
    expect(answer(await put(max, { 'max-clients': ['many'] }))).toEqual([
      400,
      { errorMessage: "'Max Clients Per Realm' should be a number" },
    ]);
    expect(answer(await put(max, { 'max-clients': ['99999999999'] }))).toEqual([
      400,
      { errorMessage: "'Max Clients Per Realm' should be a number" },
    ]);
    const realmId = (await f.api.get(`/admin/realms/${R}`)).body.id;
    const created = await f.api.post(`/admin/realms/${R}/components`, {
      name: 'No Limit Given',
      providerId: 'max-clients',
      providerType: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy',
      subType: 'authenticated',
      parentId: realmId,
      config: {},
    });
    expect(answer(created)).toEqual([400, { errorMessage: "'Max Clients Per Realm' is required" }]);
    expect((await f.policy('Max Clients Limit', 'anonymous')).config['max-clients']).toEqual(max.config['max-clients']);
    await expect(f.policy('No Limit Given', 'authenticated')).rejects.toThrow();

    const hosts = await f.policy('Trusted Hosts', 'anonymous');
    const both = { 'host-sending-registration-request-must-match': ['false'], 'client-uris-must-match': ['false'] };
    expect(answer(await put(hosts, { ...hosts.config, ...both }))).toEqual([
      400,
      { errorMessage: 'At least one of hosts verification or client URIs validation must be enabled' },
    ]);
    expect(answer(await put(hosts, { ...hosts.config, 'client-uris-must-match': ['yes'] }))).toEqual([
      400,
      { errorMessage: "'Client URIs Must Match' should be 'true' or 'false'" },
    ]);
    expect((await f.policy('Trusted Hosts', 'anonymous')).config).toEqual(hosts.config);
    expect((await put(max, { 'max-clients': ['150'] })).status).toBe(204);
    await f.setPolicyConfig('Max Clients Limit', 'anonymous', max.config);
  });
});

describe('policies of authenticated registrations', () => {
  test('allowed protocol mappers: a mapper type not listed is refused, a listed one passes', async () => {
    const mapper = (protocolMapper: string) => ({
      name: 'm',
      protocol: 'openid-connect',
      protocolMapper,
      config: { 'claim.name': 'x', 'claim.value': 'y', 'user.attribute': 'x' },
    });
    const bad = await withInitial({ clientId: 'mapper-bad', protocolMappers: [mapper('oidc-hardcoded-claim-mapper')] });
    expect([bad.status, bad.body]).toEqual([403, refused('Allowed Protocol Mapper Types', 'ProtocolMapper type not allowed')]);
    const ok = await withInitial({ clientId: 'mapper-ok', protocolMappers: [mapper('oidc-usermodel-attribute-mapper')] });
    expect(ok.status).toBe(201);
    await f.setPolicyConfig('Allowed Protocol Mapper Types', 'authenticated', {
      'allowed-protocol-mapper-types': ['oidc-usermodel-attribute-mapper', 'oidc-hardcoded-claim-mapper'],
    });
    expect((await withInitial({ clientId: 'mapper-now-ok', protocolMappers: [mapper('oidc-hardcoded-claim-mapper')] })).status).toBe(201);
  });

  test("allowed client scopes: the realm's default scopes pass, others only once listed", async () => {
    await createClientScope(f.api, R, 'extra-scope', { protocol: 'openid-connect' });
    const bad = await withInitial({ clientId: 'scope-bad', defaultClientScopes: ['profile', 'extra-scope'] });
    expect([bad.status, bad.body]).toEqual([403, refused('Allowed Client Scopes', 'Not permitted to use specified clientScope')]);
    const ok = await withInitial({ clientId: 'scope-ok', defaultClientScopes: ['profile'], optionalClientScopes: ['address'] });
    expect(ok.status).toBe(201);
    expect(ok.body.defaultClientScopes).toEqual(['profile']);
    await f.setPolicyConfig('Allowed Client Scopes', 'authenticated', {
      'allowed-client-scopes': ['extra-scope'],
      'allow-default-scopes': ['true'],
    });
    expect((await withInitial({ clientId: 'scope-listed', defaultClientScopes: ['extra-scope'] })).status).toBe(201);
    // Updates: scopes the client has stay allowed, new unlisted ones do not.
    const rat = ok.body.registrationAccessToken;
    await f.setPolicyConfig('Allowed Client Scopes', 'authenticated', { 'allow-default-scopes': ['false'] });
    const kept = await f.call('PUT', '/default/scope-ok', { token: rat, body: { clientId: 'scope-ok', defaultClientScopes: ['profile'] } });
    expect(kept.status).toBe(200);
    const added = await f.call('PUT', '/default/scope-ok', {
      token: kept.body.registrationAccessToken,
      body: { clientId: 'scope-ok', defaultClientScopes: ['profile', 'email'] },
    });
    expect([added.status, added.body]).toEqual([403, refused('Allowed Client Scopes', 'Not permitted to use specified clientScope')]);
    await f.setPolicyConfig('Allowed Client Scopes', 'authenticated', { 'allow-default-scopes': ['true'] });
  });

  test('client disabled: new clients are disabled and cannot enable themselves; the admin can', async () => {
    const id = await f.addPolicy('Disable New', 'client-disabled', 'authenticated');
    try {
      const res = await withInitial({ clientId: 'born-disabled', enabled: true });
      expect([res.status, res.body.enabled]).toEqual([201, false]);
      const enable = await f.call('PUT', '/default/born-disabled', {
        token: res.body.registrationAccessToken,
        body: { clientId: 'born-disabled', enabled: true },
      });
      expect([enable.status, enable.body]).toEqual([403, refused('Disable New', 'Not permitted to enable client')]);
      expectStatus(await f.api.put(`/admin/realms/${R}/clients/${res.body.id}`, { enabled: true }), 204, 'admin enables');
      const [enabled] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=born-disabled`), 200, 'client').body;
      expect(enabled.enabled).toBe(true);
      // A user's bearer token registers under the authenticated policies too.
      const token = await f.userToken('reg-admin', ['manage-clients']);
      const byUser = await f.call('POST', '/default', { token, body: { clientId: 'born-disabled-2' } });
      expect([byUser.status, byUser.body.enabled]).toEqual([201, false]);
    } finally {
      expectStatus(await f.api.delete(`/admin/realms/${R}/components/${id}`), 204, 'remove policy');
    }
  });
});

describe('registration-web-origins (Keycloak 26.4)', () => {
  const ORIGIN = 'https://spa.example';
  const path = (clientId = '') => `/realms/${R}/clients-registrations/default${clientId ? `/${clientId}` : ''}`;
  const acao = (res: { headers: Record<string, string> }) => res.headers['access-control-allow-origin'];
  let policyId: string;
  beforeAll(async () => {
    // Named to run before Keycloak's default authenticated policies (policies run by name).
    policyId = await f.addPolicy('A Web Origins', 'registration-web-origins', 'authenticated', { 'web-origins': [ORIGIN] });
  });
  afterAll(() => f.api.delete(`/admin/realms/${R}/components/${policyId}`));

  test('its origins may read every registration answer; other origins get no CORS headers', async () => {
    const token = await f.initialToken(2);
    const created = await request(f.ts.app)
      .post(path())
      .set('Authorization', `Bearer ${token}`)
      .set('Origin', ORIGIN)
      .send({ clientId: 'cors-reg' });
    expect(created.status).toBe(201);
    expect(acao(created)).toBe(ORIGIN);
    expect(created.headers['access-control-expose-headers']).toContain('Location');
    const other = await request(f.ts.app)
      .post(path())
      .set('Authorization', `Bearer ${token}`)
      .set('Origin', 'https://evil.example')
      .send({ clientId: 'cors-reg-2' });
    expect(other.status).toBe(201);
    expect(acao(other)).toBeUndefined();
    const rat = created.body.registrationAccessToken as string;
    const viewed = await request(f.ts.app).get(path('cors-reg')).set('Authorization', `Bearer ${rat}`).set('Origin', ORIGIN);
    expect([viewed.status, acao(viewed)]).toEqual([200, ORIGIN]);
    const deleted = await request(f.ts.app).delete(path('cors-reg')).set('Authorization', `Bearer ${rat}`).set('Origin', ORIGIN);
    expect([deleted.status, acao(deleted)]).toEqual([204, ORIGIN]);
  });

  test('a refusal by a later policy is readable by the origin too; a preflight is answered', async () => {
    await createClientScope(f.api, R, 'cors-scope', { protocol: 'openid-connect' });
    const refusedRes = await request(f.ts.app)
      .post(path())
      .set('Authorization', `Bearer ${await f.initialToken()}`)
      .set('Origin', ORIGIN)
      .send({ clientId: 'cors-refused', defaultClientScopes: ['cors-scope'] });
    expect([refusedRes.status, refusedRes.body]).toEqual([
      403,
      refused('Allowed Client Scopes', 'Not permitted to use specified clientScope'),
    ]);
    expect(acao(refusedRes)).toBe(ORIGIN);
    const pre = await request(f.ts.app).options(path()).set('Origin', ORIGIN).set('Access-Control-Request-Method', 'POST');
    expect([pre.status, acao(pre)]).toEqual([200, ORIGIN]);
  });
});
