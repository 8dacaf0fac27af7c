import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { addClientScopeLink, removeClientScopeLink, type ScopeKind } from '../../src/services/client-scopes/client-scope-links';
import { type Credential, regenerateClientSecret } from '../../src/services/clients/client-secret';
import { createClient, deleteClient, updateClient } from '../../src/services/clients/client-writes';
import { getClient, resolveClient } from '../../src/services/clients/clients';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { Client, ClientSecret } from './types';
import { type InRealm, inRealm, plain, type Rep } from '../types/common';
import { writeInput } from '../types/inputs';

const ClientCreateInput = writeInput('ClientRepresentation', 'create');
const ClientUpdateInput = writeInput('ClientRepresentation', 'update');
const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID, { description: 'Client UUID.' });
const scopeArg = () => Arg('scopeId', () => GraphQLID);

/** Client writes: `POST/PUT/DELETE /clients[/{id}]`, secret regeneration, default/optional scope links. */
@Resolver(() => Client)
export class ClientWritesResolver {
  @Mutation(() => Client, { description: 'Creates a client (POST /clients); returns it as GET /clients/{id} does.' })
  async createClient(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => ClientCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getClient(ctx, r, await createClient(ctx, r, plain(input))));
  }

  @Mutation(() => Client, { description: 'Updates a client with merge semantics (PUT /clients/{id}); returns it.' })
  async updateClient(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('input', () => ClientUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const rep = plain(input);
    // Merge semantics: an omitted authorizationServicesEnabled keeps the client's resource server
    // (REST's PUT, as Keycloak's, takes an absent flag for false and removes it).
    if (rep.authorizationServicesEnabled === undefined) {
      rep.authorizationServicesEnabled = (await getClient(ctx, r, id)).authorizationServicesEnabled === true;
    }
    await updateClient(ctx, r, id, rep);
    return inRealm(r, await getClient(ctx, r, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a client and everything hanging off it (DELETE /clients/{id}).' })
  async deleteClient(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    await deleteClient(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }

  @Mutation(() => ClientSecret, { description: 'Generates and stores a new client secret (POST /clients/{id}/client-secret).' })
  async regenerateClientSecret(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<Credential> {
    const r = await resolveRealm(ctx, realm);
    return regenerateClientSecret(ctx, r, await resolveClient(ctx, r, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Links a default client scope (PUT /clients/{id}/default-client-scopes/{scopeId}).' })
  addClientDefaultScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @scopeArg() scopeId: string,
  ): Promise<boolean> {
    return link(ctx, realm, id, scopeId, 'default', true);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Unlinks a client scope (DELETE /clients/{id}/default-client-scopes/{scopeId}).' })
  removeClientDefaultScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @scopeArg() scopeId: string,
  ): Promise<boolean> {
    return link(ctx, realm, id, scopeId, 'default', false);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Links an optional client scope (PUT /clients/{id}/optional-client-scopes/{scopeId}).' })
  addClientOptionalScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @scopeArg() scopeId: string,
  ): Promise<boolean> {
    return link(ctx, realm, id, scopeId, 'optional', true);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Unlinks a client scope (DELETE /clients/{id}/optional-client-scopes/{scopeId}).' })
  removeClientOptionalScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @scopeArg() scopeId: string,
  ): Promise<boolean> {
    return link(ctx, realm, id, scopeId, 'optional', false);
  }
}

async function link(ctx: RequestContext, realm: string, id: string, scopeId: string, kind: ScopeKind, add: boolean): Promise<boolean> {
  const r = await resolveRealm(ctx, realm);
  await (add ? addClientScopeLink : removeClientScopeLink)(ctx, r, await resolveClient(ctx, r, id), scopeId, kind);
  return true;
}
