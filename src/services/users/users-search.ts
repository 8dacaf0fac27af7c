import { IndexHints, Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import { canQueryUsers, canUsers, canViewUsers, fgapOn, groupsWithViewMembers } from '../../auth/fgap';
import { forbidden } from '../../core/errors';
import { fastSelect, fastSelectText } from '../../db/fast-select';
import { fastRowsText } from '../../loaders';
import type { RealmModel } from '../../db/models/realm';
import type { UserModel } from '../../db/models/user';
import type { RequestContext } from '../../core/context';
import { isEmptyPage, limitSql, type Page, pageOf, sqlPage } from '../../core/paging';
import type { UserRep } from '../../representations/user';
import { renderUsers } from './users';
import {
  type Branch,
  branchCountSql,
  branchPageSql,
  ftsCondition,
  listSeekSql,
  SEEK_FROM,
  longestChunk,
  nameEquals,
  termBranches,
} from './users-search-index';
import { directorySearchable, importMatchingDirectoryUsers, transientMatches } from '../user-storage/directory-search';
import { liveProviders } from '../user-storage/transient-users';

/**
 * GET /users and /users/count (reference §4.3–4.4): the filtering is done in SQL (LIKE with an
 * explicit ESCAPE, lower-cased columns, a sub-select for attribute filters), then the page is
 * rendered with loaders — a bounded number of queries whatever the size of the result.
 */
export interface UserQuery {
  search?: string;
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  emailVerified?: boolean;
  enabled?: boolean;
  idpAlias?: string;
  idpUserId?: string;
  exact?: boolean;
  q?: string;
  first?: number;
  max?: number;
  briefRepresentation?: boolean;
}

type Sql = ReturnType<typeof literal>;

/** Escapes LIKE wildcards with `!` (portable: SQLite and MySQL agree on an explicit ESCAPE '!'). */
const escapeLike = (s: string, wildcards = true) => (wildcards ? s.replace(/[!%_]/g, '!$&') : s.replace(/!/g, '!!'));

class Filter {
  readonly parts: Sql[] = [];
  /** `parts` as SQL text, for a statement read past Sequelize (fastRowsText). */
  readonly texts: string[] = [];
  /** The same conditions as SQL text (for the branch queries of users-search-index.ts). */
  readonly sql: string[] = [];
  /** Index hints: conditions that only narrow (a superset of what `sql` keeps), never change the answer. */
  readonly hints: string[] = [];
  constructor(private readonly ctx: RequestContext) {}
  readonly q = (v: string): string => this.ctx.db.sequelize.escape(v);
  get sqlite(): boolean {
    return this.ctx.db.vendor === 'sqlite';
  }
  like(column: string, pattern: string): string {
    return `${column} LIKE ${this.q(pattern)} ESCAPE '!'`;
  }
  eq(column: string, value: string): string {
    return `${column} = ${this.q(value)}`;
  }
  add(sql: string): void {
    this.parts.push(literal(`(${sql})`));
    this.texts.push(`(${sql})`);
    this.sql.push(`(${sql})`);
  }
  hint(sql: string): void {
    this.hints.push(`(${sql})`);
    this.parts.push(literal(`(${sql})`));
    this.texts.push(`(${sql})`);
  }
}

const SEARCH_COLUMNS = ['username', 'email', 'LOWER(first_name)', 'LOWER(last_name)'];

/** The SQL condition of one search term: any of the four fields (prefix by default, `"…"` exact). */
function termCondition(f: Filter, term: string): string {
  if (term.length >= 2 && term.startsWith('"') && term.endsWith('"')) {
    const exact = term.slice(1, -1);
    return SEARCH_COLUMNS.map((c) => f.eq(c, exact)).join(' OR ');
  }
  return SEARCH_COLUMNS.map((c) => f.like(c, termPattern(term))).join(' OR ');
}

/** LIKE pattern of a search term: `*` is the wildcard, `%`/`_`/`!` literal, a trailing `%` unless it ends with `*`. */
function termPattern(term: string): string {
  let pattern = escapeLike(term).replace(/\*/g, '%');
  if (!pattern.endsWith('%') || pattern.endsWith('!%')) pattern += '%';
  return pattern;
}

const searchTerms = (search: string) =>
  search
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());

/**
 * Search mode: each whitespace-separated term must match one of the four fields (prefix by default).
 * Returns the index branches of the term with the longest literal prefix, when there is one; the
 * other terms stay plain conditions. On SQLite an infix term narrows through the trigram index.
 */
