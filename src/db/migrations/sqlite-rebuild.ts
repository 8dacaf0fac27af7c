import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Support for migrations (not a migration: the loader takes only `NNNN-title` files). SQLite cannot
 * alter a column or a constraint; its prescribed way is to make the table again: each of `tables` is
 * created anew from `define(table, itsCreateTable)`, its rows copied, the old one dropped, the new one
 * renamed and its indexes made again; all in one transaction with the foreign keys checked at the end
 * (ADR 21).
 */
export async function sqliteRebuild(
  sequelize: Sequelize,
  tables: readonly string[],
  define: (table: string, sql: string) => string,
  /** Runs first, in the same transaction (0012 removes orphaned rows there). */
  before?: () => Promise<void>,
): Promise<void> {
  // Statements without a transaction all run on the dialect's one shared connection, so the pragma,
  // BEGIN and the rebuild below share it.
  await sequelize.query('PRAGMA foreign_keys=OFF');
  try {
    await sequelize.query('BEGIN IMMEDIATE');
    try {
      if (before) await before();
      for (const table of tables) {
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

/** The foreign keys of `table.column` to `referenced` (MariaDB), by name: 0012 named its own, inline references got the engine's. */
export async function foreignKeyNames(sequelize: Sequelize, table: string, column: string, referenced: string): Promise<string[]> {
  const rows = await sequelize.query<{ name: string }>(
    `SELECT CONSTRAINT_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = :column AND REFERENCED_TABLE_NAME = :referenced`,
    { replacements: { table, column, referenced }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.name);
}

/** Width of a `user_id` that may hold a StorageId, `f:{componentId}:{username}` (2 + 36 + 1 + 255 characters; ADR 46). */
export const STORAGE_ID_WIDTH = 300;

/** SQLite: the CREATE TABLE without the user_id reference (a table constraint, or inline as 0017 made it) and with the wider column. */
export const withoutUserReference = (sql: string) =>
  sql
    .replace(/,\s*CONSTRAINT `\w+` FOREIGN KEY \(`user_id`\) REFERENCES `user_entity` \(`id`\) ON DELETE CASCADE/, '')
    .replace(
      /(`user_id` VARCHAR\()36(\)(?: NOT NULL)?(?: PRIMARY KEY)?) REFERENCES `user_entity` \(`id`\) ON DELETE CASCADE/,
      `$1${STORAGE_ID_WIDTH}$2`,
    )
    .replace(/`user_id` VARCHAR\(36\)/, `\`user_id\` VARCHAR(${STORAGE_ID_WIDTH})`);

/** The foreign key of `table.user_id` to user_entity as ADR 21 names it, for a `down` that restores it. */
export const userReference = (table: string) =>
  `CONSTRAINT \`fk_${table}_user_id\` FOREIGN KEY (\`user_id\`) REFERENCES \`user_entity\` (\`id\`) ON DELETE CASCADE`;

/** SQLite: the CREATE TABLE with the narrow user_id and its reference to user_entity again (the inverse of withoutUserReference). */
export function withUserReference(table: string, sql: string): string {
  const narrow = sql.replace(`\`user_id\` VARCHAR(${STORAGE_ID_WIDTH})`, '`user_id` VARCHAR(36)');
  const close = narrow.lastIndexOf(')');
  return `${narrow.slice(0, close)}, ${userReference(table)}${narrow.slice(close)}`;
}
