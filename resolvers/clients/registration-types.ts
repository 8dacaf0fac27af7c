import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Field, ObjectType } from 'type-graphql';
import { JSON as JSONScalar, JSONObject, SafeInt } from '../types/scalars';

/** A client attribute certificate, backed by the CertificateRepresentation of `/clients/{id}/certificates/{attr}`. */
@ObjectType({ description: "A client's key info for one attribute prefix (Keycloak CertificateRepresentation)." })
export class ClientCertificate {
  @Field(() => GraphQLString, { nullable: true, description: 'PKCS#8 private key, base64 DER.' }) privateKey?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'SubjectPublicKeyInfo, base64 DER.' }) publicKey?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'X.509 certificate, base64 DER.' }) certificate?: string;
  @Field(() => GraphQLString, { nullable: true }) kid?: string;
}

/** A client initial access entry (Keycloak ClientInitialAccessPresentation). */
@ObjectType({ description: 'A client initial access entry (Keycloak ClientInitialAccessPresentation); `token` only at creation.' })
export class ClientInitialAccess {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) token?: string;
  @Field(() => SafeInt, { description: 'Issue time, epoch seconds.' }) timestamp!: number;
  @Field(() => SafeInt, { description: 'Lifetime in seconds; 0 = never expires.' }) expiration!: number;
  @Field(() => SafeInt) count!: number;
  @Field(() => SafeInt) remainingCount!: number;
}

/** A config property of a provider (Keycloak ConfigPropertyRepresentation). */
@ObjectType({
  description:
    'A config property of a provider: a client registration policy, a component, an authenticator, an identity provider (Keycloak ConfigPropertyRepresentation).',
})
export class ConfigProperty {
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, { nullable: true }) label?: string;
  @Field(() => GraphQLString, { nullable: true }) helpText?: string;
  @Field(() => GraphQLString, { nullable: true }) type?: string;
  @Field(() => JSONScalar, { nullable: true }) defaultValue?: unknown;
  @Field(() => [GraphQLString], { nullable: true }) options?: string[];
  @Field(() => GraphQLBoolean) secret!: boolean;
  @Field(() => GraphQLBoolean) required!: boolean;
  @Field(() => GraphQLBoolean) readOnly!: boolean;
}

/** A client registration policy provider (Keycloak ComponentTypeRepresentation). */
@ObjectType({ description: 'A client registration policy provider (Keycloak ComponentTypeRepresentation).' })
export class ClientRegistrationPolicyProvider {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) helpText?: string;
  @Field(() => [ConfigProperty]) properties!: ConfigProperty[];
  @Field(() => JSONObject) metadata!: Record<string, unknown>;
}
