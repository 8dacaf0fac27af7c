import { randomUUID } from 'node:crypto';
import { createdId, realmAdmin, realmIdOf } from '../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../helpers/server';
import { type TestSmtp, startSmtp } from '../helpers/smtp';
import { USER_ERRORS, gqlClient, ok, userErrors } from './gql';

/** GraphQL: Realm.events / adminEvents / eventsConfig and the event and e-mail mutations, same services as REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
let smtp: TestSmtp;
const R = 'gev';

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  gql = gqlClient(ts);
  smtp = await startSmtp();
  await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'gql@idserver.test' },
  });
});
afterAll(async () => {
  await smtp.close();
  await ts.close();
});

/** The id of user `gqluser` (email g@x.org), created through REST unless an earlier test of this file did. */
async function gqlUser(): Promise<string> {
  const [found] = (await api.get(`/admin/realms/${R}/users?username=gqluser&exact=true`)).body;
  if (found) return found.id;
  return createdId(await api.post(`/admin/realms/${R}/users`, { username: 'gqluser', email: 'g@x.org', enabled: true }), 'gqluser');
}

describe('graphql events', () => {
  test('updateEventsConfig and eventsConfig agree with REST', async () => {
    const data = ok(
      await gql(
        `mutation($i: RealmEventsConfigInput!) { updateEventsConfig(realm: "${R}", input: $i) { eventsConfig {
          eventsEnabled eventsExpiration eventsListeners adminEventsEnabled adminEventsDetailsEnabled enabledEventTypes } } }`,
        {
          i: {
            eventsEnabled: true,
            eventsExpiration: 900,
            adminEventsEnabled: true,
            adminEventsDetailsEnabled: true,
            enabledEventTypes: ['LOGIN'],
          },
        },
      ),
    );
    expect(data.updateEventsConfig.eventsConfig).toEqual({
      eventsEnabled: true,
      eventsExpiration: 900,
      eventsListeners: ['jboss-logging'],
      adminEventsEnabled: true,
      adminEventsDetailsEnabled: true,
      enabledEventTypes: ['LOGIN'],
    });
    expect((await api.get(`/admin/realms/${R}/events/config`)).body).toEqual(data.updateEventsConfig.eventsConfig);
    const read = ok(await gql(`{ realm(name: "${R}") { eventsConfig { eventsEnabled enabledEventTypes } } }`));
    expect(read.realm.eventsConfig).toEqual({ eventsEnabled: true, enabledEventTypes: ['LOGIN'] });
    const bad = await gql(
      `mutation { updateEventsConfig(realm: "${R}", input: { eventsListeners: ["kafka"] }) { eventsConfig { eventsEnabled } ${USER_ERRORS} } }`,
    );
    expect(userErrors(bad, 'updateEventsConfig')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message: 'Unknown event listener' }]);
  });

  test('a GraphQL mutation records its admin event; adminEvents filters', async () => {
    const config = (await api.get(`/admin/realms/${R}/events/config`)).body;
    const enabled = { ...config, adminEventsEnabled: true, adminEventsDetailsEnabled: true };
    expect((await api.put(`/admin/realms/${R}/events/config`, enabled)).status).toBe(204);
    const created = ok(
      await gql(`mutation { createUser(realm: "${R}", input: { username: "gqluser", email: "g@x.org", enabled: true }) { user { id } } }`),
    );
    const id = created.createUser.user.id as string;
    const data = ok(
      await gql(`{ realm(name: "${R}") { adminEvents(resourceTypes: ["USER"], operationTypes: ["CREATE"]) {
        operationType resourceType resourcePath representation authDetails { userId clientUuid } } } }`),
    );
    expect(data.realm.adminEvents).toHaveLength(1);
    expect(data.realm.adminEvents[0]).toMatchObject({ operationType: 'CREATE', resourceType: 'USER', resourcePath: `users/${id}` });
    expect(JSON.parse(data.realm.adminEvents[0].representation)).toMatchObject({ username: 'gqluser' });
    // Keycloak's authDetails.clientId is the client's UUID: GraphQL calls it clientUuid.
    const adminCli = (await api.get('/admin/realms/master/clients?clientId=admin-cli')).body[0].id;
    expect(data.realm.adminEvents[0].authDetails.clientUuid).toBe(adminCli);
    const wildcard = ok(await gql(`{ realm(name: "${R}") { adminEvents(resourcePath: "users/*", max: 5) { resourcePath } } }`));
    expect(wildcard.realm.adminEvents).toEqual([{ resourcePath: `users/${id}` }]);
  });

  test('events with filters, clearEvents and clearAdminEvents', async () => {
    const realmId = await realmIdOf(api, R);
    const t = Date.now();
    // Seeded into the table: no endpoint records a user event with a chosen time, client, user and address.
    await ts.db.models.Event.bulkCreate([
      { id: randomUUID(), realmId, time: t - 2, type: 'LOGIN', clientId: 'c1', userId: 'u1', ipAddress: '1.2.3.4', details: { a: '1' } },
      { id: randomUUID(), realmId, time: t - 1, type: 'LOGOUT', clientId: 'c2', userId: 'u2', ipAddress: '1.2.3.5', details: {} },
    ]);
    const all = ok(await gql(`{ realm(name: "${R}") { events { type clientId time details } } }`));
    expect(all.realm.events.map((e: { type: string }) => e.type)).toEqual(['LOGOUT', 'LOGIN']);
    const filtered = ok(
      await gql(
        `{ realm(name: "${R}") { events(type: ["LOGIN"], client: "c1", user: "u1", ipAddress: "1.2.3.4", first: 0, max: 10) { type details } } }`,
      ),
    );
    expect(filtered.realm.events).toEqual([{ type: 'LOGIN', details: { a: '1' } }]);
    const bad = await gql(`{ realm(name: "${R}") { events(dateFrom: "nope") { type } } }`);
    expect(bad.errors?.[0].extensions.http?.status).toBe(400);
    expect(ok(await gql(`mutation { clearEvents(realm: "${R}") { ok } }`)).clearEvents.ok).toBe(true);
    expect(ok(await gql(`mutation { clearAdminEvents(realm: "${R}") { ok } }`)).clearAdminEvents.ok).toBe(true);
    expect((await api.get(`/admin/realms/${R}/events`)).body).toEqual([]);
    expect((await api.get(`/admin/realms/${R}/admin-events`)).body).toEqual([]);
  });

  test('executeActionsEmail, sendVerifyEmail and testSmtpConnection mutations', async () => {
    const id = await gqlUser();
    expect(
      ok(await gql(`mutation { executeActionsEmail(realm: "${R}", userId: "${id}", actions: ["UPDATE_PASSWORD"], lifespan: 300) { ok } }`))
        .executeActionsEmail.ok,
    ).toBe(true);
    expect(ok(await gql(`mutation { sendVerifyEmail(realm: "${R}", userId: "${id}") { ok } }`)).sendVerifyEmail.ok).toBe(true);
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => [m.recipients[0], m.subject])).toEqual([
      ['g@x.org', 'Update Your Account'],
      ['g@x.org', 'Verify email'],
    ]);
    const bad = await gql(`mutation { executeActionsEmail(realm: "${R}", userId: "${id}", actions: ["NOPE"]) { ok ${USER_ERRORS} } }`);
    expect(userErrors(bad, 'executeActionsEmail')).toEqual([
      { field: null, code: 'BAD_REQUEST', message: 'Provided invalid required actions' },
    ]);

    await realmAdmin(ts, R, 'smtpadmin', ['manage-realm']);
    const asAdmin = gqlClient(ts, { realm: R, username: 'smtpadmin', password: 'pw' });
    const sent = await asAdmin(`mutation($s: JSONObject!) { testSmtpConnection(realm: "${R}", settings: $s) { ok } }`, {
      s: { host: '127.0.0.1', port: String(smtp.port), from: 'gql@idserver.test' },
    });
    expect(ok(sent).testSmtpConnection.ok).toBe(true);
    expect((await smtp.waitFor(3))[2]).toMatchObject({ recipients: ['smtpadmin@example.org'], subject: '[KEYCLOAK] - SMTP test message' });
    const failed = await gql(`mutation { testSmtpConnection(realm: "${R}", settings: { host: "127.0.0.1" }) { ok } }`);
    expect(failed.errors?.[0]).toMatchObject({ message: 'Failed to send email', extensions: { http: { status: 500 } } });
  });
});
