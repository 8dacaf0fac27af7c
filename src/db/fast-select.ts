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
  const inline = () =>
    sql.replace(/:(\w+)/g, (_, name: string) => {
      const v = replacements[name];
      if (Array.isArray(v)) return v.map((x) => sequelize.escape(x as string)).join(', ');
      return v === null || v === undefined ? 'NULL' : sequelize.escape(v as string);
    });
  const started = process.hrtime.bigint();
  let rows: T[];
  let text: string | undefined;
  try {
    const conn = await connection(sequelize);
    try {
      // SQLite's connection has `all` and `prepare`; mysql2's has a `prepare` of its own (not SQLite's).
      const bound = conn.all && conn.prepare ? positional(sql, replacements) : undefined;
      if (bound) rows = await runPrepared<T>(conn as SqliteConnection, bound.sql, bound.values);
      else {
        text = inline();
        rows = await runOn<T>(conn, text);
      }
    } finally {
      if (!conn.all) await release(sequelize, conn);
    }
  } catch {
    return sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
  }
  if (logging(sequelize)) logStatement(sequelize, text ?? inline(), started);
  return rows;
}

/**
 * `fastSelect` for a statement built per request, its values already escaped into the text (the user
 * search's conditions): the text goes to the driver as it is, with no placeholders read from it, and
 * SQLite compiles it each time (only constant statements are kept). Inside a transaction, or when the
 * driver fails, it runs through Sequelize, as fastSelect's statements do.
 */
export async function fastSelectText<T extends object>(sequelize: Sequelize, text: string): Promise<T[]> {
  if (inTransaction()) return sequelize.query<T>(text, { type: QueryTypes.SELECT });
  const started = process.hrtime.bigint();
  let rows: T[];
  try {
    rows = await run<T>(sequelize, text);
  } catch {
    return sequelize.query<T>(text, { type: QueryTypes.SELECT });
  }
  if (logging(sequelize)) logStatement(sequelize, text, started);
  return rows;
}

/**
 * On SQLite, `fastSelect`'s constant statements are prepared once per connection and kept (an LRU of
 * `MAX_PREPARED`): compiling the SQL cost more than running it (a 14-line join: ~120 µs prepared each
 * time, ~55 µs reused), on every request. Values are bound, not inlined; a list placeholder (always an
 * `IN (:list)`) is bound as a power-of-two number of placeholders, the last value repeated. A statement that has run to completion holds no lock, and
 * SQLite prepares a kept statement again by itself after a schema change. MariaDB keeps the text path,
 * values inlined: mysql2's `execute` (prepared, binary protocol) was measured at 2.5× the CPU of the
 * text query for a 100-user page (11.5 vs 4.6 ms per request).
 */
const MAX_PREPARED = 256;

interface SqliteStatement {
  all(params: unknown[], cb: (e: Error | null, rows: unknown[]) => void): unknown;
  finalize(cb?: () => void): unknown;
}

interface SqliteConnection extends DriverConnection {
  prepare(sql: string, cb?: (e: Error | null) => void): SqliteStatement;
}

const kept = new WeakMap<object, Map<string, Promise<SqliteStatement>>>();

function statementOn(conn: SqliteConnection, sql: string): Promise<SqliteStatement> {
  let map = kept.get(conn);
  if (!map) {
    map = new Map();
    kept.set(conn, map);
    finalizeOnClose(conn, map);
  }
  const hit = map.get(sql);
  if (hit) {
    // Most recently used last.
    map.delete(sql);
    map.set(sql, hit);
    return hit;
  }
  const made = new Promise<SqliteStatement>((resolve, reject) => {
    const stmt = conn.prepare(sql, (e) => (e ? reject(e) : resolve(stmt)));
  });
  made.catch(() => map.delete(sql));
  map.set(sql, made);
  if (map.size > MAX_PREPARED) {
    const [oldest, stmt] = map.entries().next().value as [string, Promise<SqliteStatement>];
    map.delete(oldest);
    stmt.then((st) => st.finalize()).catch(() => undefined);
  }
  return made;
}

