import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, InputType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { type ClientListQuery, listClients } from '../../src/services/clients/clients';
import { type InRealm, allInRealm, plain, realmOf } from '../types/common';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';
import { Realm } from '../realms/types';
import { Client } from './types';

@InputType({ description: 'Which clients to list: the filters of GET /clients.' })
export class ClientFilter {
  @Field(() => GraphQLString, { nullable: true, description: 'The clientId (exact), or an infix of it with `search`.' })
  clientId?: string;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Treat clientId as a case-insensitive infix.' })
  search?: boolean;
  @Field(() => GraphQLString, { nullable: true, description: 'Attribute query `key:value key2:value2` (all must match).' })
  q?: string;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Only the clients the caller may view.' })
  viewableOnly?: boolean;
}

const ClientConnection = connectionType(Client, 'Client');

/** Realm → clients as a connection (GET /clients). */
@Resolver(() => Realm)
export class RealmClientConnectionResolver {
  @FieldResolver(() => ClientConnection, { description: 'Clients by clientId, a page at a time (GET /clients).' })
  async clientsConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => ClientFilter, { nullable: true, description: 'Only clients matching all of these.' }) filter?: ClientFilter,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(realm);
    const query = plain<ClientListQuery>(filter ?? {});
    return connection(
      page,
      async (first, max) => allInRealm(r, await listClients(ctx, r, { ...query, first, max })),
      async () => (await listClients(ctx, r, query)).length,
    );
  }
}
