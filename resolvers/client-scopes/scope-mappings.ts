import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import {
  addScopeMappingsTo,
  listScopeMappedRoles,
  removeScopeMappings,
  type ScopeRoleRep,
} from '../../src/services/client-scopes/scope-mappings';
import { type ScopeOwner as Owner, findScopeOwner } from '../../src/services/client-scopes/scope-owner';
import { ScopeOwner, ownerType } from './client-scopes';
import { type InRealm, type Rep, allInRealm, plain } from '../types/common';
import { representationInput } from '../types/inputs';
import { Role } from '../roles/types';

const RoleInput = representationInput('RoleRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const ownerArg = () => Arg('owner', () => ScopeOwner);
const ownerIdArg = () => Arg('ownerId', () => GraphQLID, { description: 'The client UUID or client scope id.' });
const clientArg = () => Arg('clientId', () => GraphQLID, { description: 'UUID of the client whose roles are mapped.' });
const rolesArg = () => Arg('roles', () => [RoleInput], { description: 'Realm roles by id; client roles by name.' });

type Write = (ctx: RequestContext, r: Awaited<ReturnType<typeof resolveRealm>>, o: Owner) => Promise<void>;

/** Runs one scope-mapping write, then returns the owner's direct mappings of that container. */
async function change(
  ctx: RequestContext,
  realm: string,
  owner: ScopeOwner,
  ownerId: string,
  clientId: string | undefined,
  write: Write,
): Promise<InRealm[]> {
  const r = await resolveRealm(ctx, realm);
  const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
  await write(ctx, r, o);
  return allInRealm(r, await listScopeMappedRoles(ctx, r, o, clientId));
}

/** Scope-mapping writes of clients and client scopes (`POST/DELETE .../scope-mappings/realm|clients/{client}`). */
@Resolver()
export class ScopeMappingsResolver {
  @Mutation(() => [Role], { description: 'Adds realm roles to the scope of a client or client scope.' })
  addRealmScopeMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (c, r, o) => addScopeMappingsTo(c, r, o, undefined, plain<ScopeRoleRep[]>(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes realm roles from the scope of a client or client scope.' })
  removeRealmScopeMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, undefined, (c, r, o) =>
      removeScopeMappings(c, r, o, undefined, plain<ScopeRoleRep[]>(roles)),
    );
  }

  @Mutation(() => [Role], { description: 'Adds roles of a client to the scope of a client or client scope.' })
  addClientScopeMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientId, (c, r, o) => addScopeMappingsTo(c, r, o, clientId, plain<ScopeRoleRep[]>(roles)));
  }

  @Mutation(() => [Role], { description: 'Removes roles of a client from the scope of a client or client scope.' })
  removeClientScopeMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientId: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientId, (c, r, o) => removeScopeMappings(c, r, o, clientId, plain<ScopeRoleRep[]>(roles)));
  }
}