function searchFilter(f: Filter, realmId: string, search: string): { branches: Branch[]; rest: string[] } | undefined {
  const terms = searchTerms(search);
  let best: { term: string; branches: Branch[] } | undefined;
  for (const term of terms) {
    const exact = term.length >= 2 && term.startsWith('"') && term.endsWith('"');
    const pattern = (col: string) => (exact ? f.eq(col, term.slice(1, -1)) : f.like(col, termPattern(term)));
    const branches = termBranches(f.q, realmId, term, pattern, !f.sqlite);
    if (branches && (!best || term.length > best.term.length)) best = { term, branches };
  }
  const rest: string[] = [];
  for (const term of terms) {
    if (term === best?.term) continue;
    rest.push(`(${termCondition(f, term)})`);
  }
  for (const term of terms) f.add(termCondition(f, term));
  if (best) return { branches: best.branches, rest };
  if (f.sqlite) {
    for (const term of terms) {
      const chunk = longestChunk(term, /\*/);
      if (chunk && !(term.startsWith('"') && term.endsWith('"'))) f.hint(ftsCondition(f.q, chunk));
    }
  }
  return undefined;
}

/** `key1:value1 key2:"value 2"` → pairs (keys and values may be double-quoted). */
export function parseQ(q: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const re = /\s*("[^"]*"|[^\s:"]+)\s*:\s*("[^"]*"|[^\s"]+)/g;
  const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s);
  for (let m = re.exec(q); m; m = re.exec(q)) out.push([unquote(m[1]), unquote(m[2])]);
  return out;
}

/**
 * The keys of `q` that Keycloak 26 reads as the user's own fields rather than attributes: UsersResource
 * puts the parsed `q` into the same criteria map as `username=`, `email=` ... (so `q` wins over them),
 * and JpaUserProvider#predicates matches the UserModel keys `username`, `email`, `firstName`,
 * `lastName` (substring unless `exact`), `emailVerified` and `enabled` (Boolean.valueOf) against the
 * columns; any other key is an attribute. Returns the query with those moved out of `q`.
 */
export function withBuiltInQ(p: UserQuery): UserQuery {
  if (p.search !== undefined || p.q === undefined) return p;
  const out: UserQuery = { ...p };
  const custom: string[] = [];
  for (const [key, value] of parseQ(p.q)) {
    if (key === 'username' || key === 'email' || key === 'firstName' || key === 'lastName') out[key] = value;
    else if (key === 'emailVerified' || key === 'enabled') out[key] = value.toLowerCase() === 'true';
    else custom.push(`"${key}":"${value}"`);
  }
  out.q = custom.length ? custom.join(' ') : undefined;
  return out;
}

/** Attribute mode: all given criteria AND-combined (substring unless `exact`). */
const FTS_COLUMN = { username: 'username', email: 'email', firstName: 'first_name', lastName: 'last_name' } as const;

function attributeFilter(f: Filter, realmId: string, p: UserQuery, forCount: boolean): void {
  const exact = !forCount && p.exact === true;
  for (const [key, column] of [
    ['username', 'username'],
    ['email', 'email'],
    ['firstName', 'LOWER(first_name)'],
    ['lastName', 'LOWER(last_name)'],
  ] as const) {
    const v = p[key];
    if (v === undefined) continue;
    const lower = v.toLowerCase();
    // Keycloak quirk: `*` is literal here and `%`/`_` act as wildcards.
    f.add(exact ? f.eq(column, lower) : f.like(column, `%${escapeLike(lower, false)}%`));
    const name = key === 'firstName' ? 'first_lc' : key === 'lastName' ? 'last_lc' : undefined;
    if (exact && name) f.hint(nameEquals(f.q, realmId, name, lower));
    const chunk = exact ? undefined : longestChunk(lower, /[%_]/);
    if (chunk && f.sqlite) f.hint(ftsCondition(f.q, chunk, FTS_COLUMN[key]));
  }
  if (p.emailVerified !== undefined) f.add(`email_verified = ${p.emailVerified ? 'TRUE' : 'FALSE'}`);
  if (p.enabled !== undefined) f.add(`enabled = ${p.enabled ? 'TRUE' : 'FALSE'}`);
  const substring = !forCount && p.exact === false;
  for (const [key, value] of parseQ(p.q ?? '')) {
    const v = value.toLowerCase();
    const match = substring ? f.like('LOWER(a.value)', `%${escapeLike(v)}%`) : f.eq('LOWER(a.value)', v);
    f.add(`id IN (SELECT a.user_id FROM user_attribute a WHERE ${f.eq('a.name', key)} AND ${match})`);
  }
}

