import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { type Db, openDb } from '../../src/db';
import { createApp } from '../../src/server';
import { bootstrap } from '../../src/services/realms/realms';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * A node's cache of realm rows (src/auth/realm-keys.ts, ADR 23) is found by realm name and cache
 * version, and a realm made again under the same name reaches the same versions by the same writes.
 * So a hit must be the realm row just read (its id, as the bearer check already required): a realm
 * deleted and made again through another node is not answered with the old realm's id. Two nodes:
 * two handles (pools) on one database, as test/oidc/dpop-nodes.test.ts.
 */
const grant = (app: Express, realm: string) =>
  request(app)
    .post(`/realms/${realm}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'uma', password: 'pw' });
const versionOf = async (db: Db, realm: string) =>
  (
    await db.sequelize.query<{ id: string; version: number | string }>(
      'SELECT r.id, v.version FROM realm r JOIN realm_cache_version v ON v.realm_id = r.id WHERE r.name = :realm',
      { replacements: { realm }, type: QueryTypes.SELECT },
    )
  ).map((r) => ({ id: r.id, version: Number(r.version) }))[0];

test('a realm deleted and made again through another node, at the version the first node cached, is read again', async () => {
  const fresh = await freshDbOptions();
  const dbs = [await openDb(fresh.opts), await openDb(fresh.opts)];
  try {
    await bootstrap(dbs[0], { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password });
    const [a, b] = [
      await createApp(dbs[0], { hostname: 'http://localhost:8080' }),
      await createApp(dbs[1], { hostname: 'http://localhost:8080' }),
    ];
    const adminOf = async (app: Express) => {
      const res = await request(app)
        .post('/realms/master/protocol/openid-connect/token')
        .type('form')
        .send({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN })
        .expect(200);
      return `Bearer ${res.body.access_token}`;
    };
    const makeRealm = async (app: Express, auth: string) => {
      await request(app).post('/admin/realms').set('Authorization', auth).send({ realm: 'again', enabled: true }).expect(201);
      await request(app)
        .post('/admin/realms/again/users')
        .set('Authorization', auth)
        .send({
          username: 'uma',
          enabled: true,
          email: 'uma@example.org',
          firstName: 'Uma',
          lastName: 'U',
          credentials: [{ type: 'password', value: 'pw', temporary: false }],
        })
        .expect(201);
    };
    const authB = await adminOf(b);
    await makeRealm(b, authB);
    // Node A keeps the realm's row (its token endpoint reads it).
    expect((await grant(a, 'again')).status).toBe(200);
    const before = await versionOf(dbs[0], 'again');
    await request(b).delete('/admin/realms/again').set('Authorization', authB).expect(204);
    await makeRealm(b, authB);
    const after = await versionOf(dbs[0], 'again');
    expect(after.id).not.toBe(before.id);
    expect(after.version).toBe(before.version); // the precondition: the same name at the same version
    const res = await grant(a, 'again');
    expect([res.status, res.body.error]).toEqual([200, undefined]);
  } finally {
    for (const db of dbs) await db.sequelize.close();
    await fresh.cleanup();
  }
}, 120_000);
