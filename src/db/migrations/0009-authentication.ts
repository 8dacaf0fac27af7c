import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Authentication flows, their executions and authenticator configs (Keycloak's authentication_flow,
 * authentication_execution, authenticator_config). A flow alias and a config alias are unique per
 * realm (unique indexes; NULL config aliases never collide). `ord` keeps the creation order that
 * GET /flows lists in. Executions are read per realm (the flow tree is built in memory) or by parent.
 */
const id = () => ({ type: DataTypes.STRING(36), primaryKey: true, allowNull: false });
const ref = (allowNull = false) => ({ type: DataTypes.STRING(36), allowNull });
const s = (len = 255, allowNull = true) => ({ type: DataTypes.STRING(len), allowNull });
const b = (defaultValue = false) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const text = qi.sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium');
  await qi.createTable('authentication_flow', {
    id: id(),
    realm_id: ref(),
    alias: s(255, false),
    description: { type: DataTypes.STRING(1024), allowNull: true },
    provider_id: s(64, false),
    top_level: b(),
    built_in: b(),
    ord: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('authentication_flow', ['realm_id', 'alias'], { name: 'uq_auth_flow_realm_alias', unique: true });

  await qi.createTable('authenticator_config', {
    id: id(),
    realm_id: ref(),
    alias: s(255, true),
    config: { type: text, allowNull: true },
  });
  await qi.addIndex('authenticator_config', ['realm_id', 'alias'], { name: 'uq_authenticator_config_realm_alias', unique: true });

  await qi.createTable('authentication_execution', {
    id: id(),
    realm_id: ref(),
    parent_flow_id: ref(),
    authenticator: s(255, true),
    authenticator_flow: b(),
    sub_flow_id: ref(true),
    requirement: s(32, false),
    priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    config_id: ref(true),
  });
  await qi.addIndex('authentication_execution', ['realm_id'], { name: 'ix_auth_execution_realm' });
  await qi.addIndex('authentication_execution', ['parent_flow_id', 'priority'], { name: 'ix_auth_execution_parent' });
  await qi.addIndex('authentication_execution', ['config_id'], { name: 'ix_auth_execution_config' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('authentication_execution');
  await qi.dropTable('authenticator_config');
  await qi.dropTable('authentication_flow');
}
