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
import { fillUserCountsSql } from '../src/db/migrations/0021-realm-user-counts';
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

const CHUNK = 2000;

/** An SQL literal: plain strings (ids, names, JSON without quotes or backslashes) inline, anything else escaped. */
function literalOf(db: Db, v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return String(v);
  const s = String(v);
  return /['\\\n\r]/.test(s) || s.includes(String.fromCharCode(0)) || s.includes(String.fromCharCode(26))
    ? db.sequelize.escape(s)
    : `'${s}'`;
}

async function insertRows(db: Db, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const q = db.sequelize.getQueryInterface().quoteIdentifier.bind(db.sequelize.getQueryInterface());
  const head = `INSERT INTO ${q(table)} (${columns.map((c) => q(c)).join(', ')}) VALUES `;
  for (let i = 0; i < rows.length; i += CHUNK) {
    // Values inline: one statement per chunk, whatever the driver's bound-parameter limit.
    const values = rows
      .slice(i, i + CHUNK)
      .map((r) => `(${r.map((v) => literalOf(db, v)).join(', ')})`)
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
  /** The database (default: IDSERVER_BENCH_DB_URL, else a new SQLite file); its tables are dropped first. */
  target?: { vendor: 'sqlite' | 'mariadb'; url: string };
  /**
   * Write the bulk rows with the triggers in place, row by row as any writer would (slow): what the
   * bulk path must be equal to (test/rest/users/bulk-seed.test.ts).
   */
  throughTriggers?: boolean;
}

/**
 * The triggers the bulk seed suspends, and what each would have written. `fillDerived` writes the
 * same rows in bulk; a trigger not listed here stops the seed, since its rows would be missing.
 */
const SUSPENDED: Record<string, string[]> = {
  user_entity: [
    'trg_user_cv_ai',
    'trg_user_search_ai',
    'trg_user_search_au',
    'trg_user_search_ad',
    'trg_user_count_ai',
    'trg_user_count_ad',
  ],
  user_role_mapping: ['trg_user_role_mapping_cv_ai', 'trg_user_role_mapping_cv_ad'],
  user_group_membership: ['trg_user_group_membership_cv_ai', 'trg_user_group_membership_cv_ad'],
};

/** Seconds spent per phase of the last seed (printed by bench:scale). */
export const seedPhases: Record<string, number> = {};
async function timed<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await run();
  } finally {
    seedPhases[phase] = (seedPhases[phase] ?? 0) + (performance.now() - t) / 1000;
  }
}

/** The tables the suspended triggers write (besides the SQLite FTS index). */
const DERIVED = ['user_cache_version', 'user_search_name'];

interface SavedTrigger {
  name: string;
  sql: string;
}

/** The triggers on `tables` with the statements that created them, in creation (firing) order. */
async function triggersOn(db: Db, tables: string[]): Promise<SavedTrigger[]> {
  const list = tables.map((t) => db.sequelize.escape(t)).join(', ');
  if (db.vendor === 'sqlite') {
    const [rows] = (await db.sequelize.query(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${list}) ORDER BY rowid`,
    )) as [SavedTrigger[], unknown];
    return rows;
  }
  const [names] = (await db.sequelize.query(
    `SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE IN (${list})
     ORDER BY EVENT_OBJECT_TABLE, EVENT_MANIPULATION, ACTION_ORDER`,
  )) as [Array<{ name: string }>, unknown];
  const out: SavedTrigger[] = [];
  for (const { name } of names) {
    const [rows] = (await db.sequelize.query(`SHOW CREATE TRIGGER \`${name}\``)) as [Array<Record<string, string>>, unknown];
    out.push({ name, sql: rows[0]['SQL Original Statement'] });
  }
  return out;
}

/**
 * Runs `fill` with the triggers of `tables` dropped, then re-creates them from the statements that
 * created them. SQLite: all in the caller's transaction; MariaDB: DDL commits, so outside any.
 */
async function withoutTriggers<T>(db: Db, tables: string[], fill: () => Promise<T>): Promise<T> {
  const saved = await triggersOn(db, tables);
  const known = new Set(tables.flatMap((t) => SUSPENDED[t]));
  const unknown = saved.filter((t) => !known.has(t.name)).map((t) => t.name);
  if (unknown.length) throw new Error(`bench/seed.ts does not know what trigger(s) ${unknown.join(', ')} write: teach fillDerived`);
  for (const t of saved) await db.sequelize.query(`DROP TRIGGER ${t.name}`);
  try {
    return await fill();
  } finally {
    for (const t of saved) await db.sequelize.query(t.sql);
  }
}

/**
 * MariaDB: runs `fill` with the secondary indexes and foreign keys of `tables` dropped, then adds them
 * back as `SHOW CREATE TABLE` had them, so that InnoDB builds each index by sorting once rather than
 * row by row: at a million users the indexes outgrow the default 128 MB buffer pool and random
 * inserts into them cost more than a minute. Foreign keys come back unchecked (the seed's rows are
 * consistent by construction). The tables' definitions must come back identical, or the seed fails.
 */
