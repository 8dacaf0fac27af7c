import { QueryTypes } from 'sequelize';
import { describeServerError, requestIdFrom } from '../../src/core/server-errors';
import { startTestServer, TEST_DB_URL, type TestServer } from '../helpers/server';

/**
 * What a logged server error says about a real driver error (src/core/server-errors.ts): the driver's
 * message and codes, never the SQL text, its parameters, or values the database quotes back.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

async function failing(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    return e;
  }
  throw new Error('the statement did not fail');
}

test('a failing statement: driver message and codes; not the SQL, not its replacement values', async () => {
  const err = await failing(() =>
    ts.db.sequelize.query('SELECT * FROM no_such_table WHERE secret = :v', {
      replacements: { v: 'replacement-secret-1' },
      type: QueryTypes.SELECT,
    }),
  );
  // The error carries the SQL with the value inlined: that is what must stay out of the log.
  expect(JSON.stringify((err as { sql?: string }).sql)).toContain('replacement-secret-1');
  const text = describeServerError(err);
  expect(text.split('\n')[0]).toMatch(
    TEST_DB_URL
      ? /^SequelizeDatabaseError: Table '[^']+\.no_such_table' doesn't exist \(sqlState=42S02, code=ER_NO_SUCH_TABLE, errno=1146\)$/
      : /^SequelizeDatabaseError: SQLITE_ERROR: no such table: no_such_table \(code=SQLITE_ERROR, errno=1\)$/,
  );
  expect(text).not.toContain('replacement-secret-1');
  expect(text).not.toContain('SELECT');
});

test('a duplicate key: the value the database quotes back is masked', async () => {
  // Rows that exist, since realm_default_group's columns are foreign keys (ADR 21).
  const realmId = ((await ts.db.models.Realm.findOne({ where: { name: 'master' } })) as { id: string }).id;
  await ts.db.models.Group.create({ id: 'duplicate-secret-value-2', realmId, name: 'duplicate-secret-value-2' });
  const row = { realmId, groupId: 'duplicate-secret-value-2' };
  await ts.db.models.RealmDefaultGroup.create(row);
  const err = await failing(() => ts.db.models.RealmDefaultGroup.create(row));
  const text = describeServerError(err);
  expect(text).not.toContain('duplicate-secret-value-2');
  expect(text.split('\n')[0]).toMatch(
    TEST_DB_URL
      ? /^SequelizeUniqueConstraintError: Duplicate entry '…' for key '[^']+' \(sqlState=23000, code=ER_DUP_ENTRY, errno=1062\)$/
      : /^SequelizeUniqueConstraintError: SQLITE_CONSTRAINT: UNIQUE constraint failed: realm_default_group\.\w+, realm_default_group\.\w+ \(code=SQLITE_CONSTRAINT, errno=19\)$/,
  );
});

test('request ids: a sane client id is kept, anything else becomes a UUID', () => {
  expect(requestIdFrom('abc-123_./:=')).toBe('abc-123_./:=');
  expect(requestIdFrom(['first', 'second'])).toBe('first');
  for (const bad of [undefined, '', ' ', 'a b', 'x'.repeat(129), 'new\nline', 'é', 42]) {
    expect(requestIdFrom(bad)).toMatch(/^[0-9a-f-]{36}$/);
  }
});
