import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL over components, keys and server info: the same data and errors as REST. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlcomponents';
const KP = 'org.keycloak.keys.KeyProvider';

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

const FIELDS = 'id name providerId providerType parentId subType config';

describe('components, keys and serverinfo over GraphQL', () => {
  test('Realm.components and Realm.keys equal the REST reads', async () => {
    const data = ok(
      await gql(
        `query($r: String!, $t: String) { realm(name: $r) { components(type: $t) { ${FIELDS} } keys { active keys { kid providerId providerPriority status type algorithm use publicKey certificate validTo } } } }`,
        {
          r: R,
          t: KP,
        },
      ),
    );
    const realm = data.realm as Json;
    const rest = (await api.get(`/admin/realms/${R}/components?type=${KP}`)).body as Json[];
    expect(realm.components.map((c: Json) => c.id)).toEqual(rest.map((c) => c.id));
    expect(realm.components.find((c: Json) => c.name === 'rsa-generated').config).toEqual({ priority: ['100'] });
    const keys = (await api.get(`/admin/realms/${R}/keys`)).body;
    expect(realm.keys.active).toEqual(keys.active);
    expect(realm.keys.keys.map((k: Json) => ({ ...Object.fromEntries(Object.entries(k).filter(([, v]) => v !== null)) }))).toEqual(
      keys.keys,
    );
  });

  test('create, update, read, delete a key provider; the new key becomes active', async () => {
    const created = ok(
      await gql(`mutation($r: String!, $i: ComponentCreateInput!) { createComponent(realm: $r, input: $i) { component { ${FIELDS} } } }`, {
        r: R,
        i: { name: 'gql-hmac', providerId: 'hmac-generated', providerType: KP, config: { priority: ['500'], algorithm: ['HS512'] } },
      }),
    ).createComponent.component as Json;
    expect(created).toMatchObject({ name: 'gql-hmac', providerId: 'hmac-generated', config: { priority: ['500'], algorithm: ['HS512'] } });
    const keys = (await api.get(`/admin/realms/${R}/keys`)).body;
    const mine = keys.keys.find((k: Json) => k.providerId === created.id);
    expect(keys.active.HS512).toBe(mine.kid);

    const updated = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $i: ComponentUpdateInput!) { updateComponent(realm: $r, id: $id, input: $i) { component { name config } } }`,
        {
          r: R,
          id: created.id,
          i: { name: 'renamed', config: { active: ['false'] } },
        },
      ),
    ).updateComponent.component as Json;
    expect(updated).toEqual({ name: 'renamed', config: { priority: ['500'], algorithm: ['HS512'], active: ['false'] } });
    const one = ok(await gql(`query($r: String!, $id: ID!) { component(realm: $r, id: $id) { ${FIELDS} } }`, { r: R, id: created.id }));
    expect(one.component).toEqual({ ...(await api.get(`/admin/realms/${R}/components/${created.id}`)).body, subType: null });
    expect(
      ok(await gql('mutation($r: String!, $id: ID!) { deleteComponent(realm: $r, id: $id) { ok } }', { r: R, id: created.id }))
        .deleteComponent.ok,
    ).toBe(true);
    const gone = await gql(`query($r: String!, $id: ID!) { component(realm: $r, id: $id) { id } }`, { r: R, id: created.id });
    expect(gone.errors?.[0]).toMatchObject({ message: 'Could not find component', extensions: { http: { status: 404 } } });
  });

  test('validation and permission errors carry the REST status', async () => {
    const bad = await gql(
      'mutation($r: String!, $i: ComponentCreateInput!) { createComponent(realm: $r, input: $i) { component { id } userErrors { field code message } } }',
      {
        r: R,
        i: { name: 'x', providerId: 'nope', providerType: KP },
      },
    );
    expect(userErrors(bad, 'createComponent')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: 'Invalid provider type or no such provider' },
    ]);
    await realmAdmin(ts, R, 'gql-viewer', ['view-users']);
    const viewer = gqlClient(ts, { realm: R, username: 'gql-viewer', password: 'pw' });
    const denied = await viewer(`query($r: String!) { realm(name: $r) { keys { active } } }`, { r: R });
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
  });

  test('serverInfo: the dashboard parts and the whole representation', async () => {
    const data = ok(
      await gql(
        '{ serverInfo { systemInfo { version uptimeMillis } memoryInfo { total used free freePercentage } features { name enabled } themes representation } }',
      ),
    );
    const info = data.serverInfo as Json;
    expect(info.systemInfo.version).toMatch(/^26\./);
    expect(info.memoryInfo.total).toBeGreaterThan(0);
    expect(info.features.find((f: Json) => f.name === 'ADMIN_FINE_GRAINED_AUTHZ_V2').enabled).toBe(true);
    expect(Object.keys(info.themes)).toEqual(expect.arrayContaining(['login', 'admin', 'account', 'email']));
    expect(Object.keys(info.representation.componentTypes)).toContain(KP);
  });
});

describe('sub-component types and the providerId filter (GraphQL twins of REST)', () => {
  const MAPPER = 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper';
  const TYPES = `query($r: String!, $id: ID!, $t: String!) { component(realm: $r, id: $id) {
    subComponentTypes(type: $t) { id helpText metadata properties { name label helpText type defaultValue options secret required readOnly } } } }`;
  /** Drops the nulls GraphQL adds for fields REST leaves out. */
  const noNulls = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(noNulls)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === null ? [] : [[k, noNulls(x)]])))
        : v;
  let keyProvider: string;

  beforeAll(async () => {
    keyProvider = ((await api.get(`/admin/realms/${R}/components?type=${KP}&name=rsa-generated`)).body as Json[])[0].id;
  });

  test('Component.subComponentTypes equals GET /components/{id}/sub-component-types?type=', async () => {
    for (const type of [KP, MAPPER, 'java.lang.String']) {
      const rest = await api.get(`/admin/realms/${R}/components/${keyProvider}/sub-component-types?type=${type}`);
      expect(rest.status).toBe(200);
      const data = ok(await gql(TYPES, { r: R, id: keyProvider, t: type })).component as Json;
      expect(noNulls(data.subComponentTypes)).toEqual(noNulls(rest.body));
    }
    const kps = ok(await gql(TYPES, { r: R, id: keyProvider, t: KP })).component.subComponentTypes as Json[];
    expect(kps.map((t) => t.id)).toEqual(expect.arrayContaining(['rsa-generated', 'hmac-generated']));
  });

  test('Realm.components(providerId) equals GET /components?providerId=', async () => {
    const q = 'query($r: String!, $p: String) { realm(name: $r) { components(providerId: $p) { id name providerId } } }';
    const rest = (await api.get(`/admin/realms/${R}/components?providerId=rsa-generated`)).body as Json[];
    const data = ok(await gql(q, { r: R, p: 'rsa-generated' })).realm as Json;
    expect(data.components).toEqual(rest.map(({ id, name, providerId }) => ({ id, name, providerId })));
    expect(rest.length).toBeGreaterThan(0);
  });

  test('FORBIDDEN: sub-component types need view-realm, as REST', async () => {
    await realmAdmin(ts, R, 'gql-sub-nobody', ['view-users']);
    const nobody = gqlClient(ts, { realm: R, username: 'gql-sub-nobody', password: 'pw' });
    const res = await nobody(TYPES, { r: R, id: keyProvider, t: KP });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    const rest = await (await ts.api({ realm: R, username: 'gql-sub-nobody', password: 'pw' })).get(
      `/admin/realms/${R}/components/${keyProvider}/sub-component-types?type=${KP}`,
    );
    expect(rest.status).toBe(403);
  });
});
