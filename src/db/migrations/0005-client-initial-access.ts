import { DataTypes, type QueryInterface } from 'sequelize';

/** Client initial access tokens of a realm (`/clients-initial-access`): issue time, lifetime and remaining uses. */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const int = () => ({ type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await qi.createTable('client_initial_access', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    timestamp: int(),
    expiration: int(),
    count: int(),
    remaining_count: int(),
  });
  await qi.addIndex('client_initial_access', ['realm_id'], { name: 'ix_client_initial_access_realm' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('client_initial_access');
}
