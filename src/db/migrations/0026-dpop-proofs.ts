import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Used DPoP proofs (issue 16, RFC 9449 §11.1): a hash of each accepted proof's `jti` and `htu`, kept
 * until the proof could no longer be accepted anyway (`expires_at`, epoch seconds, indexed for the
 * purge), so a proof replayed to any node sharing the database is refused (Keycloak's single-use
 * store). No realm column: a proof is bound to its URL, which names the realm.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('used_dpop_proof', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    expires_at: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('used_dpop_proof', ['expires_at'], { name: 'ix_used_dpop_proof_expiry' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('used_dpop_proof');
}
