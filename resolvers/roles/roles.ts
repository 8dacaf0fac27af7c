import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { getClient } from '../../src/services/clients/clients';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import { addComposites, getComposites, removeComposites } from '../../src/services/roles/role-composites';
import { createRole, deleteRole, getRole, listRoles, roleGroups, roleUsers, updateRole } from '../../src/services/roles/roles';
import { Client } from '../clients/types';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { Group } from '../groups/types';
import { representationInput, writeInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { Role } from './types';
import { User } from '../users/types';

const RoleInput = representationInput('RoleRepresentation');
const RoleCreateInput = writeInput('RoleRepresentation', 'create');
const RoleUpdateInput = writeInput('RoleRepresentation', 'update');
const opt = { nullable: true } as const;
const realmArg = () => Arg('realm', () => GraphQLString);

/** Realm → realm roles: `GET /roles`, `/roles/{name}`, `/roles-by-id/{id}`. */
@Resolver(() => Realm)
export class RealmRolesResolver {
  @FieldResolver(() => [Role], { description: 'Realm roles by name (GET /roles): all, or a name/description search, paged.' })
  async roles(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt) search?: string,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
    @Arg('brief', () => GraphQLBoolean, opt) brief?: boolean,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(realm), await listRoles(ctx, realmOf(realm), undefined, plain({ search, first, max, brief })));
  }

  @FieldResolver(() => Role, { description: 'One realm role by name (GET /roles/{name}).' })
  async role(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('name', () => GraphQLString) name: string): Promise<InRealm> {
    return inRealm(realmOf(realm), await getRole(ctx, realmOf(realm), { name }));
  }

  @FieldResolver(() => Role, { description: 'One realm or client role by id (GET /roles-by-id/{id}).' })
  async roleById(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('id', () => GraphQLID) id: string): Promise<InRealm> {
    return inRealm(realmOf(realm), await getRole(ctx, realmOf(realm), { id }));
  }
}

/** Role relations and role writes (realm roles, and client roles with `clientUuid`). */
@Resolver(() => Role)
export class RoleResolver {
  @Query(() => Role, { description: 'One role of a realm: by id, or by name (a client role when clientUuid is given).' })
  async role(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID, opt) id?: string,
    @Arg('name', () => GraphQLString, opt) name?: string,
    @Arg('clientUuid', () => GraphQLID, opt) clientUuid?: string,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getRole(ctx, r, id ? { id } : { name: name ?? '', clientUuid: clientUuid ?? undefined }));
  }

  @Mutation(() => Role, {
    description: 'Creates a realm role, or a role of the client with this UUID (POST /roles, POST /clients/{id}/roles).',
  })
  async createRole(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('clientUuid', () => GraphQLID, { nullable: true, description: 'Client UUID; absent for a realm role.' }) clientUuid:
      | string
      | undefined,
    @Arg('input', () => RoleCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const name = await createRole(ctx, r, clientUuid ?? undefined, plain(input));
    return inRealm(r, await getRole(ctx, r, { name, clientUuid: clientUuid ?? undefined }));
  }

  @Mutation(() => Role, { description: 'Updates a realm or client role: name, description, attributes (PUT /roles-by-id/{id}).' })
  async updateRole(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('input', () => RoleUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await updateRole(ctx, r, { id }, plain(input));
    return inRealm(r, await getRole(ctx, r, { id }));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a realm or client role (DELETE /roles-by-id/{id}).' })
  async deleteRole(@Ctx() ctx: RequestContext, @realmArg() realm: string, @Arg('id', () => GraphQLID) id: string): Promise<boolean> {
    await deleteRole(ctx, await resolveRealm(ctx, realm), { id });
    return true;
  }

  @Mutation(() => Role, {
    description: 'Adds composite children, each named by id (POST /roles-by-id/{id}/composites); returns the parent.',
  })
  async addComposites(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('roles', () => [RoleInput]) roles: Rep[],
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await addComposites(ctx, r, { id }, plain(roles));
    return inRealm(r, await getRole(ctx, r, { id }));
  }

  @Mutation(() => Role, { description: 'Removes composite children by id (DELETE /roles-by-id/{id}/composites); returns the parent.' })
  async removeComposites(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('roles', () => [RoleInput]) roles: Rep[],
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await removeComposites(ctx, r, { id }, plain(roles));
    return inRealm(r, await getRole(ctx, r, { id }));
  }

  @FieldResolver(() => [Role], { description: 'Direct composite children by name (GET /roles-by-id/{id}/composites).' })
  async composites(@Root() role: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(role), await getComposites(ctx, realmOf(role), { id: String(role.id) }));
  }

  @FieldResolver(() => Client, { nullable: true, description: 'The client of a client role; null for a realm role.' })
  async client(@Root() role: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm | null> {
    return role.clientRole ? inRealm(realmOf(role), await getClient(ctx, realmOf(role), String(role.containerId))) : null;
  }

  @FieldResolver(() => [User], {
    description: 'Users with a direct mapping of the role, by username (GET /roles-by-id/... users; first 0, max 100).',
  })
  async users(
    @Root() role: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(role), await roleUsers(ctx, realmOf(role), { id: String(role.id) }, plain({ first, max })));
  }

  @FieldResolver(() => [Group], { description: 'Groups with a direct mapping of the role, by name (first 0, max 100).' })
  async groups(
    @Root() role: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(role), await roleGroups(ctx, realmOf(role), { id: String(role.id) }, plain({ first, max })));
  }
}
