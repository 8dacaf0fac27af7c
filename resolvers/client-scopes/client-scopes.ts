import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import type { ClientScopeRepresentation } from '../../src/representations/client-scope';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root, registerEnumType } from 'type-graphql';
import {
  addRealmDefaultScope,
  createClientScope,
  deleteClientScope,
  getClientScope,
  listClientScopes,
  listRealmDefaultScopes,
  type RealmScopeList,
  removeRealmDefaultScope,
  updateClientScope,
} from '../../src/services/client-scopes/client-scopes';
import { findScopeOwner, type ScopeOwnerType } from '../../src/services/client-scopes/scope-owner';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { getScopeMappings } from '../../src/services/client-scopes/scope-mappings';
import { Client } from '../clients/types';
import { ClientScope, ClientScopeRef, ProtocolMapper } from './types';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { writeInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { RoleMappings } from '../roles/types';
import { JSONObject } from '../types/scalars';

/** The owner of protocol mappers and scope mappings: `/{clients|client-scopes}/{id}`. */
export enum ScopeOwner {
  CLIENT = 'clients',
  CLIENT_SCOPE = 'client-scopes',
}
registerEnumType(ScopeOwner, {
  name: 'ScopeOwner',
  description: 'The owner of protocol mappers and scope mappings: a client or a client scope.',
  valuesConfig: {
    CLIENT: { description: 'A client (`/clients/{id}`); the owner id is its UUID.' },
    CLIENT_SCOPE: { description: 'A client scope (`/client-scopes/{id}`).' },
  },
});

export enum RealmScopeListKind {
  DEFAULT = 'default',
  OPTIONAL = 'optional',
}
registerEnumType(RealmScopeListKind, {
  name: 'RealmScopeList',
  description: 'The realm default (default-default) or optional client scope list.',
  valuesConfig: {
    DEFAULT: { description: 'Scopes every new client gets as default scopes (`/default-default-client-scopes`).' },
    OPTIONAL: { description: 'Scopes every new client gets as optional scopes (`/default-optional-client-scopes`).' },
  },
});

const ScopeCreateInput = writeInput('ClientScopeRepresentation', 'create');
const ScopeUpdateInput = writeInput('ClientScopeRepresentation', 'update');
const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID);
const listArg = () => Arg('list', () => RealmScopeListKind);

/** Realm → client scopes (`GET /client-scopes`) and the realm default lists. */
@Resolver(() => Realm)
export class RealmClientScopesResolver {
  @FieldResolver(() => [ClientScope], { description: 'Client scopes of the realm with their protocol mappers (GET /client-scopes).' })
  async clientScopes(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(realm), await listClientScopes(ctx, realmOf(realm)));
  }

  @FieldResolver(() => [ClientScopeRef], { description: 'GET /default-default-client-scopes or /default-optional-client-scopes.' })
  async defaultClientScopes(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @listArg() list: RealmScopeListKind): Promise<Rep[]> {
    return listRealmDefaultScopes(ctx, realmOf(realm), list as RealmScopeList);
  }
}

/** Client scope queries, relations and writes. */
@Resolver(() => ClientScope)
export class ClientScopeResolver {
  @Query(() => ClientScope, { description: 'One client scope by id (GET /admin/realms/{realm}/client-scopes/{id}).' })
  async clientScope(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getClientScope(ctx, r, id));
  }

  @FieldResolver(() => [ProtocolMapper], { description: 'Protocol mappers of the scope (GET .../protocol-mappers/models).' })
  protocolMappers(@Root() scope: Rep): Rep[] {
    return (scope.protocolMappers as Rep[] | undefined) ?? [];
  }

  @FieldResolver(() => RoleMappings, { description: 'Direct scope mappings (GET /client-scopes/{id}/scope-mappings).' })
  async scopeMappings(@Root() scope: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm> {
    const r = realmOf(scope);
    return inRealm(r, await getScopeMappings(ctx, r, await findScopeOwner(ctx, r, 'client-scopes', String(scope.id))));
  }

  @FieldResolver(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation(@Root() scope: Rep): Rep {
    return scope;
  }

  @Mutation(() => ClientScope, { description: 'Creates a client scope (POST /client-scopes).' })
  async createClientScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => ScopeCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const id = await createClientScope(ctx, r, plain<ClientScopeRepresentation>(input));
    return inRealm(r, await getClientScope(ctx, r, id));
  }

  @Mutation(() => ClientScope, { description: 'Updates a client scope (PUT /client-scopes/{id}).' })
  async updateClientScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('input', () => ScopeUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await updateClientScope(ctx, r, id, plain<ClientScopeRepresentation>(input));
    return inRealm(r, await getClientScope(ctx, r, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a client scope (DELETE /client-scopes/{id}).' })
  async deleteClientScope(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    await deleteClientScope(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Adds a scope to a realm list (PUT /default-{default|optional}-client-scopes/{id}).' })
  async addRealmDefaultClientScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @listArg() list: RealmScopeListKind,
    @idArg() id: string,
  ): Promise<boolean> {
    await addRealmDefaultScope(ctx, await resolveRealm(ctx, realm), list as RealmScopeList, id);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Removes a scope from the realm lists (DELETE /default-{default|optional}-client-scopes/{id}).',
  })
  async removeRealmDefaultClientScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @listArg() list: RealmScopeListKind,
    @idArg() id: string,
  ): Promise<boolean> {
    await removeRealmDefaultScope(ctx, await resolveRealm(ctx, realm), list as RealmScopeList, id);
    return true;
  }
}

/** Client → its scope mappings (`GET /clients/{id}/scope-mappings`). */
@Resolver(() => Client)
export class ClientScopeMappingsResolver {
  @FieldResolver(() => RoleMappings, { description: 'Direct scope mappings of the client (GET /clients/{id}/scope-mappings).' })
  async scopeMappings(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm> {
    const r = realmOf(client);
    return inRealm(r, await getScopeMappings(ctx, r, await findScopeOwner(ctx, r, 'clients', String(client.id))));
  }
}

export const ownerType = (o: ScopeOwner) => o as ScopeOwnerType;
