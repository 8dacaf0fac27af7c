import { GraphQLBoolean, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, InputType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { countUsers, listUsers, type UserQuery } from '../../src/services/users/users-search';
import { type InRealm, allInRealm, plain, realmOf } from '../types/common';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';
import { Realm } from '../realms/types';
import { User } from './types';

@InputType({ description: 'What to find users by: the filters of GET /users.' })
export class UserFilter {
  @Field(() => GraphQLString, {
    nullable: true,
    description: 'Infix of username, email, first or last name; `*` is a wildcard, quotes ask for an exact match.',
  })
  search?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Username (infix unless `exact`).' })
  username?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'E-mail address (infix unless `exact`).' })
  email?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'First name (infix unless `exact`).' })
  firstName?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Last name (infix unless `exact`).' })
  lastName?: string;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Only enabled (true) or disabled (false) users.' })
  enabled?: boolean;
  @Field(() => GraphQLBoolean, { nullable: true, description: 'Only users whose e-mail is (not) verified.' })
  emailVerified?: boolean;
  @Field(() => GraphQLBoolean, {
    nullable: true,
    description: 'Match username, email, firstName and lastName exactly instead of as infixes.',
  })
  exact?: boolean;
  @Field(() => GraphQLString, { nullable: true, description: 'Attribute query `key:value key2:value2` (all must match).' })
  q?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Users linked to this identity provider alias.' })
  idpAlias?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Users linked to this user id at the identity provider (with idpAlias).' })
  idpUserId?: string;
}

const UserConnection = connectionType(User, 'User');

/** Realm → users as a Relay connection, with the filters of GET /users; ordered by username as REST orders them. */
@Resolver(() => Realm)
export class RealmUserConnectionResolver {
  @FieldResolver(() => UserConnection, {
    description:
      'Users by username (GET /users), a page at a time: `first`/`after` forward, `last`/`before` backward; 20 by default, at most 100.',
  })
  async usersConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => UserFilter, { nullable: true, description: 'Only users matching all of these.' }) filter?: UserFilter,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(realm);
    const query = plain<UserQuery>(filter ?? {});
    return connection(
      page,
      async (first, max) => allInRealm(r, await listUsers(ctx, r, { ...query, first, max })),
      () => countUsers(ctx, r, query),
    );
  }

  @FieldResolver(() => GraphQLInt, { description: 'How many users the realm holds (GET /users/count).' })
  userCount(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<number> {
    return countUsers(ctx, realmOf(realm), {});
  }
}
