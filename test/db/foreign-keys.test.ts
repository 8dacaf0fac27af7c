import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type request from 'supertest';
import { systemContext } from '../../src/core/context';
import { write } from '../../src/core/db-errors';
import { createSequelize, migrate } from '../../src/db';
import { createClient, createClientScope, createGroup, createRole, createUser, expectStatus, realmServer } from '../helpers/fixtures';
import { type AdminApi, freshDbOptions, TEST_DB_URL, type TestServer } from '../helpers/server';

/**
 * Foreign keys (issue 10, ADR 21): every real reference between rows is a constraint in the
 * database's own catalog, a database migrated from 0011 loses exactly its orphan rows, and deleting
 * a parent while requests link to it leaves no orphan and answers no 5xx.
 */

/** The relations and their ON DELETE rules, as ADR 21 lists them (and ADRs 23 and 24 the cache versions' and the search side table's): `table.column -> parent RULE`. */
const EXPECTED = [
  // 0017: browser login, gone with their realm, client, user or user session.
  'authentication_session.realm_id -> realm.id CASCADE',
  'authentication_session.client_id -> client.id CASCADE',
  'authorization_code.realm_id -> realm.id CASCADE',
  'authorization_code.client_id -> client.id CASCADE',
  'authorization_code.user_session_id -> user_session.id CASCADE',
  // 0016: authorization services, gone with their client (and realm).
  'resource_server.id -> client.id CASCADE',
  'resource_server.realm_id -> realm.id CASCADE',
  'resource_server_resource.resource_server_id -> resource_server.id CASCADE',
  'resource_server_scope.resource_server_id -> resource_server.id CASCADE',
  'resource_server_policy.resource_server_id -> resource_server.id CASCADE',
  'resource_scope.resource_id -> resource_server_resource.id CASCADE',
  'resource_scope.scope_id -> resource_server_scope.id CASCADE',
  'resource_policy.resource_id -> resource_server_resource.id CASCADE',
  'resource_policy.policy_id -> resource_server_policy.id CASCADE',
  'scope_policy.scope_id -> resource_server_scope.id CASCADE',
  'scope_policy.policy_id -> resource_server_policy.id CASCADE',
  'associated_policy.policy_id -> resource_server_policy.id CASCADE',
  'associated_policy.associated_policy_id -> resource_server_policy.id CASCADE',
  // 0020: organizations, gone with their realm; domains, attributes and members with their organization (members also with their user).
  'organization.realm_id -> realm.id CASCADE',
  'organization_domain.realm_id -> realm.id CASCADE',
  'organization_domain.organization_id -> organization.id CASCADE',
  'organization_attribute.organization_id -> organization.id CASCADE',
  'organization_member.organization_id -> organization.id CASCADE',
  'organization_member.user_id -> user_entity.id CASCADE',
  // 0027: invitations, gone with their organization.
  'organization_invitation.organization_id -> organization.id CASCADE',
  'realm_cache_version.realm_id -> realm.id CASCADE',
  'user_cache_version.user_id -> user_entity.id CASCADE',
  'user_search_name.user_id -> user_entity.id CASCADE',
  'authentication_execution.config_id -> authenticator_config.id SET NULL',
  'authentication_execution.parent_flow_id -> authentication_flow.id CASCADE',
  'authentication_execution.realm_id -> realm.id CASCADE',
  'authentication_execution.sub_flow_id -> authentication_flow.id CASCADE',
  'authentication_flow.realm_id -> realm.id CASCADE',
  'authenticator_config.realm_id -> realm.id CASCADE',
  // 0033: CIBA authentication requests, gone with their realm, client or user.
  'ciba_auth_request.realm_id -> realm.id CASCADE',
  'ciba_auth_request.client_id -> client.id CASCADE',
  'ciba_auth_request.user_id -> user_entity.id CASCADE',
  'client.realm_id -> realm.id CASCADE',
  'client_initial_access.realm_id -> realm.id CASCADE',
  'client_scope.realm_id -> realm.id CASCADE',
  'client_scope_client.client_id -> client.id CASCADE',
  'client_scope_client.scope_id -> client_scope.id CASCADE',
  'client_session.client_id -> client.id CASCADE',
  'client_session.realm_id -> realm.id CASCADE',
  'client_session.user_session_id -> user_session.id CASCADE',
  'component.realm_id -> realm.id CASCADE',
  'composite_role.child_id -> role.id CASCADE',
  'composite_role.composite_id -> role.id CASCADE',
  'credential.user_id -> user_entity.id CASCADE',
  'federated_identity.realm_id -> realm.id CASCADE',
  'group_role_mapping.group_id -> keycloak_group.id CASCADE',
  'group_role_mapping.role_id -> role.id CASCADE',
  'identity_provider.realm_id -> realm.id CASCADE',
  'idp_mapper.identity_provider_id -> identity_provider.internal_id CASCADE',
  'idp_mapper.realm_id -> realm.id CASCADE',
  'keycloak_group.realm_id -> realm.id CASCADE',
  'login_failure.realm_id -> realm.id CASCADE',
  'protocol_mapper.client_id -> client.id CASCADE',
  'protocol_mapper.client_scope_id -> client_scope.id CASCADE',
  'pushed_authz_request.client_id -> client.id CASCADE',
  'pushed_authz_request.realm_id -> realm.id CASCADE',
  'realm_default_client_scope.realm_id -> realm.id CASCADE',
  'realm_default_client_scope.scope_id -> client_scope.id CASCADE',
  'realm_default_group.group_id -> keycloak_group.id CASCADE',
  'realm_default_group.realm_id -> realm.id CASCADE',
  'realm_localization.realm_id -> realm.id CASCADE',
  'realm_user_count.realm_id -> realm.id CASCADE',
  'required_action_provider.realm_id -> realm.id CASCADE',
  'role.client_id -> client.id CASCADE',
  'role.realm_id -> realm.id CASCADE',
  'scope_mapping.role_id -> role.id CASCADE',
  'user_attribute.user_id -> user_entity.id CASCADE',
  'user_consent.client_id -> client.id CASCADE',
  'user_consent_client_scope.scope_id -> client_scope.id CASCADE',
  'user_consent_client_scope.user_consent_id -> user_consent.id CASCADE',
  'user_entity.realm_id -> realm.id CASCADE',
  'user_entity.service_account_client_link -> client.id CASCADE',
  'user_group_membership.group_id -> keycloak_group.id CASCADE',
  'user_group_membership.user_id -> user_entity.id CASCADE',
  'user_required_action.user_id -> user_entity.id CASCADE',
  'user_role_mapping.role_id -> role.id CASCADE',
  'user_role_mapping.user_id -> user_entity.id CASCADE',
  'user_session.realm_id -> realm.id CASCADE',
  'used_action_token.realm_id -> realm.id CASCADE',
];

