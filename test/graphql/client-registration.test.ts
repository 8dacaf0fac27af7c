import { X509Certificate } from 'node:crypto';
import { createClient } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, type gqlClient, ok, startWithRealm, userErrors } from './gql';

/** GraphQL: client certificates, client initial access and registration policy providers — parity with REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlcerts';
let clientId: string;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  clientId = await createClient(api, R, { clientId: 'gql-client', protocol: 'saml' });
});
afterAll(() => ts.close());

test('generateClientCertificate, then the certificate as a client field and a query, equal to REST', async () => {
  const gen = ok(
    await gql(
      'mutation($r: String!, $c: ID!) { generateClientCertificate(realm: $r, clientUuid: $c, attr: "saml.signing") { clientCertificate { privateKey certificate publicKey kid } } }',
      {
        r: R,
        c: clientId,
      },
    ),
  ).generateClientCertificate.clientCertificate;
  expect(new X509Certificate(Buffer.from(gen.certificate, 'base64')).subject).toBe('CN=gql-client');
  expect(gen).toMatchObject({ privateKey: expect.any(String), publicKey: null, kid: null });
  const rest = (await api.get(`/admin/realms/${R}/clients/${clientId}/certificates/saml.signing`)).body;
  expect(rest).toEqual({ privateKey: gen.privateKey, certificate: gen.certificate });
  const read = ok(
    await gql(
      'query($r: String!, $c: ID!) { client(realm: $r, id: $c) { certificate(attr: "saml.signing") { certificate } } clientCertificate(realm: $r, clientUuid: $c, attr: "saml.signing") { privateKey } }',
      {
        r: R,
        c: clientId,
      },
    ),
  );
  expect(read.client.certificate.certificate).toBe(gen.certificate);
  expect(read.clientCertificate.privateKey).toBe(gen.privateKey);
  const missing = await gql('query($r: String!) { clientCertificate(realm: $r, clientUuid: "nope", attr: "x") { certificate } }', { r: R });
  expect(missing.errors?.[0]).toMatchObject({ message: 'Could not find client', extensions: { http: { status: 404 } } });
});

test('createClientInitialAccess, list and delete', async () => {
  const created = ok(
    await gql(
      'mutation($r: String!) { createClientInitialAccess(realm: $r, input: { expiration: 60, count: 2 }) { clientInitialAccess { id token expiration count remainingCount timestamp } } }',
      { r: R },
    ),
  ).createClientInitialAccess.clientInitialAccess;
  expect(created).toMatchObject({ token: expect.any(String), expiration: 60, count: 2, remainingCount: 2 });
  const listed = ok(await gql('query($r: String!) { realm(name: $r) { clientInitialAccess { id token count } } }', { r: R })).realm
    .clientInitialAccess;
  expect(listed).toEqual([{ id: created.id, token: null, count: 2 }]);
  expect((await api.get(`/admin/realms/${R}/clients-initial-access`)).body.map((e: { id: string }) => e.id)).toEqual([created.id]);
  const bad = await gql(
    `mutation($r: String!) { createClientInitialAccess(realm: $r, input: { count: -1 }) { clientInitialAccess { id } ${USER_ERRORS} } }`,
    { r: R },
  );
  expect(userErrors(bad, 'createClientInitialAccess')).toEqual([
    { field: ['input'], code: 'BAD_REQUEST', message: 'The count cannot be less than 0' },
  ]);
  expect(
    ok(await gql('mutation($r: String!, $id: ID!) { deleteClientInitialAccess(realm: $r, id: $id) { ok } }', { r: R, id: created.id }))
      .deleteClientInitialAccess.ok,
  ).toBe(true);
  expect((await api.get(`/admin/realms/${R}/clients-initial-access`)).body).toEqual([]);
});

test('clientRegistrationPolicyProviders equals the REST answer', async () => {
  const data = ok(
    await gql(
      'query($r: String!) { realm(name: $r) { clientRegistrationPolicyProviders { id helpText metadata properties { name label helpText type defaultValue options secret required readOnly } } } }',
      {
        r: R,
      },
    ),
  );
  const rest = (await api.get(`/admin/realms/${R}/client-registration-policy/providers`)).body;
  const normalized = JSON.parse(JSON.stringify(data.realm.clientRegistrationPolicyProviders, (_k, v) => (v === null ? undefined : v)));
  expect(normalized).toEqual(rest);
});
