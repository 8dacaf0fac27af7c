import { type Model, type ModelStatic, QueryTypes } from 'sequelize';
import { sequelizeBulkBuild } from '../../src/db/model-build';
import { createUser, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * The fast row builds of `src/db/model-build.ts` must leave every instance as Sequelize's own
 * `bulkBuild` would: same values, same previous values, same options and change tracking, for every
 * model, with and without an attribute list; and such an instance must still change and save.
 */
const R = 'builds';
let ts: TestServer;
let api: AdminApi;
let userId: string;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  userId = await createUser(ts, R, 'alice');
  await api.put(`/admin/realms/${R}/users/${userId}`, { emailVerified: true, attributes: { a: ['1'] } }).expect(204);
  await api.post(`/admin/realms/${R}/clients`, { clientId: 'app', publicClient: true }).expect(201);
}, 60_000);
afterAll(() => ts.close());

type AnyModel = ModelStatic<Model>;

interface Built {
  dataValues: Record<string, unknown>;
  _previousDataValues: Record<string, unknown>;
  _options: Record<string, unknown>;
  _changed: Set<string>;
  isNewRecord: boolean;
  uniqno: number;
}

const state = (b: Built) => ({
  dataValues: b.dataValues,
  previous: b._previousDataValues,
  options: b._options,
  changed: [...b._changed],
  isNewRecord: b.isNewRecord,
  uniqno: b.uniqno,
  plain: (b as unknown as Model).get({ plain: true }),
});

/** Rows of a model as a read returns them: attribute names, booleans as the driver gives them (0/1). */
async function rowsOf(model: AnyModel): Promise<Array<Record<string, unknown>>> {
  const table = model.getTableName() as string;
  const columns = Object.entries(model.getAttributes())
    .map(
      ([name, a]) =>
        `${ts.db.sequelize.getQueryInterface().quoteIdentifier(a.field ?? name)} AS ${ts.db.sequelize.getQueryInterface().quoteIdentifier(name)}`,
    )
    .join(', ');
  return ts.db.sequelize.query(`SELECT ${columns} FROM ${ts.db.sequelize.getQueryInterface().quoteIdentifier(table)} LIMIT 20`, {
    type: QueryTypes.SELECT,
  });
}

test('every model: the fast build leaves each instance as Sequelize builds it', async () => {
  let compared = 0;
  for (const model of Object.values(ts.db.models) as AnyModel[]) {
    const rows = await rowsOf(model);
    if (!rows.length) continue;
    const names = Object.keys(model.getAttributes());
    for (const options of [
      { raw: true, isNewRecord: false },
      { raw: true, isNewRecord: false, attributes: names.slice(0, 3) },
    ]) {
      const fast = model.bulkBuild(structuredClone(rows), { ...options }) as unknown as Built[];
      const slow = sequelizeBulkBuild(model, structuredClone(rows), { ...options }) as Built[];
      expect(fast.map(state)).toEqual(slow.map(state));
      for (const f of fast) expect(f).toBeInstanceOf(model);
      compared += rows.length;
    }
  }
  expect(compared).toBeGreaterThan(50);
});

test('a user read through the fast path tracks its changes and saves them', async () => {
  const { User } = ts.db.models;
  const user = (await User.findByPk(userId)) as Model & { emailVerified: boolean; enabled: boolean; firstName: string | null };
  expect(user.emailVerified).toBe(true);
  expect(user.changed()).toBe(false);
  const before = user.firstName;
  user.set('firstName', 'Alice');
  expect(user.changed()).toEqual(['firstName']);
  expect(user.previous('firstName')).toBe(before);
  await user.save();
  const body = (await api.get(`/admin/realms/${R}/users/${userId}`).expect(200)).body;
  expect(body).toMatchObject({ firstName: 'Alice', emailVerified: true, enabled: true });
});

test('no model has a column whose values need Sequelize’s MariaDB type casts (the connection leaves them to mysql2)', () => {
  // src/db/index.ts connects with typeCast: true; Sequelize's own cast only parses these types.
  const needCast = ['DATE', 'DATEONLY', 'GEOMETRY'];
  const found = (Object.values(ts.db.models) as AnyModel[]).flatMap((model) =>
    Object.entries(model.getAttributes())
      .filter(([, a]) => needCast.includes((a.type as { key: string }).key))
      .map(([name]) => `${model.name}.${name}`),
  );
  expect(found).toEqual([]);
});
