import { Op } from 'sequelize';
import { adminEvents, createUser, realmAdmin, realmIdOf } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Organizations (Keycloak 26's OrganizationsResource / OrganizationResource, services/.../organization/
 * admin/resource and JpaOrganizationProvider): CRUD, domains, attributes, search, count, validation
 * and error bodies, the realm switch `organizationsEnabled`, manage-realm, admin events.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'orgrealm';
const base = `/admin/realms/${R}/organizations`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  const res = await api.post('/admin/realms', {
    realm: R,
    enabled: true,
    organizationsEnabled: true,
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
  });
  expect(res.status).toBe(201);
});
afterAll(() => ts.close());

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
async function create(rep: Record<string, unknown>): Promise<string> {
  const res = await api.post(base, rep);
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

describe('organizations: realm switch and roles', () => {
  test('a realm with organizations off answers 404 with Keycloak message on every path; PUT realm turns them on', async () => {
    expect((await api.post('/admin/realms', { realm: 'orgoff', enabled: true })).status).toBe(201);
    expect((await api.get('/admin/realms/orgoff')).body.organizationsEnabled).toBe(false);
    for (const res of [
      await api.get('/admin/realms/orgoff/organizations'),
      await api.post('/admin/realms/orgoff/organizations', { name: 'x' }),
      await api.get('/admin/realms/orgoff/organizations/count'),
      await api.get('/admin/realms/orgoff/organizations/some-id/members'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errorMessage: 'Organizations not enabled for this realm.' });
    }
    expect((await api.put('/admin/realms/orgoff', { organizationsEnabled: true })).status).toBe(204);
    expect((await api.get('/admin/realms/orgoff/organizations')).body).toEqual([]);
  });

  test('manage-realm is needed (view-realm is 403 before the realm switch); nothing is written', async () => {
    const viewer = await realmAdmin(ts, R, 'org-viewer', ['view-realm', 'view-users', 'manage-users']);
    const manager = await realmAdmin(ts, R, 'org-manager', ['manage-realm']);
    expect((await viewer.get(base)).status).toBe(403);
    expect((await viewer.get(base)).body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await viewer.post(base, { name: 'by-viewer' })).status).toBe(403);
    expect(await ts.db.models.Organization.count({ where: { name: 'by-viewer' } })).toBe(0);
    expect((await manager.post(base, { name: 'by-manager' })).status).toBe(201);
    expect((await manager.get(`${base}?search=by-manager`)).body.map((o: { name: string }) => o.name)).toEqual(['by-manager']);
  });
});

