import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDirective } from '@graphql-tools/utils';
import {
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { type FieldTable, type FieldType, fieldTable } from '../../src/representations/schema';
import { ID_FIELDS, READ_ONLY } from '../../resolvers/types/inputs';
import { gatewaySchema, printGatewaySchema } from '../../resolvers/schema';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await gatewaySchema();
});

/** The GraphQL type a field of a representation table corresponds to, printed (nullability ignored). */
function expected(t: FieldType, input: boolean): string {
  if (t === 'string') return 'String';
  if (t === 'boolean') return 'Boolean';
  if (t === 'int') return 'SafeInt';
  if (t === 'int32') return 'Int';
  if (t === 'number') return 'Float';
  if (t === 'map') return 'JSONObject';
  if (t === 'any') return 'JSON';
  if ('array' in t) return `[${expected(t.array, input)}]`;
  if ('map' in t) return 'JSONObject';
  if ('enum' in t) return 'String';
  return input ? t.ref.replace(/Representation$/, 'Input') : t.ref.replace(/Representation$/, '');
}

function printed(t: GraphQLType): string {
  if (isNonNullType(t)) return printed(t.ofType);
  if (isListType(t)) return `[${printed(t.ofType)}]`;
  return getNamedType(t).name;
}

const representationOf = (type: Parameters<typeof getDirective>[1]) =>
  getDirective(schema, type, 'representation')?.[0]?.name as string | undefined;

describe('graphql schema', () => {
  test('schema/schema.graphql is up to date', async () => {
    const file = readFileSync(join(__dirname, '..', '..', 'schema', 'schema.graphql'), 'utf8');
    const current = await printGatewaySchema();
    if (file !== current) throw new Error('schema/schema.graphql is stale: run `npm run schema` and commit the result');
  });

  test('input types match the representation field tables exactly, read-only fields left out', () => {
    const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
    const tabled = inputs.filter((t) => representationOf(t));
    expect(tabled.length).toBeGreaterThan(0);
    for (const type of tabled) {
      const table = fieldTable(representationOf(type) as string) as FieldTable;
      expect(table).toBeDefined();
      const fields = type.getFields() as Record<string, GraphQLInputField>;
      const readOnly = READ_ONLY[representationOf(type) as string] ?? [];
      const writable = Object.entries(table).filter(([name]) => !readOnly.includes(name));
      expect(Object.keys(fields).sort()).toEqual(writable.map(([name]) => name).sort());
      for (const [name, t] of writable) {
        const want = t === 'string' && ID_FIELDS.has(name) ? 'ID' : expected(t, true);
        expect(`${type.name}.${name}: ${printed(fields[name].type)}`).toBe(`${type.name}.${name}: ${want}`);
      }
    }
  });

  test('object types agree with their representation table on every shared field', () => {
    const objects = Object.values(schema.getTypeMap()).filter(isObjectType);
    for (const type of objects) {
      const rep = representationOf(type);
      if (!rep) continue;
      const table = fieldTable(rep) as FieldTable;
      expect(table).toBeDefined();
      for (const [name, field] of Object.entries(type.getFields()) as Array<[string, GraphQLField<unknown, unknown>]>) {
        const t = table[name];
        // Relations (groups, subGroups, composites, realmRoles as Role objects) are GraphQL's own.
        if (!t || typeof t === 'object' || isObjectType(getNamedType(field.type))) continue;
        const want = name === 'id' ? ['ID', 'String'] : [expected(t, false)];
        const got = printed(field.type);
        expect(`${type.name}.${name}: ${want.includes(got) ? want[0] : got}`).toBe(`${type.name}.${name}: ${want[0]}`);
      }
    }
  });
});
