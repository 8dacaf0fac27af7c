/**
 * Seeds a fresh benchmark database: idserver's migrations and bootstrap (master realm, admin/admin),
 * realm `bench` created through the service (so its keys, default roles, clients and user profile
 * are exactly what idserver makes), then the bulk data with raw multi-row INSERTs, 500 rows each,
 * into the tables the models define: USERS users with two attributes each, 50 groups with 10
 * children each, two memberships per user, 20 realm roles in composite chains, user and group role
 * mappings. Raw SQL rather than models so that a realm of a million users is ready in well under a
 * minute.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemContext } from '../src/core/context';
import { type Db, openDb } from '../src/db';
import { configureLogging } from '../src/logging';
import { createRealm } from '../src/services/import-export/create-realm';
import { bootstrap } from '../src/services/realms/realms';
import { defaultUserProfileConfig, updateUserProfile } from '../src/services/users/user-profile';

export const BENCH_REALM = 'bench';
export const LOGIN_USER = 'login-user';
export const LOGIN_PASSWORD = 'bench-password';
export const SVC_CLIENT = 'bench-svc';
export const SVC_SECRET = 'bench-secret';

export interface Seeded {
  /** `--db=... --db-url=...` for the idserver child, and what the bare server needs. */
  vendor: 'sqlite' | 'mariadb';
  url: string;
  /** The temporary directory of a SQLite file (removed by the caller). */
  dir?: string;
  userId: string;
  groupId: string;
}

const CHUNK = 500;

async function insertRows(db: Db, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const q = db.sequelize.getQueryInterface().quoteIdentifier.bind(db.sequelize.getQueryInterface());
  const head = `INSERT INTO ${q(table)} (${columns.map((c) => q(c)).join(', ')}) VALUES `;
  for (let i = 0; i < rows.length; i += CHUNK) {
    // Values are escaped inline: one statement per chunk, whatever the driver's bound-parameter limit.
    const values = rows
      .slice(i, i + CHUNK)
      .map((r) => `(${r.map((v) => (v === null ? 'NULL' : db.sequelize.escape(v as string | number))).join(', ')})`)
      .join(', ');
    await db.sequelize.query(head + values);
  }
}

export interface SeedOptions {
  /**
   * Only what the scale case needs: USERS users (every tenth with one attribute), `groups` groups (a tenth of
   * them top-level, nine children each), no memberships or role mappings. Default: the full data of
   * bench:compare.
   */
  scale?: { groups: number };
}

/** The bulk user rows (`user0000000`…), each with `department` and `phone` (`lean`: every tenth with `department`). */
async function insertUsers(db: Db, realmId: string, users: number, lean: boolean): Promise<string[]> {
  const now = Date.now();
  const userIds = Array.from({ length: users }, () => randomUUID());
  await insertRows(
    db,
    'user_entity',
    [
      'id',
      'realm_id',
      'username',
      'email',
      'email_constraint',
      'first_name',
      'last_name',
      'enabled',
      'email_verified',
      'created_timestamp',
      'not_before',
    ],
    userIds.map((id, i) => {
      const n = String(i).padStart(7, '0');
      return [id, realmId, `user${n}`, `user${n}@example.com`, `user${n}@example.com`, 'First', `Last${n}`, 1, 0, now, 0];
    }),
  );
  await insertRows(
    db,
    'user_attribute',
    ['id', 'user_id', 'name', 'value'],
    userIds.flatMap((id, i) => [
      ...(lean && i % 10 ? [] : [[randomUUID(), id, 'department', `dept-${i % 17}`]]),
      ...(lean ? [] : [[randomUUID(), id, 'phone', `+1555${String(i).padStart(7, '0')}`]]),
    ]),
  );
  return userIds;
}

/** `groups` groups: a tenth top-level (`group-0000`…), each with nine children (`group-0000-1`…). */
async function insertGroupTree(db: Db, realmId: string, groups: number): Promise<string[]> {
  const top = Array.from({ length: Math.ceil(groups / 10) }, () => randomUUID());
  const rows: unknown[][] = top.map((id, i) => [id, realmId, ' ', `group-${String(i).padStart(4, '0')}`, null, '{}']);
  for (let i = 0; rows.length < groups; i++) {
    const p = Math.floor(i / 9) % top.length;
    rows.push([randomUUID(), realmId, top[p], `group-${String(p).padStart(4, '0')}-${(i % 9) + 1}`, null, `{"tier":["t${i % 3}"]}`]);
  }
  await insertRows(db, 'keycloak_group', ['id', 'realm_id', 'parent_id', 'name', 'description', 'attributes'], rows);
  return top;
}

