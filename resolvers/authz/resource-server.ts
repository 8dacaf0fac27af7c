import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { AuthzTarget } from '../../src/services/authz/access';
import { getPolicy, listPolicies, type PolicyQuery, policyProviders, searchPolicy } from '../../src/services/authz/policies';
import { evaluatePolicies } from '../../src/services/authz/policy-evaluate';
import { exportSettings, getResourceServer } from '../../src/services/authz/resource-server';
import { getResource, listResources, type ResourceQuery, searchResource } from '../../src/services/authz/resources';
import { getScope, listScopes, searchScope } from '../../src/services/authz/scopes';
import { Client, clientModel } from '../clients/types';
import { type InRealm, plain, type Rep, realmOf } from '../types/common';
import { JSONObject } from '../types/scalars';
import { authzLoaders, resourcePage } from './loaders';
import {
  AuthzPolicy,
  AuthzPolicyProvider,
  AuthzResource,
  AuthzScope,
  allInTarget,
  type InTarget,
  inTarget,
  ResourceServer,
  targetOf,
} from './types';

const opt = { nullable: true } as const;
const idArg = () => Arg('id', () => GraphQLID, { description: 'The id.' });
const firstArg = () => Arg('first', () => GraphQLInt, opt);
const maxArg = () => Arg('max', () => GraphQLInt, { nullable: true, description: 'Page size (default 100).' });
const nameArg = (description: string) => Arg('name', () => GraphQLString, { nullable: true, description });
const fieldsArg = () =>
  Arg('fields', () => GraphQLString, { nullable: true, description: '`*`: also `resourcesData` and `scopesData` in `representation`.' });

/** The resource server behind a ResourceServer object. */
const t = (rs: object): AuthzTarget => targetOf(rs);
const one = (target: AuthzTarget, rep: Rep | undefined) => (rep ? inTarget(target, rep) : null);

/** Client → `authorization`: the client's resource server, null when authorization services are off. */
@Resolver(() => Client)
export class ClientAuthorizationResolver {
  @FieldResolver(() => ResourceServer, {
    nullable: true,
    description: 'Authorization services (GET /clients/{id}/authz/resource-server); null when they are not enabled on the client.',
  })
  async authorization(@Root() client: InRealm, @Ctx() ctx: RequestContext): Promise<InTarget | null> {
    const model = await clientModel(ctx, client);
    const rs = await authzLoaders(ctx).resourceServer.load(model.id);
    if (!rs) return null;
    const target = { realm: realmOf(client), client: model, rs };
    return inTarget(target, await getResourceServer(ctx, target));
  }
}

/** A resource server's resources, scopes, policies and permissions, export and evaluation. */
@Resolver(() => ResourceServer)
export class ResourceServerResolver {
  @FieldResolver(() => [AuthzResource], { description: 'Resources by name, uri, owner, type, scope (GET .../resource).' })
  async resources(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @nameArg('Name substring, any case (exact with `exactName`).') name?: string,
    @Arg('exactName', () => GraphQLBoolean, { nullable: true, description: '`name` is the exact name.' }) exactName?: boolean,
    @Arg('uri', () => GraphQLString, { nullable: true, description: 'One of its URIs, any case.' }) uri?: string,
    @Arg('matchingUri', () => GraphQLBoolean, { nullable: true, description: 'With `uri`: the resource whose uri pattern matches it.' })
    matchingUri?: boolean,
    @Arg('owner', () => GraphQLString, { nullable: true, description: 'The owner: a clientId, a username or an id.' }) owner?: string,
    @Arg('type', () => GraphQLString, { nullable: true, description: 'Type substring, any case.' }) type?: string,
    @Arg('scope', () => GraphQLString, { nullable: true, description: 'A scope name substring.' }) scope?: string,
    @Arg('resourceId', () => GraphQLID, { nullable: true, description: 'One resource by id (`_id`).' }) resourceId?: string,
    @Arg('deep', () => GraphQLBoolean, { nullable: true, description: 'With scopes and attributes (default true).' }) deep?: boolean,
    @firstArg() first?: number,
    @maxArg() max?: number,
  ): Promise<InTarget[]> {
    const q: ResourceQuery = plain({ _id: resourceId, name, exactName, uri, matchingUri, owner, type, scope, deep, first, max });
    const filtered = [resourceId, name, uri, owner, type, scope].some((v) => v?.trim()) || deep === false;
    return allInTarget(t(rs), filtered ? await listResources(ctx, t(rs), q) : await resourcePage(ctx, t(rs), { first, max }));
  }

  @FieldResolver(() => AuthzResource, { description: 'One resource by id (GET .../resource/{id}).' })
  async resource(@Root() rs: InTarget, @Ctx() ctx: RequestContext, @idArg() id: string): Promise<InTarget> {
    return inTarget(t(rs), await getResource(ctx, t(rs), id));
  }

  @FieldResolver(() => AuthzResource, { nullable: true, description: 'The resource of that exact name (GET .../resource/search).' })
  async resourceByName(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @Arg('name', () => GraphQLString, { description: 'The exact name.' }) name: string,
  ) {
    return one(t(rs), await searchResource(ctx, t(rs), name));
  }

