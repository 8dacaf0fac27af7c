import type { Sequelize } from 'sequelize';

/**
 * Checks a MariaDB/MySQL database before anything is written to it. Names, usernames and aliases
 * must compare case-sensitively, as Keycloak's do: a database whose default collation is not binary
 * (MariaDB's server default `utf8mb4_general_ci`, for instance) would make `Reader` a duplicate of
 * `reader`. New tables take the database's collation, so the database default must be binary; tables
 * that already exist must be binary too. SQLite compares text bytewise: nothing to check.
 */
export async function checkCollation(sequelize: Sequelize): Promise<void> {
  const dialect = sequelize.getDialect();
  if (dialect !== 'mysql' && dialect !== 'mariadb') return;
  const database = sequelize.getDatabaseName();
  const [[db]] = (await sequelize.query('SELECT @@character_set_database AS charset, @@collation_database AS collation')) as [
    Array<{ charset: string; collation: string }>,
    unknown,
  ];
  const [tables] = (await sequelize.query(
    'SELECT TABLE_NAME AS name, TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_COLLATION IS NOT NULL',
  )) as [Array<{ name: string; collation: string }>, unknown];
  const binary = (c: string) => /_bin$/i.test(c) || /_as_cs$/i.test(c);
  // umzug creates its bookkeeping table with the server's default collation; it holds only migration file names.
  const wrong = tables.filter((t) => !binary(t.collation) && t.name !== 'schema_migrations');
  if (binary(db.collation) && db.charset === 'utf8mb4' && wrong.length === 0) return;
  const problem = wrong.length
    ? `its tables ${wrong
        .slice(0, 3)
        .map((t) => `${t.name} (${t.collation})`)
        .join(', ')}${wrong.length > 3 ? ', ...' : ''} compare text case-insensitively`
    : `its default collation is ${db.collation} (${db.charset}), which compares names case-insensitively`;
  throw new Error(
    `The database ${database} given by --db-url cannot be used: ${problem}. Create it with CHARACTER SET utf8mb4 COLLATE utf8mb4_bin ` +
      `(ALTER DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin for an empty one)`,
  );
}
