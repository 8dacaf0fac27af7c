import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL over the localization and client-policies services: the same data and errors as REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqll10n';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

describe('localization over GraphQL', () => {
  test('mutations write what REST reads, and queries read what REST writes', async () => {
    const saved = ok(
      await gql(
        `mutation($r: String!) { saveLocalizationTexts(realm: $r, locale: "en", texts: { hello: "Hello", bye: "Bye" }) { result } }`,
        {
          r: R,
        },
      ),
    );
    expect(saved.saveLocalizationTexts.result).toEqual({ hello: 'Hello', bye: 'Bye' });
    ok(await gql(`mutation($r: String!) { setLocalizationText(realm: $r, locale: "de", key: "hello", text: "Hallo") { ok } }`, { r: R }));
    expect((await api.get(`${base}/localization/de/hello`)).text).toBe('Hallo');
    expect((await api.post(`${base}/localization/fr`, { hello: 'Salut' })).status).toBe(204);
    const data = ok(await gql(`query($r: String!) { realm(name: $r) { localizationLocales localizationTexts(locale: "fr") } }`, { r: R }));
    expect(data.realm).toEqual({ localizationLocales: ['de', 'en', 'fr'], localizationTexts: { hello: 'Salut' } });
    ok(await gql(`mutation($r: String!) { deleteLocalizationText(realm: $r, locale: "en", key: "bye") { ok } }`, { r: R }));
    ok(await gql(`mutation($r: String!) { deleteLocalizationTexts(realm: $r, locale: "fr") { ok } }`, { r: R }));
    expect((await api.get(`${base}/localization`)).body).toEqual(['de', 'en']);
    expect((await api.get(`${base}/localization/en`)).body).toEqual({ hello: 'Hello' });
  });

  test('errors carry the REST status and body', async () => {
    const res = await gql(`mutation($r: String!) { deleteLocalizationText(realm: $r, locale: "en", key: "nope") { ok } }`, { r: R });
    expect(res.errors?.[0].message).toBe('Localization text not found');
    expect(res.errors?.[0].extensions.http?.status).toBe(404);
    await realmAdmin(ts, R, 'gql-viewer', ['view-users']);
    const viewer = gqlClient(ts, { realm: R, username: 'gql-viewer', password: 'pw' });
    const denied = await viewer(`mutation($r: String!) { setLocalizationText(realm: $r, locale: "en", key: "k", text: "t") { ok } }`, {
      r: R,
    });
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
    expect((await api.get(`${base}/localization/en/k`)).status).toBe(404);
  });
});

describe('client policies over GraphQL', () => {
  test('profiles and policies: write, read back, equal to REST', async () => {
    const profiles = ok(
      await gql(
        `mutation($r: String!, $in: ClientProfilesInput!) { updateClientProfiles(realm: $r, input: $in) { clientProfiles { profiles { name executors { executor configuration } } } } }`,
        {
          r: R,
          in: { profiles: [{ name: 'gp', executors: [{ executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } }] }] },
        },
      ),
    ).updateClientProfiles.clientProfiles as Json;
    expect(profiles.profiles).toEqual([
      { name: 'gp', executors: [{ executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } }] },
    ]);
    const policies = ok(
      await gql(
        `mutation($r: String!, $in: ClientPoliciesInput!) { updateClientPolicies(realm: $r, input: $in) { clientPolicies { policies { name enabled conditions { condition } profiles } } } }`,
        { r: R, in: { policies: [{ name: 'pol', profiles: ['gp'], conditions: [{ condition: 'any-client', configuration: {} }] }] } },
      ),
    ).updateClientPolicies.clientPolicies as Json;
    expect(policies.policies).toEqual([{ name: 'pol', enabled: false, conditions: [{ condition: 'any-client' }], profiles: ['gp'] }]);
    const read = ok(
      await gql(
        `query($r: String!) { realm(name: $r) { clientProfiles(includeGlobalProfiles: true) { profiles { name } globalProfiles { name } } clientPolicies { policies { name description enabled profiles conditions { condition configuration } } } } }`,
        { r: R },
      ),
    ).realm as Json;
    expect(read.clientProfiles.globalProfiles).toHaveLength(8);
    expect((await api.get(`${base}/client-policies/policies`)).body.policies).toEqual(
      read.clientPolicies.policies
        .map((p: Json) => ({ ...p, description: p.description ?? undefined }))
        .map((p: Json) => JSON.parse(JSON.stringify(p))),
    );
    const bad = await gql(
      `mutation($r: String!, $in: ClientPoliciesInput!) { updateClientPolicies(realm: $r, input: $in) { clientPolicies { policies { name } } ${USER_ERRORS} } }`,
      { r: R, in: { policies: [{ name: 'x', profiles: ['ghost'] }] } },
    );
    expect(userErrors(bad, 'updateClientPolicies')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: 'Policy x contains invalid profile ghost' },
    ]);
  });
});
