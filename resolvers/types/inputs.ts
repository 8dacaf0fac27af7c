import { GraphQLBoolean, GraphQLFloat, type GraphQLScalarType, GraphQLString } from 'graphql';
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
  for (const [field, type] of Object.entries(table)) {
    const nullable = typeof type === 'object' && 'array' in type ? 'itemsAndList' : true;
    Field(typeOf(type) as () => GraphQLScalarType, { nullable })(cls.prototype, field);
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
