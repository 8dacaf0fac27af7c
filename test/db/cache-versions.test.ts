import { QueryTypes } from 'sequelize';
import { createClient, createdId, createGroup, createRole, createUser, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * The cache versions (migration 0013, ADR 23) are raised by the database itself, in the writing
 * transaction, by every write that changes what a node caches: each write family below, made through
 * the admin API, must move the realm's (or the user's) counter. The counters are read from their
 * tables: no API shows them; what they cause is pinned end to end in test/rest/cache-nodes.test.ts.
 */

const R = 'versions';
let ts: TestServer;
let api: AdminApi;
let realmId: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
});
afterAll(() => ts.close());

async function realmVersion(): Promise<number> {
  const [row] = await ts.db.sequelize.query<{ version: number }>('SELECT version FROM realm_cache_version WHERE realm_id = :realmId', {
    replacements: { realmId },
    type: QueryTypes.SELECT,
  });
  return Number(row.version);
}

async function userVersion(userId: string): Promise<number | undefined> {
  const [row] = await ts.db.sequelize.query<{ version: number }>('SELECT version FROM user_cache_version WHERE user_id = :userId', {
    replacements: { userId },
    type: QueryTypes.SELECT,
  });
  return row ? Number(row.version) : undefined;
}

/** Runs the write and expects the realm's version to have moved. */
async function raisesRealm(what: string, write: () => Promise<unknown>): Promise<void> {
  const before = await realmVersion();
  await write();
  const after = await realmVersion();
  if (!(after > before)) throw new Error(`${what} did not raise the realm's cache version (${before} → ${after})`);
}

