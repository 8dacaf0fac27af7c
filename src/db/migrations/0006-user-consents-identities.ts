import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * User consents (one per user and client, with the granted client scopes in a link table) and
 * federated identities (links of a user to an identity provider account): Keycloak's
 * user_consent, user_consent_client_scope and federated_identity entities.
 */
const s = (len = 255, allowNull = true) => ({ type: DataTypes.STRING(len), allowNull });
const pk = (len = 36) => ({ type: DataTypes.STRING(len), primaryKey: true, allowNull: false });

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('user_consent', {
    id: pk(),
    user_id: s(36, false),
    client_id: s(36, false),
    created_date: { type: DataTypes.BIGINT, allowNull: false },
    last_updated_date: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('user_consent', ['user_id', 'client_id'], { name: 'uq_user_consent_user_client', unique: true });
  await qi.addIndex('user_consent', ['client_id'], { name: 'ix_user_consent_client' });
  await qi.createTable('user_consent_client_scope', { user_consent_id: pk(), scope_id: pk() });
  await qi.addIndex('user_consent_client_scope', ['scope_id'], { name: 'ix_user_consent_scope' });

  await qi.createTable('federated_identity', {
    user_id: pk(),
    identity_provider: pk(255),
    realm_id: s(36, false),
    federated_user_id: s(),
    federated_username: s(),
    token: { type: DataTypes.TEXT, allowNull: true },
  });
  await qi.addIndex('federated_identity', ['realm_id', 'identity_provider', 'federated_user_id'], {
    name: 'uq_federated_identity_external',
    unique: true,
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('federated_identity');
  await qi.dropTable('user_consent_client_scope');
  await qi.dropTable('user_consent');
}
