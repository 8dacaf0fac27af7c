import { randomUUID } from 'node:crypto';
import { DEFAULT_ENABLED_EVENT_TYPES } from '../../../src/keycloak/event-types';
import { purgeExpiredEvents } from '../../../src/services/events/events';
import { realmAdmin, realmIdOf } from '../../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../../helpers/server';

/** GET/PUT /events/config (reference §7.6) and the expiration of old events. */
let ts: TestServer;
let api: AdminApi;
const R = 'evc';
const C = `/admin/realms/${R}/events/config`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await api.post('/admin/realms', { realm: R, enabled: true });
});
afterAll(() => ts.close());

describe('events/config', () => {
  test('GET on a new realm: defaults, all saved-by-default types listed', async () => {
    // A realm of its own: the other tests change the shared realm's config.
    expect((await api.post('/admin/realms', { realm: 'evc-new', enabled: true })).status).toBe(201);
    const res = await api.get('/admin/realms/evc-new/events/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      eventsEnabled: false,
      eventsListeners: ['jboss-logging'],
      enabledEventTypes: DEFAULT_ENABLED_EVENT_TYPES,
      adminEventsEnabled: false,
      adminEventsDetailsEnabled: false,
    });
    expect(res.body.enabledEventTypes).toHaveLength(103);
    expect(res.body.enabledEventTypes.slice(0, 4)).toEqual(['LOGIN', 'LOGIN_ERROR', 'REGISTER', 'REGISTER_ERROR']);
    expect(res.body.enabledEventTypes).not.toContain('REFRESH_TOKEN');
    // the realm representation shows the stored (empty) list
    expect((await api.get(`/admin/realms/${R}`)).body.enabledEventTypes).toEqual([]);
  });

  /** A full configuration: what the PUT test stores and the PUT-semantics test starts from. */
  const stored = {
    eventsEnabled: true,
    eventsExpiration: 3600,
    eventsListeners: ['jboss-logging', 'email'],
    enabledEventTypes: ['LOGIN', 'LOGOUT', 'MY_CUSTOM_TYPE'],
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
  };

  test('PUT: stores, GET and the realm representation agree', async () => {
    const body = stored;
    expect((await api.put(C, body)).status).toBe(204);
    expect((await api.get(C)).body).toEqual(body);
    expect((await api.get(`/admin/realms/${R}`)).body).toMatchObject(body);
  });

  test('PUT semantics: omitted eventsEnabled → false, omitted expiration → 0, null lists and admin flags unchanged', async () => {
    expect((await api.put(C, stored)).status).toBe(204);
    expect((await api.put(C, { eventsListeners: null, enabledEventTypes: null })).status).toBe(204);
    expect((await api.get(C)).body).toEqual({
      eventsEnabled: false,
      eventsListeners: ['jboss-logging', 'email'],
      enabledEventTypes: ['LOGIN', 'LOGOUT', 'MY_CUSTOM_TYPE'],
      adminEventsEnabled: true,
      adminEventsDetailsEnabled: true,
    });
    expect(
      (await api.put(C, { eventsEnabled: true, eventsListeners: [], enabledEventTypes: [], adminEventsDetailsEnabled: false })).status,
    ).toBe(204);
    const cfg = (await api.get(C)).body;
    expect(cfg).toMatchObject({ eventsEnabled: true, eventsListeners: [], adminEventsEnabled: true, adminEventsDetailsEnabled: false });
    expect(cfg.enabledEventTypes).toEqual(DEFAULT_ENABLED_EVENT_TYPES);
  });

  test('unknown listener → 400; unknown field → 400; realm PUT checks listeners too', async () => {
    expect((await api.put(C, { eventsListeners: ['jboss-logging', 'kafka'] })).body).toEqual({ error: 'Unknown event listener' });
    expect((await api.put(C, { eventsListeners: ['metrics-listener'] })).body).toEqual({
      error: 'Global event listeners not allowed in realm specific configuration',
    });
    const unknown = await api.put(C, { eventsEnabled: true, nope: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('Unrecognized field "nope"');
    expect((await api.put(C, { eventsEnabled: 'maybe' })).status).toBe(400);
    expect((await api.put(`/admin/realms/${R}`, { eventsListeners: ['kafka'] })).body).toEqual({ error: 'Unknown event listener' });
    expect((await api.post('/admin/realms', { realm: 'evc2', eventsListeners: ['kafka'] })).body).toEqual({
      error: 'Unknown event listener',
    });
  });

  test('admin event UPDATE/REALM events/config when admin events were or become enabled', async () => {
    // Admin events enabled, without details, as the earlier tests of this file leave them.
    expect((await api.put(C, { adminEventsEnabled: true, adminEventsDetailsEnabled: false })).status).toBe(204);
    await api.delete(`/admin/realms/${R}/admin-events`);
    await api.put(C, { adminEventsEnabled: false });
    await api.put(C, { adminEventsEnabled: false, eventsEnabled: true });
    await api.put(C, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });
    const events = (await api.get(`/admin/realms/${R}/admin-events`)).body;
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ operationType: 'UPDATE', resourceType: 'REALM', resourcePath: 'events/config' });
    expect(JSON.parse(events[0].representation)).toEqual({ adminEventsEnabled: true, adminEventsDetailsEnabled: true });
    expect(events[1].representation).toBeUndefined();
  });

  test('permissions: view-events reads, manage-events writes', async () => {
    const viewer = await realmAdmin(ts, R, 'cfgviewer', ['view-events']);
    expect((await viewer.get(C)).status).toBe(200);
    expect((await viewer.put(C, { eventsEnabled: true })).status).toBe(403);
    const manager = await realmAdmin(ts, R, 'cfgmanager', ['manage-events']);
    expect((await manager.put(C, { eventsEnabled: true, adminEventsEnabled: true })).status).toBe(204);
    const realmLevelAdmin = await realmAdmin(ts, R, 'cfgrealm', ['manage-realm']);
    expect((await realmLevelAdmin.get(C)).status).toBe(403);
  });
});