export async function seed(users: number, opts: SeedOptions = {}): Promise<Seeded> {
  configureLogging({ root: 'error', categories: {} });
  const mariaUrl = process.env.IDSERVER_BENCH_DB_URL;
  let dir: string | undefined;
  let url: string;
  if (mariaUrl) {
    url = mariaUrl;
    // A fresh database: whatever a previous run left is dropped before the migrations run.
    const old = await openDb({ vendor: 'mariadb', url });
    await old.sequelize.getQueryInterface().dropAllTables();
    await old.close();
  } else {
    dir = mkdtempSync(join(tmpdir(), 'idserver-bench-'));
    url = join(dir, 'bench.sqlite');
  }
  const db = await openDb(mariaUrl ? { vendor: 'mariadb', url } : { vendor: 'sqlite', url });
  try {
    await bootstrap(db, { mode: 'start-dev', username: 'admin', password: 'admin' });
    const ctx = systemContext(db);
    const realm = await createRealm(ctx, {
      realm: BENCH_REALM,
      enabled: true,
      clients: [
        {
          clientId: SVC_CLIENT,
          secret: SVC_SECRET,
          publicClient: false,
          serviceAccountsEnabled: true,
          directAccessGrantsEnabled: true,
        },
      ],
      users: [
        {
          username: LOGIN_USER,
          enabled: true,
          email: 'login@example.com',
          firstName: 'Login',
          lastName: 'User',
          credentials: [{ type: 'password', value: LOGIN_PASSWORD, temporary: false }],
        },
      ],
    });
    // Unmanaged attributes shown, so both servers return the seeded attributes of a user.
    await updateUserProfile(ctx, realm, { ...defaultUserProfileConfig(realm), unmanagedAttributePolicy: 'ENABLED' });

    if (opts.scale) {
      // One transaction per table: a commit per chunk would cost a sync each on SQLite.
      const userIds = await db.transaction(() => insertUsers(db, realm.id, users, true));
      const top = await db.transaction(() => insertGroupTree(db, realm.id, opts.scale?.groups ?? 0));
      return { vendor: mariaUrl ? 'mariadb' : 'sqlite', url, dir, userId: userIds[Math.floor(users / 2)], groupId: top[7] };
    }
    const userIds = await insertUsers(db, realm.id, users, false);

    const roleIds = Array.from({ length: 20 }, () => randomUUID());
    await insertRows(
      db,
      'role',
      ['id', 'realm_id', 'client_id', 'container_id', 'name', 'description', 'attributes'],
      roleIds.map((id, i) => [id, realm.id, null, realm.id, `role-${i}`, null, '{}']),
    );
    // Chains of four: role-0 ⊃ role-1 ⊃ role-2 ⊃ role-3, role-4 ⊃ ... so composite expansion recurses.
    await insertRows(
      db,
      'composite_role',
      ['composite_id', 'child_id'],
      roleIds.flatMap((id, i) => (i % 4 === 3 ? [] : [[id, roleIds[i + 1]]])),
    );

    const top = Array.from({ length: 50 }, () => randomUUID());
    const children = top.map(() => Array.from({ length: 10 }, () => randomUUID()));
    await insertRows(
      db,
      'keycloak_group',
      ['id', 'realm_id', 'parent_id', 'name', 'description', 'attributes'],
      [
        ...top.map((id, i) => [id, realm.id, ' ', `group-${String(i).padStart(2, '0')}`, null, '{}']),
        ...top.flatMap((p, i) => children[i].map((id, j) => [id, realm.id, p, `group-${String(i).padStart(2, '0')}-${j}`, null, '{}'])),
      ],
    );
    await insertRows(
      db,
      'user_group_membership',
      ['user_id', 'group_id'],
      userIds.flatMap((id, i) => [
        [id, top[i % 50]],
        [id, children[i % 50][Math.floor(i / 50) % 10]],
      ]),
    );
    await insertRows(
      db,
      'group_role_mapping',
      ['group_id', 'role_id'],
      top.map((g, i) => [g, roleIds[i % 20]]),
    );
    // Every user has the realm's default roles (as idserver gives a new user) and two of the seeded roles.
    const [defaults] = (await db.sequelize.query(
      `SELECT id FROM role WHERE realm_id = ${db.sequelize.escape(realm.id)} AND name = 'default-roles-bench'`,
    )) as [Array<{ id: string }>, unknown];
    await insertRows(
      db,
      'user_role_mapping',
      ['user_id', 'role_id'],
      userIds.flatMap((id, i) => [...(defaults[0] ? [[id, defaults[0].id]] : []), [id, roleIds[i % 20]], [id, roleIds[(i + 7) % 20]]]),
    );
    return { vendor: mariaUrl ? 'mariadb' : 'sqlite', url, dir, userId: userIds[Math.floor(users / 2)], groupId: top[7] };
  } finally {
    await db.close();
  }
}
