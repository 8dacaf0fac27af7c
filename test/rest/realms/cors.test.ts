import request from 'supertest';
import { createClient } from '../../helpers/fixtures';
import { type TestServer, startTestServer } from '../../helpers/server';

/**
 * CORS on the admin REST API as Keycloak does it: the preflight needs no token; a response carries
 * `Access-Control-Allow-Origin` only for an origin the token's client lists in its web origins.
 */
let ts: TestServer;
let token: string;

beforeAll(async () => {
  ts = await startTestServer();
  await createClient(await ts.api(), 'master', {
    clientId: 'console-elsewhere',
    publicClient: true,
    directAccessGrantsEnabled: true,
    webOrigins: ['https://console.example'],
  });
  token = await ts.token({ clientId: 'console-elsewhere' });
}, 60_000);
afterAll(() => ts.close());

it('answers a preflight for any origin without a token', async () => {
  const res = await request(ts.app)
    .options('/admin/realms/master/users')
    .set('Origin', 'https://anywhere.example')
    .set('Access-Control-Request-Method', 'GET');
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe('https://anywhere.example');
  expect(res.headers['access-control-allow-methods']).toBe('GET, PUT, POST, DELETE');
});

it("allows the token's web origins on the response, and only those", async () => {
  const get = (origin: string) =>
    request(ts.app).get('/admin/realms/master/users?max=1').set('Authorization', `Bearer ${token}`).set('Origin', origin);
  const allowed = await get('https://console.example');
  expect(allowed.status).toBe(200);
  expect(allowed.headers['access-control-allow-origin']).toBe('https://console.example');
  expect(allowed.headers['access-control-expose-headers']).toBe('Location, Content-Disposition');
  const other = await get('https://evil.example');
  expect(other.status).toBe(200);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
  const noToken = await request(ts.app).get('/admin/realms/master/users').set('Origin', 'https://console.example');
  expect(noToken.status).toBe(401);
  expect(noToken.headers['access-control-allow-origin']).toBeUndefined();
});
