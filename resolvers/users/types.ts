import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import { JSONObject, SafeInt } from '../types/scalars';

/**
 * A user, backed by the UserRepresentation the users service returns (the same JSON as the REST
 * GET). Relations (groups, role mappings, effective roles) are added by resolvers/users.ts.
 */
@Directive('@representation(name: "UserRepresentation")')
@ObjectType({ description: 'A user (Keycloak UserRepresentation).' })
export class User {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) username!: string;
  @Field(() => GraphQLString, { nullable: true }) firstName?: string;
  @Field(() => GraphQLString, { nullable: true }) lastName?: string;
  @Field(() => GraphQLString, { nullable: true }) email?: string;
  @Field(() => GraphQLBoolean, { nullable: true }) emailVerified?: boolean;
  @Field(() => JSONObject, { nullable: true, description: 'Custom attributes: name → values.' }) attributes?: Record<string, string[]>;
  @Field(() => GraphQLBoolean, { nullable: true }) enabled?: boolean;
  @Field(() => SafeInt, { nullable: true }) createdTimestamp?: number;
  @Field(() => GraphQLString, { nullable: true }) federationLink?: string;
  @Field(() => GraphQLString, {
    nullable: true,
    description:
      'Id of the storage provider a user not stored locally comes from (a directory user served live), else its federation link.',
  })
  origin?: string;
  @Field(() => GraphQLString, { nullable: true }) serviceAccountClientId?: string;
  @Field(() => GraphQLBoolean, { nullable: true }) totp?: boolean;
  @Field(() => [GraphQLString], { nullable: true }) disableableCredentialTypes?: string[];
  @Field(() => [GraphQLString], { nullable: true }) requiredActions?: string[];
  @Field(() => SafeInt, { nullable: true }) notBefore?: number;
  @Field(() => JSONObject, { nullable: true, description: "The caller's access map on this user." }) access?: Record<string, boolean>;
}
