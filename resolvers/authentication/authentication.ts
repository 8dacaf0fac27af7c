import { GraphQLBoolean, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root, registerEnumType } from 'type-graphql';
import type { RealmModel } from '../../src/db/models/realm';
import type { RequestContext } from '../../src/core/context';
import {
  type ConfigInput,
  createExecutionConfig,
  deleteAuthenticatorConfig,
  getAuthenticatorConfig,
  updateAuthenticatorConfig,
} from '../../src/services/authentication/configs';
import {
  addExecution,
  addExecutionToFlow,
  addSubFlow,
  deleteExecution,
  executionParentNotFound,
  executionsFlowNotFound,
  getExecution,
  listExecutions,
  moveExecution,
  subFlowParentNotFound,
  updateExecution,
} from '../../src/services/authentication/executions';
import {
  type FlowInput,
  copyFlow,
  createFlow,
  deleteFlow,
  flowNotFound,
  flowWithIdNotFound,
  getFlow,
  listFlows,
  updateFlow,
} from '../../src/services/authentication/flows';
import { type AuthRight, resolveExecution, resolveFlow } from '../../src/services/authentication/common';
import type { HttpError } from '../../src/core/errors';
import {
  type RequiredActionInput,
  deleteRequiredAction,
  deleteRequiredActionConfig,
  getRequiredAction,
  getRequiredActionConfig,
  listRequiredActions,
  moveRequiredAction,
  registerRequiredAction,
  updateRequiredAction,
  updateRequiredActionConfig,
} from '../../src/services/authentication/required-actions';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, type Rep, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { AuthenticationRequirement } from '../types/enums';
import { JSONObject, SafeInt } from '../types/scalars';

/** The flow with this id: 403 without the right, then the endpoint's 404 (as `/flows/{id}`). */
const flowWithId = (ctx: RequestContext, realm: RealmModel, id: string, right: AuthRight, notFound: () => HttpError) =>
  resolveFlow(ctx, realm, { id }, right, notFound);

/** The flow with this alias (as `/flows/{alias}/...`): 403 without manage access, then the endpoint's error. */
const flowWithAlias = (ctx: RequestContext, realm: RealmModel, alias: string, notFound: () => HttpError) =>
  resolveFlow(ctx, realm, { alias }, 'manage', notFound);

/** GraphQL over authentication management: the same services (and errors) as `/{realm}/authentication`. */
@Directive('@representation(name: "AuthenticationExecutionExportRepresentation")')
@ObjectType({ description: 'An execution inside a flow representation (Keycloak AuthenticationExecutionExportRepresentation).' })
export class AuthenticationExecutionExport {
  @Field(() => GraphQLString, { nullable: true }) authenticator?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Alias of the linked authenticator config.' }) authenticatorConfig?: string;
  @Field(() => GraphQLBoolean) authenticatorFlow!: boolean;
  @Field(() => GraphQLString, { nullable: true, description: 'Alias of the sub-flow.' }) flowAlias?: string;
  @Field(() => SafeInt) priority!: number;
  @Field(() => AuthenticationRequirement) requirement!: string;
}

@Directive('@representation(name: "AuthenticationFlowRepresentation")')
@ObjectType({ description: 'An authentication flow (Keycloak AuthenticationFlowRepresentation).' })
export class AuthenticationFlow {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) alias!: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLBoolean) topLevel!: boolean;
  @Field(() => GraphQLBoolean) builtIn!: boolean;
  @Field(() => [AuthenticationExecutionExport]) authenticationExecutions!: Rep[];
  @Field(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation!: Rep;
}

@Directive('@representation(name: "AuthenticationExecutionInfoRepresentation")')
@ObjectType({ description: "A row of a flow's flattened execution list (Keycloak AuthenticationExecutionInfoRepresentation)." })
export class AuthenticationExecutionInfo {
  @Field(() => GraphQLID) id!: string;
  @Field(() => AuthenticationRequirement) requirement!: string;
  @Field(() => GraphQLString) displayName!: string;
  @Field(() => GraphQLString, { nullable: true }) alias?: string;
  @Field(() => GraphQLString, { nullable: true }) description?: string;
  @Field(() => [AuthenticationRequirement]) requirementChoices!: string[];
  @Field(() => GraphQLBoolean) configurable!: boolean;
  @Field(() => GraphQLBoolean, { nullable: true }) authenticationFlow?: boolean;
  @Field(() => GraphQLString, { nullable: true }) providerId?: string;
  @Field(() => GraphQLString, { nullable: true }) authenticationConfig?: string;
  @Field(() => GraphQLString, { nullable: true }) flowId?: string;
  @Field(() => SafeInt) level!: number;
  @Field(() => SafeInt) index!: number;
  @Field(() => SafeInt) priority!: number;
}

