import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { QueryTypes } from 'sequelize';
import { seed } from '../../../bench/seed';
import { type Db, openDb } from '../../../src/db';
import { fillUserCountsSql } from '../../../src/db/migrations/0021-realm-user-counts';
import { TEST_DB_URL } from '../../helpers/server';

/**
 * The benchmark seed (bench/seed.ts) writes a million users in bulk with the triggers of migrations
 * 0013 and 0014 suspended, fills their tables itself (cache versions, lower-cased names, the SQLite
 * trigram index) and re-creates the triggers. The result must be what the triggers would have
 * written: the same seed, row by row through the triggers, is the reference. Ids differ between two
 * seeds, so rows are compared by realm name and username. Read directly: these tables have no API.
 */
jest.setTimeout(180000);

const USERS = 120;

async function target(tag: string): Promise<{ target: { vendor: 'sqlite' | 'mariadb'; url: string }; cleanup: () => Promise<void> }> {
  if (!TEST_DB_URL) {
    const dir = mkdtempSync(join(tmpdir(), `idserver-seed-${tag}-`));
    return {
      target: { vendor: 'sqlite', url: join(dir, 'seed.sqlite') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = new URL(TEST_DB_URL);
  const name = `idserver_seed_${tag}_${process.env.JEST_WORKER_ID ?? '0'}_${process.pid}`;
  const admin = () =>
    createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username) || 'root',
      password: decodeURIComponent(url.password) || undefined,
    });
  const c = await admin();
  await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await c.end();
  url.pathname = `/${name}`;
  return {
    target: { vendor: 'mariadb', url: url.toString() },
    cleanup: async () => {
      const d = await admin();
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
    },
  };
}

const rows = (db: Db, sql: string) => db.sequelize.query<Record<string, unknown>>(sql, { type: QueryTypes.SELECT });
const sorted = (xs: Array<Record<string, unknown>>) => xs.map((r) => JSON.stringify(Object.values(r).map(String))).sort();

/** What the triggers write, keyed by names rather than ids; and the triggers themselves. */
async function derived(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {
    names: sorted(
      await rows(
        db,
        `SELECT r.name AS realm, u.username, n.realm_id = u.realm_id AS same_realm, n.first_lc, n.last_lc
         FROM user_search_name n JOIN user_entity u ON u.id = n.user_id JOIN realm r ON r.id = u.realm_id`,
      ),
    ),
    userVersions: sorted(
      await rows(
        db,
        'SELECT r.name AS realm, u.username, c.version FROM user_cache_version c JOIN user_entity u ON u.id = c.user_id JOIN realm r ON r.id = u.realm_id',
      ),
    ),
    realmVersions: sorted(await rows(db, 'SELECT r.name, c.version FROM realm_cache_version c JOIN realm r ON r.id = c.realm_id')),
    // Shards follow ids, which differ between seeds: the sums per realm are compared, and each
    // database's shard rows are checked against its own users.
    userCounts: sorted(
      await rows(
        db,
        'SELECT r.name, SUM(c.n) AS n FROM realm_user_count c JOIN realm r ON r.id = c.realm_id GROUP BY r.name HAVING SUM(c.n) <> 0',
      ),
    ),
    userCountShards: [
      JSON.stringify(
        sorted(await rows(db, 'SELECT realm_id, shard, n FROM realm_user_count WHERE n <> 0')).join('|') ===
          sorted(await rows(db, fillUserCountsSql(db.vendor).replace(/^INSERT INTO realm_user_count \(realm_id, shard, n\) /, ''))).join(
            '|',
          ),
      ),
    ],
    counts: sorted(
      await rows(
        db,
        `SELECT (SELECT COUNT(*) FROM user_entity) AS users, (SELECT COUNT(*) FROM user_search_name) AS names,
                (SELECT COUNT(*) FROM user_cache_version) AS versions`,
      ),
    ),
  };
  if (db.vendor === 'sqlite') {
    out.triggers = sorted(await rows(db, "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'"));
    // Every token of the trigram index, by the user it points at.
    await db.sequelize.query('CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, user_search_fts, instance)');
    out.fts = sorted(
      await rows(db, 'SELECT t.term, u.username, t.col, t."offset" FROM temp.fts_terms t JOIN user_entity u ON u.rowid = t.doc'),
    );
    // The index agrees with its content table (throws otherwise).
    await db.sequelize.query("INSERT INTO user_search_fts (user_search_fts, rank) VALUES ('integrity-check', 1)");
  } else {
    const names = await rows(
      db,
      'SELECT TRIGGER_NAME AS name, EVENT_OBJECT_TABLE AS tbl, ACTION_ORDER AS ord FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()',
    );
    const triggers: Array<Record<string, unknown>> = [];
    for (const t of names) {
      const [show] = await rows(db, `SHOW CREATE TRIGGER \`${t.name}\``);
      triggers.push({ ...t, sql: show['SQL Original Statement'], mode: show.sql_mode });
    }
    out.triggers = sorted(triggers);
    const tables = [
      'user_entity',
      'user_attribute',
      'user_search_name',
      'user_cache_version',
      'user_role_mapping',
      'user_group_membership',
    ];
    const creates: Array<Record<string, unknown>> = [];
    for (const t of tables) creates.push(...(await rows(db, `SHOW CREATE TABLE \`${t}\``)));
    out.tables = sorted(creates);
  }
  return out;
}

async function seededBothWays(scale?: {
  groups: number;
}): Promise<{ bulk: Record<string, string[]>; reference: Record<string, string[]> }> {
  const a = await target('bulk');
  const b = await target('ref');
  try {
    await seed(USERS, { target: a.target, scale });
    await seed(USERS, { target: b.target, scale, throughTriggers: true });
    const dbA = await openDb(a.target);
    const dbB = await openDb(b.target);
    try {
      return { bulk: await derived(dbA), reference: await derived(dbB) };
    } finally {
      await dbA.close();
      await dbB.close();
    }
  } finally {
    await a.cleanup();
    await b.cleanup();
  }
}

test('the bench:compare seed (users, memberships, role mappings) leaves what the triggers would have written', async () => {
  const { bulk, reference } = await seededBothWays();
  // Not vacuous: every seeded user has a name row and a cache version raised by its five links.
  expect(bulk.names.length).toBeGreaterThan(USERS);
  expect(bulk.userVersions.filter((r) => r.endsWith(',"5"]')).length).toBe(USERS);
  if (bulk.fts) expect(bulk.fts.length).toBeGreaterThan(USERS * 40);
  expect(bulk).toEqual(reference);
});

test('the bench:scale seed (users, a group tree) leaves what the triggers would have written', async () => {
  const { bulk, reference } = await seededBothWays({ groups: 50 });
  expect(bulk.userVersions.filter((r) => r.endsWith(',"0"]')).length).toBeGreaterThanOrEqual(USERS);
  expect(bulk).toEqual(reference);
});
