import { GraphQLBoolean, GraphQLFloat, GraphQLID, type GraphQLScalarType, GraphQLString } from 'graphql';
import { Directive, Field, InputType } from 'type-graphql';
import { type FieldType, fieldTable, representations } from '../../src/representations/schema';
import { JSON as JSONScalar, JSONObject, SafeInt } from './scalars';

/**
 * GraphQL input types generated from the representation field tables of
 * `src/representations/schema.ts` — the one declaration REST validates request bodies against — so
 * the shape of a `UserInput` cannot drift from what `POST /users` accepts. Each input type carries
 * `@representation(name: ...)` naming its table. Keycloak's `long`s map to `SafeInt`, maps to
 * `JSONObject`, untyped values to `JSON`, nested representations to their generated input type.
 */
export const inputName = (representation: string) => representation.replace(/Representation$/, 'Input');

// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
const classes = new Map<string, Function>();

type TypeThunk = () => unknown;

/** String fields of the tables that hold an object's id. */
export const ID_FIELDS = new Set(['id', 'internalId', 'parentId', 'containerId']);

/**
 * Fields Keycloak computes for responses and ignores in requests: they stay in the REST tables (a
 * client may send back what it read) but have no place in a GraphQL input.
 */
export const READ_ONLY: Record<string, readonly string[]> = {
  UserRepresentation: ['access', 'self', 'origin', 'userProfileMetadata', 'disableableCredentialTypes'],
  GroupRepresentation: ['access', 'subGroupCount', 'path'],
  ClientRepresentation: ['access'],
};

function typeOf(t: FieldType): TypeThunk {
  if (t === 'string') return () => GraphQLString;
  if (t === 'boolean') return () => GraphQLBoolean;
  if (t === 'int') return () => SafeInt;
  if (t === 'number') return () => GraphQLFloat;
  if (t === 'map') return () => JSONObject;
  if (t === 'any') return () => JSONScalar;
  if ('array' in t) {
    const item = typeOf(t.array);
    return () => [item()];
  }
  return () => representationInput(t.ref);
}

function generate(name: string): void {
  const table = fieldTable(name);
  if (!table) throw new Error(`No representation table named ${name}`);
  const className = inputName(name);
  const cls = { [className]: class {} }[className];
  classes.set(name, cls);
  const readOnly = READ_ONLY[name] ?? [];
  for (const [field, type] of Object.entries(table)) {
    if (readOnly.includes(field)) continue;
    const nullable = typeof type === 'object' && 'array' in type ? 'itemsAndList' : true;
    // Ids are `ID` in and out.
    const thunk = type === 'string' && ID_FIELDS.has(field) ? () => GraphQLID : typeOf(type);
    Field(thunk as () => GraphQLScalarType, { nullable })(cls.prototype, field);
  }
  Directive(`@representation(name: "${name}")`)(cls);
  InputType(className, { description: `Keycloak's ${name}; fields generated from its table in src/representations/schema.ts.` })(cls);
}

for (const name of Object.keys(representations)) generate(name);

/** The generated input class of a representation (e.g. `UserRepresentation` → `UserInput`). */
// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
export function representationInput(name: string): Function {
  const cls = classes.get(name);
  if (!cls) throw new Error(`No field table for ${name} in src/representations/schema.ts`);
  return cls;
}
