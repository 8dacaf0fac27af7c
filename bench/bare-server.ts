/**
 * The bare baseline of bench/compare.ts: express 5 + the same driver (sqlite3 or mysql2), no ORM,
 * no idserver code. Each handler verifies the same bearer token (jose, RS256, the master realm's key
 * read from the component table at start, as idserver caches its keys) and does the reads the
 * idserver endpoint needs on the same database, returning the same data. It is the "limit" the
 * benchmark measures idserver against, so it skips what a cache or a shortcut could legitimately
 * skip and nothing the response depends on; each handler says what it leaves out.
 *
 *   node -r ts-node/register/transpile-only bench/bare-server.ts sqlite <file> | mariadb <url>
 * prints "bare listening on http://127.0.0.1:<port>".
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Algorithm, hashRaw, Version } from '@node-rs/argon2';
import express, { type Request, type Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';

type Row = Record<string, unknown>;
type Query = (sql: string, params?: unknown[]) => Promise<Row[]>;

async function connect(vendor: string, url: string): Promise<Query> {
  if (vendor === 'sqlite') {
    const sqlite3 = (await import('sqlite3')).default;
    const db = new sqlite3.Database(url);
    db.configure('busyTimeout', 5000);
    await new Promise<void>((res, rej) => db.exec('PRAGMA journal_mode=WAL', (e) => (e ? rej(e) : res())));
    return (sql, params = []) => new Promise((res, rej) => db.all(sql, params, (e, rows) => (e ? rej(e) : res(rows as Row[]))));
  }
  const mysql = await import('mysql2/promise');
  // Same pool size as idserver's default (--db-pool-max=10).
  const pool = mysql.createPool({ uri: url, connectionLimit: 10 });
  return async (sql, params = []) => (await pool.query(sql, params))[0] as Row[];
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

interface SigningKeys {
  rsa: { kid: string; privateKey: KeyObject; publicKey: KeyObject };
  hmac?: { kid: string; secret: Uint8Array };
}

async function realmKeys(q: Query, realmName: string): Promise<SigningKeys> {
  const rows = await q(
    "SELECT c.provider_id, c.config FROM component c JOIN realm r ON r.id = c.realm_id WHERE r.name = ? AND c.provider_type = 'org.keycloak.keys.KeyProvider'",
    [realmName],
  );
  let rsa: SigningKeys['rsa'] | undefined;
  let hmac: SigningKeys['hmac'];
  for (const r of rows) {
    const config = JSON.parse(String(r.config)) as Record<string, string[]>;
    if (r.provider_id === 'rsa-generated') {
      const privateKey = createPrivateKey({ key: Buffer.from(config.privateKey[0], 'base64'), format: 'der', type: 'pkcs8' });
      const publicKey = createPublicKey(privateKey);
      // Key id as idserver derives it: SHA-256 of the SPKI DER, base64url.
      const kid =
        config.kid?.[0] ??
        createHash('sha256')
          .update(publicKey.export({ type: 'spki', format: 'der' }))
          .digest('base64url');
      rsa = { kid, privateKey, publicKey };
    } else if (r.provider_id === 'hmac-generated') {
      hmac = { kid: config.kid[0], secret: Buffer.from(config.secret[0], 'base64url') };
    }
  }
  if (!rsa) throw new Error(`no RSA key in realm ${realmName}`);
  return { rsa, hmac };
}

/** A user's effective realm roles: direct and group mappings (groups and their ancestors), composites expanded. */
function effectiveRolesSql(n: number, realmOnly = true): string {
  return `WITH RECURSIVE ug(user_id, group_id) AS (
      SELECT user_id, group_id FROM user_group_membership WHERE user_id IN (${marks(n)})
      UNION SELECT ug.user_id, g.parent_id FROM ug JOIN keycloak_group g ON g.id = ug.group_id WHERE g.parent_id <> ' '
    ), r(user_id, role_id) AS (
      SELECT user_id, role_id FROM user_role_mapping WHERE user_id IN (${marks(n)})
      UNION SELECT ug.user_id, m.role_id FROM ug JOIN group_role_mapping m ON m.group_id = ug.group_id
      UNION SELECT r.user_id, c.child_id FROM r JOIN composite_role c ON c.composite_id = r.role_id
    )
    SELECT r.user_id, role.id, role.name, role.description, role.container_id,
      (SELECT COUNT(*) FROM composite_role c2 WHERE c2.composite_id = role.id) AS children
    FROM r JOIN role ON role.id = r.role_id${realmOnly ? ' WHERE role.client_id IS NULL' : ''} ORDER BY role.name`;
}

