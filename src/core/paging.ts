/**
 * `first` / `max` paging, one rule for every listing. Keycloak's endpoints differ only in their
 * default page size and in what a negative `max` means, so those are the two options.
 */
export interface PageQuery {
  first?: number;
  max?: number;
}

export interface PageRules {
  /** Page size when `max` is absent; undefined = everything. */
  defaultMax?: number;
  /** What a negative `max` asks for: everything (default) or the default page size. */
  negativeMax?: 'all' | 'default';
}

/** A resolved page: rows skipped, and at most `limit` rows (undefined = no limit; 0 = an empty page). */
export interface Page {
  offset: number;
  limit?: number;
}

/** The page a query asks for: a negative or absent `first` is 0. */
export function pageOf(q: PageQuery, rules: PageRules = {}): Page {
  const offset = q.first !== undefined && q.first > 0 ? q.first : 0;
  let limit: number | undefined;
  if (q.max === undefined || q.max === null) limit = rules.defaultMax;
  else if (q.max < 0) limit = rules.negativeMax === 'default' ? rules.defaultMax : undefined;
  else limit = q.max;
  return { offset, limit };
}

/** Sequelize `findAll` options for a page (an empty page needs no query at all: check `isEmptyPage` first). */
export function sqlPage(p: Page): { offset?: number; limit?: number } {
  return { ...(p.offset > 0 ? { offset: p.offset } : {}), ...(p.limit !== undefined ? { limit: p.limit } : {}) };
}

export const isEmptyPage = (p: Page) => p.limit === 0;

/** A page as the tail of an SQL statement (` LIMIT n OFFSET m`; an offset needs a LIMIT before it in both dialects). */
export function limitSql(p: Page): string {
  const int = (n: number) => String(Math.max(0, Math.floor(Number(n))) || 0);
  const limit = p.limit !== undefined ? ` LIMIT ${int(p.limit)}` : p.offset > 0 ? ` LIMIT ${Number.MAX_SAFE_INTEGER}` : '';
  return `${limit}${p.offset > 0 ? ` OFFSET ${int(p.offset)}` : ''}`;
}

/** The page out of a list already in memory. */
export function slicePage<T>(rows: readonly T[], p: Page): T[] {
  return p.limit === undefined ? rows.slice(p.offset) : rows.slice(p.offset, p.offset + p.limit);
}
