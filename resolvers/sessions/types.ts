import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Field, ObjectType } from 'type-graphql';
import { JSONObject, SafeInt } from '../types/scalars';

/** A user session (Keycloak UserSessionRepresentation), as GET /users/{id}/sessions returns it. */
@ObjectType({ description: 'A user session (Keycloak UserSessionRepresentation).' })
export class UserSession {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) username?: string;
  @Field(() => GraphQLID) userId!: string;
  @Field(() => GraphQLString, { nullable: true }) ipAddress?: string;
  @Field(() => SafeInt, { description: 'Start time, epoch ms.' }) start!: number;
  @Field(() => SafeInt, { description: 'Last access, epoch ms.' }) lastAccess!: number;
  @Field(() => GraphQLBoolean) rememberMe!: boolean;
  @Field(() => JSONObject, { description: 'Client UUID → clientId of the clients in the session.' }) clients!: Record<string, string>;
  @Field(() => GraphQLBoolean) transientUser!: boolean;
}

/** One entry of GET /client-session-stats (counts are strings there; numbers here). */
@ObjectType({ description: 'Active and offline session counts of a client.' })
export class ClientSessionStat {
  @Field(() => GraphQLID, { description: 'Client UUID.' }) id!: string;
  @Field(() => GraphQLString) clientId!: string;
  @Field(() => GraphQLInt) active!: number;
  @Field(() => GraphQLInt) offline!: number;
}

/** Brute-force status of a user (GET /attack-detection/brute-force/users/{id}). */
@ObjectType({ description: 'Brute-force status of a user.' })
export class BruteForceStatus {
  @Field(() => GraphQLInt) numFailures!: number;
  @Field(() => GraphQLBoolean) disabled!: boolean;
  @Field(() => GraphQLString) lastIPFailure!: string;
  @Field(() => SafeInt, { description: 'Last failure, epoch ms.' }) lastFailure!: number;
  @Field(() => GraphQLString, { description: 'Lockout end in epoch seconds, as a decimal string (9223372036854775807 when permanent).' })
  failedLoginNotBefore!: string;
  @Field(() => GraphQLInt) numTemporaryLockouts!: number;
  @Field(() => GraphQLInt) numSecondaryAuthFailures!: number;
}

/** Outcome of notifying clients' admin URLs (Keycloak GlobalRequestResult). */
@ObjectType({ description: 'Admin URLs notified successfully or not (Keycloak GlobalRequestResult).' })
export class GlobalRequestResult {
  @Field(() => [GraphQLString]) successRequests!: string[];
  @Field(() => [GraphQLString]) failedRequests!: string[];
}
