import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Authorization services (issue 13): a client's resource server and its resources, scopes and
 * policies (permissions are policies of type `resource` or `scope`), with Keycloak's link tables.
 * The resource server's id is its client's id (as in Keycloak), so deleting the client removes the
 * resource server and, through it, everything below (ADR 21: ON DELETE CASCADE on every reference).
 * Names are unique as Keycloak has them: a resource per resource server and owner, a scope and a
 * policy per resource server.
 */
const s = (len = 255, allowNull = true) => ({ type: DataTypes.STRING(len), allowNull });
const pk = () => ({ type: DataTypes.STRING(36), primaryKey: true, allowNull: false });
const text = () => ({ type: DataTypes.TEXT, allowNull: true });
const flag = (defaultValue = false) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });
const parent = (model: string, primaryKey = false) => ({
  type: DataTypes.STRING(36),
  allowNull: false,
  ...(primaryKey ? { primaryKey: true } : {}),
  references: { model, key: 'id' },
  onDelete: 'CASCADE',
});

/** The link tables: [table, first column and its parent, second column and its parent]. */
export const AUTHZ_LINKS: Array<[string, [string, string], [string, string]]> = [
  ['resource_scope', ['resource_id', 'resource_server_resource'], ['scope_id', 'resource_server_scope']],
  ['resource_policy', ['resource_id', 'resource_server_resource'], ['policy_id', 'resource_server_policy']],
  ['scope_policy', ['scope_id', 'resource_server_scope'], ['policy_id', 'resource_server_policy']],
  ['associated_policy', ['policy_id', 'resource_server_policy'], ['associated_policy_id', 'resource_server_policy']],
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('resource_server', {
    id: { ...parent('client', true) },
    realm_id: parent('realm'),
    policy_enforcement_mode: s(20, false),
    decision_strategy: s(20, false),
    allow_remote_resource_management: flag(),
  });
  await qi.addIndex('resource_server', ['realm_id'], { name: 'ix_resource_server_realm' });

  await qi.createTable('resource_server_resource', {
    id: pk(),
    resource_server_id: parent('resource_server'),
    name: s(255, false),
    display_name: s(),
    type: s(),
    icon_uri: s(),
    owner: s(255, false),
    owner_managed_access: flag(),
    uris: text(),
    attributes: text(),
  });
  await qi.addIndex('resource_server_resource', ['resource_server_id', 'name', 'owner'], {
    name: 'uq_authz_resource_name_owner',
    unique: true,
  });
  await qi.addIndex('resource_server_resource', ['resource_server_id', 'type'], { name: 'ix_authz_resource_type' });

  await qi.createTable('resource_server_scope', {
    id: pk(),
    resource_server_id: parent('resource_server'),
    name: s(255, false),
    display_name: s(),
    icon_uri: s(),
  });
  await qi.addIndex('resource_server_scope', ['resource_server_id', 'name'], { name: 'uq_authz_scope_name', unique: true });

  await qi.createTable('resource_server_policy', {
    id: pk(),
    resource_server_id: parent('resource_server'),
    name: s(255, false),
    description: s(),
    type: s(255, false),
    decision_strategy: s(20, false),
    logic: s(20, false),
    owner: s(),
    config: text(),
  });
  await qi.addIndex('resource_server_policy', ['resource_server_id', 'name'], { name: 'uq_authz_policy_name', unique: true });

  for (const [table, [a, aParent], [b, bParent]] of AUTHZ_LINKS) {
    await qi.createTable(table, { [a]: parent(aParent, true), [b]: parent(bParent, true) });
    await qi.addIndex(table, [b], { name: `ix_${table}_${b}` });
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table] of [...AUTHZ_LINKS].reverse()) await qi.dropTable(table);
  await qi.dropTable('resource_server_policy');
  await qi.dropTable('resource_server_scope');
  await qi.dropTable('resource_server_resource');
  await qi.dropTable('resource_server');
}
