import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { ValueTooLongError } from './errors';

/** The VARCHAR length of each string attribute of a model (TEXT columns have none here). */
function varcharLengths(model: ModelStatic<Model>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, attr] of Object.entries(model.getAttributes())) {
    const type = attr.type as { key?: string; options?: { length?: number } } | undefined;
    if (type?.key === 'STRING' && typeof type.options?.length === 'number') out.set(name, type.options.length);
  }
  return out;
}

/** Characters as MariaDB's utf8mb4 VARCHAR counts them: code points, not UTF-16 units. */
const characters = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function check(model: ModelStatic<Model>, lengths: Map<string, number>, values: Record<string, unknown>): void {
  for (const [name, max] of lengths) {
    const v = values[name];
    if (typeof v === 'string' && v.length > max && characters(v) > max) {
      throw new ValueTooLongError(model.getTableName() as string, name, max);
    }
  }
}

/**
 * Refuses, before any statement runs, a string longer than its VARCHAR column: on every create,
 * save, bulk create and update of every model, on both databases alike (SQLite does not enforce
 * lengths; MariaDB would answer a driver error).
 */
export function guardLengths(sequelize: Sequelize): void {
  for (const model of Object.values(sequelize.models) as Array<ModelStatic<Model>>) {
    const lengths = varcharLengths(model);
    if (!lengths.size) continue;
    const instance = (m: Model) => check(model, lengths, m.dataValues as Record<string, unknown>);
    model.addHook('beforeSave', instance);
    model.addHook('beforeBulkCreate', (instances: Model[]) => instances.forEach(instance));
    model.addHook('beforeBulkUpdate', (options) => {
      const values = (options as { attributes?: Record<string, unknown> }).attributes;
      if (values) check(model, lengths, values);
    });
  }
}
