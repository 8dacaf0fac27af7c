import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import type { ProtocolMapperRepresentation } from '../../src/representations/protocol-mapper';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  addMappers,
  createMapper,
  deleteMapper,
  getMapper,
  listMappers,
  listMappersByProtocol,
  updateMapper,
} from '../../src/services/client-scopes/protocol-mappers';
import { resolveRealm } from '../../src/services/realms/realms';
import { findScopeOwner } from '../../src/services/client-scopes/scope-owner';
import { ownerType, ScopeOwner } from './client-scopes';
import { ProtocolMapper } from './types';
import { plain, type Rep } from '../types/common';
import { writeInput } from '../types/inputs';

const MapperCreateInput = writeInput('ProtocolMapperRepresentation', 'create');
const MapperUpdateInput = writeInput('ProtocolMapperRepresentation', 'update');
const realmArg = () => Arg('realm', () => GraphQLString);
const ownerArg = () => Arg('owner', () => ScopeOwner);
const ownerIdArg = () => Arg('ownerId', () => GraphQLID, { description: 'The client UUID or client scope id.' });

/** Protocol mappers of clients and client scopes (`/{clients|client-scopes}/{id}/protocol-mappers/...`). */
@Resolver(() => ProtocolMapper)
export class ProtocolMapperResolver {
  @Query(() => [ProtocolMapper], {
    description:
      'Protocol mappers of a client or client scope (GET .../protocol-mappers/models); with `protocol`, those of one protocol (GET .../protocol-mappers/protocol/{protocol}).',
  })
  async protocolMappers(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('protocol', () => GraphQLString, { nullable: true, description: 'Only mappers of this protocol, e.g. openid-connect or saml.' })
    protocol?: string | null,
  ): Promise<Rep[]> {
    const r = await resolveRealm(ctx, realm);
    const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
    return protocol == null ? listMappers(ctx, r, o) : listMappersByProtocol(ctx, r, o, protocol);
  }

  @Query(() => ProtocolMapper, {
    description: 'One protocol mapper of a client or client scope by id (GET .../protocol-mappers/models/{id}).',
  })
  async protocolMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    return getMapper(ctx, r, await findScopeOwner(ctx, r, ownerType(owner), ownerId), id);
  }

  @Mutation(() => ProtocolMapper, { description: 'Creates a protocol mapper (POST .../protocol-mappers/models).' })
  async createProtocolMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('input', () => MapperCreateInput) input: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
    const id = await createMapper(ctx, r, o, plain<ProtocolMapperRepresentation>(input));
    return getMapper(ctx, r, o, id);
  }

  @Mutation(() => [ProtocolMapper], {
    description: 'Adds several mappers, all or none (POST .../protocol-mappers/add-models); returns all mappers of the owner.',
  })
  async addProtocolMappers(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('input', () => [MapperCreateInput]) input: Rep[],
  ): Promise<Rep[]> {
    const r = await resolveRealm(ctx, realm);
    const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
    await addMappers(ctx, r, o, plain<ProtocolMapperRepresentation[]>(input));
    return listMappers(ctx, r, o);
  }

  @Mutation(() => ProtocolMapper, { description: 'Replaces a protocol mapper (PUT .../protocol-mappers/models/{id}).' })
  async updateProtocolMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('input', () => MapperUpdateInput) input: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
    await updateMapper(ctx, r, o, id, plain<ProtocolMapperRepresentation>(input));
    return getMapper(ctx, r, o, id);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a protocol mapper (DELETE .../protocol-mappers/models/{id}).' })
  async deleteProtocolMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await deleteMapper(ctx, r, await findScopeOwner(ctx, r, ownerType(owner), ownerId), id);
    return true;
  }
}
