import { QueryTypes, type Sequelize } from 'sequelize';
import { inTransaction } from './index';

/**
 * A SELECT of the hottest paths (the bearer statement, a user's parts) straight to the driver
 * (issue 12, item 4; ADR 23). Sequelize's query pipeline costs about as much as SQLite itself for
 * such a statement: per query it captures an Error for its stack trace, runs hooks, a retry wrapper
 * and result parsing. Here the statement is the driver's: the read connection on SQLite (the one
 * Sequelize reads on, prepared by openDb), a pool connection on MariaDB.
 *
 * Same results and the same observability as `sequelize.query(sql, { type: SELECT })`: the SQL
 * listener and statement metrics see each statement; inside a transaction, or when the driver fails,
 * the statement runs through Sequelize, whose errors the rest of the server knows how to map.
 *
 * `sql` is one of the server's own constants: its `:name` placeholders are replaced by escaped values
 * (arrays as lists), and it holds no other colon followed by a letter.
 */
export async function fastSelect<T extends object>(sequelize: Sequelize, sql: string, replacements: Record<string, unknown>): Promise<T[]> {
  if (inTransaction()) return sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
  const text = sql.replace(/:(\w+)/g, (_, name: string) => {
    const v = replacements[name];
    if (Array.isArray(v)) return v.map((x) => sequelize.escape(x as string)).join(', ');
    return v === null || v === undefined ? 'NULL' : sequelize.escape(v as string);
  });
  const started = process.hrtime.bigint();
  let rows: T[];
  try {
    rows = await run<T>(sequelize, text);
  } catch {
    return sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
  }
  const options = (sequelize as unknown as { options: object }).options as {
    logging?: false | ((sql: string, ms?: number) => void);
    benchmark?: boolean;
  };
  if (typeof options.logging === 'function') {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    options.logging(`Executing (default): ${text}`, options.benchmark ? ms : undefined);
  }
  return rows;
}

interface DriverConnection {
  all?(sql: string, cb: (e: Error | null, rows: unknown[]) => void): unknown;
  query?(sql: string, cb: (e: Error | null, rows: unknown) => void): unknown;
}

async function run<T extends object>(sequelize: Sequelize, text: string): Promise<T[]> {
  const cm = sequelize.connectionManager as unknown as {
    getConnection(o: object): Promise<DriverConnection>;
    releaseConnection(c: DriverConnection): Promise<void>;
  };
  const conn = await cm.getConnection({ type: 'SELECT' });
  try {
    return await new Promise<T[]>((resolve, reject) => {
      if (conn.all) conn.all(text, (e, rows) => (e ? reject(e) : resolve(rows as T[])));
      else (conn.query as NonNullable<DriverConnection['query']>)(text, (e, rows) => (e ? reject(e) : resolve(rows as T[])));
    });
  } finally {
    if (!conn.all) await cm.releaseConnection(conn);
  }
}
