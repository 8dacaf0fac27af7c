import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import type { RealmModel } from '../../src/db/models/realm';
import {
  addRoleMappingsTo,
  listMappedRoles,
  removeRoleMappings,
  resolveMappingOwner,
  type MappingOwner as Owner,
  type MappingOwnerType,
} from '../../src/services/roles/role-mappings';
import { type InRealm, type Rep, allInRealm, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { ClientMappings, Role, RoleMappings } from './types';

/** Who holds role mappings: the `{owner}` of `/{users|groups}/{id}/role-mappings`. */
export enum MappingOwner {
  USER = 'users',
  GROUP = 'groups',
}
registerEnumType(MappingOwner, { name: 'MappingOwner', description: 'The holder of role mappings: a user or a group.' });

const RoleInput = representationInput('RoleRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const ownerArg = () => Arg('owner', () => MappingOwner);
const ownerIdArg = () => Arg('ownerId', () => GraphQLID, { description: 'The user or group id.' });
const clientArg = () => Arg('clientId', () => GraphQLID, { description: 'Client UUID.' });
const rolesArg = () => Arg('roles', () => [RoleInput], { description: 'Roles of the container, each with its id and name.' });

/**
 * Role-mapping writes for users and groups (`POST/DELETE .../role-mappings/realm` and
 * `.../role-mappings/clients/{client}`). Each returns the owner's direct mappings of that container afterwards.
 */
@Resolver(() => RoleMappings)
export class RoleMappingsResolver {
  @Mutation(() => [Role], { description: 'Maps realm roles to a user or group.' })
  async addRealmRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (r, o) => addRoleMappingsTo(ctx, r, o, undefined, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes realm-role mappings of a user or group.' })
  async removeRealmRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (r, o) => removeRoleMappings(ctx, r, o, undefined, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Maps roles of a client to a user or group.' })
  async addClientRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientId, (r, o) => addRoleMappingsTo(ctx, r, o, clientId, plain(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes client-role mappings of a user or group.' })
  async removeClientRoleMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: MappingOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientId, (r, o) => removeRoleMappings(ctx, r, o, clientId, plain(roles)));
  }

  @FieldResolver(() => [Role])
  realmMappings(@Root() mappings: InRealm): InRealm[] {
    return allInRealm(realmOf(mappings), (mappings.realmMappings as Rep[] | undefined) ?? []);
  }

  @FieldResolver(() => [ClientMappings])
  clientMappings(@Root() mappings: InRealm): Rep[] {
    const byClient = (mappings.clientMappings as Record<string, Rep> | undefined) ?? {};
    return Object.values(byClient).map((m) => ({ ...m, mappings: allInRealm(realmOf(mappings), (m.mappings as Rep[]) ?? []) }));
  }
}

/** Resolves the owner once, runs one mapping write, then reads the owner's direct mappings of the container. */
async function change(
  ctx: RequestContext,
  realm: string,
  owner: MappingOwner,
  ownerId: string,
  clientId: string | undefined,
  write: (r: RealmModel, o: Owner) => Promise<void>,
): Promise<InRealm[]> {
  const r = await resolveRealm(ctx, realm);
  const o = await resolveMappingOwner(ctx, r, owner as MappingOwnerType, ownerId);
  await write(r, o);
  return allInRealm(r, await listMappedRoles(ctx, r, o, clientId));
}