@Directive('@representation(name: "AuthenticationExecutionRepresentation")')
@ObjectType({ description: 'One execution (Keycloak AuthenticationExecutionRepresentation).' })
export class AuthenticationExecution {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) authenticator?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Id of the linked authenticator config.' }) authenticatorConfig?: string;
  @Field(() => GraphQLBoolean) authenticatorFlow!: boolean;
  @Field(() => GraphQLString, { nullable: true, description: 'Id of the sub-flow, for a flow execution.' }) flowId?: string;
  @Field(() => GraphQLString, { description: 'Id of the flow the execution belongs to.' }) parentFlow!: string;
  @Field(() => SafeInt) priority!: number;
  @Field(() => AuthenticationRequirement) requirement!: string;
}

@Directive('@representation(name: "AuthenticatorConfigRepresentation")')
@ObjectType({ description: 'An authenticator config (Keycloak AuthenticatorConfigRepresentation).' })
export class AuthenticatorConfig {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) alias?: string;
  @Field(() => JSONObject) config!: Record<string, string>;
}

@Directive('@representation(name: "RequiredActionProviderRepresentation")')
@ObjectType({ description: 'A registered required action (Keycloak RequiredActionProviderRepresentation).' })
export class RequiredAction {
  @Field(() => GraphQLString) alias!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLBoolean) enabled!: boolean;
  @Field(() => GraphQLBoolean) defaultAction!: boolean;
  @Field(() => SafeInt) priority!: number;
  @Field(() => JSONObject) config!: Record<string, string>;
}

@ObjectType({ description: "A configurable required action's config (Keycloak RequiredActionConfigRepresentation)." })
export class RequiredActionConfig {
  @Field(() => JSONObject) config!: Record<string, unknown>;
}

export enum PriorityMove {
  RAISE = 'raise',
  LOWER = 'lower',
}
registerEnumType(PriorityMove, {
  name: 'PriorityMove',
  description: 'raise-priority or lower-priority.',
  valuesConfig: {
    RAISE: { description: 'One place up (raise-priority): runs earlier.' },
    LOWER: { description: 'One place down (lower-priority): runs later.' },
  },
});

const FlowIn = representationInput('AuthenticationFlowRepresentation');
const InfoIn = representationInput('AuthenticationExecutionInfoRepresentation');
const ConfigIn = representationInput('AuthenticatorConfigRepresentation');
const ActionIn = representationInput('RequiredActionProviderRepresentation');
const ExecutionIn = representationInput('AuthenticationExecutionRepresentation');
const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID);
const aliasArg = () => Arg('alias', () => GraphQLString);
const flowArg = () => Arg('flowAlias', () => GraphQLString);
const realm = (ctx: RequestContext, name: string): Promise<RealmModel> => resolveRealm(ctx, name);

/** Realm → flows and required actions. */
@Resolver(() => Realm)
export class RealmAuthenticationResolver {
  @FieldResolver(() => [AuthenticationFlow], { description: 'Top-level authentication flows (GET /authentication/flows).' })
  authenticationFlows(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listFlows(ctx, realmOf(r));
  }

  @FieldResolver(() => [RequiredAction], { description: 'Registered required actions (GET /authentication/required-actions).' })
  requiredActions(@Root() r: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    return listRequiredActions(ctx, realmOf(r));
  }
}

/** Flow, execution, config and required-action queries and writes. */
@Resolver(() => AuthenticationFlow)
export class AuthenticationResolver {
  @FieldResolver(() => JSONObject)
  representation(@Root() flow: Rep): Rep {
    return flow;
  }

  @Query(() => AuthenticationFlow, { description: 'A flow by id (GET /authentication/flows/{id}).' })
  async authenticationFlow(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getFlow(ctx, rm, await flowWithId(ctx, rm, id, 'view', flowWithIdNotFound));
  }

  @Query(() => [AuthenticationExecutionInfo], { description: 'GET /authentication/flows/{flowAlias}/executions.' })
  async authenticationExecutions(@Ctx() ctx: RequestContext, @realmArg() r: string, @flowArg() flowAlias: string): Promise<Rep[]> {
    return listExecutions(ctx, await realm(ctx, r), flowAlias);
  }

  @Query(() => AuthenticationExecution, { description: 'GET /authentication/executions/{id}.' })
  async authenticationExecution(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getExecution(await resolveExecution(ctx, rm, id));
  }

