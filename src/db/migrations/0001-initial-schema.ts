import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * The initial schema: realms, clients and client scopes, roles, users, groups, components, required
 * actions and user sessions. Frozen: later changes go into new migrations.
 */
const id = () => ({ type: DataTypes.STRING(36), primaryKey: true, allowNull: false });
const ref = (allowNull = false) => ({ type: DataTypes.STRING(36), allowNull });
const s = (len = 255, allowNull = true) => ({ type: DataTypes.STRING(len), allowNull });
const b = (defaultValue = false) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });
let mediumText = true;
const text = () => ({ type: mediumText ? DataTypes.TEXT('medium') : DataTypes.TEXT, allowNull: true });
const int = (defaultValue = 0) => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue });
const big = () => ({ type: DataTypes.BIGINT, allowNull: false });
const pk = (len = 36) => ({ type: DataTypes.STRING(len), primaryKey: true, allowNull: false });

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  mediumText = qi.sequelize.getDialect() !== 'sqlite';
  await qi.createTable('realm', { id: id(), name: s(255, false), enabled: b(), settings: text(), created_at: big() });
  await qi.addIndex('realm', ['name'], { name: 'uq_realm_name', unique: true });
  await qi.createTable('realm_default_group', { realm_id: pk(), group_id: pk() });

  await qi.createTable('client', {
    id: id(),
    realm_id: ref(),
    client_id: s(255, false),
    name: s(),
    enabled: b(true),
    protocol: s(64, false),
    public_client: b(),
    bearer_only: b(),
    service_accounts_enabled: b(),
    direct_access_grants_enabled: b(),
    full_scope_allowed: b(true),
    secret: s(),
    realm_client: b(),
    settings: text(),
  });
  await qi.addIndex('client', ['realm_id', 'client_id'], { name: 'uq_client_realm_client_id', unique: true });

  await qi.createTable('client_scope', {
    id: id(),
    realm_id: ref(),
    name: s(255, false),
    protocol: s(64, false),
    description: s(),
    attributes: text(),
  });
  await qi.addIndex('client_scope', ['realm_id', 'name'], { name: 'uq_client_scope_realm_name', unique: true });
  await qi.createTable('realm_default_client_scope', { realm_id: pk(), scope_id: pk(), default_scope: b(true) });
  await qi.createTable('client_scope_client', { client_id: pk(), scope_id: pk(), default_scope: b(true) });
  await qi.addIndex('client_scope_client', ['scope_id'], { name: 'ix_client_scope_client_scope' });
  await qi.createTable('protocol_mapper', {
    id: id(),
    name: s(255, false),
    protocol: s(64, false),
    protocol_mapper: s(255, false),
    client_id: ref(true),
    client_scope_id: ref(true),
    config: text(),
  });
  await qi.addIndex('protocol_mapper', ['client_id'], { name: 'ix_protocol_mapper_client' });
  await qi.addIndex('protocol_mapper', ['client_scope_id'], { name: 'ix_protocol_mapper_scope' });
  await qi.createTable('scope_mapping', { owner_id: pk(), role_id: pk() });
  await qi.addIndex('scope_mapping', ['role_id'], { name: 'ix_scope_mapping_role' });

  await qi.createTable('role', {
    id: id(),
    realm_id: ref(),
    client_id: ref(true),
    container_id: ref(),
    name: s(255, false),
    description: s(),
    attributes: text(),
  });
  await qi.addIndex('role', ['container_id', 'name'], { name: 'uq_role_container_name', unique: true });
  await qi.addIndex('role', ['realm_id'], { name: 'ix_role_realm' });
  await qi.createTable('composite_role', { composite_id: pk(), child_id: pk() });
  await qi.addIndex('composite_role', ['child_id'], { name: 'ix_composite_role_child' });

  await qi.createTable('user_entity', {
    id: id(),
    realm_id: ref(),
    username: s(255, false),
    email: s(),
    email_constraint: s(255, false),
    first_name: s(),
    last_name: s(),
    enabled: b(),
    email_verified: b(),
    created_timestamp: big(),
    service_account_client_link: ref(true),
    federation_link: s(),
    not_before: int(),
  });
  await qi.addIndex('user_entity', ['realm_id', 'username'], { name: 'uq_user_realm_username', unique: true });
  await qi.addIndex('user_entity', ['realm_id', 'email_constraint'], {
    name: 'uq_user_realm_email_constraint',
    unique: true,
  });
  await qi.addIndex('user_entity', ['realm_id', 'email'], { name: 'ix_user_realm_email' });
  await qi.addIndex('user_entity', ['service_account_client_link'], { name: 'ix_user_service_account' });
  await qi.createTable('user_attribute', { id: id(), user_id: ref(), name: s(255, false), value: text() });
  await qi.addIndex('user_attribute', ['user_id'], { name: 'ix_user_attribute_user' });
  await qi.addIndex('user_attribute', ['name'], { name: 'ix_user_attribute_name' });
  await qi.createTable('user_required_action', { user_id: pk(), required_action: pk(255) });
  await qi.createTable('credential', {
    id: id(),
    user_id: ref(),
    type: s(255, false),
    user_label: s(),
    secret_data: { type: DataTypes.TEXT, allowNull: false },
    credential_data: { type: DataTypes.TEXT, allowNull: false },
    priority: int(10),
    created_date: big(),
  });
  await qi.addIndex('credential', ['user_id'], { name: 'ix_credential_user' });
  await qi.createTable('user_role_mapping', { user_id: pk(), role_id: pk() });
  await qi.addIndex('user_role_mapping', ['role_id'], { name: 'ix_user_role_mapping_role' });
  await qi.createTable('user_group_membership', { user_id: pk(), group_id: pk() });
  await qi.addIndex('user_group_membership', ['group_id'], { name: 'ix_user_group_membership_group' });

  await qi.createTable('keycloak_group', {
    id: id(),
    realm_id: ref(),
    parent_id: ref(),
    name: s(255, false),
    description: s(),
    attributes: text(),
  });
  await qi.addIndex('keycloak_group', ['realm_id', 'parent_id', 'name'], { name: 'uq_group_sibling_name', unique: true });
  await qi.addIndex('keycloak_group', ['parent_id'], { name: 'ix_group_parent' });
  await qi.createTable('group_role_mapping', { group_id: pk(), role_id: pk() });
  await qi.addIndex('group_role_mapping', ['role_id'], { name: 'ix_group_role_mapping_role' });

  await qi.createTable('component', {
    id: id(),
    realm_id: ref(),
    parent_id: ref(),
    name: s(255, false),
    provider_id: s(255, false),
    provider_type: s(255, false),
    sub_type: s(),
    config: text(),
  });
  await qi.addIndex('component', ['realm_id', 'provider_type'], { name: 'ix_component_realm_type' });
  await qi.createTable('required_action_provider', {
    id: id(),
    realm_id: ref(),
    alias: s(255, false),
    name: s(255, false),
    provider_id: s(255, false),
    enabled: b(true),
    default_action: b(),
    priority: int(),
    config: text(),
  });
  await qi.addIndex('required_action_provider', ['realm_id', 'alias'], {
    name: 'uq_required_action_realm_alias',
    unique: true,
  });
  await qi.createTable('user_session', {
    id: id(),
    realm_id: ref(),
    user_id: ref(),
    client_id: ref(),
    ip_address: s(64),
    started: int(),
    last_access: int(),
    offline: b(),
    notes: text(),
  });
  await qi.addIndex('user_session', ['user_id'], { name: 'ix_user_session_user' });
  await qi.addIndex('user_session', ['realm_id'], { name: 'ix_user_session_realm' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of [
    'user_session',
    'required_action_provider',
    'component',
    'group_role_mapping',
    'keycloak_group',
    'user_group_membership',
    'user_role_mapping',
    'credential',
    'user_required_action',
    'user_attribute',
    'user_entity',
    'composite_role',
    'role',
    'scope_mapping',
    'protocol_mapper',
    'client_scope_client',
    'realm_default_client_scope',
    'client_scope',
    'client',
    'realm_default_group',
    'realm',
  ]) {
    await qi.dropTable(t);
  }
}
