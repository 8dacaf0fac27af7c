import { GraphQLID, GraphQLString } from 'graphql';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { associatedPolicies, dependentPolicies, policyResources, policyScopes } from '../../src/services/authz/policies';
import { resourcePermissions, resourceScopes } from '../../src/services/authz/resources';
import { scopePermissions, scopeResources } from '../../src/services/authz/scopes';
import type { Rep } from '../types/common';
import { JSONObject } from '../types/scalars';
import { AuthzPolicy, AuthzResource, AuthzScope, allInTarget, type InTarget, targetOf } from './types';

/**
 * The relations of resources, scopes and policies: each calls the service of its REST twin
 * (`.../resource/{id}/scopes`, `/permissions`, `.../scope/{id}/resources`, `.../policy/{id}/...`)
 * with the resource server its parent came from.
 */
const related = async (
  root: InTarget,
  fn: (ctx: RequestContext, t: ReturnType<typeof targetOf>, id: string) => Promise<Rep[]>,
  ctx: RequestContext,
  id: string,
) => allInTarget(targetOf(root), await fn(ctx, targetOf(root), id));

/** What every object keeps: the representation exactly as the REST GET returns it. */
const whole = (rep: Rep): Rep => ({ ...rep });

@Resolver(() => AuthzResource)
export class AuthzResourceResolver {
  @FieldResolver(() => GraphQLID, { description: "The resource's id (Keycloak's `_id`)." })
  id(@Root() r: Rep): string {
    return String(r._id);
  }

  @FieldResolver(() => GraphQLString, { nullable: true, description: "The resource's icon (Keycloak's `icon_uri`)." })
  iconUri(@Root() r: Rep): string | null {
    return (r.icon_uri as string | undefined) ?? null;
  }

  @FieldResolver(() => [AuthzScope], {
    description:
      'Its scopes (GET .../resource/{id}/scopes): its own and, for a user-owned resource with a type, those of the typed resources of the server.',
  })
  scopes(@Root() r: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    // A deep representation already carries its own scopes: only a user's typed resource adds those of its type.
    const ownedByServer = (r.owner as Rep | undefined)?.id === targetOf(r).rs.id;
    if (Array.isArray(r.scopes) && (ownedByServer || r.type === undefined)) {
      return Promise.resolve(allInTarget(targetOf(r), r.scopes as Rep[]));
    }
    return related(r, resourceScopes, ctx, String(r._id));
  }

  @FieldResolver(() => [AuthzPolicy], { description: 'The permissions and policies applying to it (GET .../resource/{id}/permissions).' })
  permissions(@Root() r: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(r, resourcePermissions, ctx, String(r._id));
  }

  @FieldResolver(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation(@Root() r: Rep): Rep {
    return whole(r);
  }
}

@Resolver(() => AuthzScope)
export class AuthzScopeResolver {
  @FieldResolver(() => [AuthzResource], { description: 'The resources offering it: `id` and `name` (GET .../scope/{id}/resources).' })
  resources(@Root() s: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(s, scopeResources, ctx, String(s.id));
  }

  @FieldResolver(() => [AuthzPolicy], { description: 'The permissions naming it (GET .../scope/{id}/permissions).' })
  permissions(@Root() s: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(s, scopePermissions, ctx, String(s.id));
  }

  @FieldResolver(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation(@Root() s: Rep): Rep {
    return whole(s);
  }
}

@Resolver(() => AuthzPolicy)
export class AuthzPolicyResolver {
  @FieldResolver(() => [AuthzPolicy], {
    description: 'The permissions and aggregates applying it (GET .../policy/{id}/dependentPolicies).',
  })
  dependentPolicies(@Root() p: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(p, dependentPolicies, ctx, String(p.id));
  }

  @FieldResolver(() => [AuthzPolicy], { description: 'The policies it applies (GET .../policy/{id}/associatedPolicies).' })
  associatedPolicies(@Root() p: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(p, associatedPolicies, ctx, String(p.id));
  }

  @FieldResolver(() => [AuthzResource], {
    description: 'The resources a permission names: `id` and `name` (GET .../policy/{id}/resources).',
  })
  resources(@Root() p: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(p, policyResources, ctx, String(p.id));
  }

  @FieldResolver(() => [AuthzScope], { description: 'The scopes a permission names (GET .../policy/{id}/scopes).' })
  scopes(@Root() p: InTarget, @Ctx() ctx: RequestContext): Promise<InTarget[]> {
    return related(p, policyScopes, ctx, String(p.id));
  }

  @FieldResolver(() => JSONObject, { description: 'The representation exactly as the REST GET returns it (typed fields included).' })
  representation(@Root() p: Rep): Rep {
    return whole(p);
  }
}
