import request from 'supertest';
import { realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { TestServer } from '../../helpers/server';

/**
 * SQL statements of a warm client_credentials grant (issue 12): the client's scope links and scopes are
 * read once per request, though the token endpoint needs them for the granted scope and again for the
 * claims (token-claims.ts `clientLinkedScopes`).
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

test('client_credentials: the scope links and scopes are read once; the statement count is pinned', async () => {
  await grant();
  const { count, statements, result } = await ts.countSql(grant);
  expect(result.body.scope).toBe('profile email');
  expect(statements.filter((s) => /FROM `client_scope_client`/.test(s))).toHaveLength(1);
  expect(statements.filter((s) => /FROM `client_scope`/.test(s))).toHaveLength(1);
  // realm, client, service account, scope links, scopes, mappers, effective roles, roles, attributes,
  // memberships, clients of the role claims. No session rows: the session is transient, as Keycloak's.
  expect(statements.filter((s) => /^(INSERT|UPDATE|DELETE|BEGIN)/i.test(s.replace(/^Executing \([^)]*\): /, '')))).toEqual([]);
  expect(count).toBe(11);
});