  @Query(() => RequiredAction, { description: 'GET /authentication/required-actions/{alias}.' })
  async requiredAction(@Ctx() ctx: RequestContext, @realmArg() r: string, @aliasArg() alias: string): Promise<Rep> {
    return getRequiredAction(ctx, await realm(ctx, r), alias);
  }

  @Query(() => RequiredActionConfig, { description: 'GET /authentication/required-actions/{alias}/config.' })
  async requiredActionConfig(@Ctx() ctx: RequestContext, @realmArg() r: string, @aliasArg() alias: string): Promise<Rep> {
    return getRequiredActionConfig(ctx, await realm(ctx, r), alias);
  }

  @Query(() => AuthenticatorConfig, {
    description: 'GET /authentication/config/{id} (and GET /authentication/executions/{executionId}/config/{id}, the same read).',
  })
  async authenticatorConfig(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<Rep> {
    return getAuthenticatorConfig(ctx, await realm(ctx, r), id);
  }

  @Mutation(() => AuthenticationFlow, { description: 'POST /authentication/flows.' })
  async createAuthenticationFlow(@Ctx() ctx: RequestContext, @realmArg() r: string, @Arg('input', () => FlowIn) input: Rep): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getFlow(ctx, rm, await flowWithId(ctx, rm, await createFlow(ctx, rm, plain<FlowInput>(input)), 'view', flowWithIdNotFound));
  }

  @Mutation(() => AuthenticationFlow, { description: 'PUT /authentication/flows/{id}.' })
  async updateAuthenticationFlow(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @idArg() id: string,
    @Arg('input', () => FlowIn) input: Rep,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    return updateFlow(ctx, rm, await flowWithId(ctx, rm, id, 'manage', flowWithIdNotFound), plain<FlowInput>(input), id);
  }

