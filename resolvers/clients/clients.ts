import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { listClientScopeLinks, type ScopeKind } from '../../src/services/client-scopes/client-scope-links';
import { getServiceAccountUser } from '../../src/services/clients/client-service-account';
import { getClient, listClients } from '../../src/services/clients/clients';
import type { RequestContext } from '../../src/core/context';
import { listMappers } from '../../src/services/client-scopes/protocol-mappers';
import { clientScopeOwner } from '../../src/services/client-scopes/scope-owner';
import { resolveRealm } from '../../src/services/realms/realms';
import { getRole, listRoles } from '../../src/services/roles/roles';
import { Client, ClientScopeLink, clientModel } from './types';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { Realm } from '../realms/types';
import { Role } from '../roles/types';
import { JSONObject } from '../types/scalars';
import { User } from '../users/types';
import { ProtocolMapper } from '../client-scopes/types';

const opt = { nullable: true } as const;

/** Realm → clients: `GET /clients`, `/clients/{id}`. */
@Resolver(() => Realm)
export class RealmClientsResolver {
  @FieldResolver(() => [Client], { description: 'Clients by clientId (GET /clients): exact clientId, substring with search, or all.' })
  async clients(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('clientId', () => GraphQLString, opt) clientId?: string,
    @Arg('search', () => GraphQLBoolean, opt) search?: boolean,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(realm), await listClients(ctx, realmOf(realm), plain({ clientId, search, first, max })));
  }

  @FieldResolver(() => Client, { description: 'One client by UUID (GET /clients/{id}).' })
  async client(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('id', () => GraphQLID) id: string): Promise<InRealm> {
    return inRealm(realmOf(realm), await getClient(ctx, realmOf(realm), id));
  }
}

/** Client relations: roles, linked client scopes, protocol mappers, service-account user. */
@Resolver(() => Client)
export class ClientResolver {
  @Query(() => Client, { description: 'One client of a realm by UUID (GET /admin/realms/{realm}/clients/{id}).' })
  async client(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getClient(ctx, r, id));
  }

  @FieldResolver(() => [Role], { description: 'Client roles by name (GET /clients/{id}/roles).' })
  async roles(
    @Root() client: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt) search?: string,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(client), await listRoles(ctx, realmOf(client), String(client.id), plain({ search, first, max })));
  }

  @FieldResolver(() => Role, { description: 'One client role by name (GET /clients/{id}/roles/{name}).' })
  async role(@Root() client: InRealm, @Ctx() ctx: RequestContext, @Arg('name', () => GraphQLString) name: string): Promise<InRealm> {
    return inRealm(realmOf(client), await getRole(ctx, realmOf(client), { name, clientUuid: String(client.id) }));
  }

  @FieldResolver(() => [ClientScopeLink], {
    description: 'Default client scopes of the client protocol (GET /clients/{id}/default-client-scopes).',
  })
  defaultClientScopes(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<Array<{ id: string; name: string }>> {
    return scopeLinks(ctx, client, 'default');
  }

  @FieldResolver(() => [ClientScopeLink], { description: 'Optional client scopes (GET /clients/{id}/optional-client-scopes).' })
  optionalClientScopes(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<Array<{ id: string; name: string }>> {
    return scopeLinks(ctx, client, 'optional');
  }

  @FieldResolver(() => [ProtocolMapper], { description: 'Protocol mappers (GET /clients/{id}/protocol-mappers/models).' })
  async protocolMappers(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listMappers(ctx, realmOf(client), clientScopeOwner(realmOf(client), await clientModel(ctx, client)));
  }

  @FieldResolver(() => User, {
    nullable: true,
    description: 'The service-account user (GET /clients/{id}/service-account-user); null when disabled.',
  })
  async serviceAccountUser(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm | null> {
    if (!client.serviceAccountsEnabled) return null;
    return inRealm(realmOf(client), await getServiceAccountUser(ctx, realmOf(client), await clientModel(ctx, client)));
  }

  @FieldResolver(() => JSONObject)
  representation(@Root() client: Rep): Rep {
    return client;
  }
}

const scopeLinks = async (ctx: RequestContext, client: InRealm, kind: ScopeKind) =>
  listClientScopeLinks(ctx, realmOf(client), await clientModel(ctx, client), kind);
