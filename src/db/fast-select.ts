import { DataTypes, QueryTypes, type Sequelize } from 'sequelize';
import { inTransaction } from './cls';

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
  logStatement(sequelize, text, started);
  return rows;
}

/** Tells Sequelize's logging listener (SQL log, statement metrics) about a statement run past it. */
function logStatement(sequelize: Sequelize, text: string, started: bigint): void {
  const options = (sequelize as unknown as { options: object }).options as {
    logging?: false | ((sql: string, ms?: number) => void);
    benchmark?: boolean;
  };
  if (typeof options.logging === 'function') {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    options.logging(`Executing (default): ${text}`, options.benchmark ? ms : undefined);
  }
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

interface SelectOptions {
  raw?: boolean;
  plain?: boolean;
  include?: unknown;
  lock?: unknown;
  nest?: boolean;
  fieldMap?: unknown;
  replacements?: unknown;
  bind?: unknown;
  transaction?: unknown;
  originalAttributes?: unknown;
  attributes?: unknown;
}

interface SelectModel {
  rawAttributes: Record<string, { type: unknown }>;
  bulkBuild(rows: object[], o: { isNewRecord: boolean; raw: boolean; attributes?: unknown }): unknown[];
}

/**
 * Model reads (`findAll`, `findOne`, `findByPk`) outside a transaction run the SQL Sequelize generates
 * for them straight to the driver, as `fastSelect` does: Sequelize still builds the statement from the
 * model and its options and the instances from the rows, but skips its query pipeline (a captured stack
 * per statement, hooks, retry wrapper, per-value type lookups). Rows become instances as Sequelize
 * builds them: booleans, which both drivers return as 0/1, are made booleans (a `raw` read keeps 0/1,
 * as Sequelize's does). Reads with includes, locks, bound parameters or nesting, and any read that
 * fails, take Sequelize's own path.
 */
export function fastModelReads(sequelize: Sequelize): void {
  const qi = sequelize.getQueryInterface() as unknown as {
    select(model: SelectModel, table: unknown, options: SelectOptions): Promise<unknown>;
    queryGenerator: { selectQuery(table: unknown, options: object, model: SelectModel): string };
  };
  const select = qi.select.bind(qi);
  const booleansOf = new WeakMap<SelectModel, string[]>();
  const booleans = (model: SelectModel) => {
    let list = booleansOf.get(model);
    if (!list) {
      list = Object.entries(model.rawAttributes)
        .filter(([, a]) => a.type instanceof DataTypes.BOOLEAN)
        .map(([name]) => name);
      booleansOf.set(model, list);
    }
    return list;
  };
  qi.select = async (model, table, options) => {
    const o = options;
    if (o.transaction || inTransaction() || o.include || o.lock || o.nest || o.fieldMap || o.replacements || o.bind) {
      return select(model, table, options);
    }
    const text = qi.queryGenerator.selectQuery(table, { ...options, type: QueryTypes.SELECT, model }, model);
    const started = process.hrtime.bigint();
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await run<Record<string, unknown>>(sequelize, text);
    } catch {
      return select(model, table, options);
    }
    logStatement(sequelize, text, started);
    let result: unknown[];
    if (o.raw) result = rows;
    else {
      const flags = booleans(model);
      if (flags.length)
        for (const r of rows) for (const b of flags) if (r[b] !== null && r[b] !== undefined) r[b] = Number(r[b]) === 1 || r[b] === true;
      result = model.bulkBuild(rows, { isNewRecord: false, raw: true, attributes: o.originalAttributes ?? o.attributes });
    }
    return o.plain ? (result[0] ?? null) : result;
  };
}