/** `idpAlias` / `idpUserId`: the user has a federated identity with that provider alias / external user id. */
function idpFilter(f: Filter, p: UserQuery): void {
  const conds: string[] = [];
  if (p.idpAlias !== undefined) conds.push(f.eq('fi.identity_provider', p.idpAlias));
  if (p.idpUserId !== undefined) conds.push(f.eq('fi.federated_user_id', p.idpUserId));
  if (conds.length) f.add(`id IN (SELECT fi.user_id FROM federated_identity fi WHERE ${conds.join(' AND ')})`);
}

const ATTRIBUTE_KEYS = [
  'lastName',
  'firstName',
  'email',
  'username',
  'emailVerified',
  'idpAlias',
  'idpUserId',
  'enabled',
  'exact',
  'q',
] as const;

type Mode =
  | { kind: 'ids'; ids: string[] }
  | { kind: 'none' }
  | {
      kind: 'where';
      where: WhereOptions;
      branches?: { branches: Branch[]; rest: string[]; where: string };
      /** No filter: the realm's users that are not service accounts (a page of ids from listPageSql). */
      list?: boolean;
      /** MariaDB, a search no index serves (`*term*`): read the table once rather than walk an index row by row. */
      scan?: boolean;
    };

function plan(ctx: RequestContext, realm: RealmModel, query: UserQuery, forCount: boolean): Mode {
  const p = withBuiltInQ(query);
  const f = new Filter(ctx);
  const base: Record<string | symbol, unknown> = { realmId: realm.id };
  let branches: { branches: Branch[]; rest: string[]; where: string } | undefined;
  let substringsOnly = false;
  if (p.search !== undefined) {
    if (p.search.startsWith('id:')) return { kind: 'ids', ids: p.search.slice(3).trim().split(/\s+/).filter(Boolean) };
    const found = searchFilter(f, realm.id, p.search);
    if (found) branches = { ...found, where: '' };
    base.serviceAccountClientLink = null;
    branches?.rest.push('service_account_client_link IS NULL');
    if (!forCount && p.enabled !== undefined) {
      f.add(`enabled = ${p.enabled ? 'TRUE' : 'FALSE'}`);
      branches?.rest.push(`enabled = ${p.enabled ? 'TRUE' : 'FALSE'}`);
    }
  } else if (ATTRIBUTE_KEYS.some((k) => p[k] !== undefined)) {
    attributeFilter(f, realm.id, p, forCount);
    if (!forCount) idpFilter(f, p);
    // Only substrings of the four fields (`email=foo`): no index serves them, as for `*term*` below.
    const fields = (['username', 'email', 'firstName', 'lastName'] as const).some((k) => p[k] !== undefined);
    substringsOnly = fields && !(!forCount && p.exact === true) && !p.q && p.idpAlias === undefined && p.idpUserId === undefined;
  } else if (!forCount) {
    base.serviceAccountClientLink = null;
    return { kind: 'where', where: base as WhereOptions, list: true };
  }
  if (f.parts.length) base[Op.and] = f.parts;
  if ((branches || f.hints.length) && f.sqlite) {
    // SQLite has no statistics: a plain realm or service-account term would tempt it to walk the whole
    // realm in username order; unary + keeps those terms off the indexes so the candidates drive.
    const sa = base.serviceAccountClientLink === null ? ['+service_account_client_link IS NULL'] : [];
    const conds = [`+realm_id = ${f.q(realm.id)}`, ...sa];
    if (branches) branches.where = [...conds, ...f.texts].join(' AND ');
    return { kind: 'where', where: { [Op.and]: [...conds.map((c) => literal(c)), ...f.parts] } as WhereOptions, branches };
  }
  // Search mode only: the realm's users that are not service accounts.
  if (branches) branches.where = [`realm_id = ${f.q(realm.id)}`, 'service_account_client_link IS NULL', ...f.texts].join(' AND ');
  // MariaDB would walk the realm in username order and read every row up to the page's last match
  // (~15 s for `*ser05*` or `email=0500000@ex` at a million users); one pass over the table and a
  // sort take 0.5-2 s. Counts are unaffected (they read no order).
  const scan = ((p.search !== undefined && !branches) || substringsOnly) && !f.sqlite;
  return { kind: 'where', where: base as WhereOptions, branches, scan };
}

