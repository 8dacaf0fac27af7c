import { realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** User profile views next to the credentials: GET /users/profile/metadata and /users/{id}/unmanagedAttributes. */
let ts: TestServer;
let api: AdminApi;
const R = 'upmeta';
const U = `/admin/realms/${R}/users`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

test('GET /users/profile/metadata: admin context of the default config', async () => {
  const res = await api.get(`${U}/profile/metadata`);
  expect(res.status).toBe(200);
  expect(res.body.attributes.map((a: { name: string }) => a.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
  expect(res.body.attributes[0]).toEqual({
    name: 'username',
    displayName: '${username}',
    required: true,
    readOnly: false,
    validators: { length: { min: 3, max: 255 }, 'username-prohibited-characters': {}, 'up-username-not-idn-homograph': {} },
    multivalued: false,
  });
  expect(res.body.attributes[1]).toMatchObject({ name: 'email', required: false, readOnly: false });
  expect(res.body.groups).toEqual([
    { name: 'user-metadata', displayHeader: 'User metadata', displayDescription: 'Attributes, which refer to user metadata' },
  ]);
  // the route does not shadow a user id
  expect((await api.get(`${U}/profile`)).status).toBe(200);
});

test('GET /users/{id}/unmanagedAttributes: {} by default; the unmanaged ones once the policy allows them', async () => {
  const created = await api.post(U, { username: 'attrs', enabled: true, attributes: { color: ['blue'] } });
  const id = created.headers.location.split('/').pop();
  expect((await api.get(`${U}/${id}/unmanagedAttributes`)).body).toEqual({});
  const config = (await api.get(`${U}/profile`)).body;
  expect((await api.put(`${U}/profile`, { ...config, unmanagedAttributePolicy: 'ENABLED' })).status).toBe(200);
  expect((await api.put(`${U}/${id}`, { attributes: { color: ['blue'], blank: [' '] } })).status).toBe(204);
  const res = await api.get(`${U}/${id}/unmanagedAttributes`);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ color: ['blue'] });
  expect((await api.get(`${U}/00000000-0000-0000-0000-000000000000/unmanagedAttributes`)).body).toEqual({ error: 'User not found' });
});
