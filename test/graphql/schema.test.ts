// @database-independent: never touches the test database, so the MariaDB pass skips it (jest.config.js).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDirective } from '@graphql-tools/utils';
import {
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  GraphQLString,
  getNamedType,
  isInputObjectType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { FieldResolver, Query, Resolver, buildSchema } from 'type-graphql';
import { FIELD_DESCRIPTIONS, fieldDescription } from '../../src/representations/descriptions';
import { type FieldTable, type FieldType, fieldTable } from '../../src/representations/schema';
import {
  EVENT_TYPES,
  EVENT_TYPE_DESCRIPTIONS,
  OPERATION_TYPES,
  OPERATION_TYPE_DESCRIPTIONS,
  RESOURCE_TYPES,
  RESOURCE_TYPE_DESCRIPTIONS,
} from '../../src/keycloak/event-types';
import { ID_FIELDS, NOT_WRITTEN, READ_ONLY } from '../../resolvers/types/inputs';
import { FIELD_ENUMS } from '../../resolvers/types/enums';
import { RELATIONS, Realm } from '../../resolvers/realms/types';
import { REALM_INPUT_ONLY_FIELDS } from '../../src/representations/realm';
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
      const rep = representationOf(type) as string;
      const table = fieldTable(rep) as FieldTable;
      expect(table).toBeDefined();
      const fields = type.getFields() as Record<string, GraphQLInputField>;
      // A create or update input also leaves out what that operation does not write (a bulk update keeps the id).
      const op = NOT_WRITTEN[rep] && (/CreateInput$/.test(type.name) ? 'create' : /UpdateInput$/.test(type.name) ? 'update' : undefined);
      const notWritten = (op ? NOT_WRITTEN[rep][op] : []).filter((f) => !(type.name === 'UserBulkUpdateInput' && f === 'id'));
      const readOnly = [...(READ_ONLY[rep] ?? []), ...notWritten];
      const writable = Object.entries(table).filter(([name]) => !readOnly.includes(name));
      expect(`${type.name}: ${Object.keys(fields).sort()}`).toEqual(`${type.name}: ${writable.map(([name]) => name).sort()}`);
      for (const [name, t] of writable) {
        const narrowed = FIELD_ENUMS[`${rep}.${name}`] && getNamedType(fields[name].type).name;
        const want =
          t === 'string' && ID_FIELDS.has(name) ? 'ID' : narrowed ? expected(t, true).replace('String', narrowed) : expected(t, true);
        expect(`${type.name}.${name}: ${printed(fields[name].type)}`).toBe(`${type.name}.${name}: ${want}`);
      }
    }
  });

  test('create and update inputs leave out what the server assigns and what only an import reads', () => {
    const fieldsOf = (name: string) => Object.keys((schema.getType(name) as { getFields(): object }).getFields());
    expect(fieldsOf('UserCreateInput')).not.toEqual(expect.arrayContaining(['id']));
    for (const f of ['createdTimestamp', 'totp', 'realmRoles', 'clientConsents']) expect(fieldsOf('UserCreateInput')).not.toContain(f);
    expect(fieldsOf('UserCreateInput')).toEqual(expect.arrayContaining(['username', 'credentials', 'groups', 'requiredActions']));
    expect(fieldsOf('UserUpdateInput')).not.toContain('groups');
    expect(fieldsOf('ClientUpdateInput')).not.toContain('id');
    expect(fieldsOf('ClientCreateInput')).toContain('id'); // Keycloak keeps an id given at creation
    expect(fieldsOf('ClientCreateInput')).not.toContain('registrationAccessToken');
    expect(fieldsOf('GroupCreateInput')).not.toContain('subGroups');
    expect(fieldsOf('UserBulkUpdateInput')).toContain('id');
    expect(
      printed((schema.getType('RealmUpdateInput') as { getFields(): Record<string, GraphQLInputField> }).getFields().sslRequired.type),
    ).toBe('SslRequired');
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
        // An output may narrow a string of the table to an enum of its closed set (protocol, requirement).
        const got =
          want[0] === 'String' && isEnumType(getNamedType(field.type))
            ? printed(field.type).replace(getNamedType(field.type).name, 'String')
            : printed(field.type);
        expect(`${type.name}.${name}: ${want.includes(got) ? want[0] : got}`).toBe(`${type.name}.${name}: ${want[0]}`);
      }
    }
  });

  test('every field generated from a representation table carries the description of its table', () => {
    const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
    const tabled = inputs.filter((t) => representationOf(t));
    for (const type of tabled) {
      const rep = representationOf(type) as string;
      for (const [name, field] of Object.entries(type.getFields())) {
        const want = fieldDescription(rep, name);
        expect(want).toBeTruthy();
        expect(`${type.name}.${name}: ${field.description}`).toBe(`${type.name}.${name}: ${want}`);
      }
    }
    // The generated outputs: every field generated from the table has the table's description (the
    // relations and the fields the Realm class declares are not generated; `realm` has its own text).
    const notGenerated = new Set(['realm', 'name', 'representation', ...RELATIONS, ...REALM_INPUT_ONLY_FIELDS]);
    for (const name of ['Realm', 'SmtpServer', 'BrowserSecurityHeaders']) {
      const type = schema.getType(name) as GraphQLObjectType;
      const rep = representationOf(type) as string;
      const table = fieldTable(rep) as FieldTable;
      const generated = Object.entries(type.getFields()).filter(([f]) => Object.hasOwn(table, f) && !notGenerated.has(f));
      expect(generated.length).toBeGreaterThan(0);
      for (const [f, field] of generated) {
        expect(`${name}.${f}: ${field.description}`).toBe(`${name}.${f}: ${fieldDescription(rep, f)}`);
      }
    }
    expect((schema.getType('Realm') as GraphQLObjectType).getFields().realm.description).toBe('The realm name (Keycloak field `realm`).');
    expect((schema.getType('RealmCreateInput') as GraphQLObjectType).getFields().accessTokenLifespan.description).toBe(
      FIELD_DESCRIPTIONS.RealmRepresentation.accessTokenLifespan,
    );
  });

  test('every EventType, OperationType and ResourceType value has its description', () => {
    const cases: Array<[string, Iterable<string>, Readonly<Record<string, string>>]> = [
      ['EventType', EVENT_TYPES, EVENT_TYPE_DESCRIPTIONS],
      ['OperationType', OPERATION_TYPES, OPERATION_TYPE_DESCRIPTIONS],
      ['ResourceType', RESOURCE_TYPES, RESOURCE_TYPE_DESCRIPTIONS],
    ];
    for (const [name, values, descriptions] of cases) {
      const type = schema.getType(name) as GraphQLEnumType;
      expect(type.getValues().map((v) => v.name)).toEqual([...values]);
      for (const v of type.getValues()) {
        expect(v.description).toBeTruthy();
        expect(`${name}.${v.name}: ${v.description}`).toBe(`${name}.${v.name}: ${descriptions[v.name]}`);
      }
    }
    const eventType = schema.getType('EventType') as GraphQLEnumType;
    expect(eventType.getValue('CODE_TO_TOKEN')?.description).toBe('Exchange of an authorization code for tokens at the token endpoint.');
    expect(eventType.getValue('CODE_TO_TOKEN_ERROR')?.description).toBe(
      'Exchange of an authorization code for tokens at the token endpoint failed; `error` says why.',
    );
  });

  test('clientUuid is always an ID, clientId never is (one meaning per name)', () => {
    const wrong: string[] = [];
    const check = (where: string, name: string, type: GraphQLType) => {
      const t = printed(type);
      if (name === 'clientId' && t === 'ID') wrong.push(`${where}: clientId is an ID (a client UUID is named clientUuid)`);
      if (name === 'clientUuid' && t !== 'ID') wrong.push(`${where}: clientUuid is ${t}, not ID`);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isInputObjectType(type)) for (const f of Object.values(type.getFields())) check(`${type.name}.${f.name}`, f.name, f.type);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const f of Object.values(type.getFields())) {
          for (const a of f.args) check(`${type.name}.${f.name}(${a.name}:)`, a.name, a.type);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test('every type, field, argument, enum value and directive argument has a description', () => {
    const missing: string[] = [];
    const need = (where: string, description: string | null | undefined) => {
      if (!description?.trim()) missing.push(where);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
      need(type.name, type.description);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const f of Object.values(type.getFields())) {
          need(`${type.name}.${f.name}`, f.description);
          for (const a of f.args) need(`${type.name}.${f.name}(${a.name}:)`, a.description);
        }
      }
      if (isInputObjectType(type)) for (const f of Object.values(type.getFields())) need(`${type.name}.${f.name}`, f.description);
      if (isEnumType(type)) for (const v of type.getValues()) need(`${type.name}.${v.name}`, v.description);
    }
    for (const d of schema.getDirectives()) {
      need(`@${d.name}`, d.description);
      for (const a of d.args) need(`@${d.name}(${a.name}:)`, a.description);
    }
    expect(missing).toEqual([]);
  });

  // Last: it declares a resolver, which type-graphql registers for the whole process (the gateway schema is already built).
  test('a field resolver declaring its own description wins over the table on a generated type', async () => {
    @Resolver(() => Realm)
    class ProbeResolver {
      @Query(() => Realm, { nullable: true })
      probeRealm(): Realm | null {
        return null;
      }

      @FieldResolver(() => GraphQLString, { nullable: true, description: 'Explicit description of the probe.' })
      loginTheme(): string | null {
        return null;
      }
    }
    const probe = await buildSchema({ resolvers: [ProbeResolver], validate: false });
    const fields = (probe.getType('Realm') as GraphQLObjectType).getFields();
    expect(fields.loginTheme.description).toBe('Explicit description of the probe.');
    expect(fields.accountTheme.description).toBe(FIELD_DESCRIPTIONS.RealmRepresentation.accountTheme);
  });
});
