import { createLoginUser } from '../helpers/fixtures';
import request from 'supertest';
import { startTestServer, type AdminApi, type TestServer } from '../helpers/server';
import { gqlClient, ok } from './gql';

let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  gql = gqlClient(ts);
});
afterAll(() => ts.close());

describe('graphql realms', () => {
  test('401 without a token (before Apollo), with Keycloak body', async () => {
    const res = await request(ts.app).post('/graphql').send({ query: '{ realms { name } }' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'HTTP 401 Unauthorized' });
    expect(res.headers['www-authenticate']).toBeUndefined();
    const bad = await request(ts.app).post('/graphql').set('Authorization', 'Bearer abc.def.ghi').send({ query: '{ realms { name } }' });
    expect(bad.status).toBe(401);
  });

  test('create, read, update and delete a realm', async () => {
    const created = ok(
      await gql('mutation($r: JSONObject!) { createRealm(input: $r) { name enabled accessTokenLifespan } }', {
        r: { realm: 'g1', enabled: true },
      }),
    );
    expect(created.createRealm).toEqual({ name: 'g1', enabled: true, accessTokenLifespan: 300 });

    const read = ok(await gql('{ realm(name: "g1") { id realm displayName sslRequired representation } }'));
    const rest = (await api.get('/admin/realms/g1')).body;
    expect(read.realm.id).toBe(rest.id);
    expect(read.realm.sslRequired).toBe(rest.sslRequired);
    expect(read.realm.representation).toEqual(rest);

    const updated = ok(
      await gql(
        'mutation { updateRealm(name: "g1", input: { displayName: "G One", accessTokenLifespan: 120 }) { displayName accessTokenLifespan ssoSessionIdleTimeout } }',
      ),
    );
    expect(updated.updateRealm).toEqual({ displayName: 'G One', accessTokenLifespan: 120, ssoSessionIdleTimeout: 1800 });
    expect((await api.get('/admin/realms/g1')).body.displayName).toBe('G One');

    const list = ok(await gql('{ realms(brief: true) { name } }'));
    expect(list.realms.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['master', 'g1']));

    const renamed = ok(await gql('mutation { updateRealm(name: "g1", input: { realm: "g1b" }) { name displayName } }'));
    expect(renamed.updateRealm).toEqual({ name: 'g1b', displayName: 'G One' });
    expect((await api.get('/admin/realms/g1')).status).toBe(404);

    expect(ok(await gql('mutation { deleteRealm(name: "g1b") }'))).toEqual({ deleteRealm: true });
    expect((await api.get('/admin/realms/g1b')).status).toBe(404);
  });

  test('errors carry the code, the HTTP status and Keycloak body', async () => {
    await api.post('/admin/realms', { realm: 'g2', enabled: true });
    const dup = await gql('mutation { createRealm(input: { realm: "g2" }) { name } }');
    expect(dup.errors?.[0]).toMatchObject({
      message: 'Realm g2 already exists',
      extensions: { code: 'CONFLICT', http: { status: 409 }, keycloak: { errorMessage: 'Realm g2 already exists' } },
    });
    const missing = await gql('{ realm(name: "nope") { name } }');
    expect(missing.errors?.[0]).toMatchObject({
      message: 'Realm not found.',
      path: ['realm'],
      extensions: { code: 'NOT_FOUND', http: { status: 404 }, keycloak: { error: 'Realm not found.' } },
    });
    const master = await gql('mutation { deleteRealm(name: "master") }');
    expect(master.errors?.[0].extensions).toMatchObject({ code: 'BAD_REQUEST', keycloak: { errorMessage: "Can't remove master realm" } });
  });

  test('malformed requests are 400s in GraphQL shape', async () => {
    const token = await ts.token();
    const bad = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{nope');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', http: { status: 400 } });
    const invalid = await gql('{ realm(name: "master") { nope } }');
    expect(invalid.errors?.[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } });
    const wrongInput = await gql('mutation { createUser(realm: "master", input: { username: "x", unknownField: 1 }) { id } }');
    expect(wrongInput.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('403 FORBIDDEN for a caller without the role', async () => {
    await createLoginUser(ts, 'master', 'plain', 'pw');
    const plain = gqlClient(ts, { username: 'plain', password: 'pw' });
    const res = await plain('mutation { createRealm(input: { realm: "nope2" }) { name } }');
    expect(res.errors?.[0]).toMatchObject({
      message: 'HTTP 403 Forbidden',
      extensions: { code: 'FORBIDDEN', http: { status: 403 }, keycloak: { error: 'HTTP 403 Forbidden' } },
    });
    const read = await plain('{ realm(name: "master") { name } }');
    expect(read.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
