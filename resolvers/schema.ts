import 'reflect-metadata';
import { mergeSchemas } from '@graphql-tools/schema';
import { MapperKind, mapSchema, printSchemaWithDirectives } from '@graphql-tools/utils';
import {
  type ConstDirectiveNode,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isNonNullType,
  isObjectType,
  Kind,
} from 'graphql';
import { fieldDescription } from '../src/representations/descriptions';
import { buildSchema } from 'type-graphql';
import { AdminExtrasResolver } from './realms/admin-extras';
import { AuthenticationResolver, RealmAuthenticationResolver } from './authentication/authentication';
import { AuthenticationCatalogueResolver } from './authentication/catalogue';
import { ImportExportResolver } from './realms/import-export';
import { RealmUserProfileResolver, UserProfileResolver } from './users/user-profile';
import { ClientCertificateResolver } from './clients/client-certificates';
import { ClientExtrasResolver } from './clients/client-extras';
import { ClientRegistrationResolver } from './clients/client-registration';
import { ClientWritesResolver } from './clients/client-writes';
import { ClientScopeMappingsResolver, ClientScopeResolver, RealmClientScopesResolver } from './client-scopes/client-scopes';
import { ClientResolver, RealmClientsResolver } from './clients/clients';
import { GroupResolver, RealmGroupsResolver } from './groups/groups';
import {
  IdentityProviderMapperResolver,
  IdentityProviderResolver,
  RealmIdentityProvidersResolver,
} from './identity-providers/identity-providers';
import { RealmEventsResolver } from './events/events';
import { ProtocolMapperResolver } from './client-scopes/protocol-mappers';
import { RealmResolver } from './realms/realms';
import { ComponentResolver, RealmComponentsResolver } from './components/components';
import { UserStorageResolver } from './components/user-storage';
import { ServerInfoResolver } from './realms/server-info';
import { GroupMappingReadsResolver, RoleMappingsResolver, UserMappingReadsResolver } from './roles/role-mappings';
import {
  ClientScopeMappingReadsResolver,
  ClientScopeScopeMappingReadsResolver,
  ScopeMappingsResolver,
} from './client-scopes/scope-mappings';
import { ClientEvaluateScopesResolver, ScopeEvaluationResolver } from './client-scopes/evaluate-scopes';
import { UserGroupCountResolver } from './users/user-group-count';
import { RealmRolesResolver, RoleResolver } from './roles/roles';
import { RoleCompositeReadsResolver } from './roles/role-composite-reads';
import { UserDetailsResolver } from './users/user-details';
import { RealmUsersResolver, UserResolver } from './users/users';
import { RealmUserConnectionResolver } from './users/user-connections';
import { GroupConnectionsResolver, RealmGroupConnectionResolver } from './groups/group-connections';
import { RealmRoleConnectionResolver, RoleConnectionsResolver } from './roles/role-connections';
import { RealmClientConnectionResolver } from './clients/client-connections';
import { RealmEventConnectionsResolver } from './events/event-connections';
import { EventSubscriptionsResolver, unusedPubSub } from './events/subscriptions';
import { ClientSessionsResolver, RealmSessionsResolver, SessionMutationsResolver, UserSessionsResolver } from './sessions/sessions';
import { LocalizationResolver } from './realms/localization';
import { ClientPoliciesResolver } from './clients/client-policies';
import { BulkWritesResolver } from './bulk/bulk';
import { ClientAuthorizationResolver, ResourceServerResolver } from './authz/resource-server';
import { AuthzPolicyResolver, AuthzResourceResolver, AuthzScopeResolver } from './authz/nested';
import { AuthzMutationsResolver } from './authz/mutations';
import { ManagementPermissionsResolver } from './authz/management-permissions';
import { OrganizationResolver, RealmOrganizationsResolver } from './organizations/organizations';
import { OrganizationInvitationResolver } from './organizations/organization-invitations';
import { OrganizationGroupResolver, OrganizationGroupsFieldResolver } from './organizations/organization-groups';
import { mutationPayloads } from './payloads';
import { argumentDescription, OUTPUT_FIELD_DESCRIPTIONS, ROOT_TYPE_DESCRIPTIONS } from './descriptions';

