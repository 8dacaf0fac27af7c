import { DataTypes, type ModelAttributeColumnOptions } from 'sequelize';

/** UUID string primary key (ids are never auto-increment so rows can move between databases). */
export const idColumn = (): ModelAttributeColumnOptions => ({ type: DataTypes.STRING(36), primaryKey: true });

/** A reference column (36-char id). */
export const ref = (allowNull = false): ModelAttributeColumnOptions => ({ type: DataTypes.STRING(36), allowNull });

/**
 * Parsed JSON columns, per instance and column, with the text they were parsed from: a column read
 * several times (a client's settings, a mapper's config) is parsed once while its text is unchanged
 * (parsing on every read was ~4 % of a token request). The value is shared by those reads, so it is
 * frozen: a change is made by assigning a new value, which the setter stores as new text.
 */
const parsedOf = new WeakMap<object, Map<string, { raw: string; value: unknown }>>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A TEXT column holding JSON, parsed on read (once per text, frozen) and serialised on write. */
export function jsonColumn<T>(field: string, fallback: T): ModelAttributeColumnOptions {
  return {
    type: DataTypes.TEXT,
    allowNull: true,
    get(this: { getDataValue(k: string): unknown }) {
      const raw = this.getDataValue(field);
      if (raw === null || raw === undefined || raw === '') return structuredClone(fallback);
      if (typeof raw !== 'string') return raw;
      let columns = parsedOf.get(this);
      if (!columns) {
        columns = new Map();
        parsedOf.set(this, columns);
      }
      const hit = columns.get(field);
      if (hit && hit.raw === raw) return hit.value;
      const value = deepFreeze(JSON.parse(raw));
      columns.set(field, { raw, value });
      return value;
    },
    set(this: { setDataValue(k: string, v: unknown): void }, value: unknown) {
      this.setDataValue(field, value === undefined || value === null ? null : JSON.stringify(value));
    },
  };
}

export const bool = (defaultValue = false): ModelAttributeColumnOptions => ({
  type: DataTypes.BOOLEAN,
  allowNull: false,
  defaultValue,
});

export const str = (len = 255, allowNull = true): ModelAttributeColumnOptions => ({ type: DataTypes.STRING(len), allowNull });
