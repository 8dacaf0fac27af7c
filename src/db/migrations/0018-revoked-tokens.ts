import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Revoked access tokens (issue 14, RFC 7009): POST .../revoke of an access token stores its `jti`
 * until the token would have expired anyway, so userinfo and introspection refuse it on every node.
 * The row is keyed by the token id (a lookup is one primary-key read); `expires_at` (epoch seconds)
 * is indexed for the purge of rows that outlived their token. No foreign key: the row names a token,
 * not a realm row, and it is gone when the token would be.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('revoked_token', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('revoked_token', ['expires_at'], { name: 'ix_revoked_token_expiry' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('revoked_token');
}
