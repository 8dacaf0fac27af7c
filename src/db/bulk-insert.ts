import type { BulkCreateOptions, Model, ModelStatic } from 'sequelize';

/**
 * Rows per INSERT statement of a bulk write (realm and partial import): a few statements per table
 * whatever the number of rows, each well under MariaDB's packet and SQLite's statement limits.
 */
export const INSERT_CHUNK = 500;

/** Inserts `rows` through the model (so its length guard and defaults apply), `size` rows per statement. */
export async function insertChunked(
  model: ModelStatic<Model>,
  rows: readonly object[],
  opts: BulkCreateOptions = {},
  size = INSERT_CHUNK,
): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await model.bulkCreate(rows.slice(i, i + size) as Array<Record<string, unknown>>, opts);
}
