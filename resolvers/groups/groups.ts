import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  addDefaultGroup,
  joinGroup,
  leaveGroup,
  listDefaultGroups,
  listMembers,
  removeDefaultGroup,
} from '../../src/services/groups/group-membership';
import {
  countGroups,
  findGroup,
  getGroup,
  getGroupByPath,
  listChildren,
  listGroups,
  writtenGroup,
} from '../../src/services/groups/group-queries';
import { TOP_LEVEL } from '../../src/db/models/group';
import { resolveUser } from '../../src/services/users/users';
import { addSubGroup, createTopLevelGroup, removeGroup, updateGroup } from '../../src/services/groups/groups';
import { resolveRealm } from '../../src/services/realms/realms';
import {
  getRoleMappings,
  groupMappingOwner,
  listAllEffectiveRoles,
  listMappedRoles,
  type MappingOwner,
} from '../../src/services/roles/role-mappings';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { Group } from './types';
import { writeInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { SafeInt as SafeIntType } from '../types/scalars';
import { Role, RoleMappings } from '../roles/types';
import { User } from '../users/types';

const GroupCreateInput = writeInput('GroupRepresentation', 'create');
const GroupUpdateInput = writeInput('GroupRepresentation', 'update');
const opt = { nullable: true } as const;
const realmArg = () => Arg('realm', () => GraphQLString);

/** Realm → groups: `GET /groups`, `/groups/count`, `/groups/{id}`, `/group-by-path`, `/default-groups`. */
@Resolver(() => Realm)
export class RealmGroupsResolver {
  @FieldResolver(() => [Group], {
    description: 'Top-level groups, or groups at any level matching search/q, by name (GET /groups?populateHierarchy=false).',
  })
  async groups(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt) search?: string,
    @Arg('q', () => GraphQLString, { nullable: true, description: 'Attribute query `key:value key2:value2`.' }) q?: string,
    @Arg('exact', () => GraphQLBoolean, opt) exact?: boolean,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
    @Arg('brief', () => GraphQLBoolean, opt) brief?: boolean,
  ): Promise<InRealm[]> {
    const query = { search, q, exact, first, max, briefRepresentation: brief, populateHierarchy: false };
    return allInRealm(realmOf(realm), await listGroups(ctx, realmOf(realm), plain(query)));
  }

  @FieldResolver(() => GraphQLInt, {
    description: 'Number of groups (GET /groups/count): name matches at any level, top-level only, or all.',
  })
  async groupsCount(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt) search?: string,
    @Arg('top', () => GraphQLBoolean, opt) top?: boolean,
  ): Promise<number> {
    return (await countGroups(ctx, realmOf(realm), plain({ search, top }))).count;
  }

  @FieldResolver(() => Group, { description: 'One group by id (GET /groups/{id}).' })
  async group(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('id', () => GraphQLID) id: string): Promise<InRealm> {
    const r = realmOf(realm);
    return inRealm(r, await getGroup(ctx, r, await findGroup(ctx, r, id)));
  }

  @FieldResolver(() => Group, { description: 'One group by path, e.g. /parent/child (GET /group-by-path/{path}).' })
  async groupByPath(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('path', () => GraphQLString) path: string): Promise<InRealm> {
    return inRealm(realmOf(realm), await getGroupByPath(ctx, realmOf(realm), path));
  }

  @FieldResolver(() => [Group], { description: 'Default groups of new users, by path (GET /default-groups).' })
  async defaultGroups(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(realm), await listDefaultGroups(ctx, realmOf(realm)));
  }
}

