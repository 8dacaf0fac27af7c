import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Client-initiated backchannel authentication requests (OpenID CIBA, issue 16): what
 * `/protocol/openid-connect/ext/ciba/auth` accepted, until the client exchanges it for tokens (the
 * row is deleted) or it is purged after it expired. Keycloak keeps them in its single-use object
 * store; rows are what every node sees. `id` is the SHA-256 of the `auth_req_id` the client holds,
 * `result_id` the SHA-256 of the bearer token the authentication device calls back with (neither
 * secret is stored), `status` pending / approved / denied, `next_poll_at` the first second the
 * token endpoint may be polled again (slow_down before), `purge_at` when the row may go (expiry +
 * interval + 10 s, so that a late poll still learns `expired_token`). A row goes with its realm,
 * client and user.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const ref = (model: string) => ({
    type: DataTypes.STRING(36),
    allowNull: false,
    references: { model, key: 'id' },
    onDelete: 'CASCADE',
  });
  await qi.createTable('ciba_auth_request', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    result_id: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    realm_id: ref('realm'),
    client_id: ref('client'),
    user_id: ref('user_entity'),
    scope: { type: DataTypes.TEXT, allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    /** Ping mode only: the client_notification_token and the auth_req_id the notification names. */
    notification: { type: DataTypes.TEXT, allowNull: true },
    /** JSON: binding message, acr values, the callback's additional parameters. */
    data: { type: DataTypes.TEXT, allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
    channel_expires_at: { type: DataTypes.BIGINT, allowNull: false },
    poll_interval: { type: DataTypes.INTEGER, allowNull: false },
    next_poll_at: { type: DataTypes.BIGINT, allowNull: false },
    purge_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('ciba_auth_request', ['purge_at'], { name: 'ix_ciba_auth_request_purge' });
  await qi.addIndex('ciba_auth_request', ['realm_id'], { name: 'ix_ciba_auth_request_realm' });
  await qi.addIndex('ciba_auth_request', ['client_id'], { name: 'ix_ciba_auth_request_client' });
  await qi.addIndex('ciba_auth_request', ['user_id'], { name: 'ix_ciba_auth_request_user' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('ciba_auth_request');
}
