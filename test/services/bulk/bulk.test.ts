import { type RequestContext, systemContext } from '../../../src/core/context';
import { badRequest } from '../../../src/core/errors';
import type { RealmModel } from '../../../src/db/models/realm';
import { type BulkMode, runBulk } from '../../../src/services/bulk/bulk';
import { createTopLevelGroup } from '../../../src/services/groups/groups';
import { adminEvents, createRealm } from '../../helpers/fixtures';
import { type AdminApi, TEST_DB_URL, type TestServer, startTestServer } from '../../helpers/server';

/**
 * The bulk runner's transaction rules, pinned below GraphQL with an item that fails after it has
 * written (no bulk operation of the API fails that late on its own): PER_ITEM undoes exactly the
 * failing item's rows and admin event, ATOMIC undoes everything, and a lost lock race runs the whole
 * batch again rather than failing an item.
 */
let ts: TestServer;
let api: AdminApi;
let realms = 0;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

async function freshRealm(): Promise<{ name: string; realm: RealmModel; ctx: RequestContext }> {
  const name = `runner${++realms}`;
  await createRealm(api, name, { adminEventsEnabled: true });
  const realm = await ts.db.models.Realm.findOne({ where: { name } });
  if (!realm) throw new Error('realm not created');
  return { name, realm, ctx: systemContext(ts.db) };
}

/** An error as the driver raises it when the transaction lost a lock race on this database. */
const lockRace = () => Object.assign(new Error('lock race'), { parent: { code: TEST_DB_URL ? 'ER_LOCK_DEADLOCK' : 'SQLITE_BUSY' } });

/** Each item creates a group (rows and an admin event), then the items named `fail-*` throw. */
function groupWriter(ctx: RequestContext, realm: RealmModel) {
  return async (name: string) => {
    const { id } = await createTopLevelGroup(ctx, realm, { name });
    if (name.startsWith('fail')) throw badRequest(`${name} refused after writing`);
    return { id, status: 'CREATED' as const };
  };
}

async function groupNames(name: string): Promise<string[]> {
  const res = await api.get(`/admin/realms/${name}/groups?max=100`);
  return (res.body as Array<{ name: string }>).map((g) => g.name).sort();
}

test.each<BulkMode>(['PER_ITEM', 'ATOMIC'])('%s: an item failing after it wrote leaves none of its rows or events', async (mode) => {
  const { name, realm, ctx } = await freshRealm();
  const result = await runBulk(ctx, ['one', 'fail-two', 'three'], mode, groupWriter(ctx, realm));
  expect(result.ok).toBe(false);
  expect(result.results[1]).toMatchObject({
    index: 1,
    id: null,
    status: 'FAILED',
    error: { status: 400, message: 'fail-two refused after writing' },
  });
  const events = await adminEvents(api, name, { resourceTypes: 'GROUP' });
  if (mode === 'PER_ITEM') {
    expect(result.results.map((r) => r.status)).toEqual(['CREATED', 'FAILED', 'CREATED']);
    expect(await groupNames(name)).toEqual(['one', 'three']);
    expect(events.map((e) => e.resourcePath)).toEqual([result.results[0].id, result.results[2].id].map((id) => `groups/${id}`));
  } else {
    expect(result.results.map((r) => r.status)).toEqual(['ROLLED_BACK', 'FAILED', 'NOT_ATTEMPTED']);
    expect(await groupNames(name)).toEqual([]);
    expect(events).toEqual([]);
  }
});

test.each<BulkMode>(['PER_ITEM', 'ATOMIC'])('%s: a lost lock race runs the whole batch again instead of failing an item', async (mode) => {
  const { name, realm, ctx } = await freshRealm();
  const write = groupWriter(ctx, realm);
  let raced = false;
  const result = await runBulk(ctx, ['alpha', 'beta', 'gamma'], mode, async (item) => {
    const out = await write(item);
    if (item === 'beta' && !raced) {
      raced = true;
      throw lockRace();
    }
    return out;
  });
  expect(raced).toBe(true);
  expect(result.ok).toBe(true);
  expect(result.results.map((r) => r.status)).toEqual(['CREATED', 'CREATED', 'CREATED']);
  // Each group once: the first attempt's rows went with its rollback.
  expect(await groupNames(name)).toEqual(['alpha', 'beta', 'gamma']);
  expect(await adminEvents(api, name, { resourceTypes: 'GROUP' })).toHaveLength(3);
});

test('an unexpected error fails its item as a 500, without its message', async () => {
  const { ctx } = await freshRealm();
  const result = await runBulk(ctx, ['a'], 'PER_ITEM', async () => {
    throw new Error('internal detail');
  });
  expect(result.results[0]).toMatchObject({ status: 'FAILED', error: { status: 500, body: { error: 'unknown_error' } } });
});
