import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { registerClientNode, unregisterClientNode } from '../../src/services/clients/client-nodes';
import { issueRegistrationAccessToken, removeRotatedSecret } from '../../src/services/clients/client-secret';
import { resolveClient } from '../../src/services/clients/clients';
import type { RequestContext } from '../../src/core/context';
import { disableCredentialTypes } from '../../src/services/users/credentials';
import { resolveUser } from '../../src/services/users/users';
import { resolveRealm } from '../../src/services/realms/realms';
import { getUserProfile, updateUserProfile } from '../../src/services/users/user-profile';
import { type WhoAmI as WhoAmIRep, credentialRegistrators, whoAmI } from '../../src/services/realms/whoami';
import { type InRealm, realmOf } from '../types/common';
import { Realm } from './types';
import { JSONObject } from '../types/scalars';

const realmArg = () => Arg('realm', () => GraphQLString);
const clientArg = () => Arg('id', () => GraphQLID, { description: 'Client UUID.' });

@ObjectType({ description: "The admin console's view of its caller (GET /admin/{realm}/console/whoami)." })
export class WhoAmI {
  @Field(() => GraphQLID) userId!: string;
  @Field(() => GraphQLString, { description: "The caller's realm." }) realm!: string;
  @Field(() => GraphQLString) displayName!: string;
  @Field(() => GraphQLString) locale!: string;
  @Field(() => GraphQLBoolean, { description: 'Whether the caller may create realms.' }) createRealm!: boolean;
  @Field(() => JSONObject, { name: 'realmAccess', description: 'realm_access of REST: realm name → admin roles held on it.' })
  realm_access!: Record<string, string[]>;
  @Field(() => GraphQLBoolean, { description: 'Whether the caller is the temporary bootstrap admin.' }) temporary!: boolean;
}

/**
 * The remaining admin operations of REST in GraphQL: client secret rotation, registration token, nodes, user profile,
 * credential registrators and the console's whoami.
 */
@Resolver(() => Realm)
export class AdminExtrasResolver {
  @FieldResolver(() => JSONObject, { description: "The realm's user-profile configuration (GET /users/profile)." })
  async userProfile(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<object> {
    return getUserProfile(ctx, realmOf(realm));
  }

  @FieldResolver(() => [GraphQLString], {
    description: 'Provider ids of the enabled credential-registering required actions (GET /credential-registrators).',
  })
  credentialRegistrators(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<string[]> {
    return credentialRegistrators(ctx, realmOf(realm));
  }

  @Query(() => WhoAmI, {
    description:
      "The admin console's caller (GET /admin/{realm}/console/whoami): `realm` is the caller's realm, `currentRealm` the realm viewed. " +
      'Only a token of the admin console client is accepted.',
  })
  whoAmI(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('currentRealm', () => GraphQLString, { nullable: true }) currentRealm?: string,
  ): Promise<WhoAmIRep> {
    return whoAmI(ctx, realm, currentRealm ?? undefined);
  }

  @Mutation(() => JSONObject, { description: 'Replaces the user-profile configuration (PUT /users/profile); returns the stored one.' })
  async updateUserProfile(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('config', () => JSONObject) config: object,
  ): Promise<object> {
    return updateUserProfile(ctx, await resolveRealm(ctx, realm), config);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes credentials of the given types (PUT /users/{id}/disable-credential-types).' })
  async disableCredentialTypes(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('types', () => [GraphQLString]) types: string[],
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await disableCredentialTypes(ctx, r, await resolveUser(ctx, r, userId), types);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Invalidates the rotated client secret (DELETE /clients/{id}/client-secret/rotated).' })
  async invalidateRotatedClientSecret(@Ctx() ctx: RequestContext, @realmArg() realm: string, @clientArg() id: string): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await removeRotatedSecret(ctx, r, await resolveClient(ctx, r, id));
    return true;
  }

  @Mutation(() => JSONObject, {
    description: 'Issues a new registration access token (POST /clients/{id}/registration-access-token); returns the client with it.',
  })
  async regenerateRegistrationAccessToken(@Ctx() ctx: RequestContext, @realmArg() realm: string, @clientArg() id: string): Promise<object> {
    const r = await resolveRealm(ctx, realm);
    return issueRegistrationAccessToken(ctx, r, await resolveClient(ctx, r, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Registers a cluster node of a client (POST /clients/{id}/nodes).' })
  async registerClientNode(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @clientArg() id: string,
    @Arg('node', () => GraphQLString) node: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await registerClientNode(ctx, r, await resolveClient(ctx, r, id), { node });
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Unregisters a cluster node of a client (DELETE /clients/{id}/nodes/{node}).' })
  async unregisterClientNode(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @clientArg() id: string,
    @Arg('node', () => GraphQLString) node: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await unregisterClientNode(ctx, r, await resolveClient(ctx, r, id), node);
    return true;
  }
}
