import { createClient, expectStatus } from '../../helpers/fixtures';
import { USER_ERRORS, userErrors, gqlClient } from '../../graphql/gql';
import { type RegistrationFixture, registrationFixture } from '../../oidc/client-registration-fixture';

/**
 * The CIBA settings of a client are checked on every client write, as Keycloak's
 * CibaClientValidation (run by DefaultClientValidationProvider on ClientsResource#createClient,
 * ClientResource#update and the registration providers, whether or not the CIBA grant is enabled):
 * poll or ping only, ping needs a notification endpoint, that endpoint an http(s) URL (https where
 * the realm's sslRequired asks for it), the request signing algorithm `none` or asymmetric. The admin
 * API answers 400 `invalid_input` with the messages; client registration (OIDCClientRegistrationProvider,
 * AbstractClientRegistrationProvider#validateClient) 400 `invalid_client_metadata`.
 */
let f: RegistrationFixture;
const R = 'ciba-validation';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  f = await registrationFixture(R);
});
afterAll(() => f.ts.close());

type Json = Record<string, unknown>;
const MODE = 'ciba.backchannel.token.delivery.mode';
const ENDPOINT = 'ciba.backchannel.client.notification.endpoint';
const ALG = 'ciba.backchannel.auth.request.signing.alg';
const invalidInput = (res: { status: number; body: unknown }, description: string) =>
  expect([res.status, res.body]).toEqual([400, { error: 'invalid_input', error_description: description }]);
const attrsOf = async (clientId: string) =>
  (expectStatus(await f.api.get(`${base}/clients?clientId=${clientId}`), 200, 'client').body[0]?.attributes ?? {}) as Json;

describe('admin API (REST)', () => {
  test('create: push refused, ping without endpoint refused, ping with endpoint stored; nothing written on refusal', async () => {
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'push', attributes: { [MODE]: 'push' } }),
      'Unsupported requested CIBA Backchannel Token Delivery Mode',
    );
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'ping0', attributes: { 'oidc.ciba.grant.enabled': 'true', [MODE]: 'ping' } }),
      'CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode',
    );
    expect(await f.api.get(`${base}/clients?clientId=push`).then((r) => r.body)).toEqual([]);
    // The grant need not be enabled: the settings are checked anyway.
    await createClient(f.api, R, { clientId: 'ping1', attributes: { [MODE]: 'ping', [ENDPOINT]: 'https://rp.example.org/notify' } });
    expect(await attrsOf('ping1')).toMatchObject({ [MODE]: 'ping', [ENDPOINT]: 'https://rp.example.org/notify' });
    await createClient(f.api, R, { clientId: 'poll1', attributes: { [MODE]: 'poll', [ALG]: 'none' } });
  });

  test('update: the merged client is checked; removing the endpoint of a ping client is refused', async () => {
    const id = await createClient(f.api, R, { clientId: 'upd', attributes: { [MODE]: 'ping', [ENDPOINT]: 'https://rp.example.org/n' } });
    invalidInput(
      await f.api.put(`${base}/clients/${id}`, { clientId: 'upd', attributes: { [MODE]: 'ping', [ENDPOINT]: '' } }),
      'CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode',
    );
    invalidInput(
      await f.api.put(`${base}/clients/${id}`, { clientId: 'upd', attributes: { [MODE]: 'push', [ENDPOINT]: 'https://rp.example.org/n' } }),
      'Unsupported requested CIBA Backchannel Token Delivery Mode',
    );
    expect((await attrsOf('upd'))[MODE]).toBe('ping');
    expectStatus(await f.api.put(`${base}/clients/${id}`, { clientId: 'upd', attributes: { [MODE]: 'poll' } }), 204, 'poll');
  });

  test('the notification endpoint: malformed, wrong scheme, plain http to an external host refused (sslRequired external)', async () => {
    const ping = (endpoint: string) => ({ [MODE]: 'ping', [ENDPOINT]: endpoint });
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'e1', attributes: ping('not a url') }),
      'The url [backchannel_client_notification_endpoint] is malformed',
    );
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'e2', attributes: ping('ftp://rp.example.org/n') }),
      'Invalid protocol/scheme for url [backchannel_client_notification_endpoint]',
    );
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'e3', attributes: ping('http://rp.example.org/n') }),
      'The url [backchannel_client_notification_endpoint] requires secure connections',
    );
    // Local addresses may use http under `external`.
    await createClient(f.api, R, { clientId: 'e4', attributes: ping('http://127.0.0.1:9999/n') });
  });

  test('the request signing algorithm must be asymmetric (or none); the messages of several problems are joined', async () => {
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'hs', attributes: { [ALG]: 'HS256' } }),
      'Unsupported requested CIBA Backchannel Authentication Request Signing Algorithm',
    );
    invalidInput(
      await f.api.post(`${base}/clients`, { clientId: 'both', attributes: { [MODE]: 'ping', [ALG]: 'HS512' } }),
      'CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode, Unsupported requested CIBA Backchannel Authentication Request Signing Algorithm',
    );
    await createClient(f.api, R, { clientId: 'es', attributes: { [ALG]: 'ES256' } });
  });

  test("a client without its own mode takes the realm's: a realm in push mode refuses new clients", async () => {
    const realm = expectStatus(await f.api.get(`${base}`), 200, 'realm').body;
    const put = (mode: string) =>
      f.api.put(`${base}`, { ...realm, attributes: { ...realm.attributes, cibaBackchannelTokenDeliveryMode: mode } });
    expectStatus(await put('push'), 204, 'realm push');
    try {
      invalidInput(await f.api.post(`${base}/clients`, { clientId: 'rm1' }), 'Unsupported requested CIBA Backchannel Token Delivery Mode');
      await createClient(f.api, R, { clientId: 'rm2', attributes: { [MODE]: 'poll' } });
    } finally {
      expectStatus(await put('poll'), 204, 'realm poll');
    }
  });
});