describe('expiration', () => {
  test('removes only events older than eventsExpiration, in batches, per realm', async () => {
    await api.post('/admin/realms', { realm: 'exp', enabled: true });
    await api.post('/admin/realms', { realm: 'keep', enabled: true });
    await api.put('/admin/realms/exp/events/config', { eventsEnabled: true, eventsExpiration: 60 });
    await api.put('/admin/realms/exp', { attributes: { adminEventsExpiration: '120' } });
    const exp = await realmIdOf(api, 'exp');
    const keep = await realmIdOf(api, 'keep');
    const now = Date.now();
    const ev = (realmId: string, ageMs: number) => ({ id: randomUUID(), realmId, time: now - ageMs, type: 'LOGIN', details: {} });
    await ts.db.models.Event.bulkCreate([
      ...Array.from({ length: 1234 }, () => ev(exp, 61_000)),
      ...Array.from({ length: 5 }, () => ev(exp, 10_000)),
      ...Array.from({ length: 7 }, () => ev(keep, 10 * 86_400_000)),
    ]);
    const ae = (ageMs: number) => ({ id: randomUUID(), realmId: exp, time: now - ageMs, operationType: 'CREATE', resourceType: 'USER' });
    await ts.db.models.AdminEvent.bulkCreate([ae(121_000), ae(121_000), ae(60_000)]);

    const { result, statements } = await ts.countSql(() => purgeExpiredEvents(ts.db, { batchSize: 500, now }));
    expect(result).toBe(1234 + 2);
    const deletes = statements.filter((s) => /DELETE FROM event_entity/.test(s));
    expect(deletes).toHaveLength(3);
    expect(await ts.db.models.Event.count({ where: { realmId: exp } })).toBe(5);
    expect(await ts.db.models.Event.count({ where: { realmId: keep } })).toBe(7);
    expect(await ts.db.models.AdminEvent.count({ where: { realmId: exp } })).toBe(1);
    expect(await purgeExpiredEvents(ts.db, { now })).toBe(0);
  });
});
