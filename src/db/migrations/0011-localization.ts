import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Realm localization texts (`/admin/realms/{realm}/localization`): one row per realm, locale and
 * message key, unique on the three (Keycloak's realm_localizations, one row per text).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('realm_localization', {
    id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    locale: { type: DataTypes.STRING(255), allowNull: false },
    message_key: { type: DataTypes.STRING(255), allowNull: false },
    value: { type: DataTypes.TEXT, allowNull: false },
  });
  await qi.addIndex('realm_localization', ['realm_id', 'locale', 'message_key'], {
    name: 'uq_realm_localization_realm_locale_key',
    unique: true,
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('realm_localization');
}
