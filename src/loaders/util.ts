import DataLoader from 'dataloader';
import { DataTypes, Op } from 'sequelize';
import type { Db } from '../db';
import { fastSelect, fastSelectText } from '../db/fast-select';

type AnyModel = { findAll(opts: object): Promise<unknown[]> };

export function byId<T extends { id: string }>(model: AnyModel) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = (await model.findAll({ where: { id: { [Op.in]: [...ids] } } })) as T[];
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id) ?? null);
  });
}

/**
 * Lists of keys through a per-key loader, one promise per list: `loadMany` makes two promises per key,
 * and a GraphQL page asks for the same roles once per user (issue 12: promises and their async-context
 * resources were the largest share of such a page's garbage). The lists of one tick are one call of
 * `one.loadMany` over their distinct keys; nothing is cached here (`one` caches, and its invalidation
 * stays the only one).
 */
export function listLoader<V>(one: DataLoader<string, V>) {
  return new DataLoader<readonly string[], Array<V | Error>>(
    async (lists) => {
      const distinct = [...new Set(lists.flat())];
      const values = await one.loadMany(distinct);
      const at = new Map(distinct.map((k, i) => [k, values[i]]));
      return lists.map((list) => list.map((k) => at.get(k) as V | Error));
    },
    { cache: false },
  );
}

/** Groups rows by a key column, returning one array per requested key. */
export function groupedBy<T>(rows: T[], key: (r: T) => string, keys: readonly string[]): T[][] {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return keys.map((k) => map.get(k) ?? []);
}

/** What `fastById` needs of a model class. */
interface ModelClass {
  getTableName(): string | { tableName: string };
  getAttributes(): Record<string, { field?: string; type: unknown; primaryKey?: boolean }>;
  bulkBuild(rows: Array<Record<string, unknown>>, options: { raw: boolean; isNewRecord: boolean }): unknown[];
}

/**
 * `byId` for the hottest look-ups (a user by id on every user request, a realm by name): the same rows
 * as model instances, read with one statement straight to the driver (db/fast-select.ts) and built as
 * Sequelize builds a row it read. Booleans come back from both drivers as 0/1 and are made booleans,
 * as Sequelize's own result parsing does. `key` is a unique attribute (the primary key by default);
 * `extra` adds computed columns (`name → SQL expression` over the table aliased `t`), kept in the
 * instances' data values.
 */
export function fastBy<T extends object>(db: Db, model: ModelClass, key?: string, extra: Record<string, string> = {}) {
  const { sql, booleans, keyName } = prepared(db, model, key, extra);
  return new DataLoader<string, T | null>(async (keys) => {
    const rows = await fastSelect<Record<string, unknown>>(db.sequelize, sql, { keys: [...new Set(keys)] });
    const map = new Map(built<T>(model, rows, booleans).map((r) => [String((r as Record<string, unknown>)[keyName]), r]));
    return keys.map((k) => map.get(k) ?? null);
  });
}

interface Prepared {
  sql: string;
  /** `SELECT <every attribute> FROM <table> t`, for `fastRows`. */
  select: string;
  booleans: string[];
  keyName: string;
}

/**
 * Model instances of the rows `where` matches (SQL over the table aliased `t`, `:name` parameters),
 * then `tail` (ORDER BY ...): one kept statement (db/fast-select.ts), the rows built as `fastBy` builds
 * them. `where` and `tail` are constants of the caller, never values. For the reads of the token
 * endpoint, which Sequelize's query pipeline and statement compilation made cost more than SQLite.
 */
export async function fastRows<T extends object>(
  db: Db,
  model: ModelClass,
  where: string,
  params: Record<string, unknown>,
  tail = '',
  extra: Record<string, string> = {},
): Promise<T[]> {
  const { select, booleans } = prepared(db, model, undefined, extra);
  const rows = await fastSelect<Record<string, unknown>>(db.sequelize, `${select} WHERE ${where}${tail ? ` ${tail}` : ''}`, params);
  return built<T>(model, rows, booleans);
}

/**
 * `fastRows` for a statement built per request: `rest` follows `FROM <table> t` (an index hint, WHERE,
 * ORDER BY, LIMIT) with its values already escaped into it (db/fast-select.ts, fastSelectText).
 */
export async function fastRowsText<T extends object>(db: Db, model: ModelClass, rest: string): Promise<T[]> {
  const { select, booleans } = prepared(db, model, undefined, {});
  return built<T>(model, await fastSelectText<Record<string, unknown>>(db.sequelize, `${select} ${rest}`), booleans);
}

/** Instances of rows read past Sequelize: booleans, which both drivers return as 0/1, made booleans first. */
function built<T>(model: ModelClass, rows: Array<Record<string, unknown>>, booleans: string[]): T[] {
  for (const r of rows) for (const b of booleans) if (r[b] !== null && r[b] !== undefined) r[b] = Number(r[b]) === 1 || r[b] === true;
  return model.bulkBuild(rows, { raw: true, isNewRecord: false }) as T[];
}

