import { GraphQLID } from 'graphql';
import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { getClientComposites, getRealmComposites } from '../../src/services/roles/role-composites';
import { type InRealm, allInRealm, realmOf } from '../types/common';
import { Role } from './types';

/**
 * A role's direct composite children of one container (`GET {roleOwner}/{name}/composites/realm|clients/{client}`,
 * `GET roles-by-id/{id}/composites/realm|clients/{client}`): the role is named by its id, whichever
 * route found it, and the same service functions answer both fronts.
 */
@Resolver(() => Role)
export class RoleCompositeReadsResolver {
  @FieldResolver(() => [Role], { description: 'Direct composite children that are realm roles (GET /roles-by-id/{id}/composites/realm).' })
  async realmComposites(@Root() role: InRealm, @Ctx() ctx: RequestContext): Promise<InRealm[]> {
    return allInRealm(realmOf(role), await getRealmComposites(ctx, realmOf(role), { id: String(role.id) }));
  }

  @FieldResolver(() => [Role], {
    description:
      'Direct composite children that are roles of one client (GET /roles-by-id/{id}/composites/clients/{client}); unknown client: NOT_FOUND.',
  })
  async clientComposites(
    @Root() role: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('clientUuid', () => GraphQLID, { description: 'UUID of the client whose roles are read.' }) clientUuid: string,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(role), await getClientComposites(ctx, realmOf(role), { id: String(role.id) }, clientUuid));
  }
}
