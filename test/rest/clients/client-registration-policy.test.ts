import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** `GET /client-registration-policy/providers`: the policy providers with their config properties. */
let ts: TestServer;
let api: AdminApi;
const R = 'regpolicy';
const url = `/admin/realms/${R}/client-registration-policy/providers`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

type Provider = { id: string; helpText: string; properties: Array<Record<string, unknown>>; metadata: object };

test('every provider of the default policies, with properties filled for the realm', async () => {
  const res = await api.get(url);
  expect(res.status).toBe(200);
  const providers = res.body as Provider[];
  expect(providers.map((p) => p.id)).toEqual([
    'allowed-client-templates',
    'allowed-protocol-mappers',
    'client-disabled',
    'consent-required',
    'max-clients',
    'registration-web-origins',
    'scope',
    'trusted-hosts',
  ]);
  for (const p of providers) {
    expect(p).toEqual({ id: expect.any(String), helpText: expect.any(String), properties: expect.any(Array), metadata: {} });
    for (const prop of p.properties) {
      expect(prop).toMatchObject({
        name: expect.any(String),
        label: expect.any(String),
        helpText: expect.any(String),
        type: expect.any(String),
        secret: false,
      });
    }
  }
  const byId = Object.fromEntries(providers.map((p) => [p.id, p]));
  expect(byId['trusted-hosts'].properties.map((p) => [p.name, p.type, p.defaultValue])).toEqual([
    ['trusted-hosts', 'MultivaluedString', undefined],
    ['host-sending-registration-request-must-match', 'boolean', 'true'],
    ['client-uris-must-match', 'boolean', 'true'],
  ]);
  expect(byId['max-clients'].properties).toEqual([expect.objectContaining({ name: 'max-clients', type: 'String', defaultValue: '200' })]);
  expect(byId['consent-required'].properties).toEqual([]);
  expect(byId.scope.properties).toEqual([]);
  const mappers = byId['allowed-protocol-mappers'].properties[0];
  expect(mappers).toMatchObject({ name: 'allowed-protocol-mapper-types', type: 'MultivaluedList' });
  // every mapper type the default policies allow is an option
  const comp = await ts.db.models.Component.findOne({ where: { providerId: 'allowed-protocol-mappers' } });
  expect(mappers.options).toEqual(expect.arrayContaining(comp?.config['allowed-protocol-mapper-types'] as string[]));
  const scopes = byId['allowed-client-templates'].properties;
  expect(scopes.map((p) => [p.name, p.type, p.defaultValue])).toEqual([
    ['allowed-client-scopes', 'MultivaluedList', undefined],
    ['allow-default-scopes', 'boolean', true],
  ]);
  const names = (await api.get(`/admin/realms/${R}/client-scopes`)).body.map((s: { name: string }) => s.name).sort();
  expect(scopes[0].options).toEqual(names);
});

test('view-realm (or manage-realm) may read it, as Keycloak requireViewRealm; other admin roles → 403; unknown realm → 404', async () => {
  expect((await (await realmAdmin(ts, R, 'rp-realm-viewer', ['view-realm'])).get(url)).status).toBe(200);
  expect((await (await realmAdmin(ts, R, 'rp-realm-manager', ['manage-realm'])).get(url)).status).toBe(200);
  for (const [username, role] of [
    ['rp-users', 'view-users'],
    ['rp-clients', 'view-clients'],
    ['rp-imp', 'impersonation'],
  ]) {
    const res = await (await realmAdmin(ts, R, username, [role])).get(url);
    expect([role, res.status, res.body]).toEqual([role, 403, { error: 'HTTP 403 Forbidden' }]);
  }
  expect((await api.get('/admin/realms/nope/client-registration-policy/providers')).status).toBe(404);
});
