import { QueryTypes } from 'sequelize';
import { openDb } from '../../src/db';
import { freshDbOptions } from '../helpers/server';

/**
 * Database work nobody awaits (the amortised session and login purges, event mails, the event
 * expiration timer) runs through `db.background`, so that closing the pool waits for it: a purge
 * that was between two statements when the server stopped used to fail with "the connection manager
 * was closed" (CI, shutdown-aborted test).
 */
describe('background database work and close()', () => {
  test('close() waits for work running between its statements; work started after close() is skipped', async () => {
    const { opts, cleanup } = await freshDbOptions();
    const db = await openDb(opts);
    try {
      const done: number[] = [];
      let failure: unknown;
      db.background(async () => {
        try {
          for (let i = 0; i < 5; i++) {
            // Idle between statements: the pool has nothing borrowed at these moments.
            await new Promise((r) => setTimeout(r, 20));
            await db.sequelize.query('SELECT 1 AS one', { type: QueryTypes.SELECT });
            done.push(i);
          }
        } catch (e) {
          failure = e;
        }
      });
      await new Promise((r) => setTimeout(r, 30));
      await db.close();
      expect(failure).toBeUndefined();
      expect(done).toEqual([0, 1, 2, 3, 4]);
      let startedAfterClose = false;
      db.background(async () => {
        startedAfterClose = true;
      });
      expect(startedAfterClose).toBe(false);
    } finally {
      await cleanup();
    }
  });

  test('a failing background job neither rejects unhandled nor keeps close() waiting', async () => {
    const { opts, cleanup } = await freshDbOptions();
    const db = await openDb(opts);
    try {
      db.background(() => Promise.reject(new Error('boom')));
      await expect(db.close()).resolves.toBeUndefined();
    } finally {
      await cleanup();
    }
  });

  test('close(deadline) stops waiting for a job that hangs (an SMTP server that never answers) at the deadline', async () => {
    const { opts, cleanup } = await freshDbOptions();
    const db = await openDb(opts);
    try {
      db.background(() => new Promise(() => undefined));
      const started = Date.now();
      await db.close(Date.now() + 200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await cleanup();
    }
  });
});
