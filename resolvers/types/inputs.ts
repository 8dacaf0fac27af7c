import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, type GraphQLScalarType, GraphQLString } from 'graphql';
import { Directive, Field, InputType } from 'type-graphql';
import { REALM_NOT_IN_GRAPHQL_INPUT } from '../../src/representations/realm';
import { fieldDescription } from '../../src/representations/descriptions';
import { type FieldType, fieldTable, representations } from '../../src/representations/schema';
import { JSONObject, JSON as JSONScalar, SafeInt } from './scalars';
import { FIELD_ENUMS } from './enums';

/**
 * GraphQL input types generated from the representation field tables of
 * `src/representations/schema.ts` — the one declaration REST validates request bodies against — so
 * the shape of a `UserInput` cannot drift from what `POST /users` accepts. Each input type carries
 * `@representation(name: ...)` naming its table. Keycloak's `long`s map to `SafeInt`, maps to
 * `JSONObject`, untyped values to `JSON`, nested representations to their generated input type.
 * Each field carries its description from src/representations/descriptions.ts.
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
  RealmRepresentation: [...REALM_NOT_IN_GRAPHQL_INPUT],
};

/**
 * The GraphQL type of field `field` of table `representation`: the enum of FIELD_ENUMS where one is
 * declared (kept a list where the table has a list), else typeOf its table type.
 */
export function fieldTypeOf(
  representation: string,
  field: string,
  t: FieldType,
  nested: (representation: string) => unknown = representationInput,
): TypeThunk {
  const e = FIELD_ENUMS[`${representation}.${field}`];
  if (e) return typeof t === 'object' && 'array' in t ? () => [e] : () => e;
  return typeOf(t, nested);
}

/**
 * The GraphQL type of a field of a table; a nested representation is `nested(name)` (the generated
 * input type by default; object types pass their own).
 */
export function typeOf(t: FieldType, nested: (representation: string) => unknown = representationInput): TypeThunk {
  if (t === 'string') return () => GraphQLString;
  if (t === 'boolean') return () => GraphQLBoolean;
  if (t === 'int') return () => SafeInt;
  if (t === 'int32') return () => GraphQLInt;
  if (t === 'number') return () => GraphQLFloat;
  if (t === 'map') return () => JSONObject;
  if (t === 'any') return () => JSONScalar;
  if ('array' in t) {
    const item = typeOf(t.array, nested);
    return () => [item()];
  }
  if ('map' in t) return () => JSONObject;
  if ('enum' in t) return () => GraphQLString;
  return () => nested(t.ref);
}

// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
function defineInput(name: string, className: string, required: readonly string[] = [], omitted: readonly string[] = []): Function {
  const table = fieldTable(name);
  if (!table) throw new Error(`No representation table named ${name}`);
  const cls = { [className]: class {} }[className];
  const readOnly = READ_ONLY[name] ?? [];
  for (const [field, type] of Object.entries(table)) {
    if (readOnly.includes(field) || omitted.includes(field)) continue;
    const list = typeof type === 'object' && 'array' in type;
    const nullable = required.includes(field) ? (list ? 'items' : false) : list ? 'itemsAndList' : true;
    // Ids are `ID` in and out.
    const thunk = type === 'string' && ID_FIELDS.has(field) ? () => GraphQLID : fieldTypeOf(name, field, type);
    Field(thunk as () => GraphQLScalarType, { nullable, description: fieldDescription(name, field) })(cls.prototype, field);
  }
  Directive(`@representation(name: "${name}")`)(cls);
  InputType(className, { description: `Keycloak's ${name}; fields generated from its table in src/representations/schema.ts.` })(cls);
  return cls;
}

for (const name of Object.keys(representations)) classes.set(name, defineInput(name, inputName(name)));

/**
 * A second input type generated from a representation's table under another name, with some fields
 * required (`RealmCreateInput`: `realm` required; `RealmUpdateInput`: none).
 */
// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
export function representationInputAs(name: string, className: string, opts: { required?: readonly string[] } = {}): Function {
  return defineInput(name, className, opts.required);
}

/**
 * Fields a create or an update does not take, beyond READ_ONLY: what the server assigns (ids on an
 * update, where the argument names the object; timestamps; computed flags), what only a realm import
 * reads (role grants, consents, legacy fields), and what has its own operation (subgroups, composites,
 * registered nodes, the registration access token). REST still accepts them, as Keycloak does.
 */
const USER_NOT_CREATED = [
  'id',
  'createdTimestamp',
  'totp',
  'serviceAccountClientId',
  'notBefore',
  'realmRoles',
  'clientRoles',
  'clientConsents',
  'applicationRoles',
  'socialLinks',
];
const CLIENT_NOT_CREATED = [
  'registrationAccessToken',
  'defaultRoles',
  'directGrantsOnly',
  'registeredNodes',
  'clientTemplate',
  'useTemplateConfig',
  'useTemplateScope',
  'useTemplateMappers',
  'origin',
];

export const NOT_WRITTEN: Record<string, { create: readonly string[]; update: readonly string[] }> = {
  // An update does not link identities or join groups: those have their own operations.
  UserRepresentation: { create: USER_NOT_CREATED, update: [...USER_NOT_CREATED, 'federatedIdentities', 'groups'] },
  GroupRepresentation: {
    create: ['id', 'parentId', 'subGroups', 'realmRoles', 'clientRoles'],
    update: ['id', 'parentId', 'subGroups', 'realmRoles', 'clientRoles'],
  },
  RoleRepresentation: { create: ['id', 'clientRole', 'containerId'], update: ['id', 'clientRole', 'containerId'] },
  // An update keeps the id from its argument; mappers and scopes have their own operations.
  ClientRepresentation: {
    create: CLIENT_NOT_CREATED,
    update: ['id', ...CLIENT_NOT_CREATED, 'protocolMappers', 'defaultClientScopes', 'optionalClientScopes', 'authorizationSettings'],
  },
  ClientScopeRepresentation: { create: [], update: ['id', 'protocolMappers'] },
  ProtocolMapperRepresentation: { create: [], update: ['id'] },
  IdentityProviderRepresentation: { create: ['internalId'], update: ['internalId'] },
  IdentityProviderMapperRepresentation: { create: [], update: ['id', 'identityProviderAlias'] },
  ComponentRepresentation: { create: [], update: ['id'] },
};

// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
const writeInputs = new Map<string, Function>();

/**
 * The input of a create or an update of a representation (`UserCreateInput`, `UserUpdateInput`):
 * its table without READ_ONLY and the NOT_WRITTEN fields of that operation, with `required` fields
 * non-null. One class per name, shared by every mutation that takes it.
 */
// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
export function writeInput(name: string, op: 'create' | 'update', opts: { required?: readonly string[]; as?: string } = {}): Function {
  const className = opts.as ?? `${name.replace(/Representation$/, '')}${op === 'create' ? 'Create' : 'Update'}Input`;
  const cached = writeInputs.get(className);
  if (cached) return cached;
  const omitted = NOT_WRITTEN[name]?.[op];
  if (!omitted) throw new Error(`No create/update field lists for ${name}`);
  const cls = defineInput(
    name,
    className,
    opts.required,
    omitted.filter((f) => !opts.required?.includes(f)),
  );
  writeInputs.set(className, cls);
  return cls;
}

/** The generated input class of a representation (e.g. `UserRepresentation` → `UserInput`). */
// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies input types by their class.
export function representationInput(name: string): Function {
  const cls = classes.get(name);
  if (!cls) throw new Error(`No field table for ${name} in src/representations/schema.ts`);
  return cls;
}
