import { POLICY_TYPE as POLICY, type RegistrationFixture, registrationFixture } from '../oidc/client-registration-fixture';
import { USER_ERRORS, gqlClient, ok, userErrors } from './gql';

/**
 * Issue 16 item 4: GraphQL offers the registration-policy (ClientRegistrationPolicy components),
 * client-policy and event-listener settings that REST offers, they take effect the same way, and a
 * write REST refuses is refused by GraphQL with the same message, nothing written.
 */
let f: RegistrationFixture;
let gql: ReturnType<typeof gqlClient>;
const R = 'gql-issue16';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  f = await registrationFixture(R);
  gql = gqlClient(f.ts);
});
afterAll(() => f.ts.close());

/** The message of a REST 400 (Keycloak's `{"errorMessage"}`, `{"error"}` or `{"error_description"}`). */
const restMessage = (res: { status: number; body: Record<string, unknown> }) => {
  expect(res.status).toBe(400);
  const message = (res.body.errorMessage ?? res.body.error_description ?? res.body.error) as string;
  expect(typeof message).toBe('string');
  return message;
};

test('registration policies: a component updated through GraphQL applies; an unknown provider is refused as by REST', async () => {
  const p = await f.policy('Max Clients Limit', 'anonymous');
  const count = await f.clientCount();
  const upd = await gql(
    `mutation($id: ID!, $i: ComponentUpdateInput!) { updateComponent(realm: "${R}", id: $id, input: $i) { component { config } ${USER_ERRORS} } }`,
    { id: p.id, i: { config: { 'max-clients': [String(count)] } } },
  );
  expect(ok(upd).updateComponent.component.config['max-clients']).toEqual([String(count)]);
  const res = await f.call('POST', '/default', { body: { clientId: 'anon-over-limit' } });
  expect([res.status, res.body]).toEqual([
    403,
    {
      error: 'insufficient_scope',
      error_description: `Policy 'Max Clients Limit' rejected request to client-registration service. Details: It's allowed to have max ${count} clients per realm`,
    },
  ]);
  expect(await f.clientCount()).toBe(count);

  // A configuration REST refuses (max-clients not a number) is refused with the same message.
  const wrongMax = { config: { 'max-clients': ['many'] } };
  const maxMessage = restMessage(await f.api.put(`${base}/components/${p.id}`, { ...p, ...wrongMax }));
  expect(maxMessage).toBe("'Max Clients Per Realm' should be a number");
  const badMax = await gql(
    `mutation($id: ID!, $i: ComponentUpdateInput!) { updateComponent(realm: "${R}", id: $id, input: $i) { component { config } ${USER_ERRORS} } }`,
    { id: p.id, i: wrongMax },
  );
  expect(userErrors(badMax, 'updateComponent')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message: maxMessage }]);
  expect((await f.policy('Max Clients Limit', 'anonymous')).config['max-clients']).toEqual([String(count)]);

  const realmId = (await f.api.get(base)).body.id as string;
  const rep = { name: 'nope', providerId: 'no-such-policy', providerType: POLICY, subType: 'anonymous', parentId: realmId };
  const message = restMessage(await f.api.post(`${base}/components`, rep));
  const bad = await gql(
    `mutation($i: ComponentCreateInput!) { createComponent(realm: "${R}", input: $i) { component { id } ${USER_ERRORS} } }`,
    {
      i: rep,
    },
  );
  expect(userErrors(bad, 'createComponent')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message }]);
  const names = (await f.api.get(`${base}/components?type=${POLICY}`)).body.map((c: { name: string }) => c.name);
  expect(names).not.toContain('nope');
});

test('client policies: stored through GraphQL they act on REST writes; an invalid policy or profile is refused as by REST', async () => {
  const profiles = ok(
    await gql(
      `mutation($i: ClientProfilesInput!) { updateClientProfiles(realm: "${R}", input: $i) { clientProfiles { profiles { name } } ${USER_ERRORS} } }`,
      { i: { profiles: [{ name: 'pk', executors: [{ executor: 'pkce-enforcer', configuration: {} }] }] } },
    ),
  );
  expect(profiles.updateClientProfiles.clientProfiles.profiles).toEqual([{ name: 'pk' }]);
  const policy = { name: 'pol', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['pk'] };
  ok(
    await gql(
      `mutation($i: ClientPoliciesInput!) { updateClientPolicies(realm: "${R}", input: $i) { clientPolicies { policies { name } } } }`,
      {
        i: { policies: [policy] },
      },
    ),
  );
  const refusedRest = await f.api.post(`${base}/clients`, { clientId: 'no-pkce' });
  expect([refusedRest.status, refusedRest.body]).toEqual([
    400,
    { error: 'invalid_client_metadata', error_description: 'Invalid client metadata: code_challenge_method' },
  ]);

  // A policy naming a profile that does not exist.
  const wrong = { policies: [{ ...policy, profiles: ['missing'] }] };
  const message = restMessage(await f.api.put(`${base}/client-policies/policies`, wrong));
  expect(message).toBe('Policy pol contains invalid profile missing');
  const bad = await gql(
    `mutation($i: ClientPoliciesInput!) { updateClientPolicies(realm: "${R}", input: $i) { clientPolicies { policies { name } } ${USER_ERRORS} } }`,
    { i: wrong },
  );
  expect(bad.data?.updateClientPolicies.clientPolicies).toBeNull();
  expect(userErrors(bad, 'updateClientPolicies')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message }]);
  // A profile with an executor that does not exist.
  const badProfiles = { profiles: [{ name: 'pk', executors: [{ executor: 'no-such-executor', configuration: {} }] }] };
  const profileMessage = restMessage(await f.api.put(`${base}/client-policies/profiles`, badProfiles));
  const badProfile = await gql(
    `mutation($i: ClientProfilesInput!) { updateClientProfiles(realm: "${R}", input: $i) { clientProfiles { profiles { name } } ${USER_ERRORS} } }`,
    { i: badProfiles },
  );
  expect(userErrors(badProfile, 'updateClientProfiles')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message: profileMessage }]);
  // Nothing of the refused writes was stored.
  expect((await f.api.get(`${base}/client-policies/policies`)).body.policies).toEqual([policy]);
  expect((await f.api.get(`${base}/client-policies/profiles`)).body.profiles[0].executors).toEqual([
    { executor: 'pkce-enforcer', configuration: {} },
  ]);
  await f.api.put(`${base}/client-policies/policies`, { policies: [] });
});

test('event listeners: GraphQL sets them as REST does and refuses an unknown listener with REST message', async () => {
  const set = ok(
    await gql(`mutation { updateEventsConfig(realm: "${R}", input: { eventsListeners: ["jboss-logging", "email"] }) {
      eventsConfig { eventsListeners } } }`),
  );
  expect(set.updateEventsConfig.eventsConfig.eventsListeners).toEqual(['jboss-logging', 'email']);
  const message = restMessage(await f.api.put(`${base}/events/config`, { eventsListeners: ['kafka'] }));
  const bad = await gql(
    `mutation { updateEventsConfig(realm: "${R}", input: { eventsListeners: ["kafka"] }) { eventsConfig { eventsListeners } ${USER_ERRORS} } }`,
  );
  expect(userErrors(bad, 'updateEventsConfig')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message }]);
  expect((await f.api.get(`${base}/events/config`)).body.eventsListeners).toEqual(['jboss-logging', 'email']);
});
