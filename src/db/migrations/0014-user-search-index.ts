import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Indexes for GET /users at a million users (issue 12, ADR 24: docs/adr/0024-user-search-indexes.md). The filters themselves do not change
 * (users-search.ts keeps Keycloak's LIKE conditions as the final check); these only let the database
 * find the candidates without reading every user of the realm:
 *
 * - `ix_user_search_email` (realm, email, username, service account link, enabled, id): a prefix
 *   search reads the email branch from the index alone, already carrying the ordering key.
 * - `user_search_name`: first and last name lower-cased by the database's own LOWER (the same
 *   function the filters apply), one row per user, indexed by realm and value, since MariaDB has no
 *   expression indexes. Kept in step by triggers on user_entity (insert, update), so every writer
 *   (service, realm import, bulk SQL) keeps it right in its own transaction; a user's delete removes
 *   its row by the foreign key's cascade.
 * - SQLite: `user_search_fts`, an FTS5 trigram index over username, email, first and last name
 *   (external content: the rows of user_entity, by rowid), for infix search. Kept in step by
 *   triggers too; SQLite fires them for rows a foreign-key cascade deletes (a realm's delete).
 */
export const SEARCH_TRIGGERS = ['trg_user_search_ai', 'trg_user_search_au', 'trg_user_search_ad'] as const;

function triggers(dialect: string): string[] {
  const name = (row: 'NEW' | 'OLD') =>
    `INSERT INTO user_search_name (user_id, realm_id, first_lc, last_lc) VALUES (${row}.id, ${row}.realm_id, LOWER(${row}.first_name), LOWER(${row}.last_name))`;
  const rename =
    'UPDATE user_search_name SET realm_id = NEW.realm_id, first_lc = LOWER(NEW.first_name), last_lc = LOWER(NEW.last_name) WHERE user_id = NEW.id';
  if (dialect !== 'sqlite') {
    return [
      `CREATE TRIGGER trg_user_search_ai AFTER INSERT ON user_entity FOR EACH ROW ${name('NEW')}`,
      `CREATE TRIGGER trg_user_search_au AFTER UPDATE ON user_entity FOR EACH ROW ${rename}`,
    ];
  }
  const fts = (row: 'NEW' | 'OLD', del: boolean) =>
    del
      ? `INSERT INTO user_search_fts (user_search_fts, rowid, username, email, first_name, last_name) VALUES ('delete', OLD.rowid, OLD.username, OLD.email, OLD.first_name, OLD.last_name)`
      : `INSERT INTO user_search_fts (rowid, username, email, first_name, last_name) VALUES (${row}.rowid, ${row}.username, ${row}.email, ${row}.first_name, ${row}.last_name)`;
  return [
    `CREATE TRIGGER trg_user_search_ai AFTER INSERT ON user_entity FOR EACH ROW BEGIN ${name('NEW')}; ${fts('NEW', false)}; END`,
    `CREATE TRIGGER trg_user_search_au AFTER UPDATE OF username, email, first_name, last_name, realm_id ON user_entity FOR EACH ROW BEGIN ${rename}; ${fts('OLD', true)}; ${fts('NEW', false)}; END`,
    `CREATE TRIGGER trg_user_search_ad AFTER DELETE ON user_entity FOR EACH ROW BEGIN ${fts('OLD', true)}; END`,
  ];
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  const dialect = sequelize.getDialect();
  await qi.addIndex('user_entity', ['realm_id', 'email', 'username', 'service_account_client_link', 'enabled', 'id'], {
    name: 'ix_user_search_email',
  });
  // The (realm, email) index is a prefix of the new one: every look-up it served, the new one serves.
  await qi.removeIndex('user_entity', 'ix_user_realm_email');
  await qi.createTable('user_search_name', {
    user_id: {
      type: DataTypes.STRING(36),
      primaryKey: true,
      allowNull: false,
      references: { model: 'user_entity', key: 'id' },
      onDelete: 'CASCADE',
    },
    realm_id: { type: DataTypes.STRING(36), allowNull: false },
    first_lc: { type: DataTypes.STRING(255), allowNull: true },
    last_lc: { type: DataTypes.STRING(255), allowNull: true },
  });
  await qi.addIndex('user_search_name', ['realm_id', 'first_lc'], { name: 'ix_user_search_first' });
  await qi.addIndex('user_search_name', ['realm_id', 'last_lc'], { name: 'ix_user_search_last' });
  await sequelize.query(
    'INSERT INTO user_search_name (user_id, realm_id, first_lc, last_lc) SELECT id, realm_id, LOWER(first_name), LOWER(last_name) FROM user_entity',
  );
  if (dialect === 'sqlite') {
    await sequelize.query(
      "CREATE VIRTUAL TABLE user_search_fts USING fts5(username, email, first_name, last_name, content='user_entity', content_rowid='rowid', tokenize='trigram')",
    );
    await sequelize.query("INSERT INTO user_search_fts (user_search_fts) VALUES ('rebuild')");
  }
  for (const sql of triggers(dialect)) await sequelize.query(sql);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const t of SEARCH_TRIGGERS) await qi.sequelize.query(`DROP TRIGGER IF EXISTS ${t}`);
  if (qi.sequelize.getDialect() === 'sqlite') await qi.sequelize.query('DROP TABLE IF EXISTS user_search_fts');
  await qi.dropTable('user_search_name');
  await qi.addIndex('user_entity', ['realm_id', 'email'], { name: 'ix_user_realm_email' });
  await qi.removeIndex('user_entity', 'ix_user_search_email');
}
