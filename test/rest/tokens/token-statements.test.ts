import request from 'supertest';
import { createUser, realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { TestServer } from '../../helpers/server';

/**
 * SQL statements of a warm password grant (its direct grant flow comes from the node's cache) and of a
 * warm client_credentials grant (issue 12): the client's row, scope links, scopes,
 * protocol mappers, scope roles and the clients of role claims are kept by the node under the realm's
 * cache version (client-config-cache.ts, ADR 23), so a warm grant reads only the realm (with its
 * version) and what belongs to the service account. That a change through the admin API is in the
 * very next token is pinned in token-config-cache.test.ts and, across two nodes, cache-nodes.test.ts.
 */
const R = 'tokcount';
let ts: TestServer;

beforeAll(async () => {
  const server = await realmServer(R);
  ts = server.ts;
  const api = server.api;
  await serviceAccountClient(api, R, 'svc', 'svc-secret');
});
afterAll(() => ts.close());

const grant = () =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: 'svc', client_secret: 'svc-secret' })
    .expect(200);

test('client_credentials: a warm grant reads the realm and the service account only; the statement count is pinned', async () => {
  await grant();
  const { count, statements, result } = await ts.countSql(grant);
  expect(result.body.scope).toBe('profile email');
  for (const table of ['client', 'client_scope_client', 'client_scope', 'protocol_mapper', 'scope_mapping'])
    expect(statements.filter((s) => new RegExp(`FROM \`${table}\``).test(s))).toEqual([]);
  // realm (with its cache version), service account (with its own), attributes: its roles and groups
  // are kept under the two counters. No session rows: the session is transient, as Keycloak's.
  expect(statements.filter((s) => /^(INSERT|UPDATE|DELETE|BEGIN)/i.test(s.replace(/^Executing \([^)]*\): /, '')))).toEqual([]);
  expect(count).toBe(3);
});

test('password: a warm grant reads no flow, execution or authenticator config; the statement count is pinned', async () => {
  await createUser(ts, R, 'pat');
  const login = () =>
    request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'pat', password: 'pw' })
      .expect(200);
  await login();
  const { count, statements } = await ts.countSql(login);
  for (const table of [
    'authentication_flow',
    'authentication_execution',
    'authenticator_config',
    'required_action_provider',
    'component',
    'client',
  ])
    expect(statements.filter((s) => new RegExp(`FROM \`${table}\``).test(s))).toEqual([]);
  // realm (with its cache version), user, credentials (all types, for the password and the OTP condition),
  // pending required actions, the user's attributes, then the session (BEGIN, two INSERTs, COMMIT). The
  // direct grant flow, the realm's required actions (VERIFY_PROFILE enabled?) and the user profile are
  // kept by the node under the realm's cache version (ADR 40).
  expect(count).toBe(9);
});
