import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Sessions and brute-force detection: remember-me and auth method on user sessions, the client
 * sessions of a user session (online or offline), and one login-failure row per locked-out user.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('user_session', 'remember_me', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  await qi.addColumn('user_session', 'auth_method', { type: DataTypes.STRING(64), allowNull: true });
  await qi.addIndex('user_session', ['realm_id', 'offline', 'last_access'], { name: 'ix_user_session_realm_offline' });

  await qi.createTable('client_session', {
    user_session_id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    client_id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    offline: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    timestamp: { type: DataTypes.INTEGER, allowNull: false },
  });
  await qi.addIndex('client_session', ['client_id', 'offline'], { name: 'ix_client_session_client' });
  await qi.addIndex('client_session', ['realm_id', 'offline'], { name: 'ix_client_session_realm' });

  await qi.createTable('login_failure', {
    user_id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    num_failures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    num_temporary_lockouts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    last_failure: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    last_ip_failure: { type: DataTypes.STRING(64), allowNull: true },
    failed_login_not_before: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await qi.addIndex('login_failure', ['realm_id'], { name: 'ix_login_failure_realm' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('login_failure');
  await qi.dropTable('client_session');
  await qi.removeIndex('user_session', 'ix_user_session_realm_offline');
  await qi.removeColumn('user_session', 'auth_method');
  await qi.removeColumn('user_session', 'remember_me');
}
