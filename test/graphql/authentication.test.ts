import { createLoginUser } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { gqlClient, type Json, ok, startWithRealm } from './gql';

/** GraphQL over authentication management: the same data and errors as REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlauth';
const base = `/admin/realms/${R}/authentication`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

describe('authentication over GraphQL', () => {
  test('Realm.authenticationFlows and requiredActions equal the REST lists', async () => {
    const data = ok(
      await gql(
        `query($r: String!) { realm(name: $r) { authenticationFlows { id alias builtIn authenticationExecutions { authenticator flowAlias priority requirement } representation } requiredActions { alias name priority enabled } } }`,
        { r: R },
      ),
    );
    const realm = data.realm as Json;
    expect(realm.authenticationFlows.map((f: Json) => f.representation)).toEqual((await api.get(`${base}/flows`)).body);
    expect(realm.authenticationFlows[0].authenticationExecutions[4]).toEqual({
      authenticator: null,
      flowAlias: 'forms',
      priority: 30,
      requirement: 'ALTERNATIVE',
    });
    expect(realm.requiredActions).toHaveLength(14);
  });

  test('executions listing equals REST', async () => {
    const data = ok(
      await gql(
        `query($r: String!) { authenticationExecutions(realm: $r, flowAlias: "browser") { id displayName level index priority requirement requirementChoices configurable authenticationFlow providerId flowId } }`,
        { r: R },
      ),
    );
    const rest = (await api.get(`${base}/flows/browser/executions`)).body as Json[];
    expect((data.authenticationExecutions as Json[]).map((e) => [e.id, e.displayName, e.level, e.index])).toEqual(
      rest.map((e) => [e.id, e.displayName, e.level, e.index]),
    );
  });

  test('mutations: copy, add execution and sub-flow, config, move, delete; required actions', async () => {
    const copy = ok(
      await gql(
        `mutation($r: String!) { copyAuthenticationFlow(realm: $r, flowAlias: "browser", newName: "gql-copy") { id alias builtIn } }`,
        { r: R },
      ),
    ).copyAuthenticationFlow as Json;
    expect(copy).toMatchObject({ alias: 'gql-copy', builtIn: false });
    const exeId = ok(
      await gql(`mutation($r: String!) { addAuthenticationExecution(realm: $r, flowAlias: "gql-copy", provider: "auth-otp-form") }`, {
        r: R,
      }),
    ).addAuthenticationExecution as string;
    const sub = ok(
      await gql(
        `mutation($r: String!) { addAuthenticationSubFlow(realm: $r, flowAlias: "gql-copy", alias: "gql-sub") { alias topLevel } }`,
        { r: R },
      ),
    ).addAuthenticationSubFlow as Json;
    expect(sub).toEqual({ alias: 'gql-sub', topLevel: false });
    const config = ok(
      await gql(
        `mutation($r: String!, $e: ID!) { createAuthenticatorConfig(realm: $r, executionId: $e, input: { alias: "gql-cfg", config: { a: "b" } }) { id alias config } }`,
        {
          r: R,
          e: exeId,
        },
      ),
    ).createAuthenticatorConfig as Json;
    expect(config).toMatchObject({ alias: 'gql-cfg', config: { a: 'b' } });
    expect((await api.get(`${base}/config/${config.id}`)).body.alias).toBe('gql-cfg');
    ok(
      await gql(`mutation($r: String!, $e: ID!) { moveAuthenticationExecution(realm: $r, id: $e, direction: RAISE) }`, { r: R, e: exeId }),
    );
    const row = ((await api.get(`${base}/flows/gql-copy/executions`)).body as Json[]).find((e) => e.id === exeId) as Json;
    expect(row.index).toBe(4);
    ok(
      await gql(
        `mutation($r: String!, $in: AuthenticationExecutionInfoInput!) { updateAuthenticationExecution(realm: $r, flowAlias: "gql-copy", input: $in) }`,
        {
          r: R,
          in: { id: exeId, requirement: 'REQUIRED', priority: row.priority },
        },
      ),
    );
    expect(((await api.get(`${base}/flows/gql-copy/executions`)).body as Json[]).find((e) => e.id === exeId)?.requirement).toBe('REQUIRED');
    ok(await gql(`mutation($r: String!, $id: ID!) { deleteAuthenticationFlow(realm: $r, id: $id) }`, { r: R, id: copy.id }));
    expect((await api.get(`${base}/flows/${copy.id}`)).status).toBe(404);

    const action = ok(
      await gql(
        `mutation($r: String!) { updateRequiredAction(realm: $r, alias: "VERIFY_EMAIL", input: { alias: "VERIFY_EMAIL", name: "Verify", enabled: true, priority: 55 }) { alias name priority } }`,
        {
          r: R,
        },
      ),
    ).updateRequiredAction as Json;
    expect(action).toEqual({ alias: 'VERIFY_EMAIL', name: 'Verify', priority: 55 });
    ok(await gql(`mutation($r: String!) { deleteRequiredAction(realm: $r, alias: "idp_link") }`, { r: R }));
    const reg = ok(
      await gql(`mutation($r: String!) { registerRequiredAction(realm: $r, providerId: "idp_link") { alias name enabled } }`, { r: R }),
    ).registerRequiredAction as Json;
    expect(reg).toEqual({ alias: 'idp_link', name: 'Linking Identity Provider', enabled: true });
  });

  test('errors carry Keycloak statuses; callers without rights get 403', async () => {
    const res = await gql(`mutation($r: String!) { copyAuthenticationFlow(realm: $r, flowAlias: "nope", newName: "x") { id } }`, { r: R });
    expect(res.errors?.[0].extensions.http?.status).toBe(404);
    expect(res.errors?.[0].message).toBe('Flow not found');
    await createLoginUser(ts, 'master', 'gql-nobody', 'pw');
    const nobody = gqlClient(ts, { username: 'gql-nobody', password: 'pw' });
    const denied = await nobody(`query($r: String!) { authenticationExecutions(realm: $r, flowAlias: "browser") { id } }`, { r: R });
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
  });
});
