import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Directive, Field, ObjectType } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { ClientModel } from '../../src/db/models/client';
import { resolveClient } from '../../src/services/clients/clients';
import { type InRealm, realmOf } from '../types/common';
import { Protocol } from '../types/enums';
import { JSONObject, SafeInt } from '../types/scalars';

/** The model behind a Client object, for the sub-resource services (404-or-403 rule, loader-cached). */
export const clientModel = (ctx: RequestContext, client: InRealm): Promise<ClientModel> =>
  resolveClient(ctx, realmOf(client), String(client.id));

/**
 * A client, backed by the ClientRepresentation the clients service returns. Relations (`roles`,
 * `defaultClientScopes`, `optionalClientScopes`, `protocolMappers`, `serviceAccountUser`) come from
 * resolvers/clients.ts and are loader-batched.
 */
@Directive('@representation(name: "ClientRepresentation")')
@ObjectType({ description: 'A client (Keycloak ClientRepresentation, main fields).' })
export class Client {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) clientId!: string;
  @Field(() => GraphQLString, { nullable: true }) name?: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => GraphQLString, { nullable: true }) rootUrl?: string;
  @Field(() => GraphQLString, { nullable: true }) adminUrl?: string;
  @Field(() => GraphQLString, { nullable: true }) baseUrl?: string;
  @Field(() => GraphQLBoolean, { nullable: true }) surrogateAuthRequired?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) enabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) alwaysDisplayInConsole?: boolean;
  @Field(() => GraphQLString, { nullable: true }) clientAuthenticatorType?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The plain secret of a confidential client (view-clients).' }) secret?: string;
  @Field(() => [GraphQLString], { nullable: true }) redirectUris?: string[];
  @Field(() => [GraphQLString], { nullable: true }) webOrigins?: string[];
  @Field(() => SafeInt, { nullable: true }) notBefore?: number;
  @Field(() => GraphQLBoolean, { nullable: true }) bearerOnly?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) consentRequired?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) standardFlowEnabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) implicitFlowEnabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) directAccessGrantsEnabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) serviceAccountsEnabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) publicClient?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) frontchannelLogout?: boolean;
  @Field(() => Protocol, { nullable: true }) protocol?: string;
  @Field(() => JSONObject, { nullable: true }) attributes?: Record<string, string>;
  @Field(() => JSONObject, { nullable: true }) authenticationFlowBindingOverrides?: Record<string, string>;
  @Field(() => GraphQLBoolean, { nullable: true }) fullScopeAllowed?: boolean;
  @Field(() => SafeInt, { nullable: true }) nodeReRegistrationTimeout?: number;
  @Field(() => JSONObject, { nullable: true, description: 'Registered cluster nodes: node → epoch seconds.' }) registeredNodes?: Record<
    string,
    number
  >;
  @Field(() => JSONObject, { nullable: true, description: "The caller's `{view, configure, manage}` on the client." }) access?: Record<
    string,
    boolean
  >;
  @Field(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation!: Record<string, unknown>;
}

/** A client scope linked to a client (`GET /clients/{id}/default-client-scopes`). */
@ObjectType({ description: 'A client scope linked to a client as default or optional: `{id, name}`.' })
export class ClientScopeLink {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
}

/** A client secret (Keycloak CredentialRepresentation of `/clients/{id}/client-secret`). */
@ObjectType({ description: 'A client secret (CredentialRepresentation `{type: "secret", value}`).' })
export class ClientSecret {
  @Field(() => GraphQLString) type!: string;
  @Field(() => GraphQLString, { nullable: true }) value?: string;
}
