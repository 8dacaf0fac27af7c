import { GraphQLError, GraphQLString } from 'graphql';
import { Arg, type PubSub, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { subscribeAdminEvents, subscribeEvents } from '../../src/services/events/feed';
import { resolveRealm } from '../../src/services/realms/realms';
import { type Rep, plain } from '../types/common';
import { AdminEventFilter, EventFilter } from './event-connections';
import { AdminEvent, Event } from './events';

/**
 * Live events over WebSocket (`graphql-ws` at /graphql, resolvers/subscriptions.ts; ADR 18): each
 * subscription is a feed of src/services/events/feed.ts, which checks view-events and the filters
 * through the same listing functions as the event queries, and sees the events of every node.
 */

interface EventsArgs {
  realm: string;
  filter?: EventFilter | null;
}

interface AdminEventsArgs {
  realm: string;
  filter?: AdminEventFilter | null;
}

/** An event pushed by the feed; a subscription field run as a query (over HTTP) has none. */
function delivered(event: Rep | undefined): Rep {
  if (event) return event;
  throw new GraphQLError('Subscriptions are served over WebSocket (graphql-ws protocol) at /graphql.', {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

const realmArg = { description: 'The realm whose events to receive (its name).' } as const;
const filterArg = {
  nullable: true,
  description:
    'Only events matching all of these. With dateFrom the stored events from then on come first (oldest first, at most 1,000); ' +
    'with dateTo the subscription completes once no later event can match.',
} as const;

@Resolver()
export class EventSubscriptionsResolver {
  @Subscription(() => Event, {
    description:
      "The realm's user (login) events as they are stored, by any node of the cluster (view-events); the filters of Realm.eventsConnection.",
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      const { realm, filter } = args as EventsArgs;
      const { types, ...rest } = filter ?? {};
      return subscribeEvents(ctx, await resolveRealm(ctx, realm), plain({ ...rest, type: types }));
    },
  })
  events(
    @Root() event: Rep | undefined,
    @Arg('realm', () => GraphQLString, realmArg) _realm: string,
    @Arg('filter', () => EventFilter, filterArg) _filter?: EventFilter,
  ): Rep {
    return delivered(event);
  }

  @Subscription(() => AdminEvent, {
    description:
      "The realm's admin events as they are stored, by any node of the cluster (view-events); the filters of Realm.adminEventsConnection.",
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      const { realm, filter } = args as AdminEventsArgs;
      return subscribeAdminEvents(ctx, await resolveRealm(ctx, realm), plain(filter ?? {}));
    },
  })
  adminEvents(
    @Root() event: Rep | undefined,
    @Arg('realm', () => GraphQLString, realmArg) _realm: string,
    @Arg('filter', () => AdminEventFilter, filterArg) _filter?: AdminEventFilter,
  ): Rep {
    return delivered(event);
  }
}

/**
 * type-graphql insists on a PubSub once a schema has subscriptions, even when (as here) every
 * subscription brings its own `subscribe`; this one is never used.
 */
export const unusedPubSub: PubSub = {
  publish() {
    throw new Error('The gateway publishes no topics: subscriptions read the event feeds');
  },
  subscribe() {
    throw new Error('The gateway has no topics: subscriptions read the event feeds');
  },
};
