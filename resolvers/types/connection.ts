import { GraphQLBoolean, GraphQLError, GraphQLInt, GraphQLString } from 'graphql';
import { ArgsType, type ClassType, Field, ObjectType } from 'type-graphql';

/**
 * Relay connections (https://relay.dev/graphql/connections.htm) over the services' offset paging.
 * A cursor is an opaque token for a position in the list as the service orders it; `first`/`after`
 * page forward, `last`/`before` backward. Page size: 20 by default; the query limits
 * (resolvers/limits.ts) refuse more than the configured page limit (100) before the query runs.
 */
export const DEFAULT_PAGE = 20;

@ObjectType({ description: 'Where a page of a connection sits in the whole list.' })
export class PageInfo {
  @Field(() => GraphQLBoolean, { description: 'Whether items follow the last one of this page.' })
  hasNextPage!: boolean;
  @Field(() => GraphQLBoolean, { description: 'Whether items precede the first one of this page.' })
  hasPreviousPage!: boolean;
  @Field(() => GraphQLString, { nullable: true, description: 'Cursor of the first item of the page; null for an empty page.' })
  startCursor?: string | null;
  @Field(() => GraphQLString, { nullable: true, description: 'Cursor of the last item of the page; null for an empty page.' })
  endCursor?: string | null;
}

@ArgsType()
export class ConnectionArgs {
  @Field(() => GraphQLInt, { nullable: true, description: 'Page forward: at most this many items after `after` (default 20).' })
  first?: number | null;
  @Field(() => GraphQLString, { nullable: true, description: 'Cursor: items after this one.' })
  after?: string | null;
  @Field(() => GraphQLInt, { nullable: true, description: 'Page backward: at most this many items before `before`.' })
  last?: number | null;
  @Field(() => GraphQLString, { nullable: true, description: 'Cursor: items before this one.' })
  before?: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

/** The value behind a connection type: `totalCount` is a getter, counted only when selected. */
export interface ConnectionValue<T> {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
  readonly totalCount: Promise<number>;
}

const typeCache = new Map<string, ClassType>();

/**
 * The `<Name>Connection` and `<Name>Edge` object types of a node type (one pair per name).
 */
export function connectionType(nodeType: ClassType | object, name: string, opts: { countable?: boolean } = {}): ClassType {
  const cached = typeCache.get(name);
  if (cached) return cached;
  const countable = opts.countable ?? true;

  @ObjectType(`${name}Edge`, { description: `A ${name} with its cursor.` })
  class EdgeType {
    @Field(() => GraphQLString, { description: 'Opaque position of the item, for `after`/`before`.' })
    cursor!: string;
    @Field(() => nodeType, { description: 'The item.' })
    node!: unknown;
  }

  class ConnectionType {
    @Field(() => [EdgeType], { description: 'The items of the page with their cursors.' })
    edges!: EdgeType[];
    @Field(() => [nodeType], { description: 'The items of the page (the nodes of `edges`).' })
    nodes!: unknown[];
    @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
    pageInfo!: PageInfo;
    totalCount?: number;
  }
  if (countable) {
    Field(() => GraphQLInt, { description: 'How many items the whole list holds (counted only when asked for).' })(
      ConnectionType.prototype,
      'totalCount',
    );
  }
  ObjectType(`${name}Connection`, { description: `A page of ${name} items (Relay connection).` })(ConnectionType);
  const type = ConnectionType;
  typeCache.set(name, type);
  return type;
}

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

export const encodeCursor = (offset: number): string => Buffer.from(`offset:${offset}`).toString('base64url');

export function decodeCursor(cursor: string, arg: string): number {
  const m = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw badInput(`Argument "${arg}" is not a cursor of this connection.`);
  return Number(m[1]);
}

function size(n: number | null | undefined, arg: string): number | undefined {
  if (n === undefined || n === null) return undefined;
  if (!Number.isInteger(n) || n < 0) throw badInput(`Argument "${arg}" must not be negative.`);
  return n;
}

/**
 * A page of a list the service pages by offset: `fetch(offset, limit)` returns up to `limit` items
 * from `offset` on; `count()` the length of the whole list (called for `last` without `before`,
 * and for `totalCount` when selected; at most once). A list without `count` pages backward only
 * from a cursor.
 */
export async function connection<T>(
  args: ConnectionArgs,
  fetch: (offset: number, limit: number) => Promise<T[]>,
  count?: () => Promise<number>,
): Promise<ConnectionValue<T>> {
  const first = size(args.first, 'first');
  const last = size(args.last, 'last');
  if (first !== undefined && last !== undefined) throw badInput('Pass "first" or "last", not both.');
  let counted: Promise<number> | undefined;
  const total = () => {
    counted ??= count ? count() : Promise.resolve(0);
    return counted;
  };
  const start = args.after ? decodeCursor(args.after, 'after') + 1 : 0;
  const end = args.before ? decodeCursor(args.before, 'before') : undefined;

  let from: number;
  let items: T[];
  let hasNextPage: boolean;
  if (last !== undefined) {
    if (end === undefined && !count) throw badInput('This connection pages backward from a cursor: pass "before" with "last".');
    const until = end ?? (await total());
    from = Math.max(start, until - last);
    items = until > from ? await fetch(from, until - from) : [];
    hasNextPage = end !== undefined;
  } else {
    const want = Math.min(first ?? DEFAULT_PAGE, end === undefined ? Number.POSITIVE_INFINITY : Math.max(0, end - start));
    from = start;
    // One item more than asked tells whether a next page exists without counting.
    const got = await fetch(from, want + 1);
    items = got.slice(0, want);
    hasNextPage = got.length > want && (end === undefined || from + want < end);
  }
  const edges = items.map((node, i) => ({ cursor: encodeCursor(from + i), node }));
  return {
    edges,
    nodes: items,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: from > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    get totalCount() {
      return total();
    },
  };
}
