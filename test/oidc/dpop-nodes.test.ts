import request from 'supertest';
import type { Express } from 'express';
import { type Db, openDb } from '../../src/db';
import { createApp } from '../../src/server';
import { bootstrap } from '../../src/services/realms/realms';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { ADMIN, freshDbOptions } from '../helpers/server';

/**
 * A DPoP proof is used once across nodes (RFC 9449 §11.1, ADR 0038): two servers, each with its own
 * connection pool, on one database (SQLite file, or MariaDB with IDSERVER_TEST_DB_URL). A proof
 * accepted by one is a replay at the other: the used proofs are rows, not a node's memory.
 */
const R = 'dpopnodes';
const TOKEN = `/realms/${R}/protocol/openid-connect/token`;
let dbs: Db[] = [];
let a: Express;
let b: Express;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDbOptions();
  cleanup = fresh.cleanup;
  dbs = [await openDb(fresh.opts), await openDb(fresh.opts)];
  await bootstrap(dbs[0], { mode: 'start-dev', username: ADMIN.username, password: ADMIN.password });
  a = await createApp(dbs[0], { hostname: 'http://localhost:8080' });
  b = await createApp(dbs[1], { hostname: 'http://localhost:8080' });
  const admin = await request(a)
    .post('/realms/master/protocol/openid-connect/token')
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', ...ADMIN });
  const auth = `Bearer ${admin.body.access_token}`;
  await request(a).post('/admin/realms').set('Authorization', auth).send({ realm: R, enabled: true }).expect(201);
  await request(a)
    .post(`/admin/realms/${R}/clients`)
    .set('Authorization', auth)
    .send({ clientId: 'sa', secret: 'sa-secret', serviceAccountsEnabled: true, publicClient: false })
    .expect(201);
}, 120_000);
afterAll(async () => {
  for (const db of dbs) await db.sequelize.close();
  await cleanup?.();
});

test('a proof accepted by one node is refused as a replay by the other', async () => {
  const key = await dpopKey();
  const proof = await dpopProof(key, 'POST', TOKEN);
  const grant = (app: Express) =>
    request(app)
      .post(TOKEN)
      .type('form')
      .set('DPoP', proof)
      .send({ grant_type: 'client_credentials', client_id: 'sa', client_secret: 'sa-secret' });
  const first = await grant(a);
  expect(first.status).toBe(200);
  expect(first.body.token_type).toBe('DPoP');
  const replay = await grant(b);
  expect([replay.status, replay.body]).toEqual([400, { error: 'invalid_request', error_description: 'DPoP proof has already been used' }]);
});
