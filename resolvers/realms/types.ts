import { GraphQLID, type GraphQLScalarType, GraphQLString } from 'graphql';
import { Directive, Field, getMetadataStorage, ObjectType } from 'type-graphql';
import { REALM_INPUT_ONLY_FIELDS } from '../../src/representations/realm';
import { FIELD_DESCRIPTIONS, fieldDescription } from '../../src/representations/descriptions';
import { fieldTable } from '../../src/representations/schema';
import { fieldTypeOf } from '../types/inputs';
import { JSONObject } from '../types/scalars';

/**
 * The realm's object types, their fields generated from the RealmRepresentation table of
 * src/representations/schema.ts (the table REST validates PUT and POST bodies against), so the
 * GraphQL `Realm` types every field GET /admin/realms/{realm} returns, with the same types.
 */

// biome-ignore lint/complexity/noBannedTypes: type-graphql identifies object types by their class.
type Class = Function;

/** Object types of the nested representations a realm field holds, by representation name. */
const NESTED: Record<string, () => Class> = {};

/**
 * Gives a generated field the description of its table (src/representations/descriptions.ts), read
 * when the schema is built, so that a `@FieldResolver` of the same field declaring its own
 * description wins (type-graphql keeps the `@Field` description otherwise).
 */
function describeFromTable(cls: Class, field: string, fromTable: string | undefined): void {
  const storage = getMetadataStorage();
  const meta = storage.fields.find((f) => f.target === cls && f.name === field);
  if (!meta) return;
  const ofType = (r: (typeof storage.fieldResolvers)[number]) => {
    try {
      return r.getObjectType?.();
    } catch {
      return undefined; // a resolver class without an object type
    }
  };
  Object.defineProperty(meta, 'description', {
    configurable: true,
    enumerable: true,
    get: () => storage.fieldResolvers.find((r) => r.schemaName === field && r.description && ofType(r) === cls)?.description ?? fromTable,
  });
}

/**
 * Adds a nullable field to `cls` for each field of the table except `skip` (declared by hand or by a
 * relation), described from the table.
 */
function fieldsFromTable(cls: Class, representation: string, skip: ReadonlySet<string> = new Set()): void {
  const table = fieldTable(representation);
  if (!table) throw new Error(`No representation table named ${representation}`);
  const nested = (name: string) => {
    const of = NESTED[name];
    if (!of) throw new Error(`No object type for ${name} (a field of ${representation})`);
    return of();
  };
  for (const [field, type] of Object.entries(table)) {
    if (skip.has(field)) continue;
    const nullable = typeof type === 'object' && 'array' in type ? 'itemsAndList' : true;
    Field(fieldTypeOf(representation, field, type, nested) as () => GraphQLScalarType, { nullable })(
      (cls as { prototype: object }).prototype,
      field,
    );
    describeFromTable(cls, field, fieldDescription(representation, field));
  }
}

/** A realm's `smtpServer` (Keycloak keeps a Map<String, String>; other keys are in `Realm.representation`). */
@Directive('@representation(name: "SmtpServerRepresentation")')
@ObjectType({ description: "A realm's SMTP settings (Keycloak RealmRepresentation.smtpServer); the password reads as `**********`." })
export class SmtpServer {}
fieldsFromTable(SmtpServer, 'SmtpServerRepresentation');
NESTED.SmtpServerRepresentation = () => SmtpServer;

/** A realm's `browserSecurityHeaders` (a Map<String, String> in Keycloak). */
@Directive('@representation(name: "BrowserSecurityHeadersRepresentation")')
@ObjectType({ description: 'HTTP security headers of the realm pages (Keycloak RealmRepresentation.browserSecurityHeaders).' })
export class BrowserSecurityHeaders {}
fieldsFromTable(BrowserSecurityHeaders, 'BrowserSecurityHeadersRepresentation');
NESTED.BrowserSecurityHeadersRepresentation = () => BrowserSecurityHeaders;

/**
 * Fields of the full representation that the `Realm` type offers as relations rather than as the
 * plain value: `defaultRole` (a `Role`, resolvers/realms/realms.ts), `defaultGroups` (`Group`s,
 * resolvers/groups), `clientProfiles` and `clientPolicies` (resolvers/clients/client-policies.ts).
 */
export const RELATIONS: ReadonlySet<string> = new Set(['defaultRole', 'defaultGroups', 'clientProfiles', 'clientPolicies']);

/**
 * A realm, backed by the RealmRepresentation `GET /admin/realms/{realm}` returns (the reduced one
 * for admins without view-realm, where most fields are null). `realm` is Keycloak's name field;
 * `name` is the same value. Every other field of the full representation is generated from its
 * table; relations (users, groups, roles, clients) are added by the resolvers of those kinds.
 */
@Directive('@representation(name: "RealmRepresentation")')
@ObjectType({ description: 'A realm (Keycloak RealmRepresentation).' })
export class Realm {
  @Field(() => GraphQLID, { nullable: true, description: FIELD_DESCRIPTIONS.RealmRepresentation.id }) id?: string;
  @Field(() => GraphQLString, { description: 'The realm name (Keycloak field `realm`).' }) realm!: string;
  @Field(() => GraphQLString, { description: 'Same as `realm`.' }) name!: string;
  @Field(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation!: Record<string, unknown>;
}
fieldsFromTable(Realm, 'RealmRepresentation', new Set(['id', 'realm', ...RELATIONS, ...REALM_INPUT_ONLY_FIELDS]));
