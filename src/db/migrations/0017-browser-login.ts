import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Browser login (issue 14): the authentication sessions of logins in progress and the one-time
 * authorization codes they end with. Both are rows, so any node on the database can serve any step
 * of a login (the form on one node, its POST on another, the code exchange on a third). Each row
 * expires (`expires`, seconds) and is purged by its realm in small batches; the code's primary key
 * is a hash of the code, so the database never holds a usable code.
 */
const parent = (model: string, allowNull = false) => ({
  type: DataTypes.STRING(36),
  allowNull,
  references: { model, key: 'id' },
  onDelete: 'CASCADE',
});

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('authentication_session', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    root_id: { type: DataTypes.STRING(36), allowNull: false },
    realm_id: parent('realm'),
    client_id: parent('client'),
    user_id: parent('user_entity', true),
    session_code: { type: DataTypes.STRING(64), allowNull: false },
    expires: { type: DataTypes.INTEGER, allowNull: false },
    data: { type: DataTypes.TEXT, allowNull: true },
  });
  await qi.addIndex('authentication_session', ['root_id'], { name: 'ix_auth_session_root' });
  await qi.addIndex('authentication_session', ['realm_id', 'expires'], { name: 'ix_auth_session_expires' });

  await qi.createTable('authorization_code', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    realm_id: parent('realm'),
    client_id: parent('client'),
    user_session_id: parent('user_session'),
    expires: { type: DataTypes.INTEGER, allowNull: false },
    used: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    data: { type: DataTypes.TEXT, allowNull: true },
  });
  await qi.addIndex('authorization_code', ['realm_id', 'expires'], { name: 'ix_authorization_code_expires' });
  await qi.addIndex('authorization_code', ['user_session_id'], { name: 'ix_authorization_code_session' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('authorization_code');
  await qi.dropTable('authentication_session');
}
