import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import {
  type ClientPolicies as PoliciesRep,
  type ClientProfiles as ProfilesRep,
  getClientPolicies,
  getClientProfiles,
  updateClientPolicies,
  updateClientProfiles,
} from '../../src/services/clients/client-policies';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, type Rep, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { JSON as JSONScalar } from '../types/scalars';

const opt = { nullable: true } as const;

@Directive('@representation(name: "ClientPolicyExecutorRepresentation")')
@ObjectType({ description: 'An executor of a client profile (Keycloak ClientPolicyExecutorRepresentation).' })
export class ClientPolicyExecutor {
  @Field(() => GraphQLString, opt) executor?: string;
  @Field(() => JSONScalar, opt) configuration?: unknown;
}

@Directive('@representation(name: "ClientProfileRepresentation")')
@ObjectType({ description: 'A client profile (Keycloak ClientProfileRepresentation).' })
export class ClientProfile {
  @Field(() => GraphQLString, opt) name?: string;
  @Field(() => GraphQLString, opt) description?: string;
  @Field(() => [ClientPolicyExecutor], opt) executors?: ClientPolicyExecutor[];
}

@Directive('@representation(name: "ClientProfilesRepresentation")')
@ObjectType({ description: "A realm's client profiles (Keycloak ClientProfilesRepresentation)." })
export class ClientProfiles {
  @Field(() => [ClientProfile]) profiles!: ClientProfile[];
  @Field(() => [ClientProfile], { nullable: true, description: 'The global profiles, when asked for.' }) globalProfiles?: ClientProfile[];
}

@Directive('@representation(name: "ClientPolicyConditionRepresentation")')
@ObjectType({ description: 'A condition of a client policy (Keycloak ClientPolicyConditionRepresentation).' })
export class ClientPolicyCondition {
  @Field(() => GraphQLString, opt) condition?: string;
  @Field(() => JSONScalar, opt) configuration?: unknown;
}

@Directive('@representation(name: "ClientPolicyRepresentation")')
@ObjectType({ description: 'A client policy (Keycloak ClientPolicyRepresentation).' })
export class ClientPolicy {
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, opt) description?: string;
  @Field(() => GraphQLBoolean) enabled!: boolean;
  @Field(() => [ClientPolicyCondition]) conditions!: ClientPolicyCondition[];
  @Field(() => [GraphQLString]) profiles!: string[];
}

@Directive('@representation(name: "ClientPoliciesRepresentation")')
@ObjectType({ description: "A realm's client policies (Keycloak ClientPoliciesRepresentation)." })
export class ClientPolicies {
  @Field(() => [ClientPolicy]) policies!: ClientPolicy[];
  @Field(() => [ClientPolicy], { nullable: true, description: 'The global policies, when asked for.' }) globalPolicies?: ClientPolicy[];
}

const ProfilesInput = representationInput('ClientProfilesRepresentation');
const PoliciesInput = representationInput('ClientPoliciesRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);

/** Client profiles and policies of a realm (GET/PUT /{realm}/client-policies/{profiles|policies}). */
@Resolver(() => Realm)
export class ClientPoliciesResolver {
  @FieldResolver(() => ClientProfiles, { description: 'Client profiles (GET /client-policies/profiles).' })
  async clientProfiles(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('includeGlobalProfiles', () => GraphQLBoolean, opt) includeGlobal?: boolean,
  ): Promise<ProfilesRep> {
    return getClientProfiles(ctx, realmOf(realm), includeGlobal ?? false);
  }

  @FieldResolver(() => ClientPolicies, { description: 'Client policies (GET /client-policies/policies).' })
  async clientPolicies(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('includeGlobalPolicies', () => GraphQLBoolean, opt) includeGlobal?: boolean,
  ): Promise<PoliciesRep> {
    return getClientPolicies(ctx, realmOf(realm), includeGlobal ?? false);
  }

  @Mutation(() => ClientProfiles, { description: 'Replaces the client profiles (PUT /client-policies/profiles); returns them.' })
  async updateClientProfiles(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => ProfilesInput) input: Rep,
  ): Promise<ProfilesRep> {
    const r = await resolveRealm(ctx, realm);
    await updateClientProfiles(ctx, r, plain<Rep>(input));
    return getClientProfiles(ctx, r);
  }

  @Mutation(() => ClientPolicies, { description: 'Replaces the client policies (PUT /client-policies/policies); returns them.' })
  async updateClientPolicies(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => PoliciesInput) input: Rep,
  ): Promise<PoliciesRep> {
    const r = await resolveRealm(ctx, realm);
    await updateClientPolicies(ctx, r, plain<Rep>(input));
    return getClientPolicies(ctx, r);
  }
}
