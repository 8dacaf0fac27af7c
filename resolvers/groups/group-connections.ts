import { GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, InputType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { countMembers } from '../../src/services/groups/group-counts';
import { listMembers } from '../../src/services/groups/group-membership';
import { countGroups, findGroup, listChildren, listGroups } from '../../src/services/groups/group-queries';
import { type InRealm, allInRealm, realmOf } from '../types/common';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';
import { Realm } from '../realms/types';
import { User } from '../users/types';
import { Group } from './types';

@InputType({
  description: 'Which groups to list: without a search the top-level groups, with one the groups at any level whose name matches.',
})
export class GroupFilter {
  @Field(() => GraphQLString, { nullable: true, description: 'Case-insensitive infix of the group name, at any level of the tree.' })
  search?: string;
}

const GroupConnection = connectionType(Group, 'Group');
const MemberConnection = connectionType(User, 'Member');

/** Realm → groups as a connection (GET /groups, flat: no ancestors around search matches). */
@Resolver(() => Realm)
export class RealmGroupConnectionResolver {
  @FieldResolver(() => GroupConnection, {
    description: 'Groups by name, a page at a time: the top-level groups, or with a search the matching groups at any level (GET /groups).',
  })
  async groupsConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => GroupFilter, { nullable: true, description: 'Only groups matching this.' }) filter?: GroupFilter,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(realm);
    const search = filter?.search ?? undefined;
    return connection(
      page,
      async (first, max) =>
        allInRealm(r, await listGroups(ctx, r, { search, first, max, populateHierarchy: false, briefRepresentation: false })),
      async () => (await countGroups(ctx, r, search === undefined ? { top: true } : { search })).count,
    );
  }
}

/** Group → members and subgroups as connections, and the member count. */
@Resolver(() => Group)
export class GroupConnectionsResolver {
  @FieldResolver(() => MemberConnection, { description: 'Direct members by username, a page at a time (GET /groups/{id}/members).' })
  async membersConnection(
    @Root() group: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(group);
    const model = await findGroup(ctx, r, String(group.id));
    return connection(
      page,
      async (first, max) => allInRealm(r, await listMembers(ctx, r, model, { first, max })),
      () => countMembers(ctx, r, model),
    );
  }

  @FieldResolver(() => GroupConnection, { description: 'Direct subgroups by name, a page at a time (GET /groups/{id}/children).' })
  async subGroupsConnection(
    @Root() group: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(group);
    const model = await findGroup(ctx, r, String(group.id));
    return connection(
      page,
      async (first, max) => allInRealm(r, await listChildren(ctx, r, model, { first, max })),
      () => ctx.loaders.subGroupCountByGroup.load(model.id),
    );
  }

  @FieldResolver(() => GraphQLInt, { description: 'Number of direct members (batched for any number of groups).' })
  async memberCount(@Root() group: InRealm, @Ctx() ctx: RequestContext): Promise<number> {
    const r = realmOf(group);
    return countMembers(ctx, r, await findGroup(ctx, r, String(group.id)));
  }
}
