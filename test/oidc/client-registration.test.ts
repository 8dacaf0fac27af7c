import { decodeJwt } from 'jose';
import { adminEvents, expectStatus, userId } from '../helpers/fixtures';
import { advanceClock, resetClock } from '../helpers/sessions';
import { type RegistrationFixture, registrationFixture } from './client-registration-fixture';

/**
 * `/realms/{realm}/clients-registrations/default` (issue 16): Keycloak's ClientRepresentation in and
 * out, created with an initial access token or a user's bearer token, read, updated and deleted with
 * the registration access token, with Keycloak's refusals and the CLIENT_* events.
 */

let f: RegistrationFixture;
const R = 'client-reg';

beforeAll(async () => {
  f = await registrationFixture(R);
});
afterAll(() => f.ts.close());
afterEach(() => resetClock());

const unauthorized = (description: string) => ({ error: 'invalid_token', error_description: description });

describe('registration with an initial access token', () => {
  test('creates the client as the admin API does, answers it with its secret and a registration access token, and counts the use', async () => {
    const token = await f.initialToken(2);
    const res = await f.call('POST', '/default', { token, body: { clientId: 'reg-app', redirectUris: ['https://app.example.org/*'] } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(f.publicUrl('default', 'reg-app'));
    expect(res.body).toMatchObject({ clientId: 'reg-app', enabled: true, publicClient: false, directAccessGrantsEnabled: false });
    expect(res.body.secret).toEqual(expect.any(String));
    expect(res.body.access).toBeUndefined();
    const rat = decodeJwt(res.body.registrationAccessToken);
    expect(rat).toMatchObject({
      typ: 'RegistrationAccessToken',
      registration_auth: 'authenticated',
      exp: 0,
      iss: `http://localhost:8080/realms/${R}`,
      aud: `http://localhost:8080/realms/${R}`,
    });

    // The stored client: the admin API's defaults (scopes, web origins from the redirect URIs, the secret).
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=reg-app`), 200, 'client').body;
    expect(stored).toMatchObject({
      id: res.body.id,
      secret: res.body.secret,
      webOrigins: ['https://app.example.org'],
      fullScopeAllowed: true,
    });
    expect(stored.defaultClientScopes).toEqual(expect.arrayContaining(['profile', 'email', 'roles', 'web-origins']));

    const [entry] = expectStatus(await f.api.get(`/admin/realms/${R}/clients-initial-access`), 200, 'initial access').body;
    expect([entry.count, entry.remainingCount]).toEqual([2, 1]);

    const [ev] = await f.events('CLIENT_REGISTER');
    expect(ev).toMatchObject({ type: 'CLIENT_REGISTER', clientId: 'reg-app' });
    const created = (await adminEvents(f.api, R, { operationTypes: 'CREATE', resourceTypes: 'CLIENT' })).find(
      (e) => e.resourcePath === `clients/${res.body.id}`,
    );
    expect(created).toBeDefined();
    expect(JSON.parse(String(created?.representation))).toMatchObject({ clientId: 'reg-app' });
  });

  test('a used-up token, an expired one, a deleted one and a forged one are refused with 401 and create nothing', async () => {
    const before = await f.clientCount();
    const once = await f.initialToken(1);
    expect((await f.call('POST', '/default', { token: once, body: { clientId: 'once-1' } })).status).toBe(201);
    const again = await f.call('POST', '/default', { token: once, body: { clientId: 'once-2' } });
    expect([again.status, again.body]).toEqual([401, unauthorized('No remaining count on initial access token')]);

    const short = await f.initialToken(5, 60);
    advanceClock(120);
    const expired = await f.call('POST', '/default', { token: short, body: { clientId: 'late' } });
    expect([expired.status, expired.body]).toEqual([401, unauthorized('Failed decode token')]);
    resetClock();

    const gone = await f.initialToken(5);
    const id = (decodeJwt(gone).jti as string) ?? '';
    expectStatus(await f.api.delete(`/admin/realms/${R}/clients-initial-access/${id}`), 204, 'delete initial access');
    const deleted = await f.call('POST', '/default', { token: gone, body: { clientId: 'gone' } });
    expect([deleted.status, deleted.body]).toEqual([401, unauthorized('Initial Access Token not found')]);

    const forged = await f.call('POST', '/default', { token: `${gone.slice(0, -4)}AAAA`, body: { clientId: 'forged' } });
    expect([forged.status, forged.body]).toEqual([401, unauthorized('Failed decode token')]);

    expect(await f.clientCount()).toBe(before + 1);
    const errors = await f.events('CLIENT_REGISTER_ERROR');
    expect(errors.map((e) => e.error)).toEqual(expect.arrayContaining(['invalid_token']));
    expect(errors.map((e) => (e.details as Record<string, string>).reason)).toEqual(
      expect.arrayContaining(['No remaining count on initial access token', 'Initial Access Token not found', 'Failed decode token']),
    );
  });

  test('registrations racing for the last uses of a token: exactly as many clients as uses', async () => {
    const token = await f.initialToken(2);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => f.call('POST', '/default', { token, body: { clientId: `race-${i}` } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 401, 401, 401]);
    const all = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=race-&search=true`), 200, 'race').body;
    expect(all).toHaveLength(2);
    const entries = expectStatus(await f.api.get(`/admin/realms/${R}/clients-initial-access`), 200, 'entries').body;
    expect(entries.find((e: { id: string }) => e.id === decodeJwt(token).jti).remainingCount).toBe(0);
  });

  test('a taken clientId and invalid metadata are 400 with nothing written and the token use not counted', async () => {
    const token = await f.initialToken(3);
    expect((await f.call('POST', '/default', { token, body: { clientId: 'dup' } })).status).toBe(201);
    const dup = await f.call('POST', '/default', { token, body: { clientId: 'dup' } });
    expect([dup.status, dup.body]).toEqual([400, { error: 'invalid_client_metadata', error_description: 'Client Identifier in use' }]);
    const bad = await f.call('POST', '/default', { token, body: { clientId: 'bad-uri', redirectUris: ['javascript:alert(1)'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_redirect_uri');
    const entries = expectStatus(await f.api.get(`/admin/realms/${R}/clients-initial-access`), 200, 'entries').body;
    const entry = entries.find((e: { id: string }) => e.id === decodeJwt(token).jti);
    expect(entry.remainingCount).toBe(2);
    expect(expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=bad-uri`), 200, 'none').body).toEqual([]);
  });
});

describe('read, update and delete with the registration access token', () => {
  test('the whole life of a client; the token rotates on update and the old one stops working', async () => {
    const created = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'life', name: 'Life' } });
    const rat = created.body.registrationAccessToken as string;

    const read = await f.call('GET', '/default/life', { token: rat });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ clientId: 'life', name: 'Life', secret: created.body.secret, registrationAccessToken: rat });
    expect((await f.events('CLIENT_INFO'))[0]).toMatchObject({ clientId: 'life' });

    const updated = await f.call('PUT', '/default/life', { token: rat, body: { ...read.body, name: 'Renamed' } });
    expect(updated.status).toBe(200);
    expect(updated.body.name).toBe('Renamed');
    const next = updated.body.registrationAccessToken as string;
    expect(decodeJwt(next).jti).not.toBe(decodeJwt(rat).jti);
    expect((await f.events('CLIENT_UPDATE'))[0]).toMatchObject({ clientId: 'life' });
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=life`), 200, 'client').body;
    expect(stored.name).toBe('Renamed');

    const stale = await f.call('PUT', '/default/life', { token: rat, body: { clientId: 'life', name: 'Stale' } });
    expect([stale.status, stale.body]).toEqual([
      401,
      unauthorized('Not authorized to update client. Maybe missing token or bad token type.'),
    ]);
    expect((await f.events('CLIENT_UPDATE_ERROR'))[0]).toMatchObject({ clientId: 'life', error: 'invalid_token' });
    const updates = await adminEvents(f.api, R, { operationTypes: 'UPDATE', resourceTypes: 'CLIENT' });
    expect(updates.map((e) => e.resourcePath)).toContain(`clients/${created.body.id}`);
    const staleRead = await f.call('GET', '/default/life', { token: rat });
    expect([staleRead.status, staleRead.body]).toEqual([
      401,
      unauthorized('Not authorized to view client. Not valid token or client credentials provided.'),
    ]);

    const renamed = await f.call('PUT', '/default/life', { token: next, body: { clientId: 'other-id' } });
    expect([renamed.status, renamed.body]).toEqual([
      400,
      { error: 'invalid_client_metadata', error_description: 'Client Identifier modified' },
    ]);

    const deleted = await f.call('DELETE', '/default/life', { token: next });
    expect(deleted.status).toBe(204);
    expect(expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=life`), 200, 'gone').body).toEqual([]);
    expect((await f.events('CLIENT_DELETE'))[0]).toMatchObject({ clientId: 'life' });
    const deleteEvents = await adminEvents(f.api, R, { operationTypes: 'DELETE', resourceTypes: 'CLIENT' });
    expect(deleteEvents.map((e) => e.resourcePath)).toContain(`clients/${created.body.id}`);
  });

  test("no token, an initial access token or another client's registration token cannot read, update or delete", async () => {
    const a = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'own-a' } });
    const b = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'own-b' } });
    const none = await f.call('GET', '/default/own-a');
    expect([none.status, none.body]).toEqual([
      401,
      unauthorized('Not authorized to view client. Not valid token or client credentials provided.'),
    ]);
    const initial = await f.call('GET', '/default/own-a', { token: await f.initialToken() });
    expect([initial.status, initial.body]).toEqual([401, unauthorized('Not initial access token allowed')]);
    const other = await f.call('DELETE', '/default/own-a', { token: b.body.registrationAccessToken });
    expect(other.status).toBe(401);
    expect((await f.events('CLIENT_DELETE_ERROR'))[0]).toMatchObject({ clientId: 'own-a', error: 'invalid_token' });
    const missing = await f.call('GET', '/default/no-such-client', { token: a.body.registrationAccessToken });
    expect(missing.status).toBe(401);
    expect(expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=own-a`), 200, 'kept').body).toHaveLength(1);
    const errors = await f.events('CLIENT_INFO_ERROR');
    expect(errors[0]).toMatchObject({ error: 'invalid_token' });
  });

  test('a registration access token issued by the admin API works too', async () => {
    const made = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'admin-rat' } });
    const res = await f.api.post(`/admin/realms/${R}/clients/${made.body.id}/registration-access-token`);
    const fresh = expectStatus(res, 200, 'new token').body.registrationAccessToken as string;
    expect((await f.call('GET', '/default/admin-rat', { token: fresh })).status).toBe(200);
    expect((await f.call('GET', '/default/admin-rat', { token: made.body.registrationAccessToken })).status).toBe(401);
  });
});

