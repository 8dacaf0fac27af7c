import { getNamedType, getNullableType, isListType, isNonNullType, isObjectType } from 'graphql';
import { gatewaySchema } from '../../resolvers/schema';
import { createRealm, createUser } from '../helpers/fixtures';
import { type TestServer, startTestServer } from '../helpers/server';
import { gqlClient } from './gql';

/** A lookup of one unknown object nulls that field only, with NOT_FOUND at its path. */
let ts: TestServer;
let gql: ReturnType<typeof gqlClient>;

beforeAll(async () => {
  ts = await startTestServer();
  gql = gqlClient(ts);
  await createRealm(await ts.api(), 'look');
  await createUser(ts, 'look', 'ann');
}, 60_000);
afterAll(() => ts.close());

it('an unknown id is null with a NOT_FOUND error at its path; the rest of the response stands', async () => {
  const r = await gql(`{
    missing: user(realm: "look", id: "nope") { id }
    realm(name: "look") { realm users { username } role(name: "nope") { id } }
    nowhere: realm(name: "nope") { realm }
  }`);
  expect(r.status).toBe(200);
  expect(r.data).toEqual({ missing: null, realm: { realm: 'look', users: [{ username: 'ann' }], role: null }, nowhere: null });
  const byPath = Object.fromEntries((r.errors ?? []).map((e) => [e.path?.join('.'), e.extensions]));
  expect(byPath.missing).toMatchObject({ code: 'NOT_FOUND', http: { status: 404 }, keycloak: { error: 'User not found' } });
  expect(byPath['realm.role']).toMatchObject({ code: 'NOT_FOUND', keycloak: { error: 'Could not find role' } });
  expect(byPath.nowhere).toMatchObject({ code: 'NOT_FOUND', keycloak: { error: 'Realm not found.' } });
});

it('every lookup field of the schema is nullable, lists and connections are not', async () => {
  const schema = await gatewaySchema();
  let lookups = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      const single = isObjectType(named) && !isListType(getNullableType(field.type));
      if (type.name === 'Mutation' || type.name === 'Subscription' || !field.args.length || !single) continue;
      if (named.name.endsWith('Connection')) {
        expect(`${type.name}.${field.name}: ${isNonNullType(field.type)}`).toBe(`${type.name}.${field.name}: true`);
        continue;
      }
      lookups++;
      expect(`${type.name}.${field.name}: ${isNonNullType(field.type)}`).toBe(`${type.name}.${field.name}: false`);
    }
  }
  expect(lookups).toBeGreaterThan(15);
});
