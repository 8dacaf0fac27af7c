import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import { SafeInt } from '../types/scalars';

/** Credential metadata of a user (GET /users/{id}/credentials): never secrets. */
@Directive('@representation(name: "CredentialRepresentation")')
@ObjectType({ description: 'A credential of a user: metadata only (no secret data).' })
export class Credential {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) type!: string;
  @Field(() => GraphQLString, { nullable: true }) userLabel?: string;
  @Field(() => SafeInt) createdDate!: number;
  @Field(() => GraphQLString, { description: 'Public credential data (JSON text), e.g. the hash algorithm.' }) credentialData!: string;
  @Field(() => SafeInt, { description: "Order among the user's credentials (lower first)." }) priority!: number;
}

/** An additional grant of a consent (an offline token). */
@ObjectType({ description: 'A grant besides the consent itself, e.g. an offline token.' })
export class ConsentGrant {
  @Field(() => GraphQLID, { description: 'Client UUID.' }) client!: string;
  @Field(() => GraphQLString) key!: string;
}

/** A consent of a user (GET /users/{id}/consents). */
@Directive('@representation(name: "UserConsentRepresentation")')
@ObjectType({ description: 'A client the user consented to or holds an offline token for.' })
export class UserConsent {
  @Field(() => GraphQLString, { description: 'The clientId.' }) clientId!: string;
  @Field(() => [GraphQLString]) grantedClientScopes!: string[];
  @Field(() => SafeInt, { nullable: true }) createdDate?: number | null;
  @Field(() => SafeInt, { nullable: true }) lastUpdatedDate?: number | null;
  @Field(() => [ConsentGrant]) additionalGrants!: ConsentGrant[];
}

/** A link to an identity provider account (GET /users/{id}/federated-identity). */
@Directive('@representation(name: "FederatedIdentityRepresentation")')
@ObjectType({ description: 'A link of the user to an identity provider account.' })
export class FederatedIdentity {
  @Field(() => GraphQLString, { description: 'Identity provider alias.' }) identityProvider!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'User id at the provider.' }) userId?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Username at the provider.' }) userName?: string;
}

/** Result of POST /users/{id}/impersonation. */
@ObjectType({ description: 'Where to continue as the impersonated user.' })
export class Impersonation {
  @Field(() => GraphQLString, { description: 'Account console URL of the realm.' }) redirect!: string;
  @Field(() => GraphQLBoolean, { description: "True when the admin's own session (same realm) was ended." }) sameRealm!: boolean;
}