/**
 * The gateway schema: type-graphql builds it from the resolver classes, then @graphql-tools adds
 * the schema-level directive definitions (SDL) and prints it with the applied directives.
 * `npm run schema` writes the printed form to schema/schema.graphql.
 */
export const DIRECTIVES_SDL = /* GraphQL */ `
  """
  The Keycloak representation this type mirrors; for input types, the field table in
  src/representations/schema.ts the type is generated from.
  """
  directive @representation(
    "Name of the Keycloak representation class, e.g. ClientRepresentation."
    name: String!
  ) on INPUT_OBJECT | OBJECT
`;

export const RESOLVERS = [
  RealmResolver,
  AdminExtrasResolver,
  RealmEventsResolver,
  RealmUsersResolver,
  RealmUserConnectionResolver,
  RealmGroupConnectionResolver,
  GroupConnectionsResolver,
  RealmRoleConnectionResolver,
  RoleConnectionsResolver,
  RealmClientConnectionResolver,
  RealmEventConnectionsResolver,
  EventSubscriptionsResolver,
  UserResolver,
  UserDetailsResolver,
  RealmGroupsResolver,
  GroupResolver,
  RealmRolesResolver,
  RoleResolver,
  RoleCompositeReadsResolver,
  RoleMappingsResolver,
  UserMappingReadsResolver,
  GroupMappingReadsResolver,
  RealmClientsResolver,
  ClientResolver,
  ClientWritesResolver,
  ClientCertificateResolver,
  ClientExtrasResolver,
  ClientRegistrationResolver,
  UserSessionsResolver,
  RealmSessionsResolver,
  ClientSessionsResolver,
  SessionMutationsResolver,
  RealmClientScopesResolver,
  ClientScopeResolver,
  ClientScopeMappingsResolver,
  ProtocolMapperResolver,
  ScopeMappingsResolver,
  ClientScopeMappingReadsResolver,
  ClientScopeScopeMappingReadsResolver,
  ClientEvaluateScopesResolver,
  ScopeEvaluationResolver,
  UserGroupCountResolver,
  LocalizationResolver,
  ClientPoliciesResolver,
  RealmIdentityProvidersResolver,
  IdentityProviderResolver,
  IdentityProviderMapperResolver,
  RealmComponentsResolver,
  ComponentResolver,
  UserStorageResolver,
  ServerInfoResolver,
  RealmAuthenticationResolver,
  AuthenticationResolver,
  AuthenticationCatalogueResolver,
  ImportExportResolver,
  RealmUserProfileResolver,
  UserProfileResolver,
  BulkWritesResolver,
  ClientAuthorizationResolver,
  ResourceServerResolver,
  AuthzResourceResolver,
  AuthzScopeResolver,
  AuthzPolicyResolver,
  AuthzMutationsResolver,
  ManagementPermissionsResolver,
  RealmOrganizationsResolver,
  OrganizationResolver,
  OrganizationInvitationResolver,
  OrganizationGroupResolver,
  OrganizationGroupsFieldResolver,
] as const;

let built: Promise<GraphQLSchema> | undefined;

/** Builds (once per process) the executable gateway schema. */
export function gatewaySchema(): Promise<GraphQLSchema> {
  built ??= (async () => {
    const schema = await buildSchema({ resolvers: [...RESOLVERS], validate: false, emitSchemaFile: false, pubSub: unusedPubSub });
    return mergeSchemas({
      schemas: [mutationPayloads(nullableLookups(describedElements(describedFields(inSourceOrder(schema)))))],
      typeDefs: DIRECTIVES_SDL,
    });
  })();
  return built;
}

