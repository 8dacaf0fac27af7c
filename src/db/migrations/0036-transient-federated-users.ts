import { type QueryInterface, QueryTypes, type Sequelize } from 'sequelize';

/**
 * Users of an LDAP provider with `importEnabled=false` (ADR 46) have no user_entity row: their id is
 * Keycloak's StorageId, `f:{componentId}:{username}` (up to 2 + 36 + 1 + 255 characters). The tables
 * a login writes for them (user_session, login_failure, authentication_session) hold such ids: their
 * `user_id` becomes VARCHAR(300) and their foreign keys to user_entity (ADR 21) are dropped. A
 * local user's delete still removes its sessions, logins in progress and brute-force record,
 * explicitly (core/cascade.ts deleteUserRows).
 */
const WIDTH = 300;
const TABLES = [
  { table: 'user_session', nullable: false },
  { table: 'login_failure', nullable: false },
  { table: 'authentication_session', nullable: true },
] as const;

const fkName = (table: string) => `fk_${table}_user_id`;

/** SQLite: the CREATE TABLE without the user_id reference (a table constraint, or inline as 0017 made it) and with the wider column. */
const withoutUserReference = (sql: string) =>
  sql
    .replace(/,\s*CONSTRAINT `\w+` FOREIGN KEY \(`user_id`\) REFERENCES `user_entity` \(`id`\) ON DELETE CASCADE/, '')
    .replace(
      /(`user_id` VARCHAR\()36(\)(?: NOT NULL)?(?: PRIMARY KEY)?) REFERENCES `user_entity` \(`id`\) ON DELETE CASCADE/,
      `$1${WIDTH}$2`,
    )
    .replace(/`user_id` VARCHAR\(36\)/, `\`user_id\` VARCHAR(${WIDTH})`);

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, (_table, sql) => withoutUserReference(sql));
    return;
  }
  for (const { table, nullable } of TABLES) {
    // 0012 named its constraints; 0017's inline reference got the engine's name.
    const names = await sequelize.query<{ name: string }>(
      `SELECT CONSTRAINT_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = 'user_id' AND REFERENCED_TABLE_NAME = 'user_entity'`,
      { replacements: { table }, type: QueryTypes.SELECT },
    );
    const drops = names.map((n) => `DROP FOREIGN KEY \`${n.name}\`, `).join('');
    await sequelize.query(`ALTER TABLE \`${table}\` ${drops}MODIFY \`user_id\` VARCHAR(${WIDTH}) ${nullable ? 'NULL' : 'NOT NULL'}`);
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  // Rows of transient users cannot satisfy the constraints again.
  for (const { table } of TABLES) await sequelize.query(`DELETE FROM \`${table}\` WHERE user_id LIKE 'f:%'`);
  await sequelize.query('DELETE FROM client_session WHERE user_session_id NOT IN (SELECT id FROM user_session)');
  const fk = (table: string) =>
    `CONSTRAINT \`${fkName(table)}\` FOREIGN KEY (\`user_id\`) REFERENCES \`user_entity\` (\`id\`) ON DELETE CASCADE`;
  if (sequelize.getDialect() === 'sqlite') {
    await sqliteRebuild(sequelize, (table, sql) => {
      const narrow = sql.replace(`\`user_id\` VARCHAR(${WIDTH})`, '`user_id` VARCHAR(36)');
      const close = narrow.lastIndexOf(')');
      return `${narrow.slice(0, close)}, ${fk(table)}${narrow.slice(close)}`;
    });
    return;
  }
  for (const { table, nullable } of TABLES)
    await sequelize.query(`ALTER TABLE \`${table}\` MODIFY \`user_id\` VARCHAR(36) ${nullable ? 'NULL' : 'NOT NULL'}, ADD ${fk(table)}`);
}

/** The three tables made again with `define`'s CREATE TABLE (SQLite's prescribed way to change constraints; ADR 21). */
async function sqliteRebuild(sequelize: Sequelize, define: (table: string, sql: string) => string): Promise<void> {
  await sequelize.query('PRAGMA foreign_keys=OFF');
  try {
    await sequelize.query('BEGIN IMMEDIATE');
    try {
      for (const { table } of TABLES) {
        const [def] = await sequelize.query<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table", {
          replacements: { table },
          type: QueryTypes.SELECT,
        });
        const indexes = await sequelize.query<{ sql: string }>(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = :table AND sql IS NOT NULL",
          { replacements: { table }, type: QueryTypes.SELECT },
        );
        const next = `${table}__next`;
        await sequelize.query(define(table, def.sql).replace(/^CREATE TABLE [`"]?\w+[`"]?/, `CREATE TABLE \`${next}\``));
        await sequelize.query(`INSERT INTO \`${next}\` SELECT * FROM \`${table}\``);
        await sequelize.query(`DROP TABLE \`${table}\``);
        await sequelize.query(`ALTER TABLE \`${next}\` RENAME TO \`${table}\``);
        for (const ix of indexes) await sequelize.query(ix.sql);
      }
      const violations = await sequelize.query('PRAGMA foreign_key_check', { type: QueryTypes.SELECT });
      if (violations.length) throw new Error(`foreign key check failed: ${JSON.stringify(violations.slice(0, 5))}`);
      await sequelize.query('COMMIT');
    } catch (e) {
      await sequelize.query('ROLLBACK');
      throw e;
    }
  } finally {
    await sequelize.query('PRAGMA foreign_keys=ON');
  }
}
