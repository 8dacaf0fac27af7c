import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, type ClassType, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import {
  addScopeMappingsTo,
  listAvailableScopeRoles,
  listEffectiveScopeRoles,
  listScopeMappedRoles,
  removeScopeMappings,
  type ScopeRoleRep,
} from '../../src/services/client-scopes/scope-mappings';
import { type ScopeOwner as Owner, type ScopeOwnerType, findScopeOwner } from '../../src/services/client-scopes/scope-owner';
import { ScopeOwner, ownerType } from './client-scopes';
import { type InRealm, type Rep, allInRealm, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { Role } from '../roles/types';
import { Client } from '../clients/types';
import { ClientScope } from './types';

const RoleInput = representationInput('RoleRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const ownerArg = () => Arg('owner', () => ScopeOwner);
const ownerIdArg = () => Arg('ownerId', () => GraphQLID, { description: 'The client UUID or client scope id.' });
const clientArg = () => Arg('clientUuid', () => GraphQLID, { description: 'UUID of the client whose roles are mapped.' });
const rolesArg = () => Arg('roles', () => [RoleInput], { description: 'Realm roles by id; client roles by name.' });

type Write = (ctx: RequestContext, r: Awaited<ReturnType<typeof resolveRealm>>, o: Owner) => Promise<void>;

/** Runs one scope-mapping write, then returns the owner's direct mappings of that container. */
async function change(
  ctx: RequestContext,
  realm: string,
  owner: ScopeOwner,
  ownerId: string,
  clientUuid: string | undefined,
  write: Write,
): Promise<InRealm[]> {
  const r = await resolveRealm(ctx, realm);
  const o = await findScopeOwner(ctx, r, ownerType(owner), ownerId);
  await write(ctx, r, o);
  return allInRealm(r, await listScopeMappedRoles(ctx, r, o, clientUuid));
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
    @clientArg() clientUuid: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientUuid, (c, r, o) =>
      addScopeMappingsTo(c, r, o, clientUuid, plain<ScopeRoleRep[]>(roles)),
    );
  }

  @Mutation(() => [Role], { description: 'Removes roles of a client from the scope of a client or client scope.' })
  removeClientScopeMappings(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @ownerArg() owner: ScopeOwner,
    @ownerIdArg() ownerId: string,
    @clientArg() clientUuid: string,
    @rolesArg() roles: Rep[],
  ): Promise<InRealm[]> {
    return change(ctx, realm, owner, ownerId, clientUuid, (c, r, o) =>
      removeScopeMappings(c, r, o, clientUuid, plain<ScopeRoleRep[]>(roles)),
    );
  }
}

const clientUuidArg = () => Arg('clientUuid', () => GraphQLID, { description: 'UUID of the client whose roles are read.' });
const briefArg = () =>
  Arg('brief', () => GraphQLBoolean, { nullable: true, description: 'Brief representations (default true); false adds attributes.' });

/**
 * The read-only scope-mapping endpoints of one container as fields of a client or client scope
 * (`GET /{clients|client-scopes}/{id}/scope-mappings/clients/{client}` and
 * `.../realm|clients/{client}/available|composite`), one class per owner type; names follow
 * keycloak-admin-client (`listClientScopeMappings`, `listAvailableRealmScopeMappings`, ...).
 */
function scopeMappingReads(of: ClassType, type: ScopeOwnerType) {
  const path = `/${type}/{id}/scope-mappings`;
  const ownerOf = (ctx: RequestContext, root: InRealm) => findScopeOwner(ctx, realmOf(root), type, String(root.id));

  @Resolver(() => of)
  class ScopeMappingReadsResolver {
    @FieldResolver(() => [Role], {
      description: `Direct scope mappings of one client's roles (GET ${path}/clients/{client}); unknown client: NOT_FOUND.`,
    })
    async clientScopeMappings(@Root() root: InRealm, @Ctx() ctx: RequestContext, @clientUuidArg() clientUuid: string): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listScopeMappedRoles(ctx, realmOf(root), await ownerOf(ctx, root), clientUuid));
    }

    @FieldResolver(() => [Role], { description: `Realm roles not in scope that the caller may map (GET ${path}/realm/available).` })
    async availableRealmScopeMappings(@Root() root: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listAvailableScopeRoles(ctx, realmOf(root), await ownerOf(ctx, root)));
    }

    @FieldResolver(() => [Role], {
      description: `Realm roles effectively in scope: all with full scope, else mappings and their composites (GET ${path}/realm/composite).`,
    })
    async compositeRealmScopeMappings(@Root() root: InRealm, @Ctx() ctx: RequestContext, @briefArg() brief?: boolean): Promise<InRealm[]> {
      const r = realmOf(root);
      return allInRealm(r, await listEffectiveScopeRoles(ctx, r, await ownerOf(ctx, root), undefined, brief ?? true));
    }

    @FieldResolver(() => [Role], {
      description: `Roles of a client not in scope that the caller may map (GET ${path}/clients/{client}/available).`,
    })
    async availableClientScopeMappings(
      @Root() root: InRealm,
      @Ctx() ctx: RequestContext,
      @clientUuidArg() clientUuid: string,
    ): Promise<InRealm[]> {
      return allInRealm(realmOf(root), await listAvailableScopeRoles(ctx, realmOf(root), await ownerOf(ctx, root), clientUuid));
    }

    @FieldResolver(() => [Role], { description: `Roles of a client effectively in scope (GET ${path}/clients/{client}/composite).` })
    async compositeClientScopeMappings(
      @Root() root: InRealm,
      @Ctx() ctx: RequestContext,
      @clientUuidArg() clientUuid: string,
      @briefArg() brief?: boolean,
    ): Promise<InRealm[]> {
      const r = realmOf(root);
      return allInRealm(r, await listEffectiveScopeRoles(ctx, r, await ownerOf(ctx, root), clientUuid, brief ?? true));
    }
  }
  return ScopeMappingReadsResolver;
}

/**
 * `Client.clientScopeMappings`, `availableRealmScopeMappings`, `compositeRealmScopeMappings`,
 * `availableClientScopeMappings`, `compositeClientScopeMappings`.
 */
export const ClientScopeMappingReadsResolver = scopeMappingReads(Client, 'clients');

/** The same five fields on `ClientScope`. */
export const ClientScopeScopeMappingReadsResolver = scopeMappingReads(ClientScope, 'client-scopes');