async function withIndexesDeferred<T>(db: Db, tables: string[], fill: () => Promise<T>): Promise<T> {
  if (db.vendor === 'sqlite' || !tables.length) return fill();
  const showCreate = async (table: string) => {
    const [rows] = (await db.sequelize.query(`SHOW CREATE TABLE \`${table}\``)) as [Array<Record<string, string>>, unknown];
    return rows[0]['Create Table'];
  };
  const saved: Array<{ table: string; create: string; keys: string[]; fks: string[] }> = [];
  for (const table of tables) {
    const create = await showCreate(table);
    const lines = create.split('\n').map((l) => l.trim().replace(/,$/, ''));
    saved.push({
      table,
      create,
      keys: lines.filter((l) => /^(UNIQUE )?KEY `/.test(l)),
      fks: lines.filter((l) => /^CONSTRAINT `[^`]+` FOREIGN KEY/.test(l)),
    });
  }
  for (const t of saved) {
    const drops = [
      ...t.fks.map((l) => `DROP FOREIGN KEY ${/^CONSTRAINT (`[^`]+`)/.exec(l)?.[1]}`),
      ...t.keys.map((l) => `DROP KEY ${/KEY (`[^`]+`)/.exec(l)?.[1]}`),
    ];
    if (drops.length) await db.sequelize.query(`ALTER TABLE \`${t.table}\` ${drops.join(', ')}`);
  }
  const restore = async () => {
    const t0 = performance.now();
    for (const t of saved) {
      if (t.keys.length) await db.sequelize.query(`ALTER TABLE \`${t.table}\` ${t.keys.map((k) => `ADD ${k}`).join(', ')}`);
      if (t.fks.length) {
        await db.sequelize.query(
          `SET STATEMENT foreign_key_checks = 0 FOR ALTER TABLE \`${t.table}\` ${t.fks.map((k) => `ADD ${k}`).join(', ')}`,
        );
      }
      if ((await showCreate(t.table)) !== t.create) throw new Error(`bench/seed.ts: ${t.table} did not come back as it was`);
    }
    seedPhases['index builds'] = (performance.now() - t0) / 1000;
  };
  let out: T;
  try {
    out = await fill();
  } catch (e) {
    await restore().catch(() => undefined);
    throw e;
  }
  await restore();
  return out;
}

/**
 * What the suspended triggers would have written for the users that have no rows of their own yet
 * (the bulk ones): their cache-version row, raised once per role mapping and membership inserted
 * (migration 0013), their lower-cased names (0014), the realms' user counts (0021), and on SQLite the trigram index, rebuilt from
 * its content table.
 */
async function fillDerived(db: Db, links: boolean): Promise<void> {
  const raised = links
    ? '(SELECT COUNT(*) FROM user_role_mapping m WHERE m.user_id = u.id) + (SELECT COUNT(*) FROM user_group_membership g WHERE g.user_id = u.id)'
    : '0';
  await timed('user_cache_version', () =>
    db.sequelize.query(
      `INSERT INTO user_cache_version (user_id, version) SELECT u.id, ${raised} FROM user_entity u
       WHERE NOT EXISTS (SELECT 1 FROM user_cache_version c WHERE c.user_id = u.id)`,
    ),
  );
  await timed('user_search_name', () =>
    db.sequelize.query(
      `INSERT INTO user_search_name (user_id, realm_id, first_lc, last_lc) SELECT u.id, u.realm_id, LOWER(u.first_name), LOWER(u.last_name)
       FROM user_entity u WHERE NOT EXISTS (SELECT 1 FROM user_search_name n WHERE n.user_id = u.id)`,
    ),
  );
  // Each realm's user counts (0021), written again from the users: a sum by realm and shard.
  await timed('realm_user_count', async () => {
    await db.sequelize.query('DELETE FROM realm_user_count');
    await db.sequelize.query(fillUserCountsSql(db.vendor === 'sqlite' ? 'sqlite' : 'mariadb'));
  });
  if (db.vendor === 'sqlite')
    await timed('fts rebuild', () => db.sequelize.query("INSERT INTO user_search_fts (user_search_fts) VALUES ('rebuild')"));
}

/**
 * Runs `bulk` (the inserts into `tables`) fast: on SQLite in one transaction with a large page cache;
 * unless `throughTriggers`, with the tables' triggers suspended and their rows written afterwards in
 * bulk (fillDerived). MariaDB commits each statement (a 1 M-row transaction's undo log costs more).
 */
async function bulkWrite<T>(db: Db, tables: string[], links: boolean, throughTriggers: boolean, bulk: () => Promise<T>): Promise<T> {
  const body = async () => {
    if (throughTriggers) return bulk();
    return withoutTriggers(db, tables, () =>
      withIndexesDeferred(db, [...tables, 'user_attribute', ...DERIVED], async () => {
        const out = await bulk();
        await fillDerived(db, links);
        return out;
      }),
    );
  };
  if (db.vendor !== 'sqlite') return body();
  return db.transaction(async () => {
    // This transaction's own connection: a page cache of 512 MB rather than 2 MB for the index builds.
    await db.sequelize.query('PRAGMA cache_size = -524288');
    return body();
  });
}

/**
 * Rows in primary-key order: InnoDB appends to its clustered index instead of splitting random pages.
 * Ids stay random UUIDs, so a user's place in username order has nothing to do with where its row is.
 */
const byId = (rows: unknown[][]) => rows.sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));

