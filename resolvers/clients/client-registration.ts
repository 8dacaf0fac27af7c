import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import {
  createClientInitialAccess,
  deleteClientInitialAccess,
  listClientInitialAccess,
} from '../../src/services/clients/client-initial-access';
import { clientRegistrationPolicyProviders } from '../../src/services/clients/client-registration-policy';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, type Rep, plain, realmOf } from '../types/common';
import { ClientInitialAccess, ClientRegistrationPolicyProvider } from './registration-types';
import { representationInput } from '../types/inputs';
import { Realm } from '../realms/types';

const CreateInput = representationInput('ClientInitialAccessCreatePresentation');

/** Realm → client registration: initial access entries and registration policy providers. */
@Resolver(() => Realm)
export class ClientRegistrationResolver {
  @FieldResolver(() => [ClientInitialAccess], {
    description: 'Unexpired client initial access entries, without tokens (GET /clients-initial-access).',
  })
  clientInitialAccess(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listClientInitialAccess(ctx, realmOf(realm)) as unknown as Promise<Rep[]>;
  }

  @FieldResolver(() => [ClientRegistrationPolicyProvider], {
    description: 'Client registration policy providers with their config properties (GET /client-registration-policy/providers).',
  })
  clientRegistrationPolicyProviders(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return clientRegistrationPolicyProviders(ctx, realmOf(realm)) as unknown as Promise<Rep[]>;
  }

  @Mutation(() => ClientInitialAccess, {
    description: 'Creates a client initial access token, returned once (POST /clients-initial-access).',
  })
  async createClientInitialAccess(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('input', () => CreateInput, { nullable: true }) input?: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    return (await createClientInitialAccess(ctx, r, plain(input ?? {}))) as unknown as Rep;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a client initial access entry (DELETE /clients-initial-access/{id}).' })
  async deleteClientInitialAccess(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<boolean> {
    await deleteClientInitialAccess(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }
}
