/**
 * How GET /users finds its candidates through the search indexes of migration 0014 (ADR 24) rather
 * than by reading every user of the realm. Everything here only narrows: the caller keeps Keycloak's
 * own LIKE conditions on every row, so an index can make a query faster but never change its answer.
 */

/** Quotes a value as an SQL string literal. */
export type Quote = (v: string) => string;

/** The least string greater than every string that starts with `p` (code point order), if any. */
export function upperBound(p: string): string | undefined {
  const cps = [...p];
  while (cps.length) {
    let next = (cps.pop() as string).codePointAt(0) as number;
    next += 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return cps.join('') + String.fromCodePoint(next);
  }
  return undefined;
}

/** `column` within the strings starting with `prefix` (an index range), or equal to `value`. */
export function rangeOf(q: Quote, column: string, prefix: string, exact: boolean): string {
  if (exact) return `${column} = ${q(prefix)}`;
  const hi = upperBound(prefix);
  return `${column} >= ${q(prefix)}${hi === undefined ? '' : ` AND ${column} < ${q(hi)}`}`;
}

/**
 * One way into the users of a term: a range of one indexed column. Each branch yields (id, username)
 * pairs ordered by username, so the first `first + max` of each suffice for the page.
 */
export interface Branch {
  from: string;
  cond: string;
}

/**
 * MariaDB's index hint for each branch. Its optimizer, estimating from statistics that assume no
 * correlation, would rather walk the realm's users in username order (to skip the sort) and read each
 * row to check the term: at a million users, with the term's matches halfway down, 500 k row reads
 * (~15 s with the default buffer pool) instead of one index range. SQLite's planner takes the ranges.
 */
const HINT = {
  username: 'ix_user_realm_list',
  email: 'ix_user_search_email',
  first_lc: 'ix_user_search_first',
  last_lc: 'ix_user_search_last',
} as const;

/**
 * The branches of a search term that starts with a literal (`foo`, `foo*bar`, `"foo"`): the
 * username and email indexes of user_entity and the lower-cased names of user_search_name.
 * Undefined for a term that starts with a wildcard (`*foo`), which no B-tree range serves.
 * `hints`: name each branch's index (MariaDB).
 */
export function termBranches(
  q: Quote,
  realmId: string,
  term: string,
  pattern: (col: string) => string,
  hints = false,
): Branch[] | undefined {
  const exact = term.length >= 2 && term.startsWith('"') && term.endsWith('"');
  const prefix = exact ? term.slice(1, -1) : term.slice(0, term.includes('*') ? term.indexOf('*') : term.length);
  if (!prefix) return undefined;
  const realm = q(realmId);
  const hint = (col: keyof typeof HINT) => (hints ? ` FORCE INDEX (${HINT[col]})` : '');
  const user = (col: 'username' | 'email') => ({
    from: `user_entity u${hint(col)}`,
    cond: `u.realm_id = ${realm} AND ${rangeOf(q, `u.${col}`, prefix, exact)} AND ${pattern(`u.${col}`)}`,
  });
  const name = (col: 'first_lc' | 'last_lc') => ({
    from: `user_search_name n${hint(col)} JOIN user_entity u ON u.id = n.user_id`,
    cond: `n.realm_id = ${realm} AND ${rangeOf(q, `n.${col}`, prefix, exact)} AND ${pattern(`n.${col}`)}`,
  });
  return [user('username'), user('email'), name('first_lc'), name('last_lc')];
}

/** From this offset on, a plain listing first seeks its first username (listSeekSql) rather than skip rows. */
export const SEEK_FROM = 1000;

/**
 * The username at `offset` among a realm's users that are not service accounts (in username order),
 * read from `ix_user_realm_list` alone (migration 0015): a deep page steps over index entries, then
 * starts at that username (usernames are unique in a realm), instead of reading every row it skips.
 */
export function listSeekSql(q: Quote, realmId: string, offset: number, hints = false): string {
  const from = hints ? 'user_entity FORCE INDEX (ix_user_realm_list)' : 'user_entity';
  return `SELECT username FROM ${from} WHERE realm_id = ${q(realmId)} AND service_account_client_link IS NULL ORDER BY username LIMIT 1 OFFSET ${offset}`;
}

/**
 * The ids of one page of users matching `rest` and any branch, by username: per branch at most
 * `limit + offset` rows from its index, then the union's page. `rest` names user_entity's columns
 * unqualified (the branch tables have no columns of those names). `parens`: the branches are
 * parenthesised union members (MariaDB; measured ~10 % less work than a derived table per branch)
 * rather than derived tables (SQLite, whose compound SELECTs take no parentheses).
 */
export function branchPageSql(branches: Branch[], rest: string[], offset: number, limit?: number, parens = false): string {
  const k = limit === undefined ? undefined : limit + offset;
  const where = (b: Branch) => [b.cond, ...rest].join(' AND ');
  const parts = branches.map((b, i) => {
    const one = `SELECT u.id, u.username FROM ${b.from} WHERE ${where(b)} ORDER BY u.username${k === undefined ? '' : ` LIMIT ${k}`}`;
    return parens ? `(${one})` : `SELECT id, username FROM (${one}) b${i}`;
  });
  const page =
    limit === undefined ? (offset ? ` LIMIT ${Number.MAX_SAFE_INTEGER} OFFSET ${offset}` : '') : ` LIMIT ${limit} OFFSET ${offset}`;
  return `SELECT id FROM (${parts.join(' UNION ')} ORDER BY username${page}) page`;
}

/** The number of users matching `rest` and any branch. */
export function branchCountSql(branches: Branch[], rest: string[]): string {
  const parts = branches.map((b) => `SELECT u.id FROM ${b.from} WHERE ${[b.cond, ...rest].join(' AND ')}`);
  return `SELECT COUNT(*) AS n FROM (${parts.join(' UNION ')}) hits`;
}

/** The longest run of at least three literal characters between the wildcards (`sep`) of a value. */
export function longestChunk(value: string, sep: RegExp): string | undefined {
  let best = '';
  for (const c of value.split(sep)) if ([...c].length > [...best].length) best = c;
  return [...best].length >= 3 ? best : undefined;
}

/**
 * SQLite: users whose `column` (or any of the four, when undefined) contains `chunk`, by the FTS5
 * trigram index (case-insensitive, so a superset of what LIKE on lower-cased values matches).
 */
export function ftsCondition(q: Quote, chunk: string, column?: 'username' | 'email' | 'first_name' | 'last_name'): string {
  const phrase = `"${chunk.replace(/"/g, '""')}"`;
  const match = column ? `${column} : ${phrase}` : phrase;
  return `rowid IN (SELECT rowid FROM user_search_fts WHERE user_search_fts MATCH ${q(match)})`;
}

/** Users whose lower-cased first or last name equals `value` (user_search_name). */
export function nameEquals(q: Quote, realmId: string, column: 'first_lc' | 'last_lc', value: string): string {
  return `id IN (SELECT user_id FROM user_search_name WHERE realm_id = ${q(realmId)} AND ${column} = ${q(value)})`;
}