describe('organizations: create, read, update, delete', () => {
  test('create: 201 with Location, no body; GET full representation; list is brief (no attributes)', async () => {
    const res = await api.post(base, {
      name: 'Acme Corp',
      alias: 'acme',
      description: 'Acme',
      redirectUrl: 'https://acme.example.org/welcome',
      attributes: { tier: ['gold'], region: ['eu', 'us'] },
      domains: [{ name: 'acme.example.org', verified: true }, { name: 'acme.test' }],
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    expect(res.headers.location).toMatch(new RegExp(`^http://localhost:8080${base}/[0-9a-f-]{36}$`));
    const id = idOf(res.headers.location);
    const got = await api.get(`${base}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id,
      name: 'Acme Corp',
      alias: 'acme',
      enabled: true,
      description: 'Acme',
      redirectUrl: 'https://acme.example.org/welcome',
      attributes: { region: ['eu', 'us'], tier: ['gold'] },
      domains: [
        { name: 'acme.example.org', verified: true },
        { name: 'acme.test', verified: false },
      ],
    });
    const listed = (await api.get(`${base}?search=acme corp`)).body;
    const { attributes: _attributes, ...brief } = got.body;
    expect(listed).toEqual([brief]);
    const full = (await api.get(`${base}?search=acme corp&briefRepresentation=false`)).body;
    expect(full[0].attributes).toEqual({ region: ['eu', 'us'], tier: ['gold'] });
  });

  test('alias defaults to the name; a name with a space and no alias is 400; alias with a space 400', async () => {
    const id = await create({ name: 'plain' });
    expect((await api.get(`${base}/${id}`)).body).toMatchObject({ name: 'plain', alias: 'plain', enabled: true, attributes: {} });
    const spaced = await api.post(base, { name: 'two words' });
    expect(spaced.status).toBe(400);
    expect(spaced.body).toEqual({ errorMessage: 'Name contains a reserved character and cannot be used as alias' });
    const badAlias = await api.post(base, { name: 'x1', alias: 'a b' });
    expect(badAlias.status).toBe(400);
    expect(badAlias.body).toEqual({ error: 'Empty Space not allowed.' });
    expect(await ts.db.models.Organization.count({ where: { name: ['two words', 'x1'] } })).toBe(0);
  });

  test('validation: name required, empty body, bad redirect URL, bad domain, unknown field', async () => {
    const cases: Array<[unknown, number, unknown]> = [
      [{ alias: 'noname' }, 400, { errorMessage: 'Name can not be null' }],
      [{ name: '  ' }, 400, { errorMessage: 'Name can not be null' }],
      [{ name: 'badurl', redirectUrl: 'not a url' }, 400, { errorMessage: 'Organization redirect URL is not valid.' }],
      [{ name: 'baddomain', domains: [{ name: 'bad domain!' }] }, 400, { errorMessage: 'The specified domain is invalid: bad domain!' }],
    ];
    for (const [body, status, error] of cases) {
      const res = await api.post(base, body);
      expect(`${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`).toBe(
        `${JSON.stringify(body)} → ${status} ${JSON.stringify(error)}`,
      );
    }
    const empty = await api.post(base).set('Content-Type', 'application/json');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ errorMessage: 'Organization cannot be null.' });
    expect((await api.post(base, { name: 'unknown-field', colour: 'red' })).status).toBe(400);
    expect(await ts.db.models.Organization.count({ where: { name: ['badurl', 'baddomain', 'unknown-field'] } })).toBe(0);
  });

  test('duplicates: name and alias 409 with Keycloak messages; a domain of another organization 400; nothing written', async () => {
    await create({ name: 'dup', domains: [{ name: 'dup.example.org' }] });
    const sameName = await api.post(base, { name: 'dup', alias: 'dup2' });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toEqual({ errorMessage: 'A organization with the same name already exists.' });
    const sameAlias = await api.post(base, { name: 'dup2', alias: 'dup' });
    expect(sameAlias.status).toBe(409);
    expect(sameAlias.body).toEqual({ errorMessage: 'A organization with the same alias already exists' });
    const sameDomain = await api.post(base, { name: 'dup3', domains: [{ name: 'dup.example.org' }] });
    expect(sameDomain.status).toBe(400);
    expect(sameDomain.body).toEqual({ errorMessage: `Domain dup.example.org is already linked to another organization in realm ${R}` });
    expect(await ts.db.models.Organization.count({ where: { name: ['dup2', 'dup3'] } })).toBe(0);
  });

  test('update: replaces fields and domains, keeps attributes when absent; alias cannot change; rename conflicts', async () => {
    const id = await create({ name: 'upd', attributes: { a: ['1'] }, domains: [{ name: 'upd.example.org' }] });
    await create({ name: 'other-upd', domains: [{ name: 'other-upd.example.org' }] });
    const put = await api.put(`${base}/${id}`, {
      name: 'upd-renamed',
      alias: 'upd',
      enabled: false,
      domains: [{ name: 'upd.example.org', verified: true }, { name: 'new.example.org' }],
    });
    expect(put.status).toBe(204);
    expect((await api.get(`${base}/${id}`)).body).toEqual({
      id,
      name: 'upd-renamed',
      alias: 'upd',
      enabled: false,
      attributes: { a: ['1'] },
      domains: [
        { name: 'new.example.org', verified: false },
        { name: 'upd.example.org', verified: true },
      ],
    });
    // Without domains the organization has none; attributes given replace.
    expect((await api.put(`${base}/${id}`, { name: 'upd-renamed', alias: 'upd', attributes: { b: ['2'] } })).status).toBe(204);
    // No alias means the (new) name as alias, as Keycloak's toModel sets the name first: a renamed one cannot omit it.
    expect((await api.put(`${base}/${id}`, { name: 'upd-renamed' })).body).toEqual({ errorMessage: 'Cannot change the alias' });
    expect((await api.get(`${base}/${id}`)).body).toMatchObject({ alias: 'upd', enabled: true, attributes: { b: ['2'] } });
    expect((await api.get(`${base}/${id}`)).body.domains).toBeUndefined();
    const alias = await api.put(`${base}/${id}`, { name: 'upd-renamed', alias: 'other' });
    expect(alias.status).toBe(400);
    expect(alias.body).toEqual({ errorMessage: 'Cannot change the alias' });
    for (const name of ['other-upd', 'other-upd.example.org']) {
      const clash = await api.put(`${base}/${id}`, { name, alias: 'upd' });
      expect(clash.status).toBe(409);
      expect(clash.body).toEqual({ errorMessage: 'A organization with the same name already exists.' });
    }
    const taken = await api.put(`${base}/${id}`, { name: 'upd-renamed', alias: 'upd', domains: [{ name: 'other-upd.example.org' }] });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ errorMessage: `Domain other-upd.example.org is already linked to another organization in realm ${R}` });
    expect((await api.get(`${base}/${id}`)).body).toMatchObject({ name: 'upd-renamed', attributes: { b: ['2'] } });
  });

  test('unknown id: 404 Organization not found.; delete removes it, its domains and attributes', async () => {
    const missing = await api.get(`${base}/does-not-exist`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ errorMessage: 'Organization not found.' });
    const id = await create({ name: 'gone', attributes: { k: ['v'] }, domains: [{ name: 'gone.example.org' }] });
    expect((await api.delete(`${base}/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/${id}`)).status).toBe(404);
    expect(await ts.db.models.OrganizationDomain.count({ where: { organizationId: id } })).toBe(0);
    expect(await ts.db.models.OrganizationAttribute.count({ where: { organizationId: id } })).toBe(0);
    // The domain is free again.
    expect((await api.post(base, { name: 'gone2', domains: [{ name: 'gone.example.org' }] })).status).toBe(201);
  });

  test('admin events: CREATE, UPDATE, DELETE of ORGANIZATION with their paths', async () => {
    const id = await create({ name: 'evented' });
    await api.put(`${base}/${id}`, { name: 'evented', description: 'd' });
    await api.delete(`${base}/${id}`);
    const events = (await adminEvents(api, R, { resourceTypes: 'ORGANIZATION' })).filter((e) => e.resourcePath === `organizations/${id}`);
    expect(events.map((e) => e.operationType)).toEqual(['CREATE', 'UPDATE', 'DELETE']);
    expect(JSON.parse(events[0].representation as string)).toMatchObject({ id, name: 'evented' });
  });
});

describe('organizations: search and count', () => {
  beforeAll(async () => {
    const realmId = await realmIdOf(api, R);
    expect(realmId).toBeTruthy();
    await create({ name: 'Search Alpha', alias: 's-alpha', domains: [{ name: 'alpha.search.test' }], attributes: { plan: ['pro'] } });
    await create({ name: 'Search Beta', alias: 's-beta', domains: [{ name: 'beta.search.test' }], attributes: { plan: ['free'] } });
    await create({ name: 'Search Gamma', alias: 's-gamma', attributes: { plan: ['pro'], seats: ['10'] } });
  });
  const names = async (qs: string) => ((await api.get(`${base}?${qs}`)).body as Array<{ name: string }>).map((o) => o.name);

  test('search matches name or domain, case-insensitively, ordered by name; exact matches whole name or domain', async () => {
    expect(await names('search=search ')).toEqual(['Search Alpha', 'Search Beta', 'Search Gamma']);
    expect(await names('search=BETA')).toEqual(['Search Beta']);
    expect(await names('search=alpha.search')).toEqual(['Search Alpha']);
    expect(await names('search=Search%20Gamma&exact=true')).toEqual(['Search Gamma']);
    expect(await names('search=search gam&exact=true')).toEqual([]);
    expect(await names('search=beta.search.test&exact=true')).toEqual(['Search Beta']);
    expect(await names('search=%25')).toEqual([]);
  });

  test('q: attribute equality, several pairs are AND, alias is the alias column', async () => {
    expect(await names('q=plan:pro')).toEqual(['Search Alpha', 'Search Gamma']);
    expect(await names('q=plan:pro seats:10')).toEqual(['Search Gamma']);
    expect(await names('q=alias:s-beta')).toEqual(['Search Beta']);
    expect(await names('q=plan:none')).toEqual([]);
  });

  test('paging: first/max, default max 10; count with the same filters', async () => {
    expect(await names('search=search&first=1&max=1')).toEqual(['Search Beta']);
    expect((await api.get(`${base}?search=search&max=0`)).body).toEqual([]);
    await create({ name: 'pad-1' });
    await create({ name: 'pad-2' });
    const total = (await api.get(`${base}/count`)).body;
    expect(total).toBeGreaterThan(10);
    expect((await api.get(`${base}?max=-1`)).body.length).toBe(total);
    expect((await api.get(base)).body.length).toBe(10);
    expect((await api.get(`${base}/count?search=search`)).body).toBe(3);
    expect((await api.get(`${base}/count?q=plan:pro`)).body).toBe(2);
    expect((await api.get(`${base}/count?search=Search%20Beta&exact=true`)).body).toBe(1);
    expect((await api.get(`${base}/count?search=search%20beta&exact=true`)).body).toBe(0);
  });
});

describe('organizations: hostile input', () => {
  test('too long, null and odd values are 4xx with nothing written; odd queries answer', async () => {
    const before = await ts.db.models.Organization.count();
    const long = 'x'.repeat(300);
    for (const body of [
      { name: long },
      { name: 'h1', attributes: { a: [long] } },
      { name: 'h2', domains: [{ name: `${'a'.repeat(250)}.example.org` }] },
      { name: 'h4', domains: 'x' },
    ]) {
      const res = await api.post(base, body);
      expect(`${JSON.stringify(body).slice(0, 40)} → ${res.status}`).toMatch(/ → 40\d$/);
    }
    expect(await ts.db.models.Organization.count()).toBe(before);
    expect((await api.post(base, { name: 'h5', domains: [null], attributes: { a: null } })).status).toBe(201);
    // A number in a string list is read as its text, as Jackson reads it.
    const h3 = await api.post(base, { name: 'h3', attributes: { a: [1] } });
    expect(h3.status).toBe(201);
    expect((await api.get(h3.headers.location.replace('http://localhost:8080', ''))).body.attributes).toEqual({ a: ['1'] });
    for (const qs of ['q=%22unbalanced', 'q=:', 'q=a:b:c', 'search=%25_%21', 'first=-5&max=-5', 'exact=maybe']) {
      expect((await api.get(`${base}?${qs}`)).status).toBeLessThan(500);
    }
    const id = (await api.get(`${base}?search=h5&exact=true`)).body[0].id;
    expect((await api.post(`${base}/${id}/members`, '[]').set('Content-Type', 'application/json')).status).toBe(400);
    expect((await api.get(`${base}/${id}/members?membershipType=nope`)).status).toBe(400);
    expect((await api.post(`${base}/${id}/members/invite-user`).type('form').send('email=%ZZ')).status).toBeLessThan(500);
  });
});

describe('organizations: concurrency', () => {
  test('parallel creates with one name: one 201, the rest 409; with one domain: one 201, the rest 400', async () => {
    const live = await ts.api({ live: true });
    const same = await Promise.all([1, 2, 3, 4, 5].map(() => live.post(base, { name: 'racer' })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of same.filter((x) => x.status === 409)) {
      expect(r.body).toEqual({ errorMessage: 'A organization with the same name already exists.' });
    }
    const domain = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => live.post(base, { name: `racer-${i}`, domains: [{ name: 'race.example.org' }] })),
    );
    expect(domain.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const r of domain.filter((x) => x.status === 400)) {
      expect(r.body).toEqual({ errorMessage: `Domain race.example.org is already linked to another organization in realm ${R}` });
    }
    expect(await ts.db.models.Organization.count({ where: { name: { [Op.like]: 'racer%' } } })).toBe(2);
  });
});

describe('organizations: cascades', () => {
  test('deleting the realm removes its organizations', async () => {
    expect((await api.post('/admin/realms', { realm: 'orgdel', enabled: true, organizationsEnabled: true })).status).toBe(201);
    const res = await api.post('/admin/realms/orgdel/organizations', { name: 'o', domains: [{ name: 'o.example.org' }] });
    const id = idOf(res.headers.location);
    const user = await createUser(ts, 'orgdel', 'member1');
    expect(
      (await api.post(`/admin/realms/orgdel/organizations/${id}/members`, JSON.stringify(user)).set('Content-Type', 'application/json'))
        .status,
    ).toBe(201);
    expect((await api.delete('/admin/realms/orgdel')).status).toBe(204);
    expect(await ts.db.models.Organization.count({ where: { id } })).toBe(0);
    expect(await ts.db.models.OrganizationDomain.count({ where: { organizationId: id } })).toBe(0);
    expect(await ts.db.models.OrganizationMember.count({ where: { organizationId: id } })).toBe(0);
  });
});
