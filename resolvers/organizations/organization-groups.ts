import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { RealmModel } from '../../src/db/models/realm';
import type { OrganizationModel } from '../../src/db/models/organization';
import type { GroupRep } from '../../src/representations/group';
import { resolveOrganization } from '../../src/services/organizations/organizations';
import {
  addOrganizationSubGroup,
  createOrganizationGroup,
  deleteOrganizationGroup,
  getOrganizationGroup,
  groupsOfOrganizationMember,
  joinOrganizationGroup,
  leaveOrganizationGroup,
  listOrganizationGroupChildren,
  listOrganizationGroupMembers,
  listOrganizationGroups,
  resolveOrganizationGroup,
  updateOrganizationGroup,
} from '../../src/services/organizations/organization-groups';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { writeInput } from '../types/inputs';
import { JSONObject } from '../types/scalars';
import { Organization, OrganizationMember } from './organizations';

/** A group of an organization (Keycloak 26.7's organization groups: a GroupRepresentation). */
@ObjectType({ description: 'A group of an organization (Keycloak 26.7 organization group, a GroupRepresentation).' })
export class OrganizationGroup {
  @Field(() => GraphQLID, { description: 'Id of the group.' }) id!: string;
  @Field(() => GraphQLString, { description: 'Name, unique among its siblings.' }) name!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Description of the group.' }) description?: string;
  @Field(() => GraphQLString, {
    description: 'As Keycloak 26.7 gives it: `/{organizationId}/a/b` in listings, empty for one group and its subgroups.',
  })
  path!: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The parent group, or the organization for a top-level group.' })
  parentId?: string;
  @Field(() => JSONObject, { nullable: true, description: 'Attributes (absent from the brief representations).' })
  attributes?: Record<string, string[]>;
  @Field(() => GraphQLID, { description: 'Id of the organization.' }) organizationId!: string;
}

const GroupCreateInput = writeInput('GroupRepresentation', 'create');
const GroupUpdateInput = writeInput('GroupRepresentation', 'update');
const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID, { description: 'Id of the organization.' });
const groupArg = () => Arg('groupId', () => GraphQLID, { description: 'Id of the organization group.' });
const opt = (description: string) => ({ nullable: true, description }) as const;

type OrgGroupRoot = InRealm<GroupRep & { organizationId: string }>;
const rooted = (r: RealmModel, org: OrganizationModel, reps: GroupRep[]): OrgGroupRoot[] =>
  reps.map((g) => inRealm(r, { ...g, organizationId: org.id }));

async function orgIn(ctx: RequestContext, realm: string, id: string) {
  const r = await resolveRealm(ctx, realm);
  return { r, org: await resolveOrganization(ctx, r, id) };
}

async function groupIn(ctx: RequestContext, realm: string, id: string, groupId: string) {
  const { r, org } = await orgIn(ctx, realm, id);
  return { r, org, group: await resolveOrganizationGroup(ctx, r, org, groupId) };
}

/** Organization → groups; one group, its subgroups and members; the writes. */
@Resolver(() => OrganizationGroup)
export class OrganizationGroupResolver {
  @Query(() => OrganizationGroup, { description: 'One group of an organization (GET /organizations/{id}/groups/{groupId}).' })
  async organizationGroup(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string, @groupArg() groupId: string) {
    const { r, org, group } = await groupIn(ctx, realm, id, groupId);
    return rooted(r, org, [await getOrganizationGroup(ctx, r, group)])[0];
  }

