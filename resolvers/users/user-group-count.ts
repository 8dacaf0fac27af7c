import { GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { countUserGroups } from '../../src/services/groups/group-membership';
import { resolveUser } from '../../src/services/users/users';
import { type InRealm, realmOf } from '../types/common';
import { User } from './types';

/**
 * User → `groupCount(search)` (`GET /users/{id}/groups/count`). One count statement per user: the
 * service counts one user at a time, and a batched count would be a second copy of its query.
 */
@Resolver(() => User)
export class UserGroupCountResolver {
  @FieldResolver(() => GraphQLInt, {
    description: 'Number of direct groups, optionally only those matching a name search (GET /users/{id}/groups/count).',
  })
  async groupCount(
    @Root() user: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, { nullable: true, description: 'Substring of the group name.' }) search?: string,
  ): Promise<number> {
    const r = realmOf(user);
    return (await countUserGroups(ctx, r, await resolveUser(ctx, r, String(user.id)), search ?? undefined)).count;
  }
}
