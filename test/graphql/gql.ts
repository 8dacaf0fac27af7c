import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { hashPassword } from '../../src/auth/passwords';
import { type AdminApi, type TestServer, startTestServer } from '../helpers/server';

export interface GqlError {
  message: string;
  path?: string[];
  extensions: { code: string; http?: { status: number }; keycloak?: Record<string, unknown> };
}

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response JSON
export type Json = Record<string, any>;

export interface GqlResult<T = Json> {
  status: number;
  data: T | null;
  errors?: GqlError[];
}

/** A GraphQL client for the test server: posts to /graphql with a bearer token (master admin by default). */
export function gqlClient(ts: TestServer, tokenOpts?: Parameters<TestServer['token']>[0]) {
  return async <T = Json>(query: string, variables?: Record<string, unknown>): Promise<GqlResult<T>> => {
    const token = await ts.token(tokenOpts);
    const res = await request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });
    return { status: res.status, data: res.body.data ?? null, errors: res.body.errors };
  };
}

/** Data of a successful result; throws with the errors otherwise. */
export function ok<T>(r: GqlResult<T>): T {
  if (r.errors?.length || !r.data) throw new Error(`GraphQL errors: ${JSON.stringify(r.errors)}`);
  return r.data;
}

/** Creates an enabled user with a password directly in the database (no roles), e.g. a caller without admin rights. */
export async function createLoginUser(ts: TestServer, realmName: string, username: string, password: string): Promise<string> {
  const realm = await ts.db.models.Realm.findOne({ where: { name: realmName } });
  if (!realm) throw new Error(`no realm ${realmName}`);
  const id = randomUUID();
  await ts.db.models.User.create({
    id,
    realmId: realm.id,
    username,
    email: null,
    emailConstraint: id,
    enabled: true,
    emailVerified: false,
    createdTimestamp: Date.now(),
    notBefore: 0,
  });
  await ts.db.models.Credential.create({
    id: randomUUID(),
    userId: id,
    type: 'password',
    userLabel: null,
    ...(await hashPassword(password)),
    priority: 10,
    createdDate: Date.now(),
  });
  return id;
}

/** A fresh test server with an enabled realm `realm`, the master admin's REST api and a GraphQL client. */
export async function startWithRealm(realm: string): Promise<{ ts: TestServer; api: AdminApi; gql: ReturnType<typeof gqlClient> }> {
  const ts = await startTestServer();
  const api = await ts.api();
  const created = await api.post('/admin/realms', { realm, enabled: true });
  if (created.status !== 201) throw new Error(`creating realm ${realm}: ${created.status}`);
  return { ts, api, gql: gqlClient(ts) };
}
