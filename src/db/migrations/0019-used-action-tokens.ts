import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Used action tokens (issue 14, item 4): the ids (`jti`) of the e-mail links (execute-actions,
 * verify-email, reset-credentials) that have done their work, so a link works once on every node.
 * A row is kept until the token would have expired anyway (`expires_at`, epoch seconds, indexed for
 * the purge); it goes with its realm.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('used_action_token', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    realm_id: {
      type: DataTypes.STRING(36),
      allowNull: false,
      references: { model: 'realm', key: 'id' },
      onDelete: 'CASCADE',
    },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('used_action_token', ['expires_at'], { name: 'ix_used_action_token_expiry' });
  await qi.addIndex('used_action_token', ['realm_id'], { name: 'ix_used_action_token_realm' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('used_action_token');
}
