import { GraphQLString } from 'graphql';
import { Arg, Args, Ctx, Field, FieldResolver, InputType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { listAdminEvents, listEvents } from '../../src/services/events/events';
import { type InRealm, plain, realmOf } from '../types/common';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';
import { EventType, OperationType, ResourceType, SortDirection } from '../types/enums';
import { Realm } from '../realms/types';
import { AdminEvent, Event } from './events';

@InputType({ description: 'Which user events to list: the filters of GET /events.' })
export class EventFilter {
  @Field(() => [EventType], { nullable: true, description: 'Only events of these types.' })
  types?: string[];
  @Field(() => GraphQLString, { nullable: true, description: 'Only events of this client (its clientId).' })
  client?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only events of this user id.' })
  user?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only events from this IP address.' })
  ipAddress?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'From this day (yyyy-MM-dd) or instant (epoch ms) on.' })
  dateFrom?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Up to this day (yyyy-MM-dd, whole day) or instant (epoch ms).' })
  dateTo?: string;
}

@InputType({ description: 'Which admin events to list: the filters of GET /admin-events.' })
export class AdminEventFilter {
  @Field(() => [OperationType], { nullable: true, description: 'Only these operations.' })
  operationTypes?: string[];
  @Field(() => [ResourceType], { nullable: true, description: 'Only changes of these kinds of objects.' })
  resourceTypes?: string[];
  @Field(() => GraphQLString, { nullable: true, description: "Only events by admins of this realm (the realm's id)." })
  authRealm?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only events through this client (its id).' })
  authClient?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only events by this admin user id.' })
  authUser?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only events from this IP address.' })
  authIpAddress?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Only this resource path; `*` matches any characters.' })
  resourcePath?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'From this day (yyyy-MM-dd) or instant (epoch ms) on.' })
  dateFrom?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Up to this day (yyyy-MM-dd, whole day) or instant (epoch ms).' })
  dateTo?: string;
}

@InputType({ description: 'Order of events by time.' })
export class EventOrder {
  @Field(() => SortDirection, { description: 'DESC: newest first (the default); ASC: oldest first.' })
  direction!: SortDirection;
}

// Counting a realm's whole event log on every page is what a dashboard should not pay for: no totalCount.
const EventConnection = connectionType(Event, 'Event', { countable: false });
const AdminEventConnection = connectionType(AdminEvent, 'AdminEvent', { countable: false });

/** Realm → user and admin events as connections (GET /events, GET /admin-events). */
@Resolver(() => Realm)
export class RealmEventConnectionsResolver {
  @FieldResolver(() => EventConnection, {
    description: 'User events, newest first unless ordered otherwise (GET /events), a page at a time.',
  })
  async eventsConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => EventFilter, { nullable: true, description: 'Only events matching all of these.' }) filter?: EventFilter,
    @Arg('orderBy', () => EventOrder, { nullable: true, description: 'Newest first by default.' }) orderBy?: EventOrder,
  ): Promise<ConnectionValue<unknown>> {
    const { types, ...rest } = filter ?? {};
    const q = plain({ ...rest, type: types, direction: orderBy?.direction });
    return connection(page, (first, max) => listEvents(ctx, realmOf(realm), { ...q, first, max }));
  }

  @FieldResolver(() => AdminEventConnection, {
    description: 'Admin events, newest first unless ordered otherwise (GET /admin-events), a page at a time.',
  })
  async adminEventsConnection(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('filter', () => AdminEventFilter, { nullable: true, description: 'Only events matching all of these.' }) filter?: AdminEventFilter,
    @Arg('orderBy', () => EventOrder, { nullable: true, description: 'Newest first by default.' }) orderBy?: EventOrder,
  ): Promise<ConnectionValue<unknown>> {
    const q = plain({ ...(filter ?? {}), direction: orderBy?.direction });
    return connection(page, (first, max) => listAdminEvents(ctx, realmOf(realm), { ...q, first, max }));
  }
}
