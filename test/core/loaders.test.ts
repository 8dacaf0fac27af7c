import { createLoaders } from '../../src/loaders';
import { invalidate } from '../../src/loaders/invalidate';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Per-request loaders are built group by group on first use (src/loaders/index.ts): a request pays for
 * the loaders it uses, every request still gets a set of its own, and invalidating everything clears
 * every loader that may hold a row.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

test('a group of loaders is built on first use, for that request only', async () => {
  const a = createLoaders(ts.db);
  const b = createLoaders(ts.db);
  expect(Object.keys(a)).toEqual([]);
  const loader = a.userById;
  expect(a.userById).toBe(loader); // built once
  expect(Object.keys(a)).toEqual(expect.arrayContaining(['realmById', 'realmByName', 'userById']));
  expect(Object.keys(a)).not.toContain('roleById');
  expect(Object.keys(b)).toEqual([]);
  expect(b.userById).not.toBe(loader);
});

test('a built loader caches for its request, and invalidate.everything empties it', async () => {
  const l = createLoaders(ts.db);
  const first = await l.realmByName.load('master');
  const { count: cached } = await ts.countSql(() => l.realmByName.load('master'));
  expect(cached).toBe(0);
  invalidate.everything(l);
  const { count, result } = await ts.countSql(() => l.realmByName.load('master'));
  expect(count).toBe(1);
  expect(result?.id).toBe(first?.id);
});
