import DataLoader from 'dataloader';
import { Op } from 'sequelize';

type AnyModel = { findAll(opts: object): Promise<unknown[]> };

export function byId<T extends { id: string }>(model: AnyModel) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = (await model.findAll({ where: { id: { [Op.in]: [...ids] } } })) as T[];
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id) ?? null);
  });
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
