import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { ConfigError, checkHostname, loadConfig } from '../../../src/config';
import { createApp } from '../../../src/server';
import { startTestServer, type TestServer } from '../../helpers/server';
import { cliArgs } from '../../helpers/cli';

/**
 * The issuer is not the attacker's (issue 10, item 4): with `--hostname` every token carries that
 * issuer whatever the Host header says, and a bearer token is accepted only when its issuer is this
 * server's URL of its realm. Without a hostname (start-dev) the request's address is used, so a token
 * minted through another Host is refused where it is not that host. `start` requires a hostname.
 */
let ts: TestServer;

beforeAll(async () => {
  ts = await startTestServer({ hostname: 'https://id.example.com' });
});
afterAll(() => ts.close());

const grant = (app: TestServer['app'], host?: string) => {
  const r = request(app).post('/realms/master/protocol/openid-connect/token').type('form');
  if (host) r.set('Host', host);
  return r.send({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin' });
};

test('with a hostname, tokens and Location headers carry it whatever the Host header says', async () => {
  const res = await grant(ts.app, 'evil.example:9999');
  expect(res.status).toBe(200);
  expect(decodeJwt(res.body.access_token).iss).toBe('https://id.example.com/realms/master');
  const created = await request(ts.app)
    .post('/admin/realms/master/roles')
    .set('Host', 'evil.example:9999')
    .set('Authorization', `Bearer ${res.body.access_token}`)
    .send({ name: 'issuer-test-role' });
  expect(created.status).toBe(201);
  expect(created.headers.location).toBe('https://id.example.com/admin/realms/master/roles/issuer-test-role');
  const discovery = await request(ts.app).get('/realms/master/.well-known/openid-configuration').set('Host', 'evil.example:9999');
  expect(discovery.body.issuer).toBe('https://id.example.com/realms/master');
});

test('a correctly signed token with another issuer is refused on REST and GraphQL', async () => {
  // A second front over the same database and keys, without a hostname: its tokens are signed by the
  // same realm keys but name the Host they were requested through.
  const devApp = await createApp(ts.db, {});
  const foreign = (await grant(devApp, 'evil.example:9999')).body.access_token as string;
  expect(decodeJwt(foreign).iss).toBe('http://evil.example:9999/realms/master');
  const rest = await request(ts.app).get('/admin/realms/master/users').set('Authorization', `Bearer ${foreign}`);
  expect([rest.status, rest.body]).toEqual([401, { error: 'HTTP 401 Unauthorized' }]);
  const gql = await request(ts.app).post('/graphql').set('Authorization', `Bearer ${foreign}`).send({ query: '{ realms { name } }' });
  expect(gql.status).toBe(401);
  // The same token is fine where its issuer is the server's address: start-dev behind that Host.
  const there = await request(devApp)
    .get('/admin/realms/master/users')
    .set('Host', 'evil.example:9999')
    .set('Authorization', `Bearer ${foreign}`);
  expect(there.status).toBe(200);
  const elsewhere = await request(devApp)
    .get('/admin/realms/master/users')
    .set('Host', 'localhost:8080')
    .set('Authorization', `Bearer ${foreign}`);
  expect(elsewhere.status).toBe(401);
});

describe('the hostname option', () => {
  const load = (args: string[], mode: 'start' | 'start-dev' = 'start') => loadConfig({ mode, args, env: {}, confFile: '/nonexistent' });

  test('a URL or a bare host name (https assumed); other schemes, queries and garbage name the option', () => {
    expect(load(['--hostname=id.example.com']).hostname).toBe('https://id.example.com');
    expect(load(['--hostname=http://id.example.com:8080/']).hostname).toBe('http://id.example.com:8080');
    expect(load(['--hostname=https://example.com/auth']).hostname).toBe('https://example.com/auth');
    for (const bad of ['ftp://id.example.com', 'https://id.example.com/?x=1', 'https://a b']) {
      expect(() => load([`--hostname=${bad}`])).toThrow("Invalid value for option '--hostname'");
    }
  });

  test('start requires it unless --hostname-strict=false; start-dev does not', () => {
    expect(() => checkHostname(load([]))).toThrow(ConfigError);
    expect(() => checkHostname(load([]))).toThrow('hostname is not configured');
    expect(() => checkHostname(load(['--hostname=id.example.com']))).not.toThrow();
    expect(() => checkHostname(load(['--hostname-strict=false']))).not.toThrow();
    expect(() => checkHostname(load([], 'start-dev'))).not.toThrow();
  });

  test('`idserver start` without a hostname exits 2 before touching the database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idserver-host-'));
    const r = spawnSync(process.execPath, cliArgs(['start', `--db-url=${join(dir, 'db.sqlite')}`]), {
      encoding: 'utf8',
      timeout: 60000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      'ERROR: hostname is not configured; either configure --hostname (IDSERVER_HOSTNAME), or set --hostname-strict=false',
    );
  });
});
