import request from 'supertest';
import { realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/** Kept here for the suites that import it with the GraphQL helpers; the fixture lives in helpers/fixtures. */
export { createLoginUser } from '../helpers/fixtures';

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

/** A fresh test server with an enabled realm `realm`, the master admin's REST api and a GraphQL client. */
export async function startWithRealm(realm: string): Promise<{ ts: TestServer; api: AdminApi; gql: ReturnType<typeof gqlClient> }> {
  const { ts, api } = await realmServer(realm);
  return { ts, api, gql: gqlClient(ts) };
}

export interface UserErrorJson {
  field: string[] | null;
  code: string;
  message: string;
}

/** The `userErrors` of a mutation's payload; throws when the request itself failed with GraphQL errors. */
export function userErrors(r: GqlResult, mutation: string): UserErrorJson[] {
  if (r.errors?.length || !r.data) throw new Error(`GraphQL errors: ${JSON.stringify(r.errors)}`);
  return (r.data as Json)[mutation].userErrors;
}

/** The selection of a payload's user errors. */
export const USER_ERRORS = 'userErrors { field code message }';

/** REST's spelling of each value of the GraphQL `Protocol` enum. */
const PROTOCOL_WIRE: Readonly<Record<string, string>> = {
  OPENID_CONNECT: 'openid-connect',
  SAML: 'saml',
  DOCKER_V2: 'docker-v2',
  OID4VC: 'oid4vc',
};

/**
 * GraphQL data with each `protocol` enum value spelled as REST spells it, for comparing a GraphQL
 * answer with its REST twin (the other output enums use REST's own names).
 */
export function restSpelling<T>(data: T): T {
  if (Array.isArray(data)) return data.map(restSpelling) as T;
  if (data === null || typeof data !== 'object') return data;
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, k === 'protocol' && typeof v === 'string' ? (PROTOCOL_WIRE[v] ?? v) : restSpelling(v)]),
  ) as T;
}