  @Mutation(() => GraphQLBoolean, { description: 'DELETE /authentication/flows/{id}.' })
  async deleteAuthenticationFlow(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<boolean> {
    const rm = await realm(ctx, r);
    await deleteFlow(ctx, rm, await flowWithId(ctx, rm, id, 'manage', flowNotFound), id);
    return true;
  }

  @Mutation(() => AuthenticationFlow, { description: 'POST /authentication/flows/{flowAlias}/copy.' })
  async copyAuthenticationFlow(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @flowArg() flowAlias: string,
    @Arg('newName', () => GraphQLString) newName: string,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getFlow(ctx, rm, await flowWithId(ctx, rm, await copyFlow(ctx, rm, flowAlias, { newName }), 'view', flowWithIdNotFound));
  }

  @Mutation(() => GraphQLID, { description: 'POST /authentication/flows/{flowAlias}/executions/execution; returns the execution id.' })
  async addAuthenticationExecution(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @flowArg() flowAlias: string,
    @Arg('provider', () => GraphQLString) provider: string,
  ): Promise<string> {
    const rm = await realm(ctx, r);
    return addExecutionToFlow(ctx, rm, await flowWithAlias(ctx, rm, flowAlias, executionParentNotFound), { provider }, flowAlias);
  }

  @Mutation(() => AuthenticationFlow, { description: 'POST /authentication/flows/{flowAlias}/executions/flow; returns the new sub-flow.' })
  async addAuthenticationSubFlow(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @flowArg() flowAlias: string,
    @aliasArg() alias: string,
    @Arg('type', () => GraphQLString, { defaultValue: 'basic-flow' }) type: string,
    @Arg('provider', () => GraphQLString, { nullable: true }) provider?: string,
    @Arg('description', () => GraphQLString, { nullable: true }) description?: string,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    const body = plain<Record<string, string>>({ alias, type, provider, description });
    const parent = await flowWithAlias(ctx, rm, flowAlias, subFlowParentNotFound);
    return getFlow(ctx, rm, await flowWithId(ctx, rm, await addSubFlow(ctx, rm, parent, body, flowAlias), 'view', flowWithIdNotFound));
  }

  @Mutation(() => GraphQLBoolean, { description: 'PUT /authentication/flows/{flowAlias}/executions.' })
  async updateAuthenticationExecution(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @flowArg() flowAlias: string,
    @Arg('input', () => InfoIn) input: Rep,
  ): Promise<boolean> {
    const rm = await realm(ctx, r);
    await updateExecution(ctx, rm, await flowWithAlias(ctx, rm, flowAlias, executionsFlowNotFound), plain(input), flowAlias);
    return true;
  }

  @Mutation(() => AuthenticationExecution, { description: 'POST /authentication/executions; returns the new execution.' })
  async createAuthenticationExecution(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @Arg('input', () => ExecutionIn) input: Rep,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getExecution(await resolveExecution(ctx, rm, await addExecution(ctx, rm, plain(input))));
  }

  @Mutation(() => GraphQLBoolean, { description: 'DELETE /authentication/executions/{id}.' })
  async deleteAuthenticationExecution(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<boolean> {
    const rm = await realm(ctx, r);
    await deleteExecution(ctx, rm, await resolveExecution(ctx, rm, id), id);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'POST /authentication/executions/{id}/raise-priority | lower-priority.' })
  async moveAuthenticationExecution(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @idArg() id: string,
    @Arg('direction', () => PriorityMove) d: PriorityMove,
  ): Promise<boolean> {
    const rm = await realm(ctx, r);
    await moveExecution(ctx, rm, await resolveExecution(ctx, rm, id), d, id);
    return true;
  }

  @Mutation(() => AuthenticatorConfig, { description: 'POST /authentication/executions/{executionId}/config.' })
  async createAuthenticatorConfig(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @Arg('executionId', () => GraphQLID) executionId: string,
    @Arg('input', () => ConfigIn) input: Rep,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    return getAuthenticatorConfig(ctx, rm, await createExecutionConfig(ctx, rm, executionId, plain<ConfigInput>(input)));
  }

  @Mutation(() => AuthenticatorConfig, { description: 'PUT /authentication/config/{id}.' })
  async updateAuthenticatorConfig(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @idArg() id: string,
    @Arg('input', () => ConfigIn) input: Rep,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    await updateAuthenticatorConfig(ctx, rm, id, plain<ConfigInput>(input));
    return getAuthenticatorConfig(ctx, rm, id);
  }

  @Mutation(() => GraphQLBoolean, { description: 'DELETE /authentication/config/{id}.' })
  async deleteAuthenticatorConfig(@Ctx() ctx: RequestContext, @realmArg() r: string, @idArg() id: string): Promise<boolean> {
    await deleteAuthenticatorConfig(ctx, await realm(ctx, r), id);
    return true;
  }

  @Mutation(() => RequiredAction, { description: 'POST /authentication/register-required-action.' })
  async registerRequiredAction(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @Arg('providerId', () => GraphQLString) providerId: string,
    @Arg('name', () => GraphQLString, { nullable: true }) name?: string,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    await registerRequiredAction(ctx, rm, plain<Record<string, string>>({ providerId, name }));
    return getRequiredAction(ctx, rm, providerId);
  }

  @Mutation(() => RequiredAction, { description: 'PUT /authentication/required-actions/{alias}.' })
  async updateRequiredAction(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @aliasArg() alias: string,
    @Arg('input', () => ActionIn) input: Rep,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    const rep = plain<RequiredActionInput>(input);
    await updateRequiredAction(ctx, rm, alias, rep);
    return getRequiredAction(ctx, rm, rep.alias || alias);
  }

  @Mutation(() => GraphQLBoolean, { description: 'DELETE /authentication/required-actions/{alias}.' })
  async deleteRequiredAction(@Ctx() ctx: RequestContext, @realmArg() r: string, @aliasArg() alias: string): Promise<boolean> {
    await deleteRequiredAction(ctx, await realm(ctx, r), alias);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'POST /authentication/required-actions/{alias}/raise-priority | lower-priority.' })
  async moveRequiredAction(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @aliasArg() alias: string,
    @Arg('direction', () => PriorityMove) d: PriorityMove,
  ): Promise<boolean> {
    await moveRequiredAction(ctx, await realm(ctx, r), alias, d);
    return true;
  }

  @Mutation(() => RequiredActionConfig, {
    description:
      "PUT /authentication/required-actions/{alias}/config: sets the provider's properties from `config`; returns the config as GET reads it (defaults overlaid).",
  })
  async updateRequiredActionConfig(
    @Ctx() ctx: RequestContext,
    @realmArg() r: string,
    @aliasArg() alias: string,
    @Arg('config', () => JSONObject) config: Record<string, string>,
  ): Promise<Rep> {
    const rm = await realm(ctx, r);
    await updateRequiredActionConfig(ctx, rm, alias, { config: plain(config) });
    return getRequiredActionConfig(ctx, rm, alias);
  }

  @Mutation(() => GraphQLBoolean, { description: 'DELETE /authentication/required-actions/{alias}/config.' })
  async deleteRequiredActionConfig(@Ctx() ctx: RequestContext, @realmArg() r: string, @aliasArg() alias: string): Promise<boolean> {
    await deleteRequiredActionConfig(ctx, await realm(ctx, r), alias);
    return true;
  }
}
