import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { listUserGroups } from '../../src/services/groups/group-membership';
import { resolveRealm } from '../../src/services/realms/realms';
import {
  getRoleMappings,
  listAllEffectiveRoles,
  listMappedRoles,
  type MappingOwner,
  userMappingOwner,
} from '../../src/services/roles/role-mappings';
import { createUser, deleteUser, getUser, resolveUser, updateUser } from '../../src/services/users/users';
import { countUsers, listUsers } from '../../src/services/users/users-search';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { Group } from '../groups/types';
import { writeInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { Role, RoleMappings } from '../roles/types';
import { User } from './types';

const UserCreateInput = writeInput('UserRepresentation', 'create');
const UserUpdateInput = writeInput('UserRepresentation', 'update');
const str = { nullable: true } as const;

/** Realm → users: `GET /users`, `/users/count`, `/users/{id}`. */
@Resolver(() => Realm)
export class RealmUsersResolver {
  @FieldResolver(() => [User], {
    description: 'Users by username (GET /users): search, attribute filters or all; first 0, max 100 by default.',
  })
  async users(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, str) search?: string,
    @Arg('username', () => GraphQLString, str) username?: string,
    @Arg('email', () => GraphQLString, str) email?: string,
    @Arg('firstName', () => GraphQLString, str) firstName?: string,
    @Arg('lastName', () => GraphQLString, str) lastName?: string,
    @Arg('enabled', () => GraphQLBoolean, str) enabled?: boolean,
    @Arg('emailVerified', () => GraphQLBoolean, str) emailVerified?: boolean,
    @Arg('exact', () => GraphQLBoolean, str) exact?: boolean,
    @Arg('q', () => GraphQLString, { nullable: true, description: 'Attribute query `key:value key2:value2`.' }) q?: string,
    @Arg('first', () => GraphQLInt, str) first?: number,
    @Arg('max', () => GraphQLInt, str) max?: number,
    @Arg('brief', () => GraphQLBoolean, str) brief?: boolean,
  ): Promise<InRealm[]> {
    const query = {
      search,
      username,
      email,
      firstName,
      lastName,
      enabled,
      emailVerified,
      exact,
      q,
      first,
      max,
      briefRepresentation: brief,
    };
    return allInRealm(realmOf(realm), await listUsers(ctx, realmOf(realm), plain(query)));
  }

  @FieldResolver(() => GraphQLInt, { description: 'Number of users matching the filters (GET /users/count).' })
  async usersCount(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, str) search?: string,
    @Arg('username', () => GraphQLString, str) username?: string,
    @Arg('email', () => GraphQLString, str) email?: string,
    @Arg('enabled', () => GraphQLBoolean, str) enabled?: boolean,
    @Arg('q', () => GraphQLString, str) q?: string,
  ): Promise<number> {
    return countUsers(ctx, realmOf(realm), plain({ search, username, email, enabled, q }));
  }

  @FieldResolver(() => User, { description: 'One user by id (GET /users/{id}).' })
  async user(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('id', () => GraphQLID) id: string): Promise<InRealm> {
    return inRealm(realmOf(realm), await getUser(ctx, realmOf(realm), await resolveUser(ctx, realmOf(realm), id)));
  }
}

/** User relations and user writes: `POST/PUT/DELETE /users/{id}`, groups and role mappings of a user. */
@Resolver(() => User)
export class UserResolver {
  @Query(() => User, { description: 'One user of a realm by id (GET /admin/realms/{realm}/users/{id}).' })
  async user(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getUser(ctx, r, await resolveUser(ctx, r, id)));
  }

  @Mutation(() => User, { description: 'Creates a user (POST /users); returns it as GET /users/{id} does.' })
  async createUser(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('input', () => UserCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const id = await createUser(ctx, r, plain(input));
    return inRealm(r, await getUser(ctx, r, await resolveUser(ctx, r, id)));
  }

  @Mutation(() => User, { description: 'Updates a user (PUT /users/{id}); returns it.' })
  async updateUser(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('input', () => UserUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await updateUser(ctx, r, await resolveUser(ctx, r, id), plain(input));
    // The write forgot the user: read it again.
    return inRealm(r, await getUser(ctx, r, await resolveUser(ctx, r, id)));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a user (DELETE /users/{id}).' })
  async deleteUser(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await deleteUser(ctx, r, await resolveUser(ctx, r, id));
    return true;
  }

  @FieldResolver(() => [Group], { description: 'Direct groups by name, brief by default (GET /users/{id}/groups).' })
  async groups(
    @Root() user: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, str) search?: string,
    @Arg('first', () => GraphQLInt, str) first?: number,
    @Arg('max', () => GraphQLInt, str) max?: number,
    @Arg('brief', () => GraphQLBoolean, str) brief?: boolean,
  ): Promise<InRealm[]> {
    const r = realmOf(user);
    const query = { search, first, max, briefRepresentation: brief };
    return allInRealm(r, await listUserGroups(ctx, r, await resolveUser(ctx, r, String(user.id)), query));
  }

  @FieldResolver(() => RoleMappings, { description: 'Direct role mappings (GET /users/{id}/role-mappings).' })
  async roleMappings(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm> {
    return inRealm(realmOf(user), await getRoleMappings(ctx, realmOf(user), await owner(ctx, user)));
  }

  @FieldResolver(() => [Role], { description: 'Directly mapped realm roles (GET /users/{id}/role-mappings/realm).' })
  async realmRoles(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    const mappings = await getRoleMappings(ctx, realmOf(user), await owner(ctx, user));
    return allInRealm(realmOf(user), mappings.realmMappings ?? []);
  }

  @FieldResolver(() => [Role], { description: 'Directly mapped roles of one client (GET /users/{id}/role-mappings/clients/{client}).' })
  async clientRoles(
    @Root() user: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' }) clientUuid: string,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(user), await listMappedRoles(ctx, realmOf(user), await owner(ctx, user), clientUuid));
  }

  @FieldResolver(() => [Role], {
    description: 'Effective realm and client roles: composites expanded, inherited from groups and their parents.',
  })
  async effectiveRoles(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(user), await listAllEffectiveRoles(ctx, realmOf(user), await owner(ctx, user)));
  }
}

/** The user behind a representation as the holder of role mappings (`/users/{id}/role-mappings`). */
const owner = async (ctx: RequestContext, user: InRealm): Promise<MappingOwner> =>
  userMappingOwner(await resolveUser(ctx, realmOf(user), String(user.id)));
