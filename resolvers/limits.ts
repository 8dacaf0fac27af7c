import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLFieldConfig,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  Kind,
  visit,
} from 'graphql';
import { type ComplexityEstimator, getComplexity } from 'graphql-query-complexity';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { GraphqlLimits } from '../src/config/graphql-options';
import type { RequestContext } from '../src/core/context';
import { isAdministrator } from '../src/auth/permissions';
import { checkJsonValue, hasBadText } from '../src/core/input-text';
import { DEFAULT_PAGE } from './types/connection';
import { graphqlQueryCost, graphqlRejected } from '../src/metrics';

/**
 * The gateway's protection against abusive queries (ADR 19). Before a query runs: its size in
 * tokens (the parser stops early), depth and aliases (validation rules), the page size of every
 * paged field and its cost. Cost is GitHub's node count: every object a query can return costs 1,
 * multiplied by the page sizes of the lists above it; an unpaged list counts UNPAGED_LIST items;
 * scalars and introspection are free. While it runs: a deadline after which the remaining object
 * fields fail with TIMEOUT. Introspection and "Did you mean" suggestions are for administrators.
 */

/** The size assumed for a list field without a `max` argument (a user's groups, a role's composites ...). */
export const UNPAGED_LIST = 10;

const PAGE_ARG = 'max';

function rejected(message: string, code: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

/** The page size a `max` argument asks for: the limit when omitted, an error outside 0..limit. */
function pageSize(max: unknown, limit: number, arg = PAGE_ARG): number {
  if (max === undefined || max === null) return limit;
  const n = Number(max);
  if (!Number.isInteger(n) || n < 0 || n > limit) {
    throw rejected(`Argument "${arg}" must be between 0 and ${limit}, got ${String(max)}.`, 'BAD_USER_INPUT');
  }
  return n;
}

/** Relay connection types (resolvers/types/connection.ts). */
const CONNECTION = /Connection$/;

const estimator =
  (limits: GraphqlLimits): ComplexityEstimator =>
  ({ field, args, childComplexity }) => {
    if (field.name.startsWith('__')) return 0;
    if (isLeafType(getNamedType(field.type))) return 0;
    let items = 1;
    if (CONNECTION.test(getNamedType(field.type).name)) {
      // A connection's page multiplies what it holds; its `edges`/`nodes` lists are that page.
      items = pageSize(args.first ?? args.last ?? DEFAULT_PAGE, limits.maxPageSize, args.first === undefined ? 'last' : 'first');
    } else if (isListType(getNullableType(field.type))) {
      if (field.name === 'edges' || field.name === 'nodes') return childComplexity;
      items = field.args.some((a) => a.name === PAGE_ARG) ? pageSize(args[PAGE_ARG], limits.maxPageSize) : UNPAGED_LIST;
    }
    return items * (1 + childComplexity);
  };

/** The validation rules of the limits (Apollo caches validated documents, so they must not depend on the caller). */
export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  // Reported as validation errors (400), not thrown (which Apollo would answer with a 500).
  const report = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)] };
  return [
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, exposeLimits: true, ...report }) as unknown as ValidationRule,
    maxAliasesRule({ n: limits.maxAliases, exposeLimits: true, ...report }) as unknown as ValidationRule,
  ];
}

/**
 * Wraps the resolvers of the schema: paged fields get their `max` (the page limit when omitted,
 * checked again at run time for direct executions), and every object-valued field checks the
 * request's deadline before it resolves. Leaf fields keep graphql-js's default resolver.
 * Mutations are not stopped: a write that ran is always reported, and the cost limit already
 * bounds what a mutation's selection can read.
 */
export function withLimits(schema: GraphQLSchema, limits: GraphqlLimits): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field: GraphQLFieldConfig<unknown, RequestContext>) => {
      const paged = field.args && PAGE_ARG in field.args;
      if (!paged && isLeafType(getNamedType(field.type))) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve: (source, args, ctx, info) => {
          const deadline = deadlines.get(ctx);
          if (deadline !== undefined && Date.now() > deadline && info.operation.operation !== 'mutation') {
            if (!timedOut.has(ctx)) {
              timedOut.add(ctx);
              graphqlRejected.inc({ reason: 'timeout' });
            }
            throw rejected(`The query ran longer than ${limits.timeout} ms and was stopped.`, 'TIMEOUT', 503);
          }
          const a = paged ? { ...args, [PAGE_ARG]: pageSize(args[PAGE_ARG], limits.maxPageSize) } : args;
          return resolve(source, a, ctx, info);
        },
      };
    },
  });
}

const deadlines = new WeakMap<object, number>();
const timedOut = new WeakSet<object>();

/** Whether the operation selects `__schema` or `__type` (both exist only at the root). */
function introspects(document: DocumentNode, operationName: string | null | undefined): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): boolean =>
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === '__schema' || s.name.value === '__type';
      if (s.kind === Kind.INLINE_FRAGMENT) return walk(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      return f ? walk(f.selectionSet) : false;
    });
  return document.definitions.some(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName) && walk(d.selectionSet),
  );
}

/** Whether this caller may introspect and see suggestions. */
function mayIntrospect(limits: GraphqlLimits, ctx: RequestContext): Promise<boolean> {
  if (limits.introspection === 'all') return Promise.resolve(true);
  if (limits.introspection === 'none') return Promise.resolve(false);
  return isAdministrator(ctx);
}

