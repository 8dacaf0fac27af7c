import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  type ProviderList,
  getConfigDescription,
  getPerClientConfigDescription,
  listProviders,
} from '../../src/services/authentication/configs';
import { getRequiredActionConfigDescription, listUnregisteredRequiredActions } from '../../src/services/authentication/required-actions';
import { resolveRealm } from '../../src/services/realms/realms';
import { ConfigProperty } from '../clients/registration-types';
import { Realm } from '../realms/types';
import { type InRealm, type Rep, realmOf } from '../types/common';

/**
 * GraphQL over the catalogues of authentication management: the provider lists, the config
 * descriptions and the required-action providers not yet registered (the same services as
 * `/{realm}/authentication/...`). Config properties reuse the one GraphQL type of Keycloak's
 * ConfigPropertyRepresentation.
 */
@ObjectType({
  description: 'An authenticator, client authenticator, form or form action provider (an entry of GET /authentication/*-providers).',
})
export class AuthenticatorProviderInfo {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) displayName!: string;
  @Field(() => GraphQLString) description!: string;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Client authenticators only: whether it uses the client secret.' })
  supportsSecret?: boolean;
}

@ObjectType({ description: "An authenticator's config description (Keycloak AuthenticatorConfigInfoRepresentation)." })
export class AuthenticatorConfigInfo {
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString, { nullable: true }) helpText?: string;
  @Field(() => [ConfigProperty]) properties!: Rep[];
}

@ObjectType({
  description: 'The per-client config properties of one client authenticator (an entry of GET /per-client-config-description).',
})
export class ClientAuthenticatorConfigDescription {
  @Field(() => GraphQLString, { description: 'The client authenticator id.' }) providerId!: string;
  @Field(() => [ConfigProperty]) properties!: Rep[];
}

@ObjectType({ description: 'A required-action provider that is not registered in the realm yet.' })
export class UnregisteredRequiredAction {
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLString) name!: string;
}

@ObjectType({ description: "A configurable required action's config properties (Keycloak RequiredActionConfigInfoRepresentation)." })
export class RequiredActionConfigInfo {
  @Field(() => [ConfigProperty]) properties!: Rep[];
}

const realmArg = () => Arg('realm', () => GraphQLString);
const list = (r: InRealm, ctx: RequestContext, which: ProviderList) => listProviders(ctx, realmOf(r), which);

/** Realm → provider catalogues; config descriptions by provider id or required-action alias. */
@Resolver(() => Realm)
export class AuthenticationCatalogueResolver {
  @FieldResolver(() => [AuthenticatorProviderInfo], { description: 'GET /authentication/authenticator-providers.' })
  authenticatorProviders(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return list(r, ctx, 'authenticator');
  }

  @FieldResolver(() => [AuthenticatorProviderInfo], { description: 'GET /authentication/client-authenticator-providers.' })
  clientAuthenticatorProviders(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return list(r, ctx, 'client-authenticator');
  }

  @FieldResolver(() => [AuthenticatorProviderInfo], { description: 'GET /authentication/form-providers.' })
  formProviders(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return list(r, ctx, 'form');
  }

  @FieldResolver(() => [AuthenticatorProviderInfo], { description: 'GET /authentication/form-action-providers.' })
  formActionProviders(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return list(r, ctx, 'form-action');
  }

  @FieldResolver(() => [ClientAuthenticatorConfigDescription], {
    description: 'GET /authentication/per-client-config-description, one entry per client authenticator (the map of REST as a list).',
  })
  async perClientConfigDescription(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    const byProvider = await getPerClientConfigDescription(ctx, realmOf(r));
    return Object.entries(byProvider).map(([providerId, properties]) => ({ providerId, properties }));
  }

  @FieldResolver(() => [UnregisteredRequiredAction], { description: 'GET /authentication/unregistered-required-actions.' })
  unregisteredRequiredActions(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listUnregisteredRequiredActions(ctx, realmOf(r));
  }

  @Query(() => AuthenticatorConfigInfo, {
    description: "An authenticator's config description (GET /authentication/config-description/{providerId}).",
  })
  async authenticatorConfigDescription(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('providerId', () => GraphQLString) providerId: string,
  ): Promise<Rep> {
    return getConfigDescription(ctx, await resolveRealm(ctx, realm), providerId);
  }

  @Query(() => RequiredActionConfigInfo, {
    description: "A configurable required action's config properties (GET /authentication/required-actions/{alias}/config-description).",
  })
  async requiredActionConfigDescription(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('alias', () => GraphQLString) alias: string,
  ): Promise<Rep> {
    return getRequiredActionConfigDescription(ctx, await resolveRealm(ctx, realm), alias);
  }
}