describe("a user's bearer token", () => {
  test('create-client or manage-clients may register; the admin event names the user; no such role is 403', async () => {
    const creator = await f.userToken('creator', ['create-client']);
    const res = await f.call('POST', '/default', { token: creator, body: { clientId: 'by-creator' } });
    expect(res.status).toBe(201);
    expect(decodeJwt(res.body.registrationAccessToken).registration_auth).toBe('authenticated');
    const ev = (await adminEvents(f.api, R, { operationTypes: 'CREATE', resourceTypes: 'CLIENT' })).find(
      (e) => e.resourcePath === `clients/${res.body.id}`,
    );
    expect((ev?.authDetails as Record<string, string> | undefined)?.userId).toBe(await userId(f.api, R, 'creator'));

    const nobody = await f.userToken('nobody', []);
    const refused = await f.call('POST', '/default', { token: nobody, body: { clientId: 'by-nobody' } });
    expect([refused.status, refused.body]).toEqual([403, { error: 'insufficient_scope', error_description: 'Forbidden' }]);
    expect((await f.events('CLIENT_REGISTER_ERROR'))[0]).toMatchObject({ error: 'not_allowed' });
  });

  test('view-clients may read, manage-clients may update and delete; an unknown client is 404 for them', async () => {
    await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'managed' } });
    const viewer = await f.userToken('viewer', ['view-clients']);
    const manager = await f.userToken('manager', ['manage-clients']);
    const read = await f.call('GET', '/default/managed', { token: viewer });
    expect(read.status).toBe(200);
    expect(read.body.registrationAccessToken).toBeUndefined();
    const notFound = await f.call('GET', '/default/nope', { token: viewer });
    expect([notFound.status, notFound.body]).toEqual([404, { error: 'invalid_request', error_description: 'Client not found' }]);
    const viewerPut = await f.call('PUT', '/default/managed', { token: viewer, body: { clientId: 'managed', name: 'x' } });
    expect(viewerPut.status).toBe(403);
    const put = await f.call('PUT', '/default/managed', { token: manager, body: { clientId: 'managed', name: 'By manager' } });
    expect([put.status, put.body.name]).toEqual([200, 'By manager']);
    expect((await f.call('DELETE', '/default/managed', { token: manager })).status).toBe(204);
    expect((await f.call('DELETE', '/default/managed', { token: manager })).status).toBe(404);
  });

  test("a token of another realm's user is not a token of this realm", async () => {
    const res = await f.call('POST', '/default', { token: await f.ts.token(), body: { clientId: 'from-master' } });
    expect([res.status, res.body]).toEqual([401, unauthorized('Failed decode token')]);
  });
});

