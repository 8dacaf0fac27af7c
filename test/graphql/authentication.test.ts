import { createLoginUser, realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

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
        `mutation($r: String!) { copyAuthenticationFlow(realm: $r, flowAlias: "browser", newName: "gql-copy") { authenticationFlow { id alias builtIn } } }`,
        { r: R },
      ),
    ).copyAuthenticationFlow.authenticationFlow as Json;
    expect(copy).toMatchObject({ alias: 'gql-copy', builtIn: false });
    const exeId = ok(
      await gql(
        `mutation($r: String!) { addAuthenticationExecution(realm: $r, flowAlias: "gql-copy", provider: "auth-otp-form") { id } }`,
        {
          r: R,
        },
      ),
    ).addAuthenticationExecution.id as string;
    const sub = ok(
      await gql(
        `mutation($r: String!) { addAuthenticationSubFlow(realm: $r, flowAlias: "gql-copy", alias: "gql-sub") { authenticationFlow { alias topLevel } } }`,
        { r: R },
      ),
    ).addAuthenticationSubFlow.authenticationFlow as Json;
    expect(sub).toEqual({ alias: 'gql-sub', topLevel: false });
    const config = ok(
      await gql(
        `mutation($r: String!, $e: ID!) { createAuthenticatorConfig(realm: $r, executionId: $e, input: { alias: "gql-cfg", config: { a: "b" } }) { authenticatorConfig { id alias config } } }`,
        {
          r: R,
          e: exeId,
        },
      ),
    ).createAuthenticatorConfig.authenticatorConfig as Json;
    expect(config).toMatchObject({ alias: 'gql-cfg', config: { a: 'b' } });
    expect((await api.get(`${base}/config/${config.id}`)).body.alias).toBe('gql-cfg');
    ok(
      await gql(`mutation($r: String!, $e: ID!) { moveAuthenticationExecution(realm: $r, id: $e, direction: RAISE) { ok } }`, {
        r: R,
        e: exeId,
      }),
    );
    const row = ((await api.get(`${base}/flows/gql-copy/executions`)).body as Json[]).find((e) => e.id === exeId) as Json;
    expect(row.index).toBe(4);
    ok(
      await gql(
        `mutation($r: String!, $in: AuthenticationExecutionInfoInput!) { updateAuthenticationExecution(realm: $r, flowAlias: "gql-copy", input: $in) { ok } }`,
        {
          r: R,
          in: { id: exeId, requirement: 'REQUIRED', priority: row.priority },
        },
      ),
    );
    expect(((await api.get(`${base}/flows/gql-copy/executions`)).body as Json[]).find((e) => e.id === exeId)?.requirement).toBe('REQUIRED');
    ok(await gql(`mutation($r: String!, $id: ID!) { deleteAuthenticationFlow(realm: $r, id: $id) { ok } }`, { r: R, id: copy.id }));
    expect((await api.get(`${base}/flows/${copy.id}`)).status).toBe(404);

    const action = ok(
      await gql(
        `mutation($r: String!) { updateRequiredAction(realm: $r, alias: "VERIFY_EMAIL", input: { alias: "VERIFY_EMAIL", name: "Verify", enabled: true, priority: 55 }) { requiredAction { alias name priority } } }`,
        {
          r: R,
        },
      ),
    ).updateRequiredAction.requiredAction as Json;
    expect(action).toEqual({ alias: 'VERIFY_EMAIL', name: 'Verify', priority: 55 });
    ok(await gql(`mutation($r: String!) { deleteRequiredAction(realm: $r, alias: "idp_link") { ok } }`, { r: R }));
    const reg = ok(
      await gql(
        `mutation($r: String!) { registerRequiredAction(realm: $r, providerId: "idp_link") { requiredAction { alias name enabled } } }`,
        { r: R },
      ),
    ).registerRequiredAction.requiredAction as Json;
    expect(reg).toEqual({ alias: 'idp_link', name: 'Linking Identity Provider', enabled: true });
  });

  test('errors carry Keycloak statuses; callers without rights get 403', async () => {
    const res = await gql(
      `mutation($r: String!) { copyAuthenticationFlow(realm: $r, flowAlias: "nope", newName: "x") { authenticationFlow { id } } }`,
      { r: R },
    );
    expect(res.errors?.[0].extensions.http?.status).toBe(404);
    expect(res.errors?.[0].message).toBe('Flow not found');
    await createLoginUser(ts, 'master', 'gql-nobody', 'pw');
    const nobody = gqlClient(ts, { username: 'gql-nobody', password: 'pw' });
    const denied = await nobody(`query($r: String!) { authenticationExecutions(realm: $r, flowAlias: "browser") { id } }`, { r: R });
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
  });
});

/** A GraphQL object as REST renders it: optional fields GraphQL answers with `null` are left out. */
const dropNulls = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(dropNulls)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [k, dropNulls(x)]),
        )
      : v;

const PROPERTY = '{ name label helpText type defaultValue options secret required readOnly }';
const PROVIDER = '{ id displayName description supportsSecret }';

