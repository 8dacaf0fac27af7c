import { Model } from 'sequelize';

interface ModelStatics {
  _hasDateAttributes: boolean;
  _hasVirtualAttributes: boolean;
  _dataTypeSanitizers: Record<string, (this: unknown, value: unknown, options: object) => unknown>;
}

interface BuildOptions {
  raw?: boolean;
  isNewRecord?: boolean;
  include?: unknown;
  attributes?: Array<string | [unknown, string]>;
}

interface Instance {
  dataValues: Record<string, unknown>;
  _previousDataValues: Record<string, unknown>;
}

const own = Object.prototype.hasOwnProperty;

// biome-ignore lint/suspicious/noExplicitAny: `this` is whichever model class the call is made on.
type BulkBuild = (this: any, rows: object[], options?: BuildOptions) => unknown[];
let original: BulkBuild | undefined;

/**
 * Every row a read turns into an instance (`findAll`, the loaders' `bulkBuild(rows, { raw: true,
 * isNewRecord: false })`) went through `Model#set(key, value)` once per column as soon as the model has a
 * boolean attribute (users, clients, realms...): checks for includes, JSON paths and read-only keys that
 * a raw read of a stored row never needs, ~12 % of the CPU of a 100-user page (issue 12). Here such a row
 * is built as Sequelize's constructor builds it with no values (its options, flags and change tracking),
 * then given the state `set` would have left: the row's values (only the requested attributes, when the
 * read named them), each passed through its type's sanitizer (booleans from 0/1), and the same copy as
 * previous values. Reads with includes, new records, and models with date or virtual attributes take
 * Sequelize's own path; `test/db/model-build.test.ts` compares both on every model.
 */
export function fastRowBuilds(): void {
  const statics = Model as unknown as {
    bulkBuild: BulkBuild;
    __fastBuild?: boolean;
  };
  if (statics.__fastBuild) return;
  const bulkBuild = statics.bulkBuild;
  original = bulkBuild;
  statics.bulkBuild = function (this: (new (v: object, o: object) => Instance) & ModelStatics, rows: object[], options?: BuildOptions) {
    if (
      !options ||
      options.raw !== true ||
      options.isNewRecord !== false ||
      options.include ||
      this._hasDateAttributes ||
      this._hasVirtualAttributes
    ) {
      return bulkBuild.call(this, rows, options);
    }
    const attributes = options.attributes?.map((a) => (Array.isArray(a) ? a[1] : a));
    const opts = attributes ? { ...options, attributes } : options;
    const sanitizers = Object.keys(this._dataTypeSanitizers);
    return rows.map((row) => {
      const values = row as Record<string, unknown>;
      const instance = new this({}, opts);
      let data: Record<string, unknown>;
      if (attributes) {
        data = {};
        for (const k of attributes) if (values[k] !== undefined) data[k] = values[k];
      } else data = { ...values };
      for (const k of sanitizers) if (own.call(data, k)) data[k] = this._dataTypeSanitizers[k].call(instance, data[k], opts);
      instance.dataValues = data;
      instance._previousDataValues = { ...data };
      return instance;
    });
  };
  statics.__fastBuild = true;
}

/** Sequelize's own `bulkBuild` (before `fastRowBuilds` replaced it), for the test that compares the two. */
export function sequelizeBulkBuild(model: unknown, rows: object[], options: BuildOptions): unknown[] {
  const build = original ?? (Model as unknown as { bulkBuild: BulkBuild }).bulkBuild;
  return build.call(model, rows, options);
}
