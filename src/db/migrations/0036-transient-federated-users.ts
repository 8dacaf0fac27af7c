import type { QueryInterface } from 'sequelize';
import {
  foreignKeyNames,
  STORAGE_ID_WIDTH as WIDTH,
  sqliteRebuild,
  userReference,
  withoutUserReference,
  withUserReference,
} from './sqlite-rebuild';

/**
 * Users of an LDAP provider with `importEnabled=false` (ADR 46) have no user_entity row: their id is
 * Keycloak's StorageId, `f:{componentId}:{username}` (up to 2 + 36 + 1 + 255 characters). The tables
 * a login writes for them (user_session, login_failure, authentication_session) hold such ids: their
 * `user_id` becomes VARCHAR(300) and their foreign keys to user_entity (ADR 21) are dropped. A
 * local user's delete still removes its sessions, logins in progress and brute-force record,
 * explicitly (core/cascade.ts deleteUserRows).
 */
const TABLES = [
  { table: 'user_session', nullable: false },
  { table: 'login_failure', nullable: false },
  { table: 'authentication_session', nullable: true },
] as const;
const NAMES = TABLES.map((t) => t.table);

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, NAMES, (_table, sql) => withoutUserReference(sql));
    return;
  }
  for (const { table, nullable } of TABLES) {
    const names = await foreignKeyNames(sequelize, table, 'user_id', 'user_entity');
    const drops = names.map((n) => `DROP FOREIGN KEY \`${n}\`, `).join('');
    await sequelize.query(`ALTER TABLE \`${table}\` ${drops}MODIFY \`user_id\` VARCHAR(${WIDTH}) ${nullable ? 'NULL' : 'NOT NULL'}`);
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  // Rows of transient users cannot satisfy the constraints again.
  for (const { table } of TABLES) await sequelize.query(`DELETE FROM \`${table}\` WHERE user_id LIKE 'f:%'`);
  await sequelize.query('DELETE FROM client_session WHERE user_session_id NOT IN (SELECT id FROM user_session)');
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, NAMES, withUserReference);
    return;
  }
  for (const { table, nullable } of TABLES)
    await sequelize.query(
      `ALTER TABLE \`${table}\` MODIFY \`user_id\` VARCHAR(36) ${nullable ? 'NULL' : 'NOT NULL'}, ADD ${userReference(table)}`,
    );
}
