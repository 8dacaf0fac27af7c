import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { bruteForceStatus, clearAllLoginFailures, clearUserLoginFailures } from '../../src/services/sessions/brute-force';
import type { RequestContext } from '../../src/core/context';
import { resolveClient } from '../../src/services/clients/clients';
import { resolveRealm } from '../../src/services/realms/realms';
import { resolveUser } from '../../src/services/users/users';
import type { GlobalRequestResult as Result } from '../../src/services/sessions/revocation';
import {
  clientSessionCount,
  clientSessionStats,
  deleteSession,
  listClientSessions,
  listUserOfflineSessions,
  listUserSessions,
  logoutAll,
  logoutUser,
  pushClientRevocation,
  pushRevocation,
} from '../../src/services/sessions/sessions';
import { Client } from '../clients/types';
import { type InRealm, realmOf } from '../types/common';
import { Realm } from '../realms/types';
import { BruteForceStatus, ClientSessionStat, GlobalRequestResult, UserSession } from './types';
import { User } from '../users/types';
import { ConnectionArgs, type ConnectionValue, connection, connectionType } from '../types/connection';

const opt = { nullable: true } as const;

const SessionConnection = connectionType(UserSession, 'Session');

const statusOut = (s: Awaited<ReturnType<typeof bruteForceStatus>>) => ({ ...s, failedLoginNotBefore: String(s.failedLoginNotBefore) });
const resultOut = (r: Result) => ({ successRequests: r.successRequests ?? [], failedRequests: r.failedRequests ?? [] });

/** User → sessions, offline sessions, brute-force status (GET /users/{id}/sessions ...). */
@Resolver(() => User)
export class UserSessionsResolver {
  @FieldResolver(() => [UserSession], { description: 'Active online sessions (GET /users/{id}/sessions).' })
  async sessions(@Root() user: InRealm, @Ctx() ctx: RequestContext) {
    const realm = realmOf(user);
    return listUserSessions(ctx, realm, await resolveUser(ctx, realm, String(user.id)));
  }

  @FieldResolver(() => [UserSession], { description: 'Offline sessions holding a client (GET /users/{id}/offline-sessions/{clientUuid}).' })
  async offlineSessions(
    @Root() user: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('clientUuid', () => GraphQLID, { description: 'Client UUID.' }) clientUuid: string,
  ) {
    const realm = realmOf(user);
    return listUserOfflineSessions(ctx, realm, await resolveUser(ctx, realm, String(user.id)), clientUuid);
  }

  @FieldResolver(() => BruteForceStatus, { description: 'Brute-force status (GET /attack-detection/brute-force/users/{id}).' })
  async bruteForceStatus(@Root() user: InRealm, @Ctx() ctx: RequestContext) {
    return statusOut(await bruteForceStatus(ctx, realmOf(user), String(user.id)));
  }
}

/** Realm → client session statistics and brute-force status by user id. */
@Resolver(() => Realm)
export class RealmSessionsResolver {
  @FieldResolver(() => [ClientSessionStat], { description: 'Clients with sessions and their counts (GET /client-session-stats).' })
  async clientSessionStats(@Root() realm: InRealm, @Ctx() ctx: RequestContext) {
    const stats = await clientSessionStats(ctx, realmOf(realm));
    return stats.map((s) => ({ ...s, active: Number(s.active), offline: Number(s.offline) }));
  }

  @FieldResolver(() => BruteForceStatus, { description: 'Brute-force status of a user id (GET /attack-detection/brute-force/users/{id}).' })
  async bruteForceStatus(@Root() realm: InRealm, @Ctx() ctx: RequestContext, @Arg('userId', () => GraphQLID) userId: string) {
    return statusOut(await bruteForceStatus(ctx, realmOf(realm), userId));
  }
}