/**
 * The statement of a `fastBy` loader, built once per database, model, key and extra columns: loaders
 * are made per request, and building the column list each time was ~3 % of a GET /users/{id}.
 */
const preparedOf = new WeakMap<Db, Map<ModelClass, Map<string, Prepared>>>();

function prepared(db: Db, model: ModelClass, key: string | undefined, extra: Record<string, string>): Prepared {
  let byModel = preparedOf.get(db);
  if (!byModel) {
    byModel = new Map();
    preparedOf.set(db, byModel);
  }
  let byKey = byModel.get(model);
  if (!byKey) {
    byKey = new Map();
    byModel.set(model, byKey);
  }
  const id = `${key ?? ''}\u0000${JSON.stringify(extra)}`;
  const hit = byKey.get(id);
  if (hit) return hit;
  const q = (name: string) => db.sequelize.getQueryInterface().quoteIdentifier(name);
  const attrs = Object.entries(model.getAttributes());
  const table = model.getTableName();
  const keyAttr = (key ? attrs.find(([name]) => name === key) : attrs.find(([, a]) => a.primaryKey)) as [string, { field?: string }];
  const columns = [
    ...attrs.map(([name, a]) => `t.${q(a.field ?? name)} AS ${q(name)}`),
    ...Object.entries(extra).map(([name, sql]) => `${sql} AS ${q(name)}`),
  ];
  const select = `SELECT ${columns.join(', ')} FROM ${q(typeof table === 'string' ? table : table.tableName)} t`;
  const made: Prepared = {
    sql: `${select} WHERE t.${q(keyAttr[1].field ?? keyAttr[0])} IN (:keys)`,
    select,
    booleans: attrs.filter(([, a]) => a.type instanceof DataTypes.BOOLEAN).map(([name]) => name),
    keyName: keyAttr[0],
  };
  byKey.set(id, made);
  return made;
}

/** The statement of a `fastIdLists` loader, built once per database, model and attributes. */
const listSqlOf = new WeakMap<Db, Map<string, string>>();

function listSql(db: Db, model: ModelClass, keyAttr: string, valueAttr: string, counted: boolean): string {
  let byId = listSqlOf.get(db);
  if (!byId) {
    byId = new Map();
    listSqlOf.set(db, byId);
  }
  const table = model.getTableName();
  const tableName = typeof table === 'string' ? table : table.tableName;
  const id = `${tableName}\u0000${keyAttr}\u0000${valueAttr}\u0000${counted}`;
  let sql = byId.get(id);
  if (!sql) {
    const q = (name: string) => db.sequelize.getQueryInterface().quoteIdentifier(name);
    const attrs = model.getAttributes();
    const column = (attr: string) => q(attrs[attr].field ?? attr);
    sql = counted
      ? `SELECT ${column(keyAttr)} AS k, COUNT(*) AS v FROM ${q(tableName)} WHERE ${column(keyAttr)} IN (:keys) GROUP BY ${column(keyAttr)}`
      : `SELECT ${column(keyAttr)} AS k, ${column(valueAttr)} AS v FROM ${q(tableName)} WHERE ${column(keyAttr)} IN (:keys)`;
    byId.set(id, sql);
  }
  return sql;
}

/**
 * For each key, the `valueAttr` of the rows whose `keyAttr` is that key (link tables: a user's group
 * ids, a role's composite children): one kept statement (db/fast-select.ts) instead of a model read
 * per batch, rows in the database's order as `findAll` without `order` gave them.
 */
export function fastIdLists(db: Db, model: ModelClass, keyAttr: string, valueAttr: string) {
  const sql = listSql(db, model, keyAttr, valueAttr, false);
  return new DataLoader<string, string[]>(async (keys) => {
    const rows = await fastSelect<{ k: string; v: string }>(db.sequelize, sql, { keys: [...new Set(keys)] });
    const map = new Map<string, string[]>();
    for (const r of rows) {
      const list = map.get(r.k);
      if (list) list.push(r.v);
      else map.set(r.k, [r.v]);
    }
    return keys.map((k) => map.get(k) ?? []);
  });
}

/** For each key, how many rows have it as their `keyAttr` (a group's children): one kept statement. */
export function fastCounts(db: Db, model: ModelClass, keyAttr: string) {
  const sql = listSql(db, model, keyAttr, keyAttr, true);
  return new DataLoader<string, number>(async (keys) => {
    const rows = await fastSelect<{ k: string; v: number | string }>(db.sequelize, sql, { keys: [...new Set(keys)] });
    const map = new Map(rows.map((r) => [r.k, Number(r.v)]));
    return keys.map((k) => map.get(k) ?? 0);
  });
}
