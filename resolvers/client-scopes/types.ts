import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import { Protocol } from '../types/enums';
import { JSONObject } from '../types/scalars';

/** A protocol mapper of a client or client scope (Keycloak ProtocolMapperRepresentation). */
@Directive('@representation(name: "ProtocolMapperRepresentation")')
@ObjectType({ description: 'A protocol mapper of a client or a client scope (Keycloak ProtocolMapperRepresentation).' })
export class ProtocolMapper {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => Protocol) protocol!: string;
  @Field(() => GraphQLString, { description: 'The mapper type, e.g. oidc-usermodel-attribute-mapper.' }) protocolMapper!: string;
  @Field(() => GraphQLBoolean) consentRequired!: boolean;
  @Field(() => JSONObject) config!: Record<string, string>;
}

/** A client scope; `protocolMappers` and `scopeMappings` come from resolvers/client-scopes.ts. */
@Directive('@representation(name: "ClientScopeRepresentation")')
@ObjectType({ description: 'A client scope (Keycloak ClientScopeRepresentation).' })
export class ClientScope {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => Protocol) protocol!: string;
  @Field(() => JSONObject) attributes!: Record<string, string>;
}

/** An entry of the realm default/optional client scope lists. */
@ObjectType({ description: 'A realm default or optional client scope: id, name and protocol.' })
export class ClientScopeRef {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => Protocol) protocol!: string;
}