interface Fk {
  table: string;
  column: string;
  parent: string;
  key: string;
  rule: string;
}

/** The foreign keys the database itself knows (its catalog), whatever the migrations meant to add. */
async function catalog(s: Sequelize): Promise<Fk[]> {
  if (s.getDialect() === 'sqlite') {
    const tables = await s.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", {
      type: QueryTypes.SELECT,
    });
    const out: Fk[] = [];
    for (const { name } of tables) {
      const rows = await s.query<{ table: string; from: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list(\`${name}\`)`, {
        type: QueryTypes.SELECT,
      });
      for (const r of rows) out.push({ table: name, column: r.from, parent: r.table, key: r.to, rule: r.on_delete });
    }
    return out;
  }
  return s.query<Fk>(
    `SELECT k.TABLE_NAME AS \`table\`, k.COLUMN_NAME AS \`column\`, k.REFERENCED_TABLE_NAME AS parent,
            k.REFERENCED_COLUMN_NAME AS \`key\`, r.DELETE_RULE AS rule
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
      WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL`,
    { type: QueryTypes.SELECT },
  );
}

const describeFk = (f: Fk) => `${f.table}.${f.column} -> ${f.parent}.${f.key} ${f.rule}`;

/** The inventory as relations: `table.column -> parent.key RULE`. */
const inventory = (): Fk[] =>
  EXPECTED.map((line) => {
    const [, table, column, parent, key, rule] = /^(\w+)\.(\w+) -> (\w+)\.(\w+) (.+)$/.exec(line) as RegExpExecArray;
    return { table, column, parent, key, rule };
  });

