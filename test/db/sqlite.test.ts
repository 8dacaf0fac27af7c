import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import { type Db, openDb } from '../../src/db';
import { TEST_DB_URL } from '../helpers/server';

/**
 * The embedded SQLite database is configured on every connection Sequelize opens (the shared read
 * connection and each transaction's own): WAL, a 10 s busy timeout, and no repeated schema pragmas.
 */
const sqliteOnly = TEST_DB_URL ? describe.skip : describe;

sqliteOnly('SQLite connections', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'idserver-sqlite-'));
    db = await openDb({ vendor: 'sqlite', url: join(dir, 'db.sqlite') });
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pragma = async (name: string) =>
    Object.values((await db.sequelize.query(`PRAGMA ${name}`, { type: QueryTypes.SELECT }))[0] as object)[0];

  test('WAL journal, 10 s busy timeout, foreign keys enforced (ADR 21) — also inside a transaction', async () => {
    expect([await pragma('journal_mode'), await pragma('busy_timeout'), await pragma('foreign_keys')]).toEqual(['wal', 10000, 1]);
    const inTx = await db.transaction(async () => [
      await pragma('journal_mode'),
      await pragma('busy_timeout'),
      await pragma('foreign_keys'),
    ]);
    expect(inTx).toEqual(['wal', 10000, 1]);
  });

  test('a model query runs one statement on the connection, not a table_info pragma each time', async () => {
    await db.models.Realm.findAll(); // the first read of a table may ask for its column types
    const cm = db.sequelize.connectionManager as unknown as {
      getConnection(o?: object): Promise<{ on(e: 'trace', f: (sql: string) => void): void; removeAllListeners(e: 'trace'): void }>;
    };
    const conn = await cm.getConnection({});
    const seen: string[] = [];
    conn.on('trace', (sql) => seen.push(sql));
    try {
      for (let i = 0; i < 3; i++) await db.models.Realm.findAll();
      await new Promise((r) => setTimeout(r, 50)); // trace events arrive asynchronously
    } finally {
      conn.removeAllListeners('trace');
    }
    expect(seen.filter((s) => s.startsWith('PRAGMA')).length).toBe(0);
    expect(seen.length).toBe(3);
  });

  test('a transaction reuses the connection of one that ended (committed or rolled back), in a clean state', async () => {
    const connOf = () => db.transaction(async (t) => (t as unknown as { connection: object }).connection);
    const first = await connOf();
    // Rolled back with a row written: the next transaction on the same connection sees nothing of it.
    const realmRow = { id: 'tx-reuse', name: 'tx-reuse', enabled: true, settings: {}, createdAt: Date.now() };
    await expect(
      db.transaction(async () => {
        await db.models.Realm.create(realmRow);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    const [second, seen] = await db.transaction(async (t) => [
      (t as unknown as { connection: object }).connection,
      await db.models.Realm.count({ where: { id: 'tx-reuse' } }),
    ]);
    expect(second).toBe(first);
    expect(seen).toBe(0);
    await db.transaction(async () => db.models.Realm.create(realmRow));
    expect(await db.models.Realm.count({ where: { id: 'tx-reuse' } })).toBe(1);
    await db.models.Realm.destroy({ where: { id: 'tx-reuse' } });
  });
});
