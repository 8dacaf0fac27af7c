import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Field, ObjectType } from 'type-graphql';
import { JSONObject } from '../types/scalars';

/**
 * A realm, backed by the RealmRepresentation `GET /admin/realms/{realm}` returns (the reduced one
 * for admins without view-realm, where most fields are null). `realm` is Keycloak's name field;
 * `name` is the same value. Relations (users, groups, roles, clients) are added by the resolvers
 * of those kinds.
 */
@ObjectType({ description: 'A realm (Keycloak RealmRepresentation).' })
export class Realm {
  @Field(() => GraphQLID, { nullable: true }) id?: string;
  @Field(() => GraphQLString, { description: 'The realm name (Keycloak field `realm`).' }) realm!: string;
  @Field(() => GraphQLString, { description: 'Same as `realm`.' }) name!: string;
  @Field(() => GraphQLBoolean, { nullable: true }) enabled?: boolean;
  @Field(() => GraphQLString, { nullable: true }) displayName?: string;
  @Field(() => GraphQLString, { nullable: true }) displayNameHtml?: string;
  @Field(() => GraphQLString, { nullable: true }) sslRequired?: string;
  @Field(() => GraphQLInt, { nullable: true }) accessTokenLifespan?: number;
  @Field(() => GraphQLInt, { nullable: true }) ssoSessionIdleTimeout?: number;
  @Field(() => GraphQLInt, { nullable: true }) ssoSessionMaxLifespan?: number;
  @Field(() => GraphQLBoolean, { nullable: true }) registrationAllowed?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) registrationEmailAsUsername?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) loginWithEmailAllowed?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) duplicateEmailsAllowed?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) resetPasswordAllowed?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) editUsernameAllowed?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) verifyEmail?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) rememberMe?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) bruteForceProtected?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) internationalizationEnabled?: boolean;
  @Field(() => [GraphQLString], { nullable: true }) supportedLocales?: string[];
  @Field(() => GraphQLString, { nullable: true }) defaultLocale?: string;
  @Field(() => GraphQLBoolean, { nullable: true }) eventsEnabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) adminEventsEnabled?: boolean;
  @Field(() => JSONObject, { nullable: true }) attributes?: Record<string, string>;
  @Field(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation!: Record<string, unknown>;
}
