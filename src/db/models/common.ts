import { DataTypes, type ModelAttributeColumnOptions } from 'sequelize';

/** UUID string primary key (ids are never auto-increment so rows can move between databases). */
export const idColumn = (): ModelAttributeColumnOptions => ({ type: DataTypes.STRING(36), primaryKey: true });

/** A reference column (36-char id). */
export const ref = (allowNull = false): ModelAttributeColumnOptions => ({ type: DataTypes.STRING(36), allowNull });

/** A TEXT column holding JSON, parsed on read and serialised on write. */
export function jsonColumn<T>(field: string, fallback: T): ModelAttributeColumnOptions {
  return {
    type: DataTypes.TEXT,
    allowNull: true,
    get(this: { getDataValue(k: string): unknown }) {
      const raw = this.getDataValue(field);
      if (raw === null || raw === undefined || raw === '') return structuredClone(fallback);
      return typeof raw === 'string' ? JSON.parse(raw) : raw;
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