async function findByIds(ctx: RequestContext, realm: RealmModel, ids: string[]): Promise<UserModel[]> {
  if (!ids.length) return [];
  const rows = await ctx.db.models.User.findAll({ where: { realmId: realm.id, id: { [Op.in]: ids } } });
  const byId = new Map(rows.map((u) => [u.id, u]));
  return ids.map((id) => byId.get(id)).filter((u): u is UserModel => !!u);
}

/**
 * A page of the plain listing (no filter) along `ix_user_realm_list` (migration 0015). A deep page
 * (offset ≥ SEEK_FROM) first reads the username it starts at from the index alone, then seeks there:
 * at a million users, offset 500 k costs one index walk instead of 500 k row reads. MariaDB is told
 * the index: its estimates would have it walk the realm from the start, reading rows.
 */
async function listPage(ctx: RequestContext, realm: RealmModel, page: Page): Promise<UserModel[]> {
  const hints = ctx.db.vendor !== 'sqlite';
  const q = (v: string) => ctx.db.sequelize.escape(v);
  // Read past Sequelize's query building, as the loaders read users.
  const rows = (where: string, tail: string) =>
    fastRowsText<UserModel>(
      ctx.db,
      ctx.db.models.User,
      `${hints ? 'FORCE INDEX (ix_user_realm_list) ' : ''}WHERE ${where} ORDER BY t.username${tail}`,
    );
  const realmUsers = `t.realm_id = ${q(realm.id)} AND t.service_account_client_link IS NULL`;
  if (page.offset < SEEK_FROM) return rows(realmUsers, limitSql(page));
  const [start] = await fastSelectText<{ username: string }>(ctx.db.sequelize, listSeekSql(q, realm.id, page.offset, hints));
  if (!start) return [];
  return rows(`${realmUsers} AND t.username >= ${q(start.username)}`, limitSql({ offset: 0, limit: page.limit }));
}

/** GET /admin/realms/{realm}/users: search, attribute filters or all users, ordered by username, paged (query-users). */
export async function listUsers(ctx: RequestContext, realm: RealmModel, p: UserQuery = {}): Promise<UserRep[]> {
  if (!(await canQueryUsers(ctx, realm))) throw forbidden();
  // A caller who may not view all users sees the direct members of the groups whose members he may view.
  const viewable = (await canViewUsers(ctx, realm)) ? null : await groupsWithViewMembers(ctx, realm);
  if (viewable && !viewable.length) return [];
  await importMatchingDirectoryUsers(ctx, realm, p);
  const mode = plan(ctx, realm, p, false);
  let users: UserModel[];
  if (mode.kind === 'none') return [];
  if (mode.kind === 'ids') users = await findByIds(ctx, realm, mode.ids);
  else if (viewable) {
    const page = pageOf(p, { defaultMax: 100 });
    if (isEmptyPage(page)) return [];
    const where = { [Op.and]: [mode.where, memberOf(ctx, viewable)] } as WhereOptions;
    users = await ctx.db.models.User.findAll({ where, order: [['username', 'ASC']], ...sqlPage(page) });
  } else {
    const page = pageOf(p, { defaultMax: 100 });
    if (isEmptyPage(page)) return [];
    const order: Array<[string, string]> = [['username', 'ASC']];
    if (mode.branches) {
      // The page's ids from the indexes, then the rows themselves (the filters checked once more), read
      // past Sequelize's query building (~0.15 ms of a search's CPU).
      const { branches, rest, where } = mode.branches;
      const ids = branchPageSql(branches, rest, page.offset, page.limit, ctx.db.vendor !== 'sqlite');
      users = await fastRowsText<UserModel>(ctx.db, ctx.db.models.User, `WHERE ${where} AND t.id IN (${ids}) ORDER BY t.username`);
    } else if (mode.list) {
      users = await listPage(ctx, realm, page);
    } else {
      const indexHints = mode.scan ? [{ type: IndexHints.USE, values: [] }] : undefined;
      users = await ctx.db.models.User.findAll({ where: mode.where, order, indexHints, ...sqlPage(page) });
    }
  }
  if (viewable) {
    const view = await canUsers(ctx, realm, idsOf(users), 'view');
    users = users.filter((_, i) => view[i]);
  } else if (mode.kind !== 'ids') users = await withDirectoryUsers(ctx, realm, p, users);
  for (const u of users) ctx.loaders.userById.prime(u.id, u);
  // Listings carry `{manage}` only (Keycloak's getAccessForListing), per user: one evaluation for the page.
  const manage = await canUsers(ctx, realm, idsOf(users), 'manage');
  const reps = await renderUsers(ctx, realm, users, { mode: p.briefRepresentation ? 'brief' : 'full', access: { manage: false } });
  reps.forEach((rep, i) => {
    rep.access = { manage: manage[i] };
  });
  return reps;
}

