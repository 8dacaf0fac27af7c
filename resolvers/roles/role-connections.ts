import { GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, InputType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { countRoleUsers } from '../../src/services/roles/role-counts';
import { listRoles, roleUsers } from '../../src/services/roles/roles';
import { type InRealm, allInRealm, realmOf } from '../types/common';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';
import { Realm } from '../realms/types';
import { User } from '../users/types';
import { Role } from './types';

@InputType({ description: 'Which roles to list: the search of GET /roles.' })
export class RoleFilter {
  @Field(() => GraphQLString, { nullable: true, description: 'Case-insensitive infix of the name or the description.' })
  search?: string;
}

const RoleConnection = connectionType(Role, 'Role');
const RoleHolderConnection = connectionType(User, 'RoleHolder');

/** Realm → realm roles as a connection (GET /roles). */
@Resolver(() => Realm)
export class RealmRoleConnectionResolver {
  @FieldResolver(() => RoleConnection, { description: 'Realm roles by name, a page at a time (GET /roles).' })
  async rolesConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => RoleFilter, { nullable: true, description: 'Only roles matching this.' }) filter?: RoleFilter,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(realm);
    const search = filter?.search ?? undefined;
    return connection(
      page,
      async (first, max) => allInRealm(r, await listRoles(ctx, r, undefined, { search, first, max, brief: false })),
      async () => (await listRoles(ctx, r, undefined, { search })).length,
    );
  }
}

/** Role → its direct holders as a connection, and their number. */
@Resolver(() => Role)
export class RoleConnectionsResolver {
  @FieldResolver(() => RoleHolderConnection, {
    description: 'Users holding the role by a direct mapping, by username, a page at a time (GET /roles/{name}/users).',
  })
  async usersConnection(
    @Root() role: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
  ): Promise<ConnectionValue<InRealm>> {
    const r = realmOf(role);
    const loc = { id: String(role.id) };
    return connection(
      page,
      async (first, max) => allInRealm(r, await roleUsers(ctx, r, loc, { first, max })),
      () => countRoleUsers(ctx, r, loc),
    );
  }

  @FieldResolver(() => GraphQLInt, {
    description: 'Number of users holding the role by a direct mapping (batched for any number of roles).',
  })
  userCount(@Root() role: InRealm, @Ctx() ctx: RequestContext): Promise<number> {
    return countRoleUsers(ctx, realmOf(role), { id: String(role.id) });
  }
}