const SUGGESTION = / Did you mean .*\?$/;

/**
 * What this plugin learns of a document by walking it, kept per document: Apollo hands every request
 * with the same query text the same parsed `DocumentNode` (its document store), so a dashboard's
 * repeated query is walked once, not per request (issue 12: walking for the cost was ~5 % of a GraphQL
 * user-by-id request). The cost depends on the variables too: it is kept per variables text, for a
 * bounded number of them per document. The schema is built once per process, so it is not in the key.
 */
interface DocumentFacts {
  badText: boolean;
  introspects: Map<string, boolean>;
}
const factsOf = new WeakMap<DocumentNode, DocumentFacts>();
const COSTS_PER_DOCUMENT = 64;

function facts(document: DocumentNode): DocumentFacts {
  let f = factsOf.get(document);
  if (!f) {
    let bad = false;
    visit(document, {
      StringValue(node) {
        if (hasBadText(node.value)) bad = true;
      },
    });
    f = { badText: bad, introspects: new Map() };
    factsOf.set(document, f);
  }
  return f;
}

/** Whether a string literal of the document or a variable holds text no front accepts (src/core/input-text.ts). */
function hasBadInputText(document: DocumentNode, variables: Record<string, unknown> | undefined): boolean {
  if (variables && checkJsonValue(variables)) return true;
  return facts(document).badText;
}

function introspectsCached(document: DocumentNode, operationName: string | null | undefined): boolean {
  const known = facts(document).introspects;
  const key = operationName ?? '';
  let answer = known.get(key);
  if (answer === undefined) {
    answer = introspects(document, operationName);
    known.set(key, answer);
  }
  return answer;
}

/** Costs already computed, per document and variables text; the estimator depends on the limits, so one per plugin. */
type CostCache = WeakMap<DocumentNode, Map<string, number>>;

/** The operation's cost for these variables (a cost that throws is never kept). */
function costOf(
  cache: CostCache,
  limits: GraphqlLimits,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): number {
  let costs = cache.get(document);
  if (!costs) {
    costs = new Map();
    cache.set(document, costs);
  }
  const key = `${operationName ?? ''}\u0000${JSON.stringify(variables)}`;
  const known = costs.get(key);
  if (known !== undefined) return known;
  const cost = getComplexity({ schema, query: document, operationName, variables, estimators: [estimator(limits)] });
  if (costs.size >= COSTS_PER_DOCUMENT) costs.delete(costs.keys().next().value as string);
  costs.set(key, cost);
  return cost;
}

/** The Apollo plugin enforcing the pre-execution cost, introspection, the deadline, and reporting cost. */
export function limitsPlugin(limits: GraphqlLimits): ApolloServerPlugin<RequestContext> {
  const costs: CostCache = new WeakMap();
  return {
    async requestDidStart() {
      let cost: number | undefined;
      return {
        async didResolveOperation({ document, operationName, request, schema, contextValue }) {
          if (hasBadInputText(document, request.variables)) {
            throw rejected('Text must not contain NUL characters or unpaired surrogates.', 'BAD_USER_INPUT', 400);
          }
          if (introspectsCached(document, operationName) && !(await mayIntrospect(limits, contextValue))) {
            graphqlRejected.inc({ reason: 'introspection' });
            throw rejected('GraphQL introspection is not allowed for this caller.', 'FORBIDDEN', 403);
          }
          try {
            cost = costOf(costs, limits, schema, document, operationName ?? undefined, request.variables ?? {});
          } catch (e) {
            // Variables that do not fit their types: nothing runs, and Apollo answers BAD_USER_INPUT itself.
            if (e instanceof GraphQLError && !e.extensions?.code) return;
            graphqlRejected.inc({ reason: 'page-size' });
            throw e;
          }
          if (cost > limits.maxCost) {
            graphqlRejected.inc({ reason: 'cost' });
            throw rejected(
              `The query's cost ${cost} exceeds the limit of ${limits.maxCost}: ask for smaller pages (max) or fewer nested lists.`,
              'QUERY_TOO_COSTLY',
            );
          }
          graphqlQueryCost.observe(cost);
        },
        async executionDidStart({ contextValue }) {
          if (limits.timeout > 0) deadlines.set(contextValue, Date.now() + limits.timeout);
        },
        async willSendResponse(rc: GraphQLRequestContext<RequestContext>) {
          const body = rc.response.body;
          if (body?.kind !== 'single') return;
          const result = body.singleResult;
          if (cost !== undefined) result.extensions = { ...result.extensions, cost: { requested: cost, limit: limits.maxCost } };
          const errors = result.errors;
          // A request refused before execution (no data) answers with the status its error names.
          const status = errors?.[0]?.extensions?.http as { status?: number } | undefined;
          if (result.data === undefined && status?.status && (rc.response.http.status ?? 200) === 200) {
            rc.response.http.status = status.status;
          }
          if (errors?.some((e: GraphQLFormattedError) => SUGGESTION.test(e.message)) && !(await mayIntrospect(limits, rc.contextValue))) {
            result.errors = errors.map((e: GraphQLFormattedError) =>
              SUGGESTION.test(e.message) ? { ...e, message: e.message.replace(SUGGESTION, '') } : e,
            );
          }
        },
      };
    },
  };
}
