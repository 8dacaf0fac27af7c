import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Identity providers of a realm (alias unique per realm) and their mappers (name unique per
 * provider): Keycloak's identity_provider and identity_provider_mapper entities.
 */
const s = (len = 255, allowNull = true) => ({ type: DataTypes.STRING(len), allowNull });
const pk = () => ({ type: DataTypes.STRING(36), primaryKey: true, allowNull: false });
const flag = (defaultValue = false) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('identity_provider', {
    internal_id: pk(),
    realm_id: s(36, false),
    alias: s(255, false),
    provider_id: s(255, false),
    display_name: s(),
    enabled: flag(true),
    trust_email: flag(),
    store_token: flag(),
    add_read_token_role_on_create: flag(),
    authenticate_by_default: flag(),
    link_only: flag(),
    hide_on_login: flag(),
    first_broker_login_flow_alias: s(),
    post_broker_login_flow_alias: s(),
    organization_id: s(36),
    config: { type: DataTypes.TEXT, allowNull: true },
  });
  await qi.addIndex('identity_provider', ['realm_id', 'alias'], { name: 'uq_identity_provider_realm_alias', unique: true });

  await qi.createTable('idp_mapper', {
    id: pk(),
    realm_id: s(36, false),
    identity_provider_id: s(36, false),
    name: s(255, false),
    mapper_type: s(255, false),
    config: { type: DataTypes.TEXT, allowNull: true },
  });
  await qi.addIndex('idp_mapper', ['identity_provider_id', 'name'], { name: 'uq_idp_mapper_idp_name', unique: true });
  await qi.addIndex('idp_mapper', ['realm_id'], { name: 'ix_idp_mapper_realm' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('idp_mapper');
  await qi.dropTable('identity_provider');
}