/** A connection closes only once its statements are finalized (SQLite refuses to close otherwise). */
function finalizeOnClose(conn: SqliteConnection, map: Map<string, Promise<SqliteStatement>>): void {
  const c = conn as SqliteConnection & { close?(cb?: (e: Error | null) => void): unknown };
  const close = c.close?.bind(c);
  if (!close) return;
  c.close = (cb?: (e: Error | null) => void) => {
    const all = [...map.values()];
    map.clear();
    Promise.all(all.map((p) => p.then((st) => new Promise<void>((ok) => st.finalize(() => ok()))).catch(() => undefined))).then(() =>
      close(cb),
    );
    return c;
  };
}

async function runPrepared<T extends object>(conn: SqliteConnection, sql: string, values: unknown[]): Promise<T[]> {
  const stmt = await statementOn(conn, sql);
  return new Promise<T[]>((resolve, reject) => stmt.all(values, (e, rows) => (e ? reject(e) : resolve(rows as T[]))));
}

/** Placeholders of each constant statement, found once. */
const placeholders = new Map<string, { parts: string[]; names: string[] }>();

/**
 * The statement with `?` for its `:name` placeholders and the values in order, lists spread; undefined
 * when a value is of a kind the driver would bind differently from how Sequelize inlines it (a Date).
 */
function positional(sql: string, replacements: Record<string, unknown>): { sql: string; values: unknown[] } | undefined {
  let p = placeholders.get(sql);
  if (!p) {
    const parts = sql.split(/:\w+/);
    const names = [...sql.matchAll(/:(\w+)/g)].map((m) => m[1]);
    p = { parts, names };
    placeholders.set(sql, p);
  }
  const values: unknown[] = [];
  let out = p.parts[0];
  for (let i = 0; i < p.names.length; i++) {
    const v = replacements[p.names[i]];
    if (Array.isArray(v)) {
      if (!v.length || !v.every(bindable)) return undefined;
      // Padded to a power of two with the last value (a list placeholder is an IN list, where a repeat
      // changes nothing): lists of 1 to 100 keys make 8 statements, not 100.
      const n = v.length <= 1024 ? 2 ** Math.ceil(Math.log2(v.length)) : v.length;
      out += '?, '.repeat(n - 1) + '?';
      values.push(...v);
      for (let k = v.length; k < n; k++) values.push(v[v.length - 1]);
    } else {
      if (!bindable(v)) return undefined;
      out += '?';
      values.push(v === undefined ? null : v);
    }
    out += p.parts[i + 1];
  }
  return { sql: out, values };
}

const bindable = (v: unknown) => v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Whether Sequelize's logging listener (SQL log, statement metrics) is on. */
function logging(sequelize: Sequelize): boolean {
  return typeof (sequelize as unknown as { options: { logging?: unknown } }).options.logging === 'function';
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
  prepare?: SqliteConnection['prepare'];
}

interface ConnectionManager {
  getConnection(o: object): Promise<DriverConnection>;
  releaseConnection(c: DriverConnection): Promise<void>;
}

/** The connection reads run on: SQLite's shared read connection, or one from MariaDB's pool (released after). */
function connection(sequelize: Sequelize): Promise<DriverConnection> {
  return (sequelize.connectionManager as unknown as ConnectionManager).getConnection({ type: 'SELECT' });
}

function release(sequelize: Sequelize, conn: DriverConnection): Promise<void> {
  return (sequelize.connectionManager as unknown as ConnectionManager).releaseConnection(conn);
}

function runOn<T extends object>(conn: DriverConnection, text: string): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    if (conn.all) conn.all(text, (e, rows) => (e ? reject(e) : resolve(rows as T[])));
    else (conn.query as NonNullable<DriverConnection['query']>)(text, (e, rows) => (e ? reject(e) : resolve(rows as T[])));
  });
}

async function run<T extends object>(sequelize: Sequelize, text: string): Promise<T[]> {
  const conn = await connection(sequelize);
  try {
    return await runOn<T>(conn, text);
  } finally {
    if (!conn.all) await release(sequelize, conn);
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