  @FieldResolver(() => [AuthzScope], { description: 'Scopes by name substring or id (GET .../scope).' })
  async scopes(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @nameArg('Name substring, any case.') name?: string,
    @Arg('scopeId', () => GraphQLID, opt) scopeId?: string,
    @firstArg() first?: number,
    @maxArg() max?: number,
  ): Promise<InTarget[]> {
    return allInTarget(t(rs), await listScopes(ctx, t(rs), plain({ name, scopeId, first, max })));
  }

  @FieldResolver(() => AuthzScope, { description: 'One scope by id (GET .../scope/{id}).' })
  async scope(@Root() rs: InTarget, @Ctx() ctx: RequestContext, @idArg() id: string): Promise<InTarget> {
    return inTarget(t(rs), await getScope(ctx, t(rs), id));
  }

  @FieldResolver(() => AuthzScope, { nullable: true, description: 'The scope of that exact name (GET .../scope/search).' })
  async scopeByName(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @Arg('name', () => GraphQLString, { description: 'The exact name.' }) name: string,
  ) {
    return one(t(rs), await searchScope(ctx, t(rs), name));
  }

  @FieldResolver(() => [AuthzPolicy], {
    description:
      'Policies and permissions (GET .../policy, generic; with `typed`, GET .../policy/{type}; `permission: true` and `typed`: GET .../permission).',
  })
  async policies(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @nameArg('Name substring, any case.') name?: string,
    @Arg('type', () => GraphQLString, { nullable: true, description: 'A provider type (role, resource, scope, ...).' }) type?: string,
    @Arg('permission', () => GraphQLBoolean, { nullable: true, description: 'Only permissions (true) or only policies (false).' })
    permission?: boolean,
    @Arg('resource', () => GraphQLString, { nullable: true, description: 'Applying to this resource (id or name).' }) resource?: string,
    @Arg('scope', () => GraphQLString, { nullable: true, description: 'Applying to this scope (id or name).' }) scope?: string,
    @Arg('policyId', () => GraphQLID, { nullable: true, description: 'One policy by id.' }) policyId?: string,
    @Arg('owner', () => GraphQLString, { nullable: true, description: "The owning user's id (user-managed policies)." }) owner?: string,
    @Arg('typed', () => GraphQLBoolean, {
      nullable: true,
      description: "Typed representations (the provider's fields) instead of `config`.",
    })
    typed?: boolean,
    @fieldsArg() fields?: string,
    @firstArg() first?: number,
    @maxArg() max?: number,
  ): Promise<InTarget[]> {
    const q: PolicyQuery = plain({ name, type, permission, resource, scope, policyId, owner, fields, first, max });
    return allInTarget(t(rs), await listPolicies(ctx, t(rs), q, typed ?? false));
  }

  @FieldResolver(() => AuthzPolicy, {
    description: 'One policy or permission by id (GET .../policy/{id}; with `typed`, GET .../permission/{id}, .../{type}/{id}).',
  })
  async policy(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @idArg() id: string,
    @Arg('typed', () => GraphQLBoolean, { nullable: true, description: 'The typed representation instead of the generic one.' })
    typed?: boolean,
    @fieldsArg() fields?: string,
  ): Promise<InTarget> {
    return inTarget(t(rs), await getPolicy(ctx, t(rs), id, plain({ typed: typed ?? false, fields })));
  }

  @FieldResolver(() => AuthzPolicy, {
    nullable: true,
    description: 'The policy or permission of that exact name (GET .../policy/search; with `typed`, GET .../permission/search).',
  })
  async policyByName(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @Arg('name', () => GraphQLString, { description: 'The exact name.' }) name: string,
    @Arg('typed', () => GraphQLBoolean, { nullable: true, description: 'The typed representation (GET .../permission/search).' })
    typed?: boolean,
    @fieldsArg() fields?: string,
  ) {
    return one(t(rs), await searchPolicy(ctx, t(rs), name, fields ?? undefined, typed ?? false));
  }

  @FieldResolver(() => [AuthzPolicyProvider], { description: 'The policy providers (GET .../policy/providers, .../permission/providers).' })
  policyProviders(@Root() rs: InTarget, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return policyProviders(ctx, t(rs));
  }

  @FieldResolver(() => JSONObject, {
    description: 'The whole configuration as Keycloak exports it (GET .../settings; manage-authorization).',
  })
  settings(@Root() rs: InTarget, @Ctx() ctx: RequestContext): Promise<Rep> {
    return exportSettings(ctx, t(rs));
  }

  @FieldResolver(() => JSONObject, {
    description:
      'Evaluates the policies for a user, client, roles and resources (POST .../policy/evaluate): the PolicyEvaluationResponse, per resource and scope.',
  })
  evaluate(
    @Root() rs: InTarget,
    @Ctx() ctx: RequestContext,
    @Arg('input', () => JSONObject, { description: 'The PolicyEvaluationRequest, as the REST body.' }) input: Rep,
  ): Promise<Rep> {
    return evaluatePolicies(ctx, t(rs), plain(input));
  }

  @FieldResolver(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation(@Root() rs: Rep): Rep {
    return rs;
  }
}
