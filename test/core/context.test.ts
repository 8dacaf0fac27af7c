import { createContext, derivedContext } from '../../src/core/context';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * A request's logger is made when it first logs. Apollo copies the context for each operation with
 * Object.assign onto the same prototype; the copy must not make the logger, and must still have one.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

test("copying a context as Apollo does makes no logger; the copy and a derived context still log with the request's id", () => {
  const ctx = createContext(ts.db, null, 'http://localhost', 'idserver.request', 'req-1');
  const copy = Object.assign(Object.create(Object.getPrototypeOf(ctx)), ctx) as typeof ctx;
  expect((ctx as unknown as { logger?: unknown }).logger).toBeUndefined();
  expect((copy as unknown as { logger?: unknown }).logger).toBeUndefined();
  expect((copy.log as unknown as { context: Record<string, unknown> }).context.requestId).toBe('req-1');
  expect(copy.loaders).toBe(ctx.loaders);
  const derived = derivedContext(ctx, { actor: null, memo: new Map() });
  expect(derived.memo).not.toBe(ctx.memo);
  expect((derived.log as unknown as { context: Record<string, unknown> }).context.requestId).toBe('req-1');
});