/** Client → its sessions and counts (GET /clients/{id}/user-sessions, session-count ...). */
@Resolver(() => Client)
export class ClientSessionsResolver {
  @FieldResolver(() => [UserSession], {
    description: 'Sessions with this client (GET /clients/{id}/user-sessions or offline-sessions); max 100 by default.',
  })
  async sessions(
    @Root() client: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('offline', () => GraphQLBoolean, opt) offline?: boolean,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
  ) {
    const realm = realmOf(client);
    return listClientSessions(ctx, realm, await resolveClient(ctx, realm, String(client.id)), Boolean(offline), {
      first: first ?? undefined,
      max: max ?? undefined,
    });
  }

  @FieldResolver(() => SessionConnection, {
    description: 'Sessions with this client, a page at a time (GET /clients/{id}/user-sessions or offline-sessions, paged).',
  })
  async sessionsConnection(
    @Root() client: InRealm,
    @Ctx() ctx: RequestContext,
    @Args(() => ConnectionArgs) page: ConnectionArgs,
    @Arg('offline', () => GraphQLBoolean, { nullable: true, description: 'Offline sessions instead of regular ones; false when absent.' })
    offline?: boolean,
  ): Promise<ConnectionValue<unknown>> {
    const realm = realmOf(client);
    const model = await resolveClient(ctx, realm, String(client.id));
    return connection(
      page,
      (first, max) => listClientSessions(ctx, realm, model, Boolean(offline), { first, max }),
      async () => (await clientSessionCount(ctx, realm, model, Boolean(offline))).count,
    );
  }

  @FieldResolver(() => GraphQLInt, { description: 'Number of active sessions (GET /clients/{id}/session-count or offline-session-count).' })
  async sessionCount(
    @Root() client: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('offline', () => GraphQLBoolean, opt) offline?: boolean,
  ): Promise<number> {
    const realm = realmOf(client);
    return (await clientSessionCount(ctx, realm, await resolveClient(ctx, realm, String(client.id)), Boolean(offline))).count;
  }
}

/** Session and brute-force writes: logout, session deletion, logout-all, push-revocation, clearing failures. */
@Resolver()
export class SessionMutationsResolver {
  @Mutation(() => GraphQLBoolean, {
    description: 'Logs a user out: sets its notBefore, removes its online sessions (POST /users/{id}/logout).',
  })
  async logoutUser(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await logoutUser(ctx, r, await resolveUser(ctx, r, id));
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Removes one session (DELETE /{realm}/sessions/{id}?isOffline).' })
  async deleteSession(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('offline', () => GraphQLBoolean, opt) offline?: boolean,
  ): Promise<boolean> {
    await deleteSession(ctx, await resolveRealm(ctx, realm), id, Boolean(offline));
    return true;
  }

  @Mutation(() => GlobalRequestResult, {
    description: 'Removes every session of the realm and sets its notBefore (POST /{realm}/logout-all).',
  })
  async logoutAll(@Ctx() ctx: RequestContext, @Arg('realm', () => GraphQLString) realm: string) {
    return resultOut(await logoutAll(ctx, await resolveRealm(ctx, realm)));
  }

  @Mutation(() => GlobalRequestResult, {
    description:
      'Pushes the not-before policy to admin URLs: of one client (POST /clients/{id}/push-revocation) or all (POST /{realm}/push-revocation).',
  })
  async pushRevocation(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientUuid', () => GraphQLID, { nullable: true, description: 'Client UUID; all clients when absent.' }) clientUuid?: string,
  ) {
    const r = await resolveRealm(ctx, realm);
    if (!clientUuid) return resultOut(await pushRevocation(ctx, r));
    return resultOut(await pushClientRevocation(ctx, r, await resolveClient(ctx, r, clientUuid)));
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Clears login failures of a user, or of all users (DELETE /attack-detection/brute-force/users[/{id}]).',
  })
  async clearBruteForce(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('userId', () => GraphQLID, { nullable: true }) userId?: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    if (userId) await clearUserLoginFailures(ctx, r, userId);
    else await clearAllLoginFailures(ctx, r);
    return true;
  }
}
