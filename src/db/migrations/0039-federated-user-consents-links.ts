import type { QueryInterface } from 'sequelize';
import { foreignKeyNames, STORAGE_ID_WIDTH, sqliteRebuild, userReference, withoutUserReference, withUserReference } from './sqlite-rebuild';

/**
 * Consents and identity-provider links of transient federated users (ADR 46): Keycloak keeps them in
 * its federated storage (UserStorageManager#addConsent and #addFederatedIdentity hand a non-local
 * user id to UserFederatedStorageProvider). Here they live in the same tables as a local user's:
 * user_consent and federated_identity get a `user_id` wide enough for a StorageId and lose their
 * foreign key to user_entity. A local user's delete removes its rows explicitly (core/cascade.ts), a
 * provider's delete its users' rows, a realm's delete through the client or the realm.
 */
const TABLES = ['user_consent', 'federated_identity'] as const;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, TABLES, (_table, sql) => withoutUserReference(sql));
    return;
  }
  for (const table of TABLES) {
    const drops = (await foreignKeyNames(sequelize, table, 'user_id', 'user_entity')).map((n) => `DROP FOREIGN KEY \`${n}\`, `).join('');
    await sequelize.query(`ALTER TABLE \`${table}\` ${drops}MODIFY \`user_id\` VARCHAR(${STORAGE_ID_WIDTH}) NOT NULL`);
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  // Rows of transient users cannot satisfy the constraint again.
  await sequelize.query(
    "DELETE FROM user_consent_client_scope WHERE user_consent_id IN (SELECT id FROM user_consent WHERE user_id LIKE 'f:%')",
  );
  for (const table of TABLES) await sequelize.query(`DELETE FROM \`${table}\` WHERE user_id LIKE 'f:%'`);
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, TABLES, withUserReference);
    return;
  }
  for (const table of TABLES)
    await sequelize.query(`ALTER TABLE \`${table}\` MODIFY \`user_id\` VARCHAR(36) NOT NULL, ADD ${userReference(table)}`);
}
