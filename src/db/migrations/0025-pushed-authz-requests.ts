import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Pushed authorization requests (RFC 9126, issue 16): the parameters a client pushed to
 * `/protocol/openid-connect/ext/par/request`, kept under the key of the `request_uri` it was given
 * until the authorization endpoint uses them (once: the row is deleted) or they expire
 * (`expires_at`, epoch seconds, indexed for the purge). Rows, not memory: every node sees them.
 * A row goes with its realm and its client.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('pushed_authz_request', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: {
      type: DataTypes.STRING(36),
      allowNull: false,
      references: { model: 'realm', key: 'id' },
      onDelete: 'CASCADE',
    },
    client_id: {
      type: DataTypes.STRING(36),
      allowNull: false,
      references: { model: 'client', key: 'id' },
      onDelete: 'CASCADE',
    },
    params: { type: DataTypes.TEXT, allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('pushed_authz_request', ['expires_at'], { name: 'ix_pushed_authz_request_expiry' });
  await qi.addIndex('pushed_authz_request', ['realm_id'], { name: 'ix_pushed_authz_request_realm' });
  await qi.addIndex('pushed_authz_request', ['client_id'], { name: 'ix_pushed_authz_request_client' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('pushed_authz_request');
}
