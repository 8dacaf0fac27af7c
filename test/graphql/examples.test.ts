import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, Kind, buildSchema, parse, validate } from 'graphql';
import { gatewaySchema } from '../../resolvers/schema';
import { createGroup, createRole, createUser, expectStatus, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type Json, gqlClient } from './gql';

/**
 * The example operations that `.graphqlrc.yml` points editors at (docs/graphql/): its `documents`
 * glob finds them, each is valid against the schema the server builds and against the checked-in
 * schema file, and each query and mutation runs without errors against a realm with some data.
 */

const ROOT = join(__dirname, '..', '..');

/** The top-level `schema` and `documents` keys of .graphqlrc.yml (plain scalars, as that file uses). */
function graphqlConfig(): { schema: string; documents: string } {
  const text = readFileSync(join(ROOT, '.graphqlrc.yml'), 'utf8');
  const key = (name: string) => {
    const m = new RegExp(`^${name}:[ \\t]*(.+?)[ \\t]*$`, 'm').exec(text);
    if (!m) throw new Error(`.graphqlrc.yml has no top-level ${name}`);
    return m[1].replace(/^(['"])(.*)\1$/, '$2');
  };
  return { schema: key('schema'), documents: key('documents') };
}

/** A glob as graphql-config reads it: `**` any directories, `*` and `?` within one name. */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*' && glob[i + 2] === '/') {
      re += '(?:[^/]+/)*';
      i += 2;
    } else if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Files under the repository root matching a glob (searched from its literal leading directories). */
function globFiles(glob: string): string[] {
  const parts = glob.split('/');
  const literal = parts.findIndex((p) => /[*?[{]/.test(p));
  const base = parts.slice(0, literal < 0 ? parts.length - 1 : literal).join('/');
  if (!existsSync(join(ROOT, base))) return [];
  const re = globRegExp(glob);
  return readdirSync(join(ROOT, base), { recursive: true, encoding: 'utf8' })
    .map((f) =>
      relative(ROOT, join(ROOT, base, f))
        .split('\\')
        .join('/'),
    )
    .filter((f) => re.test(f))
    .sort();
}

interface Example {
  file: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  source: string;
}

const config = graphqlConfig();
const examples: Example[] = globFiles(config.documents).map((file) => {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const document = parse(source);
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new Error(`${file}: one operation per example file, found ${operations.length}`);
  return { file, document, operation: operations[0], source };
});
const nameOf = (e: Example) => e.operation.name?.value ?? '';
const ofType = (type: string) => examples.filter((e) => e.operation.operation === type);

test('.graphqlrc.yml names the schema file and a documents glob matching the examples', () => {
  expect(config.schema).toBe('schema/schema.graphql');
  expect(existsSync(join(ROOT, config.schema))).toBe(true);
  expect(globRegExp('docs/graphql/**/*.graphql').test('docs/graphql/a/b.graphql')).toBe(true);
  expect(globRegExp('docs/graphql/**/*.graphql').test('docs/graphql/b.graphql')).toBe(true);
  expect(globRegExp('docs/graphql/**/*.graphql').test('docs/graphqlx/b.graphql')).toBe(false);
  expect(examples.length).toBeGreaterThanOrEqual(5);
  // Every .graphql file of docs/graphql is one the editors see.
  const all = readdirSync(join(ROOT, 'docs', 'graphql'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.graphql'));
  expect(examples.map((e) => e.file)).toEqual(all.map((f) => `docs/graphql/${f.split('\\').join('/')}`).sort());
  // Queries, mutations and a subscription, each named once (names identify operations in logs and allow-lists).
  expect(ofType('query').length).toBeGreaterThanOrEqual(3);
  expect(ofType('mutation').length).toBeGreaterThanOrEqual(1);
  expect(ofType('subscription').length).toBeGreaterThanOrEqual(1);
  const names = examples.map(nameOf);
  expect(names.every((n) => /^[A-Z]\w+$/.test(n))).toBe(true);
  expect(new Set(names).size).toBe(names.length);
});

describe('each example is valid', () => {
  let built: GraphQLSchema;
  let checkedIn: GraphQLSchema;
  beforeAll(async () => {
    built = await gatewaySchema();
    checkedIn = buildSchema(readFileSync(join(ROOT, config.schema), 'utf8'));
  });

  test.each(examples.map((e) => [e.file, e] as const))('%s', (_file, e) => {
    expect(validate(built, e.document).map((err) => err.message)).toEqual([]);
    expect(validate(checkedIn, e.document).map((err) => err.message)).toEqual([]);
  });
});

describe('the examples run', () => {
  const R = 'examples';
  let ts: TestServer;
  let api: AdminApi;
  let gql: ReturnType<typeof gqlClient>;
  const ids: Record<string, string> = {};
  let auditor: { id: string; name: string };

  beforeAll(async () => {
    ({ ts, api } = await realmServer(R, { eventsEnabled: true, adminEventsEnabled: true }));
    gql = gqlClient(ts);
    ids.ann = await createUser(ts, R, 'ann');
    ids.bob = await createUser(ts, R, 'bob');
    ids.staff = await createGroup(api, R, 'staff');
    await createGroup(api, R, 'ops', ids.staff);
    expectStatus(await api.put(`/admin/realms/${R}/users/${ids.ann}/groups/${ids.staff}`), 204, 'ann joins staff');
    auditor = await createRole(api, R, 'auditor');
    expectStatus(await api.post(`/admin/realms/${R}/users/${ids.ann}/role-mappings/realm`, [auditor]), 204, 'ann is an auditor');
    // A login: a session and a LOGIN event.
    await ts.token({ realm: R, username: 'ann', password: 'pw' });
  }, 60_000);
  afterAll(() => ts.close());

  /** Values of the required variables the query examples use, by variable name. */
  const queryVariables = (): Record<string, unknown> => ({ realm: R, id: ids.ann, userId: ids.ann, groupId: ids.staff });

  /** Variables of each mutation example, by operation name: a new example needs an entry here. */
  const mutationVariables = (): Record<string, Record<string, unknown>> => ({
    CreateUser: {
      realm: R,
      input: {
        username: 'cid',
        email: 'cid@example.org',
        enabled: true,
        credentials: [{ type: 'password', value: 'change-me', temporary: true }],
      },
    },
    AssignRealmRoles: { realm: R, userId: ids.bob, roles: [auditor] },
  });

  /** Whether a response holds some data: a non-empty list or a count above zero somewhere. */
  const hasData = (v: unknown): boolean =>
    Array.isArray(v) ? v.length > 0 : v && typeof v === 'object' ? Object.values(v).some(hasData) : typeof v === 'number' && v > 0;

  test.each(ofType('query').map((e) => [nameOf(e), e] as const))('query %s', async (_name, e) => {
    const given = queryVariables();
    const variables: Record<string, unknown> = {};
    for (const def of e.operation.variableDefinitions ?? []) {
      const name = def.variable.name.value;
      if (name in given) variables[name] = given[name];
      else if (def.type.kind === Kind.NON_NULL_TYPE && !def.defaultValue) {
        throw new Error(`${e.file}: required variable $${name} has no value in queryVariables()`);
      }
    }
    const res = await gql<Json>(e.source, variables);
    expect({ status: res.status, errors: res.errors }).toEqual({ status: 200, errors: undefined });
    expect(hasData(res.data)).toBe(true);
  });

  test.each(ofType('mutation').map((e) => [nameOf(e), e] as const))('mutation %s', async (name, e) => {
    const variables = mutationVariables()[name];
    if (!variables) throw new Error(`${e.file}: add the variables of mutation ${name} to mutationVariables`);
    const res = await gql<Json>(e.source, variables);
    expect({ status: res.status, errors: res.errors }).toEqual({ status: 200, errors: undefined });
    expect(res.data).not.toBeNull();
  });
});