  @Query(() => [OrganizationGroup], {
    description: "The organization's groups a member is in, any depth (GET /organizations/{id}/members/{userId}/groups).",
  })
  async organizationMemberGroups(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('search', () => GraphQLString, opt('Part of a group name.')) search?: string,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, { nullable: true }) max?: number,
    @Arg('briefRepresentation', () => GraphQLBoolean, opt('Leave out the attributes (default true).')) briefRepresentation?: boolean,
  ) {
    const { r, org } = await orgIn(ctx, realm, id);
    return rooted(r, org, await groupsOfOrganizationMember(ctx, r, org, userId, { search, first, max, briefRepresentation }));
  }

  @FieldResolver(() => [OrganizationGroup], { description: 'Direct subgroups by name (GET .../groups/{groupId}/children).' })
  async subGroups(
    @Root() root: OrgGroupRoot,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt('Part of a name.')) search?: string,
    @Arg('exact', () => GraphQLBoolean, opt('Match the whole name.')) exact?: boolean,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, opt('Largest number of results (default 10).')) max?: number,
  ) {
    const r = realmOf(root);
    const org = await resolveOrganization(ctx, r, root.organizationId);
    const group = await resolveOrganizationGroup(ctx, r, org, String(root.id));
    return rooted(r, org, await listOrganizationGroupChildren(ctx, r, group, { search, exact, first, max }));
  }

  @FieldResolver(() => [OrganizationMember], { description: 'Direct members by username (GET .../groups/{groupId}/members).' })
  async members(
    @Root() root: OrgGroupRoot,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, opt('Largest number of results (default 100).')) max?: number,
    @Arg('briefRepresentation', () => GraphQLBoolean, opt('Only the basic user fields (default false).')) briefRepresentation?: boolean,
  ) {
    const r = realmOf(root);
    const org = await resolveOrganization(ctx, r, root.organizationId);
    const group = await resolveOrganizationGroup(ctx, r, org, String(root.id));
    const reps = await listOrganizationGroupMembers(ctx, r, org, group, { first, max, briefRepresentation });
    return reps.map(({ membershipType, ...user }) => ({ user: inRealm(r, user), membershipType }));
  }

  @Mutation(() => OrganizationGroup, { description: 'Creates a top-level group of an organization (POST /organizations/{id}/groups).' })
  async createOrganizationGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('input', () => GroupCreateInput, { description: 'The group (GroupRepresentation).' }) input: Rep,
  ) {
    const { r, org } = await orgIn(ctx, realm, id);
    const groupId = await createOrganizationGroup(ctx, r, org, plain(input), `organizations/${org.id}/groups`);
    const group = await resolveOrganizationGroup(ctx, r, org, groupId);
    return rooted(r, org, [await getOrganizationGroup(ctx, r, group)])[0];
  }

  @Mutation(() => OrganizationGroup, { description: 'Creates a subgroup (POST /organizations/{id}/groups/{groupId}/children).' })
  async createOrganizationSubGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @groupArg() groupId: string,
    @Arg('input', () => GroupCreateInput, { description: 'The subgroup (GroupRepresentation).' }) input: Rep,
  ) {
    const { r, org, group } = await groupIn(ctx, realm, id, groupId);
    const path = `organizations/${org.id}/groups/${group.id}/children`;
    const result = await addOrganizationSubGroup(ctx, r, org, group, plain(input), path);
    return rooted(r, org, [result.representation as GroupRep])[0];
  }

  @Mutation(() => OrganizationGroup, {
    description: "Moves one of the organization's groups under another of them (POST .../groups/{parentId}/children with `id`).",
  })
  async moveOrganizationGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @groupArg() groupId: string,
    @Arg('parentId', () => GraphQLID, { description: 'The new parent group.' }) parentId: string,
  ) {
    const { r, org, group: parent } = await groupIn(ctx, realm, id, parentId);
    const moving = await resolveOrganizationGroup(ctx, r, org, groupId);
    const path = `organizations/${org.id}/groups/${parent.id}/children`;
    const result = await addOrganizationSubGroup(ctx, r, org, parent, { id: moving.id, name: moving.name }, path);
    return rooted(r, org, [result.representation as GroupRep])[0];
  }

  @Mutation(() => OrganizationGroup, { description: 'Updates a group of an organization (PUT /organizations/{id}/groups/{groupId}).' })
  async updateOrganizationGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @groupArg() groupId: string,
    @Arg('input', () => GroupUpdateInput, { description: 'The group (GroupRepresentation).' }) input: Rep,
  ) {
    const { r, org, group } = await groupIn(ctx, realm, id, groupId);
    await updateOrganizationGroup(ctx, r, group, plain(input));
    const fresh = await resolveOrganizationGroup(ctx, r, org, group.id);
    return rooted(r, org, [await getOrganizationGroup(ctx, r, fresh)])[0];
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a group of an organization with its subgroups (DELETE .../groups/{groupId}).' })
  async deleteOrganizationGroup(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string, @groupArg() groupId: string) {
    const { r, group } = await groupIn(ctx, realm, id, groupId);
    await deleteOrganizationGroup(ctx, r, group);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'A member of the organization joins its group (PUT .../groups/{groupId}/members/{userId}).',
  })
  async joinOrganizationGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @groupArg() groupId: string,
    @Arg('userId', () => GraphQLID) userId: string,
  ) {
    const { r, org, group } = await groupIn(ctx, realm, id, groupId);
    await joinOrganizationGroup(ctx, r, org, group, userId);
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'A user leaves a group of an organization (DELETE .../groups/{groupId}/members/{userId}).',
  })
  async leaveOrganizationGroup(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @groupArg() groupId: string,
    @Arg('userId', () => GraphQLID) userId: string,
  ) {
    const { r, group } = await groupIn(ctx, realm, id, groupId);
    await leaveOrganizationGroup(ctx, r, group, userId);
    return true;
  }
}

/** Organization → its groups (`GET /organizations/{id}/groups`). */
@Resolver(() => Organization)
export class OrganizationGroupsFieldResolver {
  @FieldResolver(() => [OrganizationGroup], {
    description: 'Top-level groups by name, or name or attribute matches at any depth (GET /organizations/{id}/groups).',
  })
  async groups(
    @Root() root: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt('Part of a group name.')) search?: string,
    @Arg('exact', () => GraphQLBoolean, opt('Match the whole name.')) exact?: boolean,
    @Arg('q', () => GraphQLString, opt('Attribute query `key1:value1 key2:value2`; replaces `search`.')) q?: string,
    @Arg('first', () => GraphQLInt, { nullable: true }) first?: number,
    @Arg('max', () => GraphQLInt, { nullable: true }) max?: number,
  ) {
    const r = realmOf(root);
    const org = await resolveOrganization(ctx, r, String(root.id));
    return rooted(r, org, await listOrganizationGroups(ctx, r, org, { search, exact, q, first, max }));
  }
}
