import { cachedRealm, realmWithVersion } from '../../src/auth/realm-keys';
import { userProfileConfig } from '../../src/services/users/user-profile';
import { createContext } from '../../src/core/context';
import type { RealmModel } from '../../src/db/models/realm';
import { clearSharedCache, sharedMemo } from '../../src/core/shared-cache';
import { watchWrites } from '../../src/db/write-watch';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The shared cache's two rules below HTTP (ADR 23): an entry is used only under the stamp it was
 * stored with, and a request that has written reads past the shared entries (the versions it read
 * when it began are older than its own write).
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());
beforeEach(() => clearSharedCache());

const request = () => {
  const ctx = createContext(ts.db, null, 'http://localhost');
  ctx.versions = { realms: new Map(), users: new Map() };
  return ctx;
};

test('an entry is shared between requests under the same stamp and recomputed under another', async () => {
  expect(await watchWrites(() => sharedMemo(request(), 'k', 'r1', async () => 'first'))).toBe('first');
  expect(await watchWrites(() => sharedMemo(request(), 'k', 'r1', async () => 'second'))).toBe('first');
  expect(await watchWrites(() => sharedMemo(request(), 'k', 'r2', async () => 'third'))).toBe('third');
  // No stamp (a version not read in this request): computed, never shared.
  expect(await watchWrites(() => sharedMemo(request(), 'k', undefined, async () => 'fourth'))).toBe('fourth');
  expect(await watchWrites(() => sharedMemo(request(), 'k', 'r2', async () => 'fifth'))).toBe('third');
});

test('after a write in the request, the shared entry is not used: through a model, or a statement of its own', async () => {
  await watchWrites(() => sharedMemo(request(), 'k', 'r1', async () => 'cached'));
  const viaModel = await watchWrites(async () => {
    await ts.db.models.Realm.update({ enabled: true }, { where: { name: 'no-such-realm' } });
    return sharedMemo(request(), 'k', 'r1', async () => 'after model write');
  });
  expect(viaModel).toBe('after model write');
  const viaSql = await watchWrites(async () => {
    await ts.db.sequelize.query("DELETE FROM realm_localization WHERE realm_id = 'none'");
    return sharedMemo(request(), 'k', 'r1', async () => 'after raw write');
  });
  expect(viaSql).toBe('after raw write');
  // A read does not count as a write; outside any request scope nothing is shared.
  const afterRead = await watchWrites(async () => {
    await ts.db.models.Realm.findAll();
    return sharedMemo(request(), 'k', 'r1', async () => 'recomputed');
  });
  expect(afterRead).toBe('cached');
  expect(await sharedMemo(request(), 'k', 'r1', async () => 'outside')).toBe('outside');
});

test("a cached realm row is shared frozen: a request's in-place change throws, an assigned one stays its own", async () => {
  const realm = await realmWithVersion(ts.db, 'master');
  if (!realm?.cacheVersion || realm.cacheVersion < 0) throw new Error('master has no cache version');
  const a = cachedRealm(ts.db, 'master', realm.cacheVersion) as RealmModel;
  const b = cachedRealm(ts.db, 'master', realm.cacheVersion) as RealmModel;
  expect(a).not.toBe(b);
  expect(a.settings).toBe(b.settings); // parsed once, not per request
  expect(() => {
    (a.settings as Record<string, unknown>).displayName = 'changed in place';
  }).toThrow(TypeError);
  a.settings = { ...a.settings, displayName: 'assigned' };
  expect(a.settings.displayName).toBe('assigned');
  expect(b.settings.displayName).not.toBe('assigned');
  expect(cachedRealm(ts.db, 'master', realm.cacheVersion)?.settings.displayName).not.toBe('assigned');
});

test("a realm's user-profile configuration is parsed once per realm version and shared frozen", async () => {
  const realm = (await realmWithVersion(ts.db, 'master')) as RealmModel & { cacheVersion: number };
  const requestOf = () => {
    const ctx = request();
    ctx.versions?.realms.set(realm.id, realm.cacheVersion);
    return ctx;
  };
  const a = await watchWrites(() => userProfileConfig(requestOf(), realm));
  const b = await watchWrites(() => userProfileConfig(requestOf(), realm));
  expect(a).toBe(b);
  expect(a.attributes?.map((x) => x.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
  expect(() => {
    a.attributes?.push({ name: 'added in place' });
  }).toThrow(TypeError);
  // Under another realm version (a write through any node), read again.
  const other = request();
  other.versions?.realms.set(realm.id, realm.cacheVersion + 1);
  expect(await watchWrites(() => userProfileConfig(other, realm))).not.toBe(a);
});