/** Rows whose parent is missing, per relation of the inventory (the API never shows them: tables are read). */
async function orphans(s: Sequelize): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const f of inventory()) {
    const [row] = await s.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${f.table} c WHERE c.${f.column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${f.parent} p WHERE p.${f.key} = c.${f.column})`,
      { type: QueryTypes.SELECT },
    );
    if (Number(row.n)) out[describeFk(f)] = Number(row.n);
  }
  return out;
}

async function indexNames(s: Sequelize): Promise<string[]> {
  const rows =
    s.getDialect() === 'sqlite'
      ? await s.query<{ n: string }>("SELECT tbl_name || '.' || name AS n FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL", {
          type: QueryTypes.SELECT,
        })
      : await s.query<{ n: string }>(
          "SELECT DISTINCT CONCAT(TABLE_NAME, '.', INDEX_NAME) AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()",
          { type: QueryTypes.SELECT },
        );
  return rows.map((r) => r.n).sort();
}

describe('a migrated database', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ({ ts } = await realmServer('fk-catalog'));
  });
  afterAll(() => ts.close());

  test('has exactly the foreign keys of the inventory, with their ON DELETE rules', async () => {
    const found = (await catalog(ts.db.sequelize)).map(describeFk).sort();
    expect(found).toEqual([...EXPECTED].sort());
  });

  test('refuses a link to a row that does not exist', async () => {
    const { UserGroupMembership, User } = ts.db.models;
    const [user] = await User.findAll({ limit: 1 });
    await expect(UserGroupMembership.create({ userId: user.id, groupId: randomUUID() })).rejects.toMatchObject({
      name: 'SequelizeForeignKeyConstraintError',
    });
  });

  test("a refused link is the parent's 404 to the client, never a 500", async () => {
    const [user] = await ts.db.models.User.findAll({ limit: 1 });
    const link = () => ts.db.models.UserGroupMembership.create({ userId: user.id, groupId: randomUUID() });
    // MariaDB names the missing parent's table; SQLite does not, and Keycloak's generic 404 is used.
    await expect(write(systemContext(ts.db), {}, link)).rejects.toMatchObject({
      status: 404,
      body: { error: TEST_DB_URL ? 'Could not find group by id' : 'HTTP 404 Not Found' },
    });
  });
});

describe('migrating a database at 0011 that holds orphan rows', () => {
  let s: Sequelize;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDbOptions();
    cleanup = fresh.cleanup;
    s = createSequelize(fresh.opts);
    await migrate(s, '0011-localization');
  });
  afterAll(async () => {
    await s.close();
    await cleanup();
  });

  const insert = (table: string, row: Record<string, unknown>) =>
    s.query(`INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((k) => `:${k}`)})`, {
      replacements: row,
    });
  const ids = async (table: string, column = 'id') =>
    (await s.query<{ v: string }>(`SELECT ${column} AS v FROM ${table} ORDER BY ${column}`, { type: QueryTypes.SELECT })).map((r) => r.v);

  test('succeeds, removes exactly the orphans (and what hung off them), keeps every index', async () => {
    const realm = 'r-live';
    const gone = 'r-gone'; // a realm id no row has
    await insert('realm', { id: realm, name: 'live', enabled: true, created_at: 0 });
    const user = (id: string, realmId: string) =>
      insert('user_entity', { id, realm_id: realmId, username: id, email_constraint: id, created_timestamp: 0, enabled: true });
    await user('u-live', realm);
    await user('u-orphan', gone); // its realm is gone: it goes, and so do its rows below
    await insert('user_attribute', { id: 'a-live', user_id: 'u-live', name: 'x' });
    await insert('user_attribute', { id: 'a-of-orphan', user_id: 'u-orphan', name: 'x' });
    await insert('user_attribute', { id: 'a-orphan', user_id: 'u-missing', name: 'x' });
    await insert('role', { id: 'ro-live', realm_id: realm, container_id: realm, name: 'r' });
    await insert('keycloak_group', { id: 'g-live', realm_id: realm, parent_id: ' ', name: 'g' });
    await insert('user_role_mapping', { user_id: 'u-live', role_id: 'ro-live' });
    await insert('user_role_mapping', { user_id: 'u-live', role_id: 'ro-missing' });
    await insert('user_group_membership', { user_id: 'u-live', group_id: 'g-live' });
    await insert('user_group_membership', { user_id: 'u-live', group_id: 'g-missing' });
    await insert('composite_role', { composite_id: 'ro-live', child_id: 'ro-missing' });
    await insert('authentication_flow', { id: 'f-live', realm_id: realm, alias: 'f', provider_id: 'basic-flow' });
    await insert('authenticator_config', { id: 'cfg-live', realm_id: realm, alias: 'c' });
    await insert('authentication_execution', {
      id: 'e-live',
      realm_id: realm,
      parent_flow_id: 'f-live',
      requirement: 'REQUIRED',
      config_id: 'cfg-live',
    });
    // Its config is gone: Keycloak keeps such an execution, without a config (SET NULL).
    await insert('authentication_execution', {
      id: 'e-lost-config',
      realm_id: realm,
      parent_flow_id: 'f-live',
      requirement: 'REQUIRED',
      config_id: 'cfg-missing',
    });
    await insert('authentication_execution', { id: 'e-orphan', realm_id: realm, parent_flow_id: 'f-missing', requirement: 'REQUIRED' });
    // Top-level groups point at the ' ' sentinel (ADR 5), which no foreign key covers: they stay.
    await insert('keycloak_group', { id: 'g-top', realm_id: realm, parent_id: ' ', name: 'top' });
    const before = await indexNames(s);

    await migrate(s);

    expect(await ids('user_entity')).toEqual(['u-live']);
    expect(await ids('user_attribute')).toEqual(['a-live']);
    expect(await ids('user_role_mapping', 'role_id')).toEqual(['ro-live']);
    expect(await ids('user_group_membership', 'group_id')).toEqual(['g-live']);
    expect(await ids('composite_role', 'child_id')).toEqual([]);
    expect(await ids('keycloak_group')).toEqual(['g-live', 'g-top']);
    expect(await s.query('SELECT id, config_id AS config FROM authentication_execution ORDER BY id', { type: QueryTypes.SELECT })).toEqual([
      { id: 'e-live', config: 'cfg-live' },
      { id: 'e-lost-config', config: null },
    ]);
    expect(await orphans(s)).toEqual({});
    expect((await catalog(s)).map(describeFk).sort()).toEqual([...EXPECTED].sort());
    const after = await indexNames(s);
    // Migration 0014 replaces the (realm, email) index by a wider one starting with the same columns (ADR 24).
    const replaced = ['user_entity.ix_user_realm_email'];
    expect(before.filter((ix) => !after.includes(ix) && !replaced.includes(ix))).toEqual([]);
    expect(after).toContain('user_entity.ix_user_search_email');
  });
});

describe('deleting a parent while 25 requests link to it', () => {
  let ts: TestServer;
  let api: AdminApi;
  let live: AdminApi;
  const R = 'fk-race';
  const A = `/admin/realms/${R}`;

  beforeAll(async () => {
    ({ ts, api } = await realmServer(R));
    live = await ts.api({ live: true });
  });
  afterAll(() => ts.close());

  const send = (method: 'post' | 'put' | 'delete', path: string, body?: unknown) => live[method](path, body);
  const n = (i: number) => String(i).padStart(2, '0');

  /**
   * Fires the links with the delete among them: each link succeeds (it came first, and the delete
   * removed it) or finds its parent gone (404 with a Keycloak body); nothing else, never a 5xx.
   * Then the parent is gone and no row of any relation points at a missing parent.
   */
  async function raceDelete(links: Array<() => request.Test>, del: () => request.Test, stillThere: () => request.Test) {
    const requests = [...links];
    requests.splice(8, 0, del);
    const results = await Promise.all(requests.map((r) => r()));
    const wrong = results
      .filter((r, i) => (i === 8 ? r.status !== 204 : !(r.status === 204 || (r.status === 404 && typeof r.body?.error === 'string'))))
      .map((r) => `${r.status} ${JSON.stringify(r.body)}`);
    expect(wrong).toEqual([]);
    expect((await stillThere()).status).toBe(404);
    expect(await orphans(ts.db.sequelize)).toEqual({});
  }

  test('a user: group memberships and role mappings', async () => {
    const user = await createUser(ts, R, 'doomed-user');
    const groups = await Promise.all(Array.from({ length: 13 }, (_, i) => createGroup(api, R, `du-g${n(i)}`)));
    const roles = await Promise.all(Array.from({ length: 12 }, (_, i) => createRole(api, R, `du-r${n(i)}`)));
    await raceDelete(
      [
        ...groups.map((g) => () => send('put', `${A}/users/${user}/groups/${g}`)),
        ...roles.map((r) => () => send('post', `${A}/users/${user}/role-mappings/realm`, [r])),
      ],
      () => send('delete', `${A}/users/${user}`),
      () => api.get(`${A}/users/${user}`),
    );
  });

  test('a group: members and role mappings', async () => {
    const group = await createGroup(api, R, 'doomed-group');
    const users = await Promise.all(Array.from({ length: 13 }, (_, i) => createUser(ts, R, `dg-u${n(i)}`)));
    const roles = await Promise.all(Array.from({ length: 12 }, (_, i) => createRole(api, R, `dg-r${n(i)}`)));
    await raceDelete(
      [
        ...users.map((u) => () => send('put', `${A}/users/${u}/groups/${group}`)),
        ...roles.map((r) => () => send('post', `${A}/groups/${group}/role-mappings/realm`, [r])),
      ],
      () => send('delete', `${A}/groups/${group}`),
      () => api.get(`${A}/groups/${group}`),
    );
  });

  test('a client: scope mappings and client scopes', async () => {
    const client = await createClient(api, R, { clientId: 'doomed-client' });
    const roles = await Promise.all(Array.from({ length: 13 }, (_, i) => createRole(api, R, `dc-r${n(i)}`)));
    const scopes = await Promise.all(Array.from({ length: 12 }, (_, i) => createClientScope(api, R, `dc-s${n(i)}`)));
    await raceDelete(
      [
        ...roles.map((r) => () => send('post', `${A}/clients/${client}/scope-mappings/realm`, [r])),
        ...scopes.map((s, i) => () => send('put', `${A}/clients/${client}/${i % 2 ? 'optional' : 'default'}-client-scopes/${s}`)),
      ],
      () => send('delete', `${A}/clients/${client}`),
      () => api.get(`${A}/clients/${client}`),
    );
  });

  test('a client scope: clients, realm defaults and scope mappings', async () => {
    const scope = await createClientScope(api, R, 'doomed-scope');
    const clients = await Promise.all(Array.from({ length: 13 }, (_, i) => createClient(api, R, { clientId: `ds-c${n(i)}` })));
    const roles = await Promise.all(Array.from({ length: 11 }, (_, i) => createRole(api, R, `ds-r${n(i)}`)));
    await raceDelete(
      [
        ...clients.map((c, i) => () => send('put', `${A}/clients/${c}/${i % 2 ? 'optional' : 'default'}-client-scopes/${scope}`)),
        ...roles.map((r) => () => send('post', `${A}/client-scopes/${scope}/scope-mappings/realm`, [r])),
        () => send('put', `${A}/default-default-client-scopes/${scope}`),
      ],
      () => send('delete', `${A}/client-scopes/${scope}`),
      () => api.get(`${A}/client-scopes/${scope}`),
    );
  });
});

test('realm deletion removes every row of the realm, with foreign keys on', async () => {
  const { ts, api } = await realmServer('fk-doomed-realm');
  try {
    const user = await createUser(ts, 'fk-doomed-realm', 'someone');
    const group = await createGroup(api, 'fk-doomed-realm', 'team');
    expectStatus(await api.put(`/admin/realms/fk-doomed-realm/users/${user}/groups/${group}`), 204, 'join');
    expectStatus(await api.delete('/admin/realms/fk-doomed-realm'), 204, 'realm delete');
    expect(await orphans(ts.db.sequelize)).toEqual({});
    expect(await ts.db.models.User.count({ where: { id: user } })).toBe(0);
  } finally {
    await ts.close();
  }
});