/** Group relations and group writes. */
@Resolver(() => Group)
export class GroupResolver {
  @Query(() => Group, { description: 'One group of a realm by id (GET /admin/realms/{realm}/groups/{id}).' })
  async group(@Ctx() ctx: RequestContext, @realmArg() realm: string, @Arg('id', () => GraphQLID) id: string): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getGroup(ctx, r, await findGroup(ctx, r, id)));
  }

  @Mutation(() => Group, { description: 'Creates a top-level group (POST /groups).' })
  async createGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => GroupCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const result = await createTopLevelGroup(ctx, r, plain(input));
    return inRealm(r, await getGroup(ctx, r, await findGroup(ctx, r, result.id)));
  }

  @Mutation(() => Group, { description: 'Creates a subgroup (POST /groups/{parentId}/children).' })
  async createChildGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('parentId', () => GraphQLID) parentId: string,
    @Arg('input', () => GroupCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const result = await addSubGroup(ctx, r, await findGroup(ctx, r, parentId), plain(input));
    // Manage of the parent suffices: the new child is returned without a view check, as POST .../children answers it.
    return inRealm(r, await writtenGroup(ctx, r, await findGroup(ctx, r, result.id)));
  }

  @Mutation(() => Group, {
    description:
      'Moves a group under another one, or to the top level when parentId is null (POST /groups/{parentId}/children or POST /groups with the id).',
  })
  async moveGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('parentId', () => GraphQLID, opt) parentId?: string,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const { name } = await findGroup(ctx, r, id);
    await (parentId ? addSubGroup(ctx, r, await findGroup(ctx, r, parentId), { id, name }) : createTopLevelGroup(ctx, r, { id, name }));
    // The move forgot the group: read it again (manage of the new parent suffices, as for REST: no view check).
    return inRealm(r, await writtenGroup(ctx, r, await findGroup(ctx, r, id)));
  }

  @Mutation(() => Group, { description: 'Updates a group (PUT /groups/{id}).' })
  async updateGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('input', () => GroupUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    await updateGroup(ctx, r, await findGroup(ctx, r, id), plain(input));
    // The write forgot the group: read it again.
    return inRealm(r, await getGroup(ctx, r, await findGroup(ctx, r, id)));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a group and its subgroups (DELETE /groups/{id}).' })
  async deleteGroup(@Ctx() ctx: RequestContext, @realmArg() realm: string, @Arg('id', () => GraphQLID) id: string): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await removeGroup(ctx, r, await findGroup(ctx, r, id));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Adds a user to a group (PUT /users/{userId}/groups/{groupId}).' })
  async joinGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('groupId', () => GraphQLID) groupId: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await joinGroup(ctx, r, await resolveUser(ctx, r, userId), groupId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes a user from a group (DELETE /users/{userId}/groups/{groupId}).' })
  async leaveGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('groupId', () => GraphQLID) groupId: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await leaveGroup(ctx, r, await resolveUser(ctx, r, userId), groupId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Makes a group a default group of new users (PUT /default-groups/{groupId}).' })
  async setDefaultGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('groupId', () => GraphQLID) groupId: string,
  ): Promise<boolean> {
    await addDefaultGroup(ctx, await resolveRealm(ctx, realm), groupId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes a default group (DELETE /default-groups/{groupId}).' })
  async removeDefaultGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('groupId', () => GraphQLID) groupId: string,
  ): Promise<boolean> {
    await removeDefaultGroup(ctx, await resolveRealm(ctx, realm), groupId);
    return true;
  }

  @FieldResolver(() => SafeIntType, { description: 'Number of direct subgroups.' })
  async subGroupCount(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<number> {
    return typeof group.subGroupCount === 'number' ? group.subGroupCount : ctx.loaders.subGroupCountByGroup.load(String(group.id));
  }

  @FieldResolver(() => Group, { nullable: true, description: 'The parent group; null for a top-level group.' })
  async parent(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm | null> {
    const parentId = typeof group.parentId === 'string' && group.parentId !== TOP_LEVEL ? group.parentId : undefined;
    if (!parentId) return null;
    const r = realmOf(group);
    return inRealm(r, await getGroup(ctx, r, await findGroup(ctx, r, parentId)));
  }

  @FieldResolver(() => [Group], { description: 'Direct subgroups by name (GET /groups/{id}/children; first 0, max 10 by default).' })
  async subGroups(
    @Root() group: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => GraphQLInt, { defaultValue: 0 }) first: number,
    @Arg('max', () => GraphQLInt, { defaultValue: 10 }) max: number,
    @Arg('brief', () => GraphQLBoolean, opt) brief?: boolean,
  ): Promise<InRealm[]> {
    const r = realmOf(group);
    const query = { first, max, briefRepresentation: brief };
    return allInRealm(r, await listChildren(ctx, r, await findGroup(ctx, r, String(group.id)), query));
  }

  @FieldResolver(() => [User], { description: 'Direct members by username (GET /groups/{id}/members; first 0, max 100 by default).' })
  async members(
    @Root() group: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => GraphQLInt, { defaultValue: 0 }) first: number,
    @Arg('max', () => GraphQLInt, { defaultValue: 100 }) max: number,
    @Arg('brief', () => GraphQLBoolean, opt) brief?: boolean,
  ): Promise<InRealm[]> {
    const r = realmOf(group);
    const query = { first, max, briefRepresentation: brief };
    return allInRealm(r, await listMembers(ctx, r, await findGroup(ctx, r, String(group.id)), query));
  }

  @FieldResolver(() => RoleMappings, { description: 'Direct role mappings (GET /groups/{id}/role-mappings).' })
  async roleMappings(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm> {
    return inRealm(realmOf(group), await getRoleMappings(ctx, realmOf(group), await owner(ctx, group)));
  }

  @FieldResolver(() => [Role], { description: 'Directly mapped realm roles (GET /groups/{id}/role-mappings/realm).' })
  async realmRoles(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    const mappings = await getRoleMappings(ctx, realmOf(group), await owner(ctx, group));
    return allInRealm(realmOf(group), mappings.realmMappings ?? []);
  }

  @FieldResolver(() => [Role], { description: 'Directly mapped roles of one client (GET /groups/{id}/role-mappings/clients/{client}).' })
  async clientRoles(
    @Root() group: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' }) clientUuid: string,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(group), await listMappedRoles(ctx, realmOf(group), await owner(ctx, group), clientUuid));
  }

  @FieldResolver(() => [Role], {
    description: "Effective realm and client roles: composites expanded, inherited from the group's parents.",
  })
  async effectiveRoles(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(group), await listAllEffectiveRoles(ctx, realmOf(group), await owner(ctx, group)));
  }
}

/** The group behind a representation as the holder of role mappings (`/groups/{id}/role-mappings`). */
const owner = async (ctx: RequestContext, group: InRealm): Promise<MappingOwner> =>
  groupMappingOwner(await findGroup(ctx, realmOf(group), String(group.id)));