const roleRep = (r: Row) => ({
  id: r.id,
  name: r.name,
  ...(r.description != null ? { description: r.description } : {}),
  composite: Number(r.children) > 0,
  clientRole: false,
  containerId: r.container_id,
});

function userRep(u: Row, attrs: Row[], actions: Row[], credTypes: Row[]) {
  const attributes: Record<string, string[]> = {};
  for (const a of attrs) {
    const name = String(a.name);
    attributes[name] = [...(attributes[name] ?? []), String(a.value)];
  }
  return {
    id: u.id,
    username: u.username,
    firstName: u.first_name,
    lastName: u.last_name,
    email: u.email,
    emailVerified: Boolean(Number(u.email_verified)),
    ...(attrs.length ? { attributes } : {}),
    createdTimestamp: Number(u.created_timestamp),
    enabled: Boolean(Number(u.enabled)),
    totp: credTypes.some((c) => c.type === 'otp'),
    disableableCredentialTypes: credTypes.filter((c) => c.type === 'otp').map((c) => c.type),
    requiredActions: actions.map((a) => a.required_action),
    notBefore: Number(u.not_before),
    access: { manage: true },
  };
}

async function main() {
  const [vendor, url] = process.argv.slice(2);
  const q = await connect(vendor, url);
  const master = await realmKeys(q, 'master');
  const signing = new Map<string, SigningKeys>();

  /**
   * Bearer check: signature and expiry (jose), then the caller's live session and enabled user, as
   * idserver's bearer lookup does (admin-cli tokens are lightweight: no `sub`, only `sid`). Skips the
   * admin's role evaluation (the master admin may do everything the cases ask).
   */
  async function authorized(req: Request, res: Response): Promise<boolean> {
    const h = req.headers.authorization;
    try {
      if (!h?.startsWith('Bearer ')) throw new Error('no bearer');
      const { payload } = await jwtVerify(h.slice(7), master.rsa.publicKey);
      const [admin] = payload.sub
        ? await q('SELECT id, enabled FROM user_entity WHERE id = ?', [payload.sub])
        : await q('SELECT u.id, u.enabled FROM user_session s JOIN user_entity u ON u.id = s.user_id WHERE s.id = ?', [payload.sid]);
      if (!admin || !Number(admin.enabled)) throw new Error('no admin');
      return true;
    } catch {
      res.status(401).json({ error: 'HTTP 401 Unauthorized' });
      return false;
    }
  }

  async function realmId(name: string): Promise<string | undefined> {
    const [r] = await q('SELECT id FROM realm WHERE name = ?', [name]);
    return r?.id as string | undefined;
  }

  async function usersPage(rid: string, search: string | undefined, first: number, max: number): Promise<Row[]> {
    // Keycloak's search: infix on username, email, first and last name; a trailing * is a prefix.
    if (!search)
      return q('SELECT * FROM user_entity WHERE realm_id = ? AND service_account_client_link IS NULL ORDER BY username LIMIT ? OFFSET ?', [
        rid,
        max,
        first,
      ]);
    const like = search.endsWith('*') ? `${search.slice(0, -1).toLowerCase()}%` : `%${search.toLowerCase()}%`;
    return q(
      'SELECT * FROM user_entity WHERE realm_id = ? AND service_account_client_link IS NULL AND (username LIKE ? OR email LIKE ? OR LOWER(first_name) LIKE ? OR LOWER(last_name) LIKE ?) ORDER BY username LIMIT ? OFFSET ?',
      [rid, like, like, like, like, max, first],
    );
  }

  async function renderPage(users: Row[]) {
    if (!users.length) return [];
    const ids = users.map((u) => u.id);
    const [attrs, actions, creds] = await Promise.all([
      q(`SELECT user_id, name, value FROM user_attribute WHERE user_id IN (${marks(ids.length)})`, ids),
      q(`SELECT user_id, required_action FROM user_required_action WHERE user_id IN (${marks(ids.length)})`, ids),
      q(`SELECT DISTINCT user_id, type FROM credential WHERE user_id IN (${marks(ids.length)})`, ids),
    ]);
    const by = (rows: Row[], id: unknown) => rows.filter((r) => r.user_id === id);
    return users.map((u) => userRep(u, by(attrs, u.id), by(actions, u.id), by(creds, u.id)));
  }

  async function userById(realmName: string, id: string) {
    const rid = await realmId(realmName);
    if (!rid) return undefined;
    const [u] = await q('SELECT * FROM user_entity WHERE id = ? AND realm_id = ?', [id, rid]);
    if (!u) return undefined;
    const [attrs, actions, creds] = await Promise.all([
      q('SELECT name, value FROM user_attribute WHERE user_id = ?', [id]),
      q('SELECT required_action FROM user_required_action WHERE user_id = ?', [id]),
      q('SELECT DISTINCT type FROM credential WHERE user_id = ?', [id]),
    ]);
    return userRep(u, attrs, actions, creds);
  }

  /** A page of groups under `parentId`; children come in full (attributes and role mappings), as idserver returns them. */
  async function groupPage(rid: string, parentId: string, first: number, max: number) {
    const groups = await q('SELECT * FROM keycloak_group WHERE realm_id = ? AND parent_id = ? ORDER BY name LIMIT ? OFFSET ?', [
      rid,
      parentId,
      max,
      first,
    ]);
    if (!groups.length) return [];
    const ids = groups.map((g) => g.id);
    const full = parentId !== ' ';
    const [counts, mapped] = await Promise.all([
      q(`SELECT parent_id, COUNT(*) AS n FROM keycloak_group WHERE parent_id IN (${marks(ids.length)}) GROUP BY parent_id`, ids),
      full
        ? q(
            `SELECT m.group_id, r.name, c.client_id FROM group_role_mapping m JOIN role r ON r.id = m.role_id LEFT JOIN client c ON c.id = r.client_id WHERE m.group_id IN (${marks(ids.length)}) ORDER BY r.name`,
            ids,
          )
        : Promise.resolve([] as Row[]),
    ]);
    // Skips building a deeper path from all ancestors: the harness lists a top-level group's children (path /parent/child).
    const parent = full ? (await q('SELECT name FROM keycloak_group WHERE id = ?', [parentId]))[0] : undefined;
    return groups.map((g) => {
      const roles = mapped.filter((m) => m.group_id === g.id);
      const clientRoles: Record<string, string[]> = {};
      for (const m of roles) {
        if (m.client_id == null) continue;
        const client = String(m.client_id);
        clientRoles[client] = [...(clientRoles[client] ?? []), String(m.name)];
      }
      return {
        id: g.id,
        name: g.name,
        path: parent ? `/${parent.name}/${g.name}` : `/${g.name}`,
        ...(full ? { parentId } : {}),
        subGroupCount: Number(counts.find((c) => c.parent_id === g.id)?.n ?? 0),
        subGroups: [],
        ...(full
          ? {
              attributes: JSON.parse(String(g.attributes ?? '{}')),
              realmRoles: roles.filter((m) => m.client_id == null).map((m) => m.name),
              clientRoles,
            }
          : {}),
        access: { view: true, viewMembers: true, manageMembers: true, manage: true, manageMembership: true },
      };
    });
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/admin/realms/:realm/users/:id', async (req, res) => {
    if (!(await authorized(req, res))) return;
    const rep = await userById(req.params.realm, req.params.id);
    if (!rep) res.status(404).json({ error: 'User not found' });
    else res.json(rep);
  });

  app.get('/admin/realms/:realm/users', async (req, res) => {
    if (!(await authorized(req, res))) return;
    const rid = await realmId(req.params.realm);
    if (!rid) return void res.status(404).json({ error: 'Realm not found.' });
    const first = Number(req.query.first ?? 0);
    const max = Number(req.query.max ?? 100);
    res.json(await renderPage(await usersPage(rid, req.query.search as string | undefined, first, max)));
  });

  app.get('/admin/realms/:realm/groups', async (req, res) => {
    if (!(await authorized(req, res))) return;
    const rid = await realmId(req.params.realm);
    if (!rid) return void res.status(404).json({ error: 'Realm not found.' });
    res.json(await groupPage(rid, ' ', Number(req.query.first ?? 0), Number(req.query.max ?? 100)));
  });

  app.get('/admin/realms/:realm/groups/:id/children', async (req, res) => {
    if (!(await authorized(req, res))) return;
    const rid = await realmId(req.params.realm);
    if (!rid) return void res.status(404).json({ error: 'Realm not found.' });
    const [g] = await q('SELECT id FROM keycloak_group WHERE id = ? AND realm_id = ?', [req.params.id, rid]);
    if (!g) return void res.status(404).json({ error: 'Could not find group by id' });
    res.json(await groupPage(rid, req.params.id, Number(req.query.first ?? 0), Number(req.query.max ?? 10)));
  });

  app.get('/admin/realms/:realm/users/:id/role-mappings/realm/composite', async (req, res) => {
    if (!(await authorized(req, res))) return;
    const rid = await realmId(req.params.realm);
    const [u] = rid ? await q('SELECT id FROM user_entity WHERE id = ? AND realm_id = ?', [req.params.id, rid]) : [];
    if (!u) return void res.status(404).json({ error: 'User not found' });
    const roles = await q(effectiveRolesSql(1), [u.id, u.id]);
    res.json(roles.map(roleRep));
  });

  /**
   * The token endpoint, password and client_credentials grants: realm, client (secret checked),
   * user, password verified with argon2 as idserver does it, session rows written (password grant;
   * a client_credentials session is transient), effective roles,
   * access token (RS256) and refresh token (HS512) signed. Skips brute-force bookkeeping, client
   * scopes and protocol mappers (the claims are the fixed Keycloak defaults) and the login event.
   */
  app.post('/realms/:realm/protocol/openid-connect/token', express.urlencoded({ extended: false }), async (req, res) => {
    const body = req.body as Record<string, string>;
    const [realm] = await q('SELECT id, name FROM realm WHERE name = ? AND enabled = 1', [req.params.realm]);
    if (!realm) return void res.status(404).json({ error: 'Realm does not exist' });
    const [client] = await q('SELECT * FROM client WHERE realm_id = ? AND client_id = ?', [realm.id, body.client_id]);
    if (!client || !Number(client.enabled)) return void res.status(401).json({ error: 'invalid_client' });
    if (!Number(client.public_client)) {
      const a = Buffer.from(String(client.secret ?? ''));
      const b = Buffer.from(body.client_secret ?? '');
      if (a.length !== b.length || !timingSafeEqual(a, b)) return void res.status(401).json({ error: 'invalid_client' });
    }
    let user: Row | undefined;
    if (body.grant_type === 'password') {
      [user] = await q('SELECT * FROM user_entity WHERE realm_id = ? AND username = ?', [
        realm.id,
        String(body.username ?? '').toLowerCase(),
      ]);
      const [cred] = user ? await q("SELECT * FROM credential WHERE user_id = ? AND type = 'password' ORDER BY priority", [user.id]) : [];
      if (!user || !cred || !(await argonMatches(body.password ?? '', cred))) {
        return void res.status(401).json({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
      }
      const [pending] = await q('SELECT COUNT(*) AS n FROM user_required_action WHERE user_id = ?', [user.id]);
      if (Number(pending.n)) return void res.status(400).json({ error: 'invalid_grant', error_description: 'Account is not fully set up' });
    } else if (body.grant_type === 'client_credentials') {
      [user] = await q('SELECT * FROM user_entity WHERE realm_id = ? AND service_account_client_link = ?', [realm.id, client.id]);
      if (!user) return void res.status(400).json({ error: 'unauthorized_client' });
    } else return void res.status(400).json({ error: 'unsupported_grant_type' });
    if (!Number(user.enabled)) return void res.status(400).json({ error: 'invalid_grant', error_description: 'Account disabled' });
    const now = Math.floor(Date.now() / 1000);
    // A password grant's session is stored; a client_credentials one is transient (Keycloak's default).
    const stored = body.grant_type === 'password';
    const sid = stored ? randomUUID() : undefined;
    if (sid) {
      await q(
        "INSERT INTO user_session (id, realm_id, user_id, client_id, ip_address, started, last_access, offline, notes, remember_me, auth_method) VALUES (?, ?, ?, ?, ?, ?, ?, 0, '{}', 0, 'openid-connect')",
        [sid, realm.id, user.id, client.id, req.ip ?? null, now, now],
      );
      await q('INSERT INTO client_session (user_session_id, client_id, realm_id, offline, timestamp) VALUES (?, ?, ?, 0, ?)', [
        sid,
        client.id,
        realm.id,
        now,
      ]);
    }
    const roles = await q(effectiveRolesSql(1), [user.id, user.id]);
    let keys = signing.get(String(realm.name));
    if (!keys) {
      keys = await realmKeys(q, String(realm.name));
      signing.set(String(realm.name), keys);
    }
    const iss = `${req.protocol}://${req.get('host')}/realms/${realm.name}`;
    const access = await new SignJWT({
      jti: randomUUID(),
      iss,
      aud: 'account',
      sub: String(user.id),
      typ: 'Bearer',
      azp: String(body.client_id),
      ...(sid ? { sid } : {}),
      scope: 'profile email',
      realm_access: { roles: roles.map((r) => r.name) },
      preferred_username: String(user.username),
      email: user.email,
      email_verified: Boolean(Number(user.email_verified)),
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keys.rsa.kid })
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(keys.rsa.privateKey);
    const out: Record<string, unknown> = {
      access_token: access,
      expires_in: 300,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope: 'profile email',
    };
    if (sid && keys.hmac) {
      out.refresh_token = await new SignJWT({
        jti: randomUUID(),
        iss,
        aud: iss,
        sub: String(user.id),
        typ: 'Refresh',
        azp: String(body.client_id),
        sid,
      })
        .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: keys.hmac.kid })
        .setIssuedAt(now)
        .setExpirationTime(now + 1800)
        .sign(keys.hmac.secret);
      out.refresh_expires_in = 1800;
      out.session_state = sid;
    }
    res.json(out);
  });

  /**
   * GraphQL, the two benchmark queries only: `variables.id` is the user-by-id query, otherwise the
   * first `max` users with their groups and effective roles. Skips parsing, validating and
   * executing the query document (the result has the shape the document asks for).
   */
  app.post('/graphql', express.json(), async (req, res) => {
    if (!(await authorized(req, res))) return;
    const vars = (req.body as { variables?: { id?: string; realm?: string; max?: number } }).variables ?? {};
    const realmName = vars.realm ?? 'bench';
    if (vars.id) {
      const u = await userById(realmName, vars.id);
      return void res.json({ data: { user: u ?? null } });
    }
    const rid = await realmId(realmName);
    if (!rid) return void res.json({ data: { realm: null } });
    const users = await usersPage(rid, undefined, 0, vars.max ?? 100);
    const ids = users.map((u) => u.id);
    const [groups, roles] = ids.length
      ? await Promise.all([
          q(
            `SELECT m.user_id, g.id, g.name FROM user_group_membership m JOIN keycloak_group g ON g.id = m.group_id WHERE m.user_id IN (${marks(ids.length)}) ORDER BY g.name`,
            ids,
          ),
          q(effectiveRolesSql(ids.length, false), [...ids, ...ids]),
        ])
      : [[], []];
    res.json({
      data: {
        realm: {
          users: users.map((u) => ({
            username: u.username,
            groups: groups.filter((g) => g.user_id === u.id).map((g) => ({ name: g.name })),
            effectiveRoles: roles.filter((r) => r.user_id === u.id).map((r) => ({ name: r.name })),
          })),
        },
      },
    });
  });

  const server = app.listen(0, '127.0.0.1', () => {
    console.log(`bare listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
}

/** argon2 verification as idserver stores it (Keycloak's layout: raw hash + salt, parameters in credential data). */
async function argonMatches(password: string, cred: Row): Promise<boolean> {
  const secret = JSON.parse(String(cred.secret_data)) as { value: string; salt: string };
  const data = JSON.parse(String(cred.credential_data)) as {
    hashIterations: number;
    algorithm: string;
    additionalParameters?: Record<string, string[]>;
  };
  if (data.algorithm !== 'argon2') return false;
  const p = data.additionalParameters ?? {};
  const expected = Buffer.from(secret.value, 'base64');
  // The same binding as idserver's, on libuv's pool (idserver runs it on lowered worker threads).
  const actual = await hashRaw(password, {
    algorithm: Algorithm.Argon2id,
    version: Version.V0x13,
    outputLen: Number(p.hashLength?.[0] ?? expected.length),
    memoryCost: Number(p.memory?.[0] ?? 7168),
    timeCost: data.hashIterations,
    parallelism: Number(p.parallelism?.[0] ?? 1),
    salt: Buffer.from(secret.salt, 'base64'),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
