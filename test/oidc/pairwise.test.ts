import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { clientUuid, createClient } from '../helpers/fixtures';
import { payloadOf } from '../helpers/dpop';
import { startTestServer, type TestServer } from '../helpers/server';
import { type RpFixture, rpFixture } from './rp-fixture';

/**
 * Pairwise subject identifiers (`oidc-sha256-pairwise-sub-mapper`, Keycloak's SHA256PairwiseSubMapper):
 * the mapper is validated against the client's redirect URIs or its sector identifier document and
 * gets a salt; the `sub` of the access, ID, refresh and userinfo tokens (Keycloak's
 * AbstractPairwiseSubMapper is a mapper of those four) is the same for the clients of one sector and
 * differs across sectors; the introspection answer's is the user id (there the `sub` mapper, an
 * introspection mapper, has the last word, as in Keycloak).
 */
let ts: TestServer;
let rp: RpFixture;
let sectorDoc: Server;
let sectorUrl: string;
const R = 'pairwise';
const TOKEN = `/realms/${R}/protocol/openid-connect/token`;
const pairwise = (config: Record<string, string> = {}) => ({
  name: 'pairwise subject identifier',
  protocol: 'openid-connect',
  protocolMapper: 'oidc-sha256-pairwise-sub-mapper',
  config,
});