describe('authentication catalogues, executions and required-action config over GraphQL', () => {
  test('provider catalogues, per-client config description and unregistered required actions equal REST', async () => {
    expect((await api.delete(`${base}/required-actions/TERMS_AND_CONDITIONS`)).status).toBe(204);
    const realm = ok(
      await gql(
        `query($r: String!) { realm(name: $r) {
          authenticatorProviders ${PROVIDER} clientAuthenticatorProviders ${PROVIDER} formProviders ${PROVIDER}
          formActionProviders ${PROVIDER} perClientConfigDescription { providerId properties ${PROPERTY} }
          unregisteredRequiredActions { providerId name } } }`,
        { r: R },
      ),
    ).realm as Json;
    for (const [field, path] of [
      ['authenticatorProviders', 'authenticator-providers'],
      ['clientAuthenticatorProviders', 'client-authenticator-providers'],
      ['formProviders', 'form-providers'],
      ['formActionProviders', 'form-action-providers'],
      ['unregisteredRequiredActions', 'unregistered-required-actions'],
    ]) {
      const rest = await api.get(`${base}/${path}`);
      expect(rest.status).toBe(200);
      expect(rest.body.length).toBeGreaterThan(0);
      expect([field, dropNulls(realm[field])]).toEqual([field, rest.body]);
    }
    expect(realm.unregisteredRequiredActions).toEqual([{ providerId: 'TERMS_AND_CONDITIONS', name: 'Terms and Conditions' }]);
    const perClient = Object.fromEntries((realm.perClientConfigDescription as Json[]).map((e) => [e.providerId, dropNulls(e.properties)]));
    expect(perClient).toEqual((await api.get(`${base}/per-client-config-description`)).body);
    ok(
      await gql(
        `mutation($r: String!) { registerRequiredAction(realm: $r, providerId: "TERMS_AND_CONDITIONS") { requiredAction { alias } } }`,
        { r: R },
      ),
    );
  });

  test('config descriptions of an authenticator and of a required action equal REST; unknown ones are 404', async () => {
    const q = `query($r: String!, $p: String!, $a: String!) {
      authenticatorConfigDescription(realm: $r, providerId: $p) { providerId name helpText properties ${PROPERTY} }
      requiredActionConfigDescription(realm: $r, alias: $a) { properties ${PROPERTY} } }`;
    const data = ok(await gql(q, { r: R, p: 'identity-provider-redirector', a: 'UPDATE_PASSWORD' }));
    expect(dropNulls(data.authenticatorConfigDescription)).toEqual(
      (await api.get(`${base}/config-description/identity-provider-redirector`)).body,
    );
    expect(dropNulls(data.requiredActionConfigDescription)).toEqual(
      (await api.get(`${base}/required-actions/UPDATE_PASSWORD/config-description`)).body,
    );
    const missing = await gql(q, { r: R, p: 'nope', a: 'delete_account' });
    expect(missing.data).toEqual({ authenticatorConfigDescription: null, requiredActionConfigDescription: null });
    expect(missing.errors?.map((e) => [e.path?.[0], e.extensions.code, e.message, e.extensions.keycloak])).toEqual([
      [
        'authenticatorConfigDescription',
        'NOT_FOUND',
        'Could not find authenticator provider',
        (await api.get(`${base}/config-description/nope`)).body,
      ],
      [
        'requiredActionConfigDescription',
        'NOT_FOUND',
        'Could not find configurable RequiredAction provider',
        (await api.get(`${base}/required-actions/delete_account/config-description`)).body,
      ],
    ]);
  });

  test('an execution: create from the raw representation, read one, the same as REST', async () => {
    expect((await api.post(`${base}/flows/browser/copy`, { newName: 'gql-raw' })).status).toBe(201);
    const flowId = ((await api.get(`${base}/flows`)).body as Json[]).find((f) => f.alias === 'gql-raw')?.id as string;
    const EXE = '{ id authenticator authenticatorConfig authenticatorFlow flowId parentFlow priority requirement }';
    const created = ok(
      await gql(
        `mutation($r: String!, $in: AuthenticationExecutionInput!) { createAuthenticationExecution(realm: $r, input: $in) { authenticationExecution ${EXE} } }`,
        {
          r: R,
          in: { parentFlow: flowId, authenticator: 'auth-otp-form', requirement: 'DISABLED' },
        },
      ),
    ).createAuthenticationExecution.authenticationExecution as Json;
    expect(created).toMatchObject({
      authenticator: 'auth-otp-form',
      parentFlow: flowId,
      requirement: 'DISABLED',
      authenticatorFlow: false,
    });
    const rest = await api.get(`${base}/executions/${created.id}`);
    expect(dropNulls(created)).toEqual(rest.body);
    const read = ok(
      await gql(`query($r: String!, $id: ID!) { authenticationExecution(realm: $r, id: $id) ${EXE} }`, { r: R, id: created.id }),
    );
    expect(read.authenticationExecution).toEqual(created);

    const noParent = await gql(
      `mutation($r: String!) { createAuthenticationExecution(realm: $r, input: { authenticator: "auth-cookie" }) { authenticationExecution { id } ${USER_ERRORS} } }`,
      {
        r: R,
      },
    );
    const restNoParent = await api.post(`${base}/executions`, { authenticator: 'auth-cookie' });
    expect(restNoParent.status).toBe(400);
    expect(userErrors(noParent, 'createAuthenticationExecution')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: restNoParent.body.error },
    ]);
    const unknown = await gql(`query($r: String!) { authenticationExecution(realm: $r, id: "nope") { id } }`, { r: R });
    expect([unknown.data?.authenticationExecution, unknown.errors?.[0].extensions.code, unknown.errors?.[0].message]).toEqual([
      null,
      'NOT_FOUND',
      'Illegal execution',
    ]);
  });

  test('raise and lower: executions and required actions move as over REST', async () => {
    const topLevel = async () =>
      ((await api.get(`${base}/flows/gql-raw/executions`)).body as Json[]).filter((e) => e.level === 0).map((e) => e.id);
    const before = await topLevel();
    const last = before[before.length - 1];
    ok(
      await gql(`mutation($r: String!, $id: ID!) { moveAuthenticationExecution(realm: $r, id: $id, direction: RAISE) { ok } }`, {
        r: R,
        id: last,
      }),
    );
    const after = await topLevel();
    expect(after.indexOf(last)).toBe(after.length - 2);
    const order = async () => ((await api.get(`${base}/required-actions`)).body as Json[]).map((a) => a.alias);
    const actions = await order();
    ok(
      await gql(`mutation($r: String!, $a: String!) { moveRequiredAction(realm: $r, alias: $a, direction: LOWER) { ok } }`, {
        r: R,
        a: actions[0],
      }),
    );
    expect((await order()).slice(0, 2)).toEqual([actions[1], actions[0]]);
  });

  test('a required action and its config: read, update, delete, the same as REST', async () => {
    const action = ok(
      await gql(
        `query($r: String!) { requiredAction(realm: $r, alias: "VERIFY_EMAIL") { alias name providerId enabled defaultAction priority config } }`,
        {
          r: R,
        },
      ),
    ).requiredAction;
    expect(action).toEqual((await api.get(`${base}/required-actions/VERIFY_EMAIL`)).body);
    const updated = ok(
      await gql(
        `mutation($r: String!) { updateRequiredActionConfig(realm: $r, alias: "UPDATE_PASSWORD", config: { max_auth_age: "301", other: "x" }) { requiredActionConfig { config } } }`,
        { r: R },
      ),
    ).updateRequiredActionConfig.requiredActionConfig;
    expect(updated).toEqual({ config: { max_auth_age: 301 } });
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config`)).body).toEqual(updated);
    const read = ok(await gql(`query($r: String!) { requiredActionConfig(realm: $r, alias: "UPDATE_PASSWORD") { config } }`, { r: R }));
    expect(read.requiredActionConfig).toEqual(updated);
    ok(await gql(`mutation($r: String!) { deleteRequiredActionConfig(realm: $r, alias: "UPDATE_PASSWORD") { ok } }`, { r: R }));
    expect((await api.get(`${base}/required-actions/UPDATE_PASSWORD/config`)).body).toEqual({ config: { max_auth_age: 300 } });
    const notConfigurable = await gql(`query($r: String!) { requiredActionConfig(realm: $r, alias: "delete_account") { config } }`, {
      r: R,
    });
    expect([notConfigurable.errors?.[0].extensions.http?.status, notConfigurable.errors?.[0].extensions.keycloak]).toEqual([
      400,
      (await api.get(`${base}/required-actions/delete_account/config`)).body,
    ]);
  });

  test('the catalogue operations apply the REST permission rules: FORBIDDEN without the role', async () => {
    await realmAdmin(ts, R, 'gql-auth-users', ['view-users']);
    const asUsers = gqlClient(ts, { realm: R, username: 'gql-auth-users', password: 'pw' });
    const read = await asUsers(`query($r: String!) { authenticatorConfigDescription(realm: $r, providerId: "auth-cookie") { name } }`, {
      r: R,
    });
    expect(read.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    const listing = await asUsers(`query($r: String!) { realm(name: $r) { formProviders { id } } }`, { r: R });
    expect(listing.errors?.map((e) => [e.path, e.extensions.code])).toEqual([[['realm', 'formProviders'], 'FORBIDDEN']]);
    await realmAdmin(ts, R, 'gql-auth-viewer', ['view-realm']);
    const asViewer = gqlClient(ts, { realm: R, username: 'gql-auth-viewer', password: 'pw' });
    expect(
      ok(await asViewer(`query($r: String!) { requiredActionConfig(realm: $r, alias: "UPDATE_PASSWORD") { config } }`, { r: R })),
    ).toBeTruthy();
    const write = await asViewer(`mutation($r: String!) { deleteRequiredActionConfig(realm: $r, alias: "UPDATE_PASSWORD") { ok } }`, {
      r: R,
    });
    expect(write.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
