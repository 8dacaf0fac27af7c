import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { type AuthzTarget, resourceServerOf } from '../../src/services/authz/access';
import { createPolicy, deletePolicy, getPolicy, updatePolicy } from '../../src/services/authz/policies';
import { getResourceServer, importSettings, updateResourceServer } from '../../src/services/authz/resource-server';
import { createResource, deleteResource, getResource, updateResource } from '../../src/services/authz/resources';
import { createScope, deleteScope, getScope, updateScope } from '../../src/services/authz/scopes';
import { clientIn } from '../clients/client-extras';
import { plain, type Rep } from '../types/common';
import { JSONObject } from '../types/scalars';
import { forgetAuthz } from './loaders';
import { AuthzPolicy, AuthzResource, AuthzScope, type InTarget, inTarget, ResourceServer } from './types';

const realmArg = () => Arg('realm', () => GraphQLString);
const uuidArg = () => Arg('clientUuid', () => GraphQLID, { description: 'Client UUID (`id`).' });
const idArg = () => Arg('id', () => GraphQLID, { description: 'The id of the object written.' });
const inputArg = (description: string) => Arg('input', () => JSONObject, { description });

/** The resource server of `realm`'s client: the REST parent's 404-or-403 rules, then 404 when authorization is off. */
async function target(ctx: RequestContext, realm: string, clientUuid: string): Promise<AuthzTarget> {
  const { r, client } = await clientIn(ctx, realm, clientUuid);
  return resourceServerOf(ctx, r, client);
}

/** Runs a write, then forgets what the request had read of authorization settings. */
async function written<T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    forgetAuthz(ctx);
  }
}

/** Writes of a client's authorization settings: the same service functions as the REST endpoints. */
@Resolver()
export class AuthzMutationsResolver {
  @Mutation(() => ResourceServer, {
    description: 'Updates the enforcement mode, decision strategy and remote resource management (PUT .../authz/resource-server).',
  })
  async updateResourceServer(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @inputArg('The ResourceServerRepresentation, as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => updateResourceServer(ctx, t, plain(input)));
    return inTarget(t, await getResourceServer(ctx, t));
  }

  @Mutation(() => ResourceServer, { description: 'Imports resources, scopes and policies (POST .../authz/resource-server/import).' })
  async importResourceServer(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @inputArg('The settings, as GET .../settings exports them.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => importSettings(ctx, t, plain(input)));
    return inTarget(t, await getResourceServer(ctx, t));
  }

  @Mutation(() => AuthzResource, { description: 'Creates a resource (POST .../resource).' })
  async createAuthzResource(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @inputArg('The ResourceRepresentation, as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    return inTarget(t, await written(ctx, () => createResource(ctx, t, plain(input))));
  }

  @Mutation(() => AuthzResource, { description: 'Replaces a resource (PUT .../resource/{id}).' })
  async updateAuthzResource(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @idArg() id: string,
    @inputArg('The ResourceRepresentation, as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => updateResource(ctx, t, id, plain(input)));
    return inTarget(t, await getResource(ctx, t, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a resource and the permissions naming only it (DELETE .../resource/{id}).' })
  async deleteAuthzResource(@Ctx() ctx: RequestContext, @realmArg() realm: string, @uuidArg() clientUuid: string, @idArg() id: string) {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => deleteResource(ctx, t, id));
    return true;
  }

  @Mutation(() => AuthzScope, { description: 'Creates a scope (POST .../scope).' })
  async createAuthzScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @inputArg('The ScopeRepresentation, as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    return inTarget(t, await written(ctx, () => createScope(ctx, t, plain(input))));
  }

  @Mutation(() => AuthzScope, { description: 'Updates a scope (PUT .../scope/{id}).' })
  async updateAuthzScope(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @idArg() id: string,
    @inputArg('The ScopeRepresentation, as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => updateScope(ctx, t, id, plain(input)));
    return inTarget(t, await getScope(ctx, t, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a scope and the permissions naming only it (DELETE .../scope/{id}).' })
  async deleteAuthzScope(@Ctx() ctx: RequestContext, @realmArg() realm: string, @uuidArg() clientUuid: string, @idArg() id: string) {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => deleteScope(ctx, t, id));
    return true;
  }

  @Mutation(() => AuthzPolicy, {
    description:
      'Creates a policy or permission (POST .../policy, .../permission, or .../{type} with `type`): the typed representation, as REST answers.',
  })
  async createAuthzPolicy(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @Arg('type', () => GraphQLString, {
      nullable: true,
      description: 'The provider (role, user, resource, scope, ...); else `input.type`.',
    })
    type: string | undefined,
    @inputArg('The policy representation (typed, or generic with `config`), as the REST body.') input: Rep,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    return inTarget(t, await written(ctx, () => createPolicy(ctx, t, type ?? undefined, plain(input))));
  }

  @Mutation(() => AuthzPolicy, {
    description: 'Updates a policy or permission (PUT .../{type}/{id} and .../permission/{id}; with `generic`, PUT .../policy/{id}).',
  })
  async updateAuthzPolicy(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @uuidArg() clientUuid: string,
    @idArg() id: string,
    @inputArg('The policy representation, as the REST body.') input: Rep,
    @Arg('generic', () => GraphQLBoolean, {
      nullable: true,
      description: 'The input is the generic representation with `config` (as PUT .../policy/{id}); the answer is generic too.',
    })
    generic?: boolean,
  ): Promise<InTarget> {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => updatePolicy(ctx, t, id, plain(input), generic ?? false));
    return inTarget(t, await getPolicy(ctx, t, id, { typed: !generic }));
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Deletes a policy or permission, and the permissions left applying no policy (DELETE .../policy/{id}).',
  })
  async deleteAuthzPolicy(@Ctx() ctx: RequestContext, @realmArg() realm: string, @uuidArg() clientUuid: string, @idArg() id: string) {
    const t = await target(ctx, realm, clientUuid);
    await written(ctx, () => deletePolicy(ctx, t, id));
    return true;
  }
}