/** The bulk user rows (`user0000000`…), each with `department` and `phone` (`lean`: every tenth with `department`). */
async function insertUsers(db: Db, realmId: string, users: number, lean: boolean): Promise<string[]> {
  return timed('users', () => insertUsersNow(db, realmId, users, lean));
}
async function insertUsersNow(db: Db, realmId: string, users: number, lean: boolean): Promise<string[]> {
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
    byId(
      userIds.map((id, i) => {
        const n = String(i).padStart(7, '0');
        return [id, realmId, `user${n}`, `user${n}@example.com`, `user${n}@example.com`, 'First', `Last${n}`, 1, 0, now, 0];
      }),
    ),
  );
  await timed('user_attribute', () =>
    insertRows(
      db,
      'user_attribute',
      ['id', 'user_id', 'name', 'value'],
      byId(
        userIds.flatMap((id, i) => [
          ...(lean && i % 10 ? [] : [[randomUUID(), id, 'department', `dept-${i % 17}`]]),
          ...(lean ? [] : [[randomUUID(), id, 'phone', `+1555${String(i).padStart(7, '0')}`]]),
        ]),
      ),
    ),
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
  let target = opts.target;
  if (!target && mariaUrl) target = { vendor: 'mariadb', url: mariaUrl };
  if (!target) {
    dir = mkdtempSync(join(tmpdir(), 'idserver-bench-'));
    target = { vendor: 'sqlite', url: join(dir, 'bench.sqlite') };
  }
  const { vendor, url } = target;
  if (vendor === 'mariadb') {
    // A fresh database: whatever a previous run left is dropped before the migrations run.
    const old = await openDb({ vendor, url });
    await old.sequelize.getQueryInterface().dropAllTables();
    await old.close();
  }
  const db = await openDb({ vendor, url });
  const throughTriggers = opts.throughTriggers === true;
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
      const userIds = await bulkWrite(db, ['user_entity'], false, throughTriggers, () => insertUsers(db, realm.id, users, true));
      const top = await bulkWrite(db, [], false, true, () => insertGroupTree(db, realm.id, opts.scale?.groups ?? 0));
      return { vendor, url, dir, userId: userIds[Math.floor(users / 2)], groupId: top[7] };
    }
    const tables = ['user_entity', 'user_role_mapping', 'user_group_membership'];
    const { userIds, top } = await bulkWrite(db, tables, true, throughTriggers, () => insertFull(db, realm.id, users));
    return { vendor, url, dir, userId: userIds[Math.floor(users / 2)], groupId: top[7] };
  } finally {
    await db.close();
  }
}

/** The data of bench:compare: users with memberships, role mappings, composite chains, a group tree with roles. */
async function insertFull(db: Db, realmId: string, users: number): Promise<{ userIds: string[]; top: string[] }> {
  const userIds = await insertUsers(db, realmId, users, false);

  const roleIds = Array.from({ length: 20 }, () => randomUUID());
  await insertRows(
    db,
    'role',
    ['id', 'realm_id', 'client_id', 'container_id', 'name', 'description', 'attributes'],
    roleIds.map((id, i) => [id, realmId, null, realmId, `role-${i}`, null, '{}']),
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
      ...top.map((id, i) => [id, realmId, ' ', `group-${String(i).padStart(2, '0')}`, null, '{}']),
      ...top.flatMap((p, i) => children[i].map((id, j) => [id, realmId, p, `group-${String(i).padStart(2, '0')}-${j}`, null, '{}'])),
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
    `SELECT id FROM role WHERE realm_id = ${db.sequelize.escape(realmId)} AND name = 'default-roles-bench'`,
  )) as [Array<{ id: string }>, unknown];
  await insertRows(
    db,
    'user_role_mapping',
    ['user_id', 'role_id'],
    userIds.flatMap((id, i) => [...(defaults[0] ? [[id, defaults[0].id]] : []), [id, roleIds[i % 20]], [id, roleIds[(i + 7) % 20]]]),
  );
  return { userIds, top };
}