beforeAll(async () => {
  ts = await startTestServer();
  rp = await rpFixture(ts, R);
  sectorDoc = createServer((req, res) => {
    if (req.url === '/sector.json')
      res.setHeader('Content-Type', 'application/json').end(JSON.stringify(['https://c.example/cb', 'https://d.example/cb']));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => sectorDoc.listen(0, '127.0.0.1', resolve));
  const addr = sectorDoc.address();
  sectorUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  for (const [clientId, uris] of [
    ['pw-a1', ['https://a.example/cb']],
    ['pw-a2', ['https://a.example/other/*']],
    ['pw-b', ['https://b.example/cb']],
    ['pw-two-hosts', ['https://a.example/cb', 'https://b.example/cb']],
    ['pw-none', []],
    ['pw-c', ['https://c.example/cb']],
  ] as const) {
    await createClient(rp.admin, R, { clientId, secret: `${clientId}-secret`, directAccessGrantsEnabled: true, redirectUris: uris });
  }
});
afterAll(async () => {
  await new Promise<void>((resolve) => sectorDoc.close(() => resolve()));
  await ts.close();
});

const mappers = async (clientId: string) => `/admin/realms/${R}/clients/${await clientUuid(rp.admin, R, clientId)}/protocol-mappers/models`;

async function login(clientId: string) {
  const res = await request(ts.app)
    .post(TOKEN)
    .type('form')
    .send({
      grant_type: 'password',
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      username: 'alice',
      password: 'alice-pw',
      scope: 'openid',
    });
  expect(res.status).toBe(200);
  const userinfo = await request(ts.app)
    .get(`/realms/${R}/protocol/openid-connect/userinfo`)
    .set('Authorization', `Bearer ${res.body.access_token}`);
  expect(userinfo.status).toBe(200);
  return { id: payloadOf(res.body.id_token).sub, access: payloadOf(res.body.access_token).sub, userinfo: userinfo.body.sub };
}

test('the mapper gets a salt; clients of one sector see one sub, another sector another; the access token carries it too', async () => {
  for (const clientId of ['pw-a1', 'pw-a2', 'pw-b']) {
    const created = await rp.admin.post(await mappers(clientId), pairwise());
    expect(created.status).toBe(201);
  }
  const [stored] = (await rp.admin.get(await mappers('pw-a1'))).body.filter(
    (m: { protocolMapper: string }) => m.protocolMapper === 'oidc-sha256-pairwise-sub-mapper',
  );
  expect(stored.config.pairwiseSubAlgorithmSalt).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
  // One salt per mapper: the two clients of sector a.example share a sub only with the same salt.
  const a2 = (await rp.admin.get(await mappers('pw-a2'))).body.find(
    (m: { protocolMapper: string }) => m.protocolMapper === 'oidc-sha256-pairwise-sub-mapper',
  );
  expect(
    (
      await rp.admin.put(`${await mappers('pw-a2')}/${a2.id}`, {
        ...a2,
        config: { pairwiseSubAlgorithmSalt: stored.config.pairwiseSubAlgorithmSalt },
      })
    ).status,
  ).toBe(204);
  const a1 = await login('pw-a1');
  const again = await login('pw-a1');
  const sameSector = await login('pw-a2');
  const otherSector = await login('pw-b');
  expect(a1.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(a1.id).not.toBe(rp.alice);
  expect(a1.userinfo).toBe(a1.id);
  expect(a1.access).toBe(a1.id);
  expect(again.id).toBe(a1.id);
  expect(sameSector.id).toBe(a1.id);
  expect(otherSector.id).not.toBe(a1.id);
  expect(otherSector.userinfo).toBe(otherSector.id);
  // A client without the mapper sees the user id.
  expect((await login('web')).id).toBe(rp.alice);
});

test('pairwise sub in every token kind; every endpoint that takes the token back finds the session user', async () => {
  const res = await request(ts.app).post(TOKEN).type('form').send({
    grant_type: 'password',
    client_id: 'pw-b',
    client_secret: 'pw-b-secret',
    username: 'alice',
    password: 'alice-pw',
    scope: 'openid',
  });
  expect(res.status).toBe(200);
  const sub = payloadOf(res.body.id_token).sub;
  expect(sub).not.toBe(rp.alice);
  expect(payloadOf(res.body.access_token).sub).toBe(sub);
  expect(payloadOf(res.body.refresh_token).sub).toBe(sub);
  const introspection = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token/introspect`)
    .auth('pw-b', 'pw-b-secret')
    .type('form')
    .send({ token: res.body.access_token });
  expect(introspection.body).toMatchObject({ active: true, sub: rp.alice, username: 'alice' });
  // The admin bearer check finds alice through the session: verified (403: no admin role), not refused (401).
  const admin = await request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${res.body.access_token}`);
  expect(admin.status).toBe(403);
  const refreshed = await request(ts.app)
    .post(TOKEN)
    .type('form')
    .send({ grant_type: 'refresh_token', client_id: 'pw-b', client_secret: 'pw-b-secret', refresh_token: res.body.refresh_token });
  expect(refreshed.status).toBe(200);
  for (const t of [refreshed.body.access_token, refreshed.body.id_token, refreshed.body.refresh_token]) expect(payloadOf(t).sub).toBe(sub);
  const userinfo = await request(ts.app)
    .get(`/realms/${R}/protocol/openid-connect/userinfo`)
    .set('Authorization', `Bearer ${refreshed.body.access_token}`);
  expect([userinfo.status, userinfo.body.sub]).toEqual([200, sub]);
  const events = await rp.events('REFRESH_TOKEN');
  expect(events[0].userId).toBe(rp.alice);
  // Logout with the ID token as hint ends the session it names.
  const logout = await request(ts.app).get(
    `/realms/${R}/protocol/openid-connect/logout?${new URLSearchParams({ id_token_hint: refreshed.body.id_token })}`,
  );
  expect(logout.text).toContain('You are logged out.');
  const after = await request(ts.app)
    .post(TOKEN)
    .type('form')
    .send({ grant_type: 'refresh_token', client_id: 'pw-b', client_secret: 'pw-b-secret', refresh_token: refreshed.body.refresh_token });
  expect([after.status, after.body.error_description]).toEqual([400, 'Session not active']);
});

test('without a sector identifier URI the redirect URIs must name exactly one host', async () => {
  const two = await rp.admin.post(await mappers('pw-two-hosts'), pairwise());
  const msg = 'Without a configured Sector Identifier URI, client redirect URIs must not contain multiple host components.';
  expect([two.status, two.body]).toEqual([400, { error: msg, error_description: msg }]);
  const none = await rp.admin.post(await mappers('pw-none'), pairwise());
  expect([none.status, none.body.error_description]).toEqual([400, 'Client redirect URIs must contain a valid host component.']);
});

test('a sector identifier URI is fetched: the client’s redirect URIs must be listed there', async () => {
  const cases: Array<[string, string]> = [
    ['not a uri', 'Malformed Sector Identifier URI.'],
    [`${sectorUrl}/missing.json`, 'Failed to get redirect URIs from the Sector Identifier URI.'],
  ];
  for (const [uri, message] of cases) {
    const res = await rp.admin.post(await mappers('pw-c'), pairwise({ sectorIdentifierUri: uri }));
    expect([uri, res.status, res.body.error_description]).toEqual([uri, 400, message]);
  }
  const mismatch = await rp.admin.post(await mappers('pw-b'), {
    ...pairwise({ sectorIdentifierUri: `${sectorUrl}/sector.json` }),
    name: 'second',
  });
  expect(mismatch.body.error_description).toBe('Client redirect URIs does not match redirect URIs fetched from the Sector Identifier URI.');
  const ok = await rp.admin.post(await mappers('pw-c'), pairwise({ sectorIdentifierUri: `${sectorUrl}/sector.json` }));
  expect(ok.status).toBe(201);
  const c = await login('pw-c');
  expect(c.id).not.toBe(rp.alice);
  expect(c.userinfo).toBe(c.id);
});

test('discovery lists pairwise subjects', async () => {
  const res = await request(ts.app).get(`/realms/${R}/.well-known/openid-configuration`);
  expect(res.body.subject_types_supported).toEqual(['public', 'pairwise']);
});