test('GraphQL createClient / updateClient: the same refusal as a user error', async () => {
  const gql = gqlClient(f.ts);
  const made = await gql(
    `mutation($r: String!, $a: JSONObject) { createClient(realm: $r, input: {clientId: "gq", attributes: $a}) { client { id } ${USER_ERRORS} } }`,
    { r: R, a: { [MODE]: 'push' } },
  );
  expect(userErrors(made, 'createClient').map((e) => [e.code, e.message])).toEqual([
    ['BAD_REQUEST', 'Unsupported requested CIBA Backchannel Token Delivery Mode'],
  ]);
  const id = await createClient(f.api, R, { clientId: 'gq2' });
  const upd = await gql(
    `mutation($r: String!, $id: ID!, $a: JSONObject) { updateClient(realm: $r, id: $id, input: {attributes: $a}) { client { id } ${USER_ERRORS} } }`,
    { r: R, id, a: { [MODE]: 'ping' } },
  );
  expect(userErrors(upd, 'updateClient').map((e) => e.message)).toEqual([
    'CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode',
  ]);
});

describe('client registration (openid-connect)', () => {
  const metadata = { redirect_uris: ['https://rp.example.org/cb'], grant_types: ['urn:openid:params:grant-type:ciba'] };
  const invalidMetadata = (res: { status: number; body: unknown }, description: string) =>
    expect([res.status, res.body]).toEqual([400, { error: 'invalid_client_metadata', error_description: description }]);

  test('ping registers with a notification endpoint, and is refused without one; push is refused (as OIDCClientRegistrationTest#testCIBASettings)', async () => {
    const token = await f.initialToken(5);
    const before = await f.clientCount();
    invalidMetadata(
      await f.call('POST', '/openid-connect', { token, body: { ...metadata, backchannel_token_delivery_mode: 'ping' } }),
      'CIBA Backchannel Client Notification Endpoint must be set for the CIBA ping mode',
    );
    invalidMetadata(
      await f.call('POST', '/openid-connect', { token, body: { ...metadata, backchannel_token_delivery_mode: 'push' } }),
      'Unsupported requested CIBA Backchannel Token Delivery Mode',
    );
    expect(await f.clientCount()).toBe(before);
    const made = await f.call('POST', '/openid-connect', {
      token,
      body: { ...metadata, backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://rp.example.org/n' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      backchannel_token_delivery_mode: 'ping',
      backchannel_client_notification_endpoint: 'https://rp.example.org/n',
      grant_types: expect.arrayContaining(['urn:openid:params:grant-type:ciba']),
    });
    // The update is checked too (the stored endpoint stays: metadata not sent is kept).
    const upd = await f.call('PUT', `/openid-connect/${made.body.client_id}`, {
      token: made.body.registration_access_token,
      body: {
        ...metadata,
        client_id: made.body.client_id,
        backchannel_token_delivery_mode: 'ping',
        backchannel_authentication_request_signing_alg: 'HS256',
      },
    });
    invalidMetadata(upd, 'Unsupported requested CIBA Backchannel Authentication Request Signing Algorithm');
  });
});