const idsOf = (users: UserModel[]) => users.map((u) => u.id);

/** Filters the directory cannot answer: a listing with one of them shows local users only. */
const LOCAL_ONLY_FILTERS = ['firstName', 'lastName', 'emailVerified', 'enabled', 'idpAlias', 'idpUserId', 'q'];

/**
 * The page's local users followed by the users of import-off LDAP providers (ADR 46), as Keycloak's
 * UserStorageManager#query pages across local storage and the providers: when the page starts past
 * the local matches, the local count says how many directory users to skip. A realm without such a
 * provider runs no extra statement (the provider list is shared, ADR 23).
 */
async function withDirectoryUsers(ctx: RequestContext, realm: RealmModel, p: UserQuery, local: UserModel[]): Promise<UserModel[]> {
  if (!directorySearchable(p as Record<string, unknown>, LOCAL_ONLY_FILTERS)) return local;
  if (!(await liveProviders(ctx, realm)).length) return local;
  const page = pageOf(p, { defaultMax: 100 });
  const max = page.limit ?? 1000;
  if (local.length >= max) return local;
  const skip = local.length === 0 && page.offset > 0 ? Math.max(0, page.offset - (await countUsers(ctx, realm, p))) : 0;
  return [...local, ...(await transientMatches(ctx, realm, p, skip, max - local.length))];
}

/** `id IN (direct members of these groups)`: Keycloak's `UserModel.GROUPS` search condition. */
function memberOf(ctx: RequestContext, groupIds: string[]) {
  const ids = groupIds.map((id) => ctx.db.sequelize.escape(id)).join(', ');
  return literal(`id IN (SELECT m.user_id FROM user_group_membership m WHERE m.group_id IN (${ids}))`);
}

/** GET /admin/realms/{realm}/users/count: a bare number (query-users; filtered by view rights only when FGAP is in use). */
export async function countUsers(ctx: RequestContext, realm: RealmModel, p: UserQuery = {}): Promise<number> {
  if (!(await canQueryUsers(ctx, realm))) throw forbidden();
  const { exact: _e, idpAlias: _a, idpUserId: _u, ...params } = p;
  const mode = plan(ctx, realm, params, true);
  if (mode.kind === 'none') return 0;
  // Without fine-grained permissions in use the count is not filtered (measured); with them, a caller who
  // may not view all users counts the direct members of the groups whose members he may view (Keycloak).
  const viewable = (await canViewUsers(ctx, realm)) || !(await fgapOn(ctx, realm)) ? null : await groupsWithViewMembers(ctx, realm);
  if (mode.kind === 'ids') {
    const found = await findByIds(ctx, realm, mode.ids);
    if (!viewable) return found.length;
    return (await canUsers(ctx, realm, idsOf(found), 'view')).filter(Boolean).length;
  }
  if (viewable) {
    if (!viewable.length) return 0;
    return ctx.db.models.User.count({ where: { [Op.and]: [mode.where, memberOf(ctx, viewable)] } as WhereOptions });
  }
  if (mode.branches) {
    const [row] = await ctx.db.sequelize.query<{ n: number | string }>(branchCountSql(mode.branches.branches, mode.branches.rest), {
      type: QueryTypes.SELECT,
    });
    return Number(row?.n ?? 0);
  }
  if (unfiltered(mode.where)) return realmUserCount(ctx, realm.id);
  return ctx.db.models.User.count({ where: mode.where });
}

/** Whether a count's condition is the realm alone: every user of it, service accounts included. */
const unfiltered = (where: WhereOptions) =>
  Object.getOwnPropertySymbols(where).length === 0 && Object.keys(where).length === 1 && 'realmId' in where;

const REALM_USER_COUNT = 'SELECT COALESCE(SUM(n), 0) AS n FROM realm_user_count WHERE realm_id = :realmId';

/** A realm's number of users from the counts the database keeps (migration 0021): a few rows, not a million index entries. */
async function realmUserCount(ctx: RequestContext, realmId: string): Promise<number> {
  const [row] = await fastSelect<{ n: number | string }>(ctx.db.sequelize, REALM_USER_COUNT, { realmId });
  return Number(row?.n ?? 0);
}