/** A write the API accepted (2xx), whichever success status it answers with. */
const done = (res: { status: number; body: unknown }) => {
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

const ok = (status: number) => (res: { status: number; body: unknown }) => {
  if (res.status !== status) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

test('realm, client, role, composite, group, group mapping, component and identity provider writes raise the realm version', async () => {
  await raisesRealm('realm update', () => api.put(`/admin/realms/${R}`, { displayName: 'V' }).then(ok(204)));

  let clientId = '';
  await raisesRealm('client create', async () => {
    clientId = await createClient(api, R, { clientId: 'versioned' });
  });
  await raisesRealm('client update', () =>
    api.put(`/admin/realms/${R}/clients/${clientId}`, { clientId: 'versioned', description: 'd' }).then(ok(204)),
  );

  let parent = { id: '', name: '' };
  let child = { id: '', name: '' };
  await raisesRealm('role create', async () => {
    parent = await createRole(api, R, 'parent');
  });
  child = await createRole(api, R, 'child');
  await raisesRealm('role update', () =>
    api.put(`/admin/realms/${R}/roles-by-id/${child.id}`, { name: 'child', description: 'x' }).then(ok(204)),
  );
  await raisesRealm('composite add', () => api.post(`/admin/realms/${R}/roles-by-id/${parent.id}/composites`, [child]).then(ok(204)));
  await raisesRealm('composite remove', () => api.delete(`/admin/realms/${R}/roles-by-id/${parent.id}/composites`, [child]).then(ok(204)));

  const group = await createGroup(api, R, 'staff');
  await raisesRealm('group mapping add', () => api.post(`/admin/realms/${R}/groups/${group}/role-mappings/realm`, [child]).then(ok(204)));
  await raisesRealm('group mapping remove', () =>
    api.delete(`/admin/realms/${R}/groups/${group}/role-mappings/realm`, [child]).then(ok(204)),
  );
  await raisesRealm('group rename', () => api.put(`/admin/realms/${R}/groups/${group}`, { name: 'staff2' }).then(ok(204)));
  await raisesRealm('group delete', () => api.delete(`/admin/realms/${R}/groups/${group}`).then(ok(204)));

  let componentId = '';
  await raisesRealm('component create', async () => {
    componentId = createdId(
      await api.post(`/admin/realms/${R}/components`, {
        name: 'extra-hmac',
        providerId: 'hmac-generated',
        providerType: 'org.keycloak.keys.KeyProvider',
        config: { priority: ['10'] },
      }),
      'component',
    );
  });
  await raisesRealm('component delete', () => api.delete(`/admin/realms/${R}/components/${componentId}`).then(ok(204)));
  await raisesRealm('user profile update', async () => {
    const profile = (await api.get(`/admin/realms/${R}/users/profile`)).body;
    await api.put(`/admin/realms/${R}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }).then(ok(200));
  });

  const idp = {
    alias: 'corp',
    providerId: 'oidc',
    config: { clientId: 'x', clientSecret: 'y', authorizationUrl: 'https://c/a', tokenUrl: 'https://c/t' },
  };
  await raisesRealm('identity provider create', () => api.post(`/admin/realms/${R}/identity-provider/instances`, idp).then(ok(201)));
  await raisesRealm('identity provider delete', () => api.delete(`/admin/realms/${R}/identity-provider/instances/corp`).then(ok(204)));

  await raisesRealm('role delete', () => api.delete(`/admin/realms/${R}/roles-by-id/${child.id}`).then(ok(204)));
  await raisesRealm('client delete', () => api.delete(`/admin/realms/${R}/clients/${clientId}`).then(ok(204)));
});

test('client scope, scope link, protocol mapper, scope mapping, default scope and authentication writes raise the realm version (0028)', async () => {
  const C = `/admin/realms/${R}`;
  const client = await createClient(api, R, { clientId: 'scoped', fullScopeAllowed: false });
  let scopeId = '';
  await raisesRealm('client scope create', async () => {
    scopeId = createdId(await api.post(`${C}/client-scopes`, { name: 'extra', protocol: 'openid-connect' }), 'client-scopes');
  });
  await raisesRealm('client scope update', () =>
    api.put(`${C}/client-scopes/${scopeId}`, { name: 'extra', protocol: 'openid-connect', description: 'd' }).then(done),
  );
  await raisesRealm('scope link add', () => api.put(`${C}/clients/${client}/optional-client-scopes/${scopeId}`).then(done));
  await raisesRealm('scope link remove', () => api.delete(`${C}/clients/${client}/optional-client-scopes/${scopeId}`).then(done));
  const mapper = {
    name: 'm',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-hardcoded-claim-mapper',
    config: { 'claim.name': 'x', 'claim.value': 'y', 'access.token.claim': 'true' },
  };
  let mapperId = '';
  await raisesRealm('client mapper create', async () => {
    mapperId = createdId(await api.post(`${C}/clients/${client}/protocol-mappers/models`, mapper), 'models');
  });
  await raisesRealm('client mapper update', () =>
    api
      .put(`${C}/clients/${client}/protocol-mappers/models/${mapperId}`, {
        ...mapper,
        id: mapperId,
        config: { ...mapper.config, 'claim.value': 'z' },
      })
      .then(done),
  );
  await raisesRealm('client mapper delete', () => api.delete(`${C}/clients/${client}/protocol-mappers/models/${mapperId}`).then(done));
  await raisesRealm('scope mapper create', () => api.post(`${C}/client-scopes/${scopeId}/protocol-mappers/models`, mapper).then(done));
  const role = await createRole(api, R, 'scoped-role');
  await raisesRealm('client scope mapping add', () => api.post(`${C}/clients/${client}/scope-mappings/realm`, [role]).then(done));
  await raisesRealm('client scope mapping remove', () => api.delete(`${C}/clients/${client}/scope-mappings/realm`, [role]).then(done));
  await raisesRealm('scope scope mapping add', () => api.post(`${C}/client-scopes/${scopeId}/scope-mappings/realm`, [role]).then(done));
  await raisesRealm('realm default scope add', () => api.put(`${C}/default-optional-client-scopes/${scopeId}`).then(done));
  await raisesRealm('realm default scope remove', () => api.delete(`${C}/default-optional-client-scopes/${scopeId}`).then(done));
  await raisesRealm('client scope delete', () => api.delete(`${C}/client-scopes/${scopeId}`).then(done));

  await raisesRealm('flow copy', () => api.post(`${C}/authentication/flows/browser/copy`, { newName: 'copied' }).then(done));
  const executions = (await api.get(`${C}/authentication/flows/copied/executions`)).body as Array<{ id: string; requirement: string }>;
  await raisesRealm('execution update', () =>
    api.put(`${C}/authentication/flows/copied/executions`, { ...executions[0], requirement: 'DISABLED' }).then(done),
  );
  await raisesRealm('authenticator config create', () =>
    api.post(`${C}/authentication/executions/${executions[0].id}/config`, { alias: 'cfg', config: { x: 'y' } }).then(done),
  );
  await raisesRealm('required action update', async () => {
    const action = (await api.get(`${C}/authentication/required-actions/CONFIGURE_TOTP`)).body;
    await api.put(`${C}/authentication/required-actions/CONFIGURE_TOTP`, { ...action, enabled: false }).then(done);
  });
});

test('adding and removing a default group raises the realm version (0037)', async () => {
  const group = await createGroup(api, R, 'default-one');
  await raisesRealm('default group add', () => api.put(`/admin/realms/${R}/default-groups/${group}`).then(ok(204)));
  await raisesRealm('default group remove', () => api.delete(`/admin/realms/${R}/default-groups/${group}`).then(ok(204)));
});

test("a user's own role mappings and group memberships raise the user's version; the counter comes and goes with the user", async () => {
  const userId = await createUser(ts, R, 'vera');
  const role = await createRole(api, R, 'vera-role');
  const group = await createGroup(api, R, 'vera-group');
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['mapping add', () => api.post(`/admin/realms/${R}/users/${userId}/role-mappings/realm`, [role]).then(ok(204))],
    ['mapping remove', () => api.delete(`/admin/realms/${R}/users/${userId}/role-mappings/realm`, [role]).then(ok(204))],
    ['group join', () => api.put(`/admin/realms/${R}/users/${userId}/groups/${group}`).then(ok(204))],
    ['group leave', () => api.delete(`/admin/realms/${R}/users/${userId}/groups/${group}`).then(ok(204))],
  ];
  for (const [what, write] of steps) {
    const before = (await userVersion(userId)) as number;
    await write();
    const after = (await userVersion(userId)) as number;
    if (!(after > before)) throw new Error(`${what} did not raise the user's cache version (${before} → ${after})`);
  }
  await api.delete(`/admin/realms/${R}/users/${userId}`).then(ok(204));
  expect(await userVersion(userId)).toBeUndefined();
});
