import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, FieldResolver, ObjectType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { ClientModel } from '../../src/db/models/client';
import type { RealmModel } from '../../src/db/models/realm';
import type { ProtocolMapperEvaluationRepresentation } from '../../src/representations/protocol-mapper';
import type { TokenPayload } from '../../src/representations/token';
import {
  type ExampleKind,
  evaluateProtocolMappers,
  evaluateScopeMappings,
  generateExample,
} from '../../src/services/client-scopes/evaluate-scopes';
import { Client, clientModel } from '../clients/types';
import { Role } from '../roles/types';
import { type InRealm, allInRealm, realmOf } from '../types/common';
import { JSONObject } from '../types/scalars';

/** Keycloak's ProtocolMapperEvaluationRepresentation. */
@ObjectType({ description: 'A protocol mapper that applies to a client, with the client scope (or the client) it comes from.' })
export class ProtocolMapperEvaluation {
  @Field(() => GraphQLID) mapperId!: string;
  @Field(() => GraphQLString) mapperName!: string;
  @Field(() => GraphQLID, { description: 'The client scope id, or the client UUID for a mapper of the client itself.' })
  containerId!: string;
  @Field(() => GraphQLString, { description: 'The client scope name; empty for a mapper of the client itself.' })
  containerName!: string;
  @Field(() => GraphQLString, { description: '`client-scope` or `client`.' }) containerType!: string;
  @Field(() => GraphQLString, { description: 'The mapper type, e.g. oidc-usermodel-attribute-mapper.' }) protocolMapper!: string;
}

/** What evaluation runs against: the client, its realm and the scope parameter (only `scope` is a field). */
interface Evaluation {
  scope: string;
  realm: RealmModel;
  client: ClientModel;
}

/** `Client.evaluateScopes(scope)`: the evaluate-scopes endpoints for one scope parameter. */
@ObjectType({ description: 'What a client would put into tokens for a scope parameter (GET /clients/{id}/evaluate-scopes/...).' })
export class ScopeEvaluation {
  @Field(() => GraphQLString, { description: 'The scope parameter evaluated (empty: the default scopes only).' }) scope!: string;
}

const userIdArg = () => Arg('userId', () => GraphQLID, { description: 'The user the example is computed for.' });
const audienceArg = () => Arg('audience', () => GraphQLString, { nullable: true, description: 'Requested audiences, space-separated.' });
const containerArg = () =>
  Arg('roleContainerId', () => GraphQLString, { description: 'The realm name (realm roles) or a client UUID (its roles).' });

/** Client → `evaluateScopes(scope)`. Nothing is resolved beyond the client: each field calls its service. */
@Resolver(() => Client)
export class ClientEvaluateScopesResolver {
  @FieldResolver(() => ScopeEvaluation, {
    description: 'Evaluates the client scopes for a scope parameter (GET /clients/{id}/evaluate-scopes/...).',
  })
  async evaluateScopes(
    @Root() client: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('scope', () => GraphQLString, { nullable: true, description: 'The scope parameter, e.g. `openid email`.' }) scope?: string,
  ): Promise<Evaluation> {
    return { scope: scope ?? '', realm: realmOf(client), client: await clientModel(ctx, client) };
  }
}

/** The fields of a scope evaluation, one service call each. */
@Resolver(() => ScopeEvaluation)
export class ScopeEvaluationResolver {
  @FieldResolver(() => [ProtocolMapperEvaluation], {
    description: 'Mappers of the client and its effective scopes (GET .../evaluate-scopes/protocol-mappers).',
  })
  protocolMappers(@Root() e: Evaluation, @Ctx() ctx: RequestContext): Promise<ProtocolMapperEvaluationRepresentation[]> {
    return evaluateProtocolMappers(ctx, e.realm, e.client, e.scope);
  }

  @FieldResolver(() => [Role], {
    description:
      'Roles of the container the client may put into tokens (GET .../evaluate-scopes/scope-mappings/{roleContainerId}/granted).',
  })
  async grantedScopeMappings(
    @Root() e: Evaluation,
    @Ctx() ctx: RequestContext,
    @containerArg() roleContainerId: string,
  ): Promise<InRealm[]> {
    return allInRealm(e.realm, await evaluateScopeMappings(ctx, e.realm, e.client, roleContainerId, e.scope, true));
  }

  @FieldResolver(() => [Role], {
    description: 'Roles of the container kept out of tokens (GET .../evaluate-scopes/scope-mappings/{roleContainerId}/not-granted).',
  })
  async notGrantedScopeMappings(
    @Root() e: Evaluation,
    @Ctx() ctx: RequestContext,
    @containerArg() roleContainerId: string,
  ): Promise<InRealm[]> {
    return allInRealm(e.realm, await evaluateScopeMappings(ctx, e.realm, e.client, roleContainerId, e.scope, false));
  }

  @FieldResolver(() => JSONObject, {
    description: 'The unsigned access token the client would get for the user (GET .../generate-example-access-token).',
  })
  exampleAccessToken(
    @Root() e: Evaluation,
    @Ctx() ctx: RequestContext,
    @userIdArg() userId: string,
    @audienceArg() audience?: string,
  ): Promise<TokenPayload> {
    return example(ctx, e, 'access', userId, audience);
  }

  @FieldResolver(() => JSONObject, {
    description: 'The unsigned ID token the client would get for the user (GET .../generate-example-id-token).',
  })
  exampleIdToken(
    @Root() e: Evaluation,
    @Ctx() ctx: RequestContext,
    @userIdArg() userId: string,
    @audienceArg() audience?: string,
  ): Promise<TokenPayload> {
    return example(ctx, e, 'id', userId, audience);
  }

  @FieldResolver(() => JSONObject, { description: 'The userinfo the client would get for the user (GET .../generate-example-userinfo).' })
  exampleUserinfo(@Root() e: Evaluation, @Ctx() ctx: RequestContext, @userIdArg() userId: string): Promise<TokenPayload> {
    return example(ctx, e, 'userinfo', userId);
  }
}

const example = (ctx: RequestContext, e: Evaluation, kind: ExampleKind, userId: string, audience?: string) =>
  generateExample(ctx, e.realm, e.client, kind, { scope: e.scope, userId, audience: audience ?? undefined });
