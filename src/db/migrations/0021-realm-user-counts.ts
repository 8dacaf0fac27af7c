import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * The number of users of each realm, kept by the database (issue 12: `GET /users/count` < 50 ms at a
 * million users; counting the realm's index entries took 54 ms on SQLite and 113 ms on MariaDB).
 *
 * One realm's count is spread over `USER_COUNT_SHARDS` rows, chosen by the first character of the
 * user's id: a user insert or delete raises or lowers one of them, so concurrent creates in one realm
 * rarely wait on each other's counter row (a single row would serialise every user write of the realm
 * until commit on MariaDB). The count is the sum of the realm's rows. Triggers, not service code, keep
 * them, in the writing transaction, so every writer (services, imports, bulk SQL) counts and the number
 * is exact on every node. A realm's delete cascades to its rows; MariaDB fires no trigger for the
 * cascaded user deletes, and none is needed then.
 */
export const USER_COUNT_SHARDS = 16;

/** The shard of a user id (`row` is NEW or OLD) in the dialect's SQL. */
export function userCountShard(dialect: string, row: string): string {
  return dialect === 'sqlite' ? `unicode(${row}.id) % ${USER_COUNT_SHARDS}` : `ORD(${row}.id) % ${USER_COUNT_SHARDS}`;
}

/** The triggers, as [name, CREATE statement]. */
export function userCountTriggers(dialect: string): Array<{ name: string; sql: string }> {
  const add =
    dialect === 'sqlite'
      ? `INSERT INTO realm_user_count (realm_id, shard, n) VALUES (NEW.realm_id, ${userCountShard(dialect, 'NEW')}, 1)
         ON CONFLICT (realm_id, shard) DO UPDATE SET n = n + 1`
      : `INSERT INTO realm_user_count (realm_id, shard, n) VALUES (NEW.realm_id, ${userCountShard(dialect, 'NEW')}, 1)
         ON DUPLICATE KEY UPDATE n = n + 1`;
  const remove = `UPDATE realm_user_count SET n = n - 1 WHERE realm_id = OLD.realm_id AND shard = ${userCountShard(dialect, 'OLD')}`;
  const body = (s: string) => (dialect === 'sqlite' ? `BEGIN ${s}; END` : s);
  return [
    { name: 'trg_user_count_ai', sql: `CREATE TRIGGER trg_user_count_ai AFTER INSERT ON user_entity FOR EACH ROW ${body(add)}` },
    { name: 'trg_user_count_ad', sql: `CREATE TRIGGER trg_user_count_ad AFTER DELETE ON user_entity FOR EACH ROW ${body(remove)}` },
  ];
}

/** Every realm's counts written from its users (the migration; the bench seed after a bulk load). */
export function fillUserCountsSql(dialect: string): string {
  const shard = dialect === 'sqlite' ? `unicode(id) % ${USER_COUNT_SHARDS}` : `ORD(id) % ${USER_COUNT_SHARDS}`;
  return `INSERT INTO realm_user_count (realm_id, shard, n) SELECT realm_id, ${shard}, COUNT(*) FROM user_entity GROUP BY realm_id, ${shard}`;
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  const dialect = sequelize.getDialect();
  await qi.createTable('realm_user_count', {
    realm_id: {
      type: DataTypes.STRING(36),
      primaryKey: true,
      allowNull: false,
      references: { model: 'realm', key: 'id' },
      onDelete: 'CASCADE',
    },
    shard: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false },
    n: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
  await sequelize.query(fillUserCountsSql(dialect));
  for (const t of userCountTriggers(dialect)) await sequelize.query(t.sql);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of userCountTriggers(qi.sequelize.getDialect())) await qi.sequelize.query(`DROP TRIGGER IF EXISTS ${t.name}`);
  await qi.dropTable('realm_user_count');
}
