import { DataTypes, type QueryInterface } from 'sequelize';

/** User (login) events and admin events, indexed by realm and time (listing is newest first). */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const text = qi.sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium');
  const s = (len = 255) => ({ type: DataTypes.STRING(len), allowNull: true });
  await qi.createTable('event_entity', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    time: { type: DataTypes.BIGINT, allowNull: false },
    type: s(),
    client_id: s(),
    user_id: s(),
    session_id: s(),
    ip_address: s(),
    error: s(),
    details: { type: text, allowNull: true },
  });
  await qi.addIndex('event_entity', ['realm_id', 'time'], { name: 'ix_event_realm_time' });
  await qi.createTable('admin_event_entity', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    time: { type: DataTypes.BIGINT, allowNull: false },
    operation_type: s(),
    resource_type: s(64),
    resource_path: s(2550),
    representation: { type: text, allowNull: true },
    error: s(),
    details: { type: text, allowNull: true },
    auth_realm_id: s(),
    auth_client_id: s(),
    auth_user_id: s(),
    ip_address: s(),
  });
  await qi.addIndex('admin_event_entity', ['realm_id', 'time'], { name: 'ix_admin_event_realm_time' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('admin_event_entity');
  await qi.dropTable('event_entity');
}
