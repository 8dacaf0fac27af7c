import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import { JSONObject } from '../types/scalars';

/**
 * A realm or client role, backed by the RoleRepresentation the roles service returns. Relations
 * (composites, client, users, groups) are added by resolvers/roles.ts.
 */
@Directive('@representation(name: "RoleRepresentation")')
@ObjectType({ description: 'A realm role or a client role (Keycloak RoleRepresentation).' })
export class Role {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => GraphQLBoolean, { description: 'True when the role has composites.' }) composite!: boolean;
  @Field(() => GraphQLBoolean) clientRole!: boolean;
  @Field(() => GraphQLString, { description: 'The realm id (realm role) or the client UUID (client role).' }) containerId!: string;
  @Field(() => JSONObject, { nullable: true, description: 'Attributes (full representations only).' }) attributes?: Record<
    string,
    string[]
  >;
}

/** Client role mappings of one client (an entry of MappingsRepresentation.clientMappings). */
@ObjectType({ description: 'Role mappings of one client.' })
export class ClientMappings {
  @Field(() => GraphQLID, { description: 'Client UUID.' }) id!: string;
  @Field(() => GraphQLString, { description: 'The clientId.' }) client!: string;
  @Field(() => [Role]) mappings!: Role[];
}

/** Keycloak's MappingsRepresentation (GET .../role-mappings). */
@ObjectType({ description: 'Direct role mappings: realm roles and client roles by client.' })
export class RoleMappings {
  @Field(() => [Role]) realmMappings!: Role[];
  @Field(() => [ClientMappings]) clientMappings!: ClientMappings[];
}
