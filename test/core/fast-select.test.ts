import { QueryTypes } from 'sequelize';
import { fastSelect, fastSelectText } from '../../src/db/fast-select';
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

test('outside a transaction the statement goes straight to the driver on either database, never through sequelize.query', async () => {
  // On MariaDB every fastSelect once fell back to Sequelize's pipeline (mysql2 connections have a
  // `prepare` of their own, taken for SQLite's): same rows, twice the CPU.
  const query = jest.spyOn(ts.db.sequelize, 'query');
  try {
    const q = 'SELECT name FROM realm WHERE name IN (:names) AND enabled = :on ORDER BY name LIMIT :max OFFSET :first';
    const rows = await fastSelect<{ name: string }>(ts.db.sequelize, q, { names: ['master', 'x'], on: true, max: 10, first: 0 });
    expect(rows.map((r) => r.name)).toEqual(['master']);
    expect(await fastSelect(ts.db.sequelize, q, { names: ['master'], on: true, max: 10, first: 1 })).toEqual([]);
    expect(query).not.toHaveBeenCalled();
  } finally {
    query.mockRestore();
  }
});

test('values come back as Sequelize returns them: numbers, counts, 0/1 flags, nulls, JSON text, long text', async () => {
  const q = `SELECT r.name, r.enabled, r.settings, r.created_at AS createdAt, NULL AS missing,
    (SELECT COUNT(*) FROM realm x WHERE x.id = r.id) AS n FROM realm r WHERE r.name = :name`;
  const replacements = { name: 'master' };
  const expected = await ts.db.sequelize.query(q, { replacements, type: QueryTypes.SELECT });
  expect(await fastSelect(ts.db.sequelize, q, replacements)).toEqual(expected);
  expect(expected).toHaveLength(1);
});

describe('statements built per request (fastSelectText)', () => {
  // A value already escaped into the text: `:id` inside it is the value, not a placeholder.
  const text = (name: string) => `SELECT name FROM realm WHERE name = ${ts.db.sequelize.escape(name)} OR name = ':id' ORDER BY name`;

  test('the text goes to the driver as it is: the same rows as sequelize.query, seen by the listener, not through it', async () => {
    const expected = await ts.db.sequelize.query(text('master'), { type: QueryTypes.SELECT });
    const query = jest.spyOn(ts.db.sequelize, 'query');
    try {
      const { result, count, statements } = await ts.countSql(() => fastSelectText(ts.db.sequelize, text('master')));
      expect(result).toEqual(expected);
      expect(result).toEqual([{ name: 'master' }]);
      expect(count).toBe(1);
      expect(statements[0]).toContain("OR name = ':id'");
      // (other work of the server may query meanwhile; this statement must not be among it)
      expect(query.mock.calls.filter(([sql]) => String(sql).includes("':id'"))).toEqual([]);
    } finally {
      query.mockRestore();
    }
  });

  test("inside a transaction it reads the transaction's own rows; a failing statement throws Sequelize's error", async () => {
    const seen = await ts.db
      .transaction(async () => {
        await ts.db.sequelize.query("INSERT INTO realm (id, name, enabled, settings, created_at) VALUES ('fs-2', ':id', 1, '{}', 0)");
        const rows = await fastSelectText<{ name: string }>(ts.db.sequelize, text('nobody'));
        throw Object.assign(new Error('rollback'), { rows });
      })
      .catch((e: { rows?: unknown }) => e.rows);
    expect(seen).toEqual([{ name: ':id' }]);
    expect(await fastSelectText(ts.db.sequelize, text('nobody'))).toEqual([]);
    await expect(fastSelectText(ts.db.sequelize, 'SELECT nope FROM no_such_table')).rejects.toMatchObject({
      name: 'SequelizeDatabaseError',
    });
  });
});

