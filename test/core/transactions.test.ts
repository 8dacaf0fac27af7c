import request from 'supertest';
import { write } from '../../src/core/db-errors';
import { conflict } from '../../src/core/errors';
import { memo, systemContext } from '../../src/core/context';
import { TRANSACTION_ATTEMPTS } from '../../src/db';
import { TEST_DB_URL, type TestServer, startTestServer } from '../helpers/server';

/**
 * The rules that every write relies on, pinned once here: a transaction that loses a lock race is
 * run again as a whole (db.transaction), a violated unique index becomes the Keycloak error the
 * service names (core/db-errors), and anything else is left alone.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

/** An error as the driver raises it when the transaction lost a lock race on this database. */
const lockRace = () => Object.assign(new Error('lock race'), { parent: { code: TEST_DB_URL ? 'ER_LOCK_DEADLOCK' : 'SQLITE_BUSY' } });

/**
 * A scratch row with a primary key: inserting it twice without a rollback in between is a unique
 * violation. An event row, since events reference nothing by foreign key (ADR 21).
 */
const scratch = (id: string) => ts.db.models.Event.create({ id: `scratch-${id}`, realmId: 'scratch-realm', time: 0 });
const scratchRows = (id: string) => ts.db.models.Event.count({ where: { id: `scratch-${id}` } });

test('a transaction that lost a lock race is rolled back and run again', async () => {
  let runs = 0;
  await ts.db.transaction(async () => {
    runs++;
    await scratch('retried');
    if (runs < TRANSACTION_ATTEMPTS) throw lockRace();
  });
  expect(runs).toBe(TRANSACTION_ATTEMPTS);
  expect(await scratchRows('retried')).toBe(1);
});

test('after the last attempt the lock race reaches the caller, and nothing of it is kept', async () => {
  let runs = 0;
  await expect(
    ts.db.transaction(async () => {
      runs++;
      await scratch('given-up');
      throw lockRace();
    }),
  ).rejects.toThrow('lock race');
  expect(runs).toBe(TRANSACTION_ATTEMPTS);
  expect(await scratchRows('given-up')).toBe(0);
});

test('a write run again after a lost lock race forgets what its rolled-back attempt cached', async () => {
  const ctx = systemContext(ts.db);
  const id = 'scratch-role-rerun';
  const seen: Array<[string | null, number]> = [];
  let runs = 0;
  const realm = await ts.db.models.Realm.findOne({ where: { name: 'master' } });
  const realmId = realm?.id as string;
  await write(ctx, {}, async () => {
    runs++;
    if (runs === 1) await ts.db.models.Role.create({ id, realmId, containerId: realmId, name: 'rerun', clientId: null });
    const role = await ctx.loaders.roleById.load(id);
    seen.push([role?.name ?? null, await memo(ctx, 'scratch-runs', async () => runs)]);
    if (runs === 1) throw lockRace();
  });
  // The second attempt reads the database again: the role of the first is gone, the memo recomputed.
  expect(seen).toEqual([
    ['rerun', 1],
    [null, 2],
  ]);
});

test('other errors are not retried', async () => {
  let runs = 0;
  await expect(
    ts.db.transaction(async () => {
      runs++;
      throw new Error('plain failure');
    }),
  ).rejects.toThrow('plain failure');
  expect(runs).toBe(1);
});

test('a nested transaction joins the outer one and is not retried on its own', async () => {
  let inner = 0;
  let outer = 0;
  await ts.db.transaction(async () => {
    outer++;
    await ts.db
      .transaction(async () => {
        inner++;
        if (outer === 1) throw lockRace();
      })
      .catch((e) => {
        throw e;
      });
  });
  expect(outer).toBe(2);
  expect(inner).toBe(2);
});

test('a violated unique index becomes the Keycloak error the service names; other errors pass through', async () => {
  const ctx = systemContext(ts.db);
  await scratch('unique');
  await expect(write(ctx, { unique: () => conflict('Already there') }, () => scratch('unique'))).rejects.toMatchObject({
    status: 409,
    body: { errorMessage: 'Already there' },
  });
  expect(await scratchRows('unique')).toBe(1);
  await expect(write(ctx, { unique: () => conflict('x') }, async () => Promise.reject(new Error('other')))).rejects.toThrow('other');
});

test('concurrent adds and removes of one role mapping never answer 500', async () => {
  const api = await ts.api();
  expect((await api.post('/admin/realms', { realm: 'tx', enabled: true })).status).toBe(201);
  expect((await api.post('/admin/realms/tx/roles', { name: 'r' })).status).toBe(201);
  expect((await api.post('/admin/realms/tx/users', { username: 'mapped-user' })).status).toBe(201);
  const user = (await api.get('/admin/realms/tx/users?username=mapped-user&exact=true')).body[0];
  const role = (await api.get('/admin/realms/tx/roles/r')).body;
  const url = await ts.listen();
  const bearer = `Bearer ${await ts.token()}`;
  const path = `/admin/realms/tx/users/${user.id}/role-mappings/realm`;
  expect(role.id).toBeTruthy();
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? request(url).delete(path) : request(url).post(path)).set('Authorization', bearer).send([{ id: role.id, name: 'r' }]),
    ),
  );
  expect(results.map((r) => `${r.status} ${r.status === 204 ? '' : JSON.stringify(r.body)}`).filter((s) => !s.startsWith('204'))).toEqual(
    [],
  );
  const mapped = (await api.get(path)).body as Array<{ name: string }>;
  expect(mapped.filter((r) => r.name === 'r').length).toBeLessThanOrEqual(1);
});