describe('the service itself', () => {
  test('an unknown realm or provider is 404; a body that is not JSON is 400 or 415', async () => {
    const token = await f.initialToken(5);
    expect((await f.call('POST', '/saml2-entity-descriptor', { token, body: {} })).body).toEqual({
      error: 'Client registration provider not found',
    });
    const bad = await f.call('POST', '/default', { token, raw: '{"clientId":' });
    expect(bad.status).toBe(400);
    const type = await f.call('POST', '/default', { token, raw: 'clientId=x', contentType: 'application/x-www-form-urlencoded' });
    expect(type.status).toBe(415);
    const res = await fetch(`${await f.ts.listen()}/realms/no-such-realm/clients-registrations/default`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});

test('default provider: a client naming only optional scopes gets `basic` as its one default scope (AbstractClientRegistrationProvider#create, ClientRegistrationTest#registerClientAsAdminWithScope)', async () => {
  const res = await f.call('POST', '/default', {
    token: await f.initialToken(),
    body: { clientId: 'reg-scoped', optionalClientScopes: ['address', 'phone'] },
  });
  expect(res.status).toBe(201);
  const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=reg-scoped`), 200, 'client').body;
  expect([stored.defaultClientScopes, [...stored.optionalClientScopes].sort()]).toEqual([['basic'], ['address', 'phone']]);
});