describe('kept statements (SQLite: prepared once per connection)', () => {
  const sqlite = () => ts.db.sequelize.getDialect() === 'sqlite';

  test("a kept statement binds each call's values, lists of any length, and booleans and nulls as inlined ones would", async () => {
    const q = 'SELECT name FROM realm WHERE (name IN (:names) OR id = :id) AND enabled = :on ORDER BY name';
    for (const names of [['master'], ['nope', 'master'], Array.from({ length: 40 }, (_, i) => `r${i}`)]) {
      const replacements = { names, id: null, on: true };
      expect(await fastSelect(ts.db.sequelize, q, replacements)).toEqual(
        await ts.db.sequelize.query(q, { replacements, type: QueryTypes.SELECT }),
      );
    }
    expect(await fastSelect(ts.db.sequelize, q, { names: ['master'], id: null, on: false })).toEqual([]);
  });

  test('more distinct statements than are kept: the oldest are finalized, every answer stays right', async () => {
    for (let n = 1; n <= 300; n++) {
      const names = Array.from({ length: n }, (_, i) => (i === n - 1 ? 'master' : `x${i}`));
      const rows = await fastSelect<{ name: string }>(ts.db.sequelize, 'SELECT name FROM realm WHERE name IN (:names)', { names });
      expect(rows.map((r) => r.name)).toEqual(['master']);
    }
  });

  test('a schema change after a statement was kept: the statement is prepared again by SQLite, the answer follows the schema', async () => {
    if (!sqlite()) return;
    const q = 'SELECT * FROM fast_select_probe WHERE id = :id';
    await ts.db.sequelize.query('CREATE TABLE fast_select_probe (id TEXT PRIMARY KEY)');
    try {
      await ts.db.sequelize.query("INSERT INTO fast_select_probe (id) VALUES ('a')");
      expect(await fastSelect(ts.db.sequelize, q, { id: 'a' })).toEqual([{ id: 'a' }]);
      await ts.db.sequelize.query("ALTER TABLE fast_select_probe ADD COLUMN note TEXT DEFAULT 'n'");
      expect(await fastSelect(ts.db.sequelize, q, { id: 'a' })).toEqual([{ id: 'a', note: 'n' }]);
    } finally {
      await ts.db.sequelize.query('DROP TABLE fast_select_probe');
    }
  });
});

describe('model reads straight to the driver (fastModelReads)', () => {
  /** The same read through Sequelize's own pipeline: inside a transaction the fast path stands aside. */
  const viaSequelize = <T>(read: () => Promise<T>) => ts.db.transaction(async () => read()).then((r) => r);
  const plain = (rows: Array<{ get(o: { plain: true }): unknown }>) => rows.map((r) => r.get({ plain: true }));

  test('instances equal to Sequelize-built ones: booleans, JSON columns, numbers, ordering, limits, attributes', async () => {
    const { Client, Realm, Role } = ts.db.models;
    type Row = { get(o: { plain: true }): unknown };
    const reads: Array<() => Promise<Row[]>> = [
      () => Client.findAll({ order: [['clientId', 'ASC']] }),
      () => Realm.findAll({ where: { name: 'master' } }),
      () => Role.findAll({ where: { clientId: null }, order: [['name', 'DESC']], limit: 3, offset: 1 }),
      () => Client.findAll({ attributes: ['id', 'clientId', 'publicClient'], where: { publicClient: true } }),
    ];
    for (const read of reads) {
      const fast = await read();
      expect(fast.length).toBeGreaterThan(0);
      expect(plain(fast)).toEqual(plain(await viaSequelize(read)));
    }
    const client = await Client.findOne({ where: { clientId: 'admin-cli' } });
    expect(client?.publicClient).toBe(true);
    expect(typeof client?.settings).toBe('object');
    expect(await Client.findOne({ where: { clientId: 'no-such-client' } })).toBeNull();
    expect((await Realm.findByPk((await Realm.findOne({ where: { name: 'master' } }))?.id as string))?.name).toBe('master');
  });

  test('raw reads keep the driver values, as Sequelize returns them; grouped counts work', async () => {
    const { Client, Role } = ts.db.models;
    const raw = () => Client.findAll({ where: { clientId: 'admin-cli' }, raw: true });
    expect(await raw()).toEqual(await viaSequelize(raw));
    const counts = () =>
      Role.findAll({
        attributes: ['clientId', [ts.db.sequelize.fn('COUNT', ts.db.sequelize.col('id')), 'n']],
        group: ['clientId'],
        order: [['clientId', 'ASC']],
        raw: true,
      });
    expect(await counts()).toEqual(await viaSequelize(counts));
  });

  test('one statement per read, seen by the SQL listener, and none of it through sequelize.query', async () => {
    const query = jest.spyOn(ts.db.sequelize, 'query');
    try {
      const { count } = await ts.countSql(() => ts.db.models.Client.findAll({ where: { clientId: 'admin-cli' } }));
      expect(count).toBe(1);
      expect(query.mock.calls.filter(([sql]) => String(sql).includes('`client`'))).toEqual([]);
    } finally {
      query.mockRestore();
    }
  });
});
