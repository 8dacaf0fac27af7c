import { Model } from 'sequelize';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Plain attribute reads (`client.clientId`, `Model#get(key)`) skip Sequelize's per-call options
 * object (db/model-get.ts) and must read exactly what Sequelize reads: data values, custom getters
 * (JSON text columns parsed), and every other form of `get` unchanged.
 */
let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

test('attribute reads, custom getters, raw and plain reads answer as Sequelize does', async () => {
  const client = await ts.db.models.Client.findOne({ where: { clientId: 'admin-cli' } });
  if (!client) throw new Error('admin-cli missing');
  expect((Model.prototype as unknown as { __fastGet?: boolean }).__fastGet).toBe(true);
  expect(client.clientId).toBe('admin-cli');
  expect(client.get('clientId')).toBe(client.dataValues.clientId);
  expect(client.publicClient).toBe(true);
  // A JSON text column: parsed by its getter on a plain read, the stored text with raw.
  expect(typeof client.settings).toBe('object');
  const raw = (client as unknown as { get(k: string, o: { raw: boolean }): unknown }).get('settings', { raw: true });
  expect(client.get('settings')).toEqual(JSON.parse(raw as string));
  // Parsed once per stored text and shared by the reads, frozen; assigning a new value stores new text.
  const settings = client.settings;
  expect(client.settings).toBe(settings);
  expect(Object.isFrozen(settings) && Object.isFrozen(settings.attributes)).toBe(true);
  expect(() => {
    (settings as Record<string, unknown>).consentRequired = true;
  }).toThrow(TypeError);
  client.settings = { ...settings, consentRequired: true };
  expect(client.settings).not.toBe(settings);
  expect(client.settings.consentRequired).toBe(true);
  expect(
    JSON.parse((client as unknown as { get(k: string, o: { raw: boolean }): string }).get('settings', { raw: true })).consentRequired,
  ).toBe(true);
  const plain = client.get({ plain: true }) as Record<string, unknown>;
  expect(plain.clientId).toBe('admin-cli');
  expect(typeof plain.settings).toBe('object');
  expect(client.get('no-such-attribute')).toBeUndefined();
});
