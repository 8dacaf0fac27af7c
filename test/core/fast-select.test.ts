import { QueryTypes } from 'sequelize';
import { fastSelect } from '../../src/db/fast-select';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The driver-direct SELECT of the hot paths (db/fast-select.ts) behaves as `sequelize.query` does:
 * the same rows, every statement seen by the SQL listener, a transaction's own view inside it, and
 * Sequelize's errors when the statement fails.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

const SQL = 'SELECT name, enabled FROM realm WHERE name IN (:names) OR id = :id ORDER BY name';

test('the same rows as sequelize.query, and the statement is seen', async () => {
  const replacements = { names: ['master', "o'brien"], id: null };
  const expected = await ts.db.sequelize.query(SQL, { replacements, type: QueryTypes.SELECT });
  const { result, count, statements } = await ts.countSql(() => fastSelect(ts.db.sequelize, SQL, replacements));
  expect(result).toEqual(expected);
  expect(result).toHaveLength(1);
  expect(count).toBe(1);
  expect(statements[0]).toMatch(/IN \('master', 'o(''|\\')brien'\)/);
});

test("inside a transaction it reads the transaction's own rows", async () => {
  const seen = await ts.db
    .transaction(async () => {
      await ts.db.sequelize.query("INSERT INTO realm (id, name, enabled, settings, created_at) VALUES ('fs-1', 'fast-select', 1, '{}', 0)");
      const rows = await fastSelect<{ name: string }>(ts.db.sequelize, SQL, { names: ['fast-select'], id: null });
      throw Object.assign(new Error('rollback'), { rows });
    })
    .catch((e: { rows?: unknown }) => e.rows);
  expect(seen).toEqual([expect.objectContaining({ name: 'fast-select' })]);
  expect(await fastSelect(ts.db.sequelize, SQL, { names: ['fast-select'], id: null })).toEqual([]);
});

test("a failing statement throws Sequelize's error, as the rest of the server expects", async () => {
  await expect(fastSelect(ts.db.sequelize, 'SELECT nope FROM no_such_table WHERE id = :id', { id: 'x' })).rejects.toMatchObject({
    name: 'SequelizeDatabaseError',
  });
});
