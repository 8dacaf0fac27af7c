import type { OptionSpec } from './option-spec';

/**
 * The GraphQL gateway's protective limits (group "GraphQL" in --help). Every query is checked
 * before it runs: its document size in tokens, its depth, its aliases, the page size of every
 * paged field and its cost (GitHub's node-count model: page sizes multiply down the tree).
 * A running query stops resolving fields once its time is up.
 */
export interface GraphqlLimits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxCost: number;
  maxPageSize: number;
  /** Milliseconds; 0 = no limit. */
  timeout: number;
  /** Who may introspect the schema and see "Did you mean" suggestions. */
  introspection: 'admins' | 'all' | 'none';
}

export const GRAPHQL_DEFAULTS: GraphqlLimits = {
  maxDepth: 12,
  maxAliases: 20,
  maxTokens: 10_000,
  maxCost: 100_000,
  maxPageSize: 100,
  timeout: 15_000,
  introspection: 'admins',
};

const int =
  (min: number, max: number) =>
  (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`must be an integer between ${min} and ${max}`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw new Error(`must be an integer between ${min} and ${max}`);
    return n;
  };

const G = 'GraphQL';

export const graphqlOptions: OptionSpec[] = [
  {
    name: 'graphql-max-depth',
    group: G,
    description: 'Deepest field nesting a GraphQL query may have (introspection excepted).',
    default: GRAPHQL_DEFAULTS.maxDepth,
    parse: int(1, 100),
  },
  {
    name: 'graphql-max-aliases',
    group: G,
    description: 'Most aliases a GraphQL query may use.',
    default: GRAPHQL_DEFAULTS.maxAliases,
    parse: int(0, 10_000),
  },
  {
    name: 'graphql-max-tokens',
    group: G,
    description: 'Largest GraphQL document, in lexical tokens.',
    default: GRAPHQL_DEFAULTS.maxTokens,
    parse: int(100, 1_000_000),
  },
  {
    name: 'graphql-max-cost',
    group: G,
    description:
      'Highest cost of a GraphQL query, computed before it runs: each object costs 1, multiplied by the page sizes above it (an unpaged list counts 10).',
    default: GRAPHQL_DEFAULTS.maxCost,
    parse: int(1, 100_000_000),
  },
  {
    name: 'graphql-max-page-size',
    group: G,
    description: 'Largest `max` a paged GraphQL field accepts; also the page size when `max` is omitted.',
    default: GRAPHQL_DEFAULTS.maxPageSize,
    parse: int(1, 10_000),
  },
  {
    name: 'graphql-timeout',
    group: G,
    description: 'Milliseconds a GraphQL query may run before its remaining fields fail with TIMEOUT (0: no limit).',
    default: GRAPHQL_DEFAULTS.timeout,
    parse: int(0, 3_600_000),
  },
  {
    name: 'graphql-introspection',
    group: G,
    description:
      'Who may introspect the GraphQL schema and get field suggestions in errors: admins (callers holding an admin role), all (any valid token) or none.',
    default: GRAPHQL_DEFAULTS.introspection,
    parse: (raw: string) => {
      const v = raw.trim().toLowerCase();
      if (v !== 'admins' && v !== 'all' && v !== 'none') throw new Error('must be one of: admins, all, none');
      return v;
    },
  },
];

/** The limits from resolved option values (missing values take the defaults). */
export function graphqlLimitsFromValues(values: Record<string, unknown>): GraphqlLimits {
  const v = (name: string, dflt: unknown) => (values[name] === undefined ? dflt : values[name]);
  return {
    maxDepth: v('graphql-max-depth', GRAPHQL_DEFAULTS.maxDepth) as number,
    maxAliases: v('graphql-max-aliases', GRAPHQL_DEFAULTS.maxAliases) as number,
    maxTokens: v('graphql-max-tokens', GRAPHQL_DEFAULTS.maxTokens) as number,
    maxCost: v('graphql-max-cost', GRAPHQL_DEFAULTS.maxCost) as number,
    maxPageSize: v('graphql-max-page-size', GRAPHQL_DEFAULTS.maxPageSize) as number,
    timeout: v('graphql-timeout', GRAPHQL_DEFAULTS.timeout) as number,
    introspection: v('graphql-introspection', GRAPHQL_DEFAULTS.introspection) as GraphqlLimits['introspection'],
  };
}
