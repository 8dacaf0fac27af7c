import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { testSmtpConnection } from '../../src/services/events/email';
import {
  clearAdminEvents,
  clearEvents,
  getEventsConfig,
  listAdminEvents,
  listEvents,
  updateEventsConfig,
} from '../../src/services/events/events';
import { resolveRealm } from '../../src/services/realms/realms';
import { executeActionsEmail, sendVerifyEmail } from '../../src/services/events/user-emails';
import { resolveUser } from '../../src/services/users/users';
import { type InRealm, type Rep, plain, realmOf } from '../types/common';
import { representationInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { EventType, OperationType, ResourceType } from '../types/enums';
import { JSONObject, SafeInt } from '../types/scalars';

const opt = { nullable: true } as const;
const EventsConfigInput = representationInput('RealmEventsConfigRepresentation');

@ObjectType({ description: 'A user (login) event (Keycloak EventRepresentation).' })
export class Event {
  @Field(() => GraphQLID) id!: string;
  @Field(() => SafeInt) time!: number;
  @Field(() => EventType) type!: string;
  @Field(() => GraphQLString) realmId!: string;
  @Field(() => GraphQLString, opt) clientId?: string;
  @Field(() => GraphQLString, opt) userId?: string;
  @Field(() => GraphQLString, opt) sessionId?: string;
  @Field(() => GraphQLString, opt) ipAddress?: string;
  @Field(() => GraphQLString, opt) error?: string;
  @Field(() => JSONObject, opt) details?: Record<string, string>;
}

@ObjectType({ description: 'Who performed an admin operation (Keycloak AuthDetailsRepresentation).' })
export class AuthDetails {
  @Field(() => GraphQLID, { nullable: true, description: "Id of the caller's realm." }) realmId?: string;
  // Keycloak's field `clientId` holds the client's UUID; GraphQL names it for what it is.
  @Field(() => GraphQLID, { name: 'clientUuid', nullable: true, description: 'UUID of the client the caller used (REST: `clientId`).' })
  clientId?: string;
  @Field(() => GraphQLID, { nullable: true, description: 'Id of the calling user.' }) userId?: string;
  @Field(() => GraphQLString, opt) ipAddress?: string;
}

@ObjectType({ description: 'An admin event (Keycloak AdminEventRepresentation).' })
export class AdminEvent {
  @Field(() => GraphQLID) id!: string;
  @Field(() => SafeInt) time!: number;
  @Field(() => GraphQLString) realmId!: string;
  @Field(() => AuthDetails) authDetails!: AuthDetails;
  @Field(() => OperationType) operationType!: string;
  @Field(() => ResourceType) resourceType!: string;
  @Field(() => GraphQLString, opt) resourcePath?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The request body as JSON text (details enabled).' })
  representation?: string;
  @Field(() => GraphQLString, opt) error?: string;
  @Field(() => JSONObject, opt) details?: Record<string, string>;
}

@Directive('@representation(name: "RealmEventsConfigRepresentation")')
@ObjectType({ description: "A realm's events configuration (Keycloak RealmEventsConfigRepresentation)." })
export class EventsConfig {
  @Field(() => GraphQLBoolean) eventsEnabled!: boolean;
  @Field(() => SafeInt, opt) eventsExpiration?: number;
  @Field(() => [GraphQLString]) eventsListeners!: string[];
  @Field(() => [GraphQLString]) enabledEventTypes!: string[];
  @Field(() => GraphQLBoolean) adminEventsEnabled!: boolean;
  @Field(() => GraphQLBoolean) adminEventsDetailsEnabled!: boolean;
}

/** Realm → events (`GET /events`, `/admin-events`, `/events/config`) and the event and e-mail mutations. */
@Resolver(() => Realm)
export class RealmEventsResolver {
  @FieldResolver(() => [Event], { description: 'User events, newest first (GET /events); max 100 by default.' })
  async events(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('type', () => [GraphQLString], opt) type?: string[],
    @Arg('client', () => GraphQLString, opt) client?: string,
    @Arg('user', () => GraphQLString, opt) user?: string,
    @Arg('ipAddress', () => GraphQLString, opt) ipAddress?: string,
    @Arg('dateFrom', () => GraphQLString, { nullable: true, description: 'yyyy-MM-dd or epoch ms.' }) dateFrom?: string,
    @Arg('dateTo', () => GraphQLString, { nullable: true, description: 'yyyy-MM-dd (whole day) or epoch ms.' }) dateTo?: string,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
    @Arg('direction', () => GraphQLString, opt) direction?: string,
  ): Promise<Rep[]> {
    const q = { type, client, user, ipAddress, dateFrom, dateTo, first, max, direction };
    return listEvents(ctx, realmOf(realm), plain(q));
  }

  @FieldResolver(() => [AdminEvent], { description: 'Admin events, newest first (GET /admin-events); max 100 by default.' })
  async adminEvents(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('operationTypes', () => [GraphQLString], opt) operationTypes?: string[],
    @Arg('resourceTypes', () => [GraphQLString], opt) resourceTypes?: string[],
    @Arg('authRealm', () => GraphQLString, opt) authRealm?: string,
    @Arg('authClient', () => GraphQLString, opt) authClient?: string,
    @Arg('authUser', () => GraphQLString, opt) authUser?: string,
    @Arg('authIpAddress', () => GraphQLString, opt) authIpAddress?: string,
    @Arg('resourcePath', () => GraphQLString, { nullable: true, description: '`*` matches any characters.' }) resourcePath?: string,
    @Arg('dateFrom', () => GraphQLString, opt) dateFrom?: string,
    @Arg('dateTo', () => GraphQLString, opt) dateTo?: string,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
    @Arg('direction', () => GraphQLString, opt) direction?: string,
  ): Promise<Rep[]> {
    const q = {
      operationTypes,
      resourceTypes,
      authRealm,
      authClient,
      authUser,
      authIpAddress,
      resourcePath,
      dateFrom,
      dateTo,
      first,
      max,
      direction,
    };
    return listAdminEvents(ctx, realmOf(realm), plain(q));
  }

  @FieldResolver(() => EventsConfig, { description: 'The events configuration (GET /events/config).' })
  eventsConfig(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<Rep> {
    return getEventsConfig(ctx, realmOf(realm));
  }

  @Mutation(() => EventsConfig, { description: 'Replaces the events configuration (PUT /events/config); returns it.' })
  async updateEventsConfig(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) name: string,
    @Arg('input', () => EventsConfigInput) input: Rep,
  ): Promise<Rep> {
    const realm = await resolveRealm(ctx, name);
    await updateEventsConfig(ctx, realm, plain(input));
    return getEventsConfig(ctx, realm);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes all user events of the realm (DELETE /events).' })
  async clearEvents(@Ctx() ctx: RequestContext, @Arg('realm', () => GraphQLString) name: string): Promise<boolean> {
    await clearEvents(ctx, await resolveRealm(ctx, name));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes all admin events of the realm (DELETE /admin-events).' })
  async clearAdminEvents(@Ctx() ctx: RequestContext, @Arg('realm', () => GraphQLString) name: string): Promise<boolean> {
    await clearAdminEvents(ctx, await resolveRealm(ctx, name));
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Mails the user a link to perform required actions (PUT /users/{id}/execute-actions-email).',
  })
  async executeActionsEmail(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) name: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('actions', () => [GraphQLString]) actions: string[],
    @Arg('clientId', () => GraphQLString, opt) clientId?: string,
    @Arg('redirectUri', () => GraphQLString, opt) redirectUri?: string,
    @Arg('lifespan', () => GraphQLInt, { nullable: true, description: 'Seconds until the link expires.' }) lifespan?: number,
  ): Promise<boolean> {
    const realm = await resolveRealm(ctx, name);
    const user = await resolveUser(ctx, realm, userId);
    await executeActionsEmail(ctx, realm, user, actions, plain({ clientId, redirectUri, lifespan }));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Mails the user an e-mail verification link (PUT /users/{id}/send-verify-email).' })
  async sendVerifyEmail(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) name: string,
    @Arg('userId', () => GraphQLID) userId: string,
    @Arg('clientId', () => GraphQLString, opt) clientId?: string,
    @Arg('redirectUri', () => GraphQLString, opt) redirectUri?: string,
    @Arg('lifespan', () => GraphQLInt, opt) lifespan?: number,
  ): Promise<boolean> {
    const realm = await resolveRealm(ctx, name);
    await sendVerifyEmail(ctx, realm, await resolveUser(ctx, realm, userId), plain({ clientId, redirectUri, lifespan }));
    return true;
  }

  @Mutation(() => GraphQLBoolean, {
    description: "Sends a test mail to the caller's address with these SMTP settings (POST /testSMTPConnection).",
  })
  async testSmtpConnection(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) name: string,
    @Arg('settings', () => JSONObject) settings: Rep,
  ): Promise<boolean> {
    await testSmtpConnection(ctx, await resolveRealm(ctx, name), settings);
    return true;
  }
}