/**
 * type-graphql lists a field's arguments in the order its parameter decorators ran, which is
 * last-to-first; every argument here comes from `@Arg`, so reversing restores the source order
 * (`createUser(realm, input)`). Only the printed order changes: arguments are passed by name.
 */
function inSourceOrder(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.COMPOSITE_FIELD]: (field) =>
      field.args ? { ...field, args: Object.fromEntries(sourceOrder(Object.entries(field.args))) } : field,
  });
}

/** The paging arguments of a connection (`@Args(ConnectionArgs)`), first and in Relay's order. */
const PAGING = ['first', 'after', 'last', 'before'];

/**
 * Arguments reversed into source order; the fields of an `@Args` class arrive in their own order
 * within that reversal, so the connection paging arguments are put back first, as Relay lists them.
 */
function sourceOrder<T>(args: Array<[string, T]>): Array<[string, T]> {
  const reversed = args.reverse();
  if (!PAGING.every((name) => reversed.some(([n]) => n === name))) return reversed;
  const paging = PAGING.map((name) => reversed.find(([n]) => n === name) as [string, T]);
  return [...paging, ...reversed.filter(([n]) => !PAGING.includes(n))];
}

/**
 * Every lookup of one object — a query field with arguments that returns one object (`user(id)`,
 * `realm(name)`, `Realm.role(name)`) — is nullable: an unknown id answers `null` for that field
 * with a NOT_FOUND error at its path, and the rest of the response stands. Connections and
 * mutations are not lookups.
 */
function isLookup(typeName: string, field: { args?: unknown; type: GraphQLOutputType }): boolean {
  if (typeName === 'Mutation' || typeName === 'Subscription') return false;
  if (!field.args || Object.keys(field.args).length === 0 || !isNonNullType(field.type)) return false;
  const inner = field.type.ofType;
  return isObjectType(inner) && !inner.name.endsWith('Connection');
}

function nullableLookups(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.COMPOSITE_FIELD]: (field, _name, typeName) =>
      isLookup(typeName, field) && isNonNullType(field.type) ? { ...field, type: field.type.ofType } : field,
  });
}

/** The `@representation(name:)` a type carries, if any. */
function representationOf(type: { astNode?: { directives?: readonly ConstDirectiveNode[] } | null }): string | undefined {
  const directive = type.astNode?.directives?.find((d) => d.name.value === 'representation');
  const arg = directive?.arguments?.find((a) => a.name.value === 'name');
  return arg?.value.kind === Kind.STRING ? arg.value.value : undefined;
}

/**
 * A field of a type mirroring a Keycloak representation, declared without a description of its own,
 * gets the one of its representation's field table (src/representations/descriptions.ts): each
 * field of Keycloak's JSON is described once for both fronts.
 */
function describedFields(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, name, typeName) => {
      if (field.description) return field;
      const type = schema.getType(typeName);
      const rep = type && representationOf(type);
      const description = rep ? fieldDescription(rep, name) : undefined;
      return description ? { ...field, description } : field;
    },
  });
}

/**
 * The root types, the arguments and the fields of hand-written output types declared without a
 * description get the one of resolvers/descriptions.ts.
 */
function describedElements(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.ROOT_OBJECT]: (type) =>
      type.description ? type : new GraphQLObjectType({ ...type.toConfig(), description: ROOT_TYPE_DESCRIPTIONS[type.name] }),
    [MapperKind.COMPOSITE_FIELD]: (field, name, typeName) => {
      const args = field.args
        ? Object.fromEntries(
            Object.entries(field.args).map(([arg, config]) => [
              arg,
              config.description ? config : { ...config, description: argumentDescription(typeName, name, arg) },
            ]),
          )
        : field.args;
      return { ...field, args, description: field.description ?? OUTPUT_FIELD_DESCRIPTIONS[`${typeName}.${name}`] };
    },
  });
}

/** The SDL of the gateway schema, as checked in at schema/schema.graphql. */
export async function printGatewaySchema(): Promise<string> {
  return `${printSchemaWithDirectives(await gatewaySchema()).trim()}\n`;
}
