import { GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { HttpError } from '../../src/core/errors';
import type { BulkResult } from '../../src/services/bulk/bulk';
import { addGroupMembers, assignRoles, bulkCreateUsers, bulkDelete, bulkUpdateUsers } from '../../src/services/bulk/bulk-writes';
import { resolveRealm } from '../../src/services/realms/realms';
import { plain, type Rep } from '../types/common';
import { writeInput } from '../types/inputs';
import { conflictField, type UserErrorValue, userErrorsOf } from '../types/user-error';
import { BulkDeleteKind, BulkItemStatus, BulkMode, BulkPayload } from './types';

const UserCreateInput = writeInput('UserRepresentation', 'create');
const UserBulkUpdateInput = writeInput('UserRepresentation', 'update', { required: ['id'], as: 'UserBulkUpdateInput' });

const modeArg = {
  defaultValue: BulkMode.ATOMIC,
  description: 'ATOMIC (default): all or nothing. PER_ITEM: each item on its own.',
} as const;

/** The payload of a service's bulk result; item errors become user errors at `<argument>.<index>`. */
function payload(result: BulkResult, argument: string, fieldOf: (err: HttpError) => string[] | undefined = () => undefined) {
  const results = result.results.map((r) => {
    const errors: UserErrorValue[] = r.error ? userErrorsOf(r.error, [argument, String(r.index)], fieldOf(r.error)) : [];
    return { index: r.index, id: r.id, status: r.status as BulkItemStatus, error: errors[0] ?? null, errors };
  });
  return { ok: result.ok, failedCount: results.filter((r) => r.status === BulkItemStatus.FAILED).length, results };
}

/**
 * Bulk writes (up to 1,000 items, one transaction): each item goes through the service function of
 * its single REST write, so validations, permission checks and admin events are the same.
 */
@Resolver()
export class BulkWritesResolver {
  @Mutation(() => BulkPayload, {
    description:
      'Creates up to 1,000 users in one transaction, each as POST /users would (validation, uniqueness, default roles and groups, one admin event per user).',
  })
  async bulkCreateUsers(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('users', () => [UserCreateInput], { description: 'The users to create, as for `createUser`.' }) users: Rep[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await bulkCreateUsers(ctx, r, plain<Rep[]>(users), mode), 'users', conflictField) as BulkPayload;
  }

  @Mutation(() => BulkPayload, {
    description:
      'Updates up to 1,000 users in one transaction, each as PUT /users/{id} would (fields left out are kept); every input names its user by `id`.',
  })
  async bulkUpdateUsers(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('users', () => [UserBulkUpdateInput], { description: 'The changes, each with the `id` of the user it updates.' }) users: Rep[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await bulkUpdateUsers(ctx, r, plain<Rep[]>(users), mode), 'users', conflictField) as BulkPayload;
  }

  @Mutation(() => BulkPayload, {
    description:
      'Adds up to 1,000 users to a group in one transaction, each as PUT /users/{id}/groups/{groupId} would; an unknown group fails the whole request (NOT_FOUND).',
  })
  async addGroupMembers(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('groupId', () => GraphQLID, { description: 'Id of the group.' }) groupId: string,
    @Arg('userIds', () => [GraphQLID], { description: 'Ids of the users to add.' }) userIds: string[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await addGroupMembers(ctx, r, groupId, userIds, mode), 'userIds') as BulkPayload;
  }

  @Mutation(() => BulkPayload, {
    description:
      'Grants realm roles to up to 1,000 users in one transaction, each as POST /users/{id}/role-mappings/realm would; an unknown role name fails the whole request (NOT_FOUND).',
  })
  async assignRealmRoles(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('userIds', () => [GraphQLID], { description: 'Ids of the users to grant the roles to.' }) userIds: string[],
    @Arg('roleNames', () => [GraphQLString], { description: 'Names of realm roles.' }) roleNames: string[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await assignRoles(ctx, r, undefined, userIds, roleNames, mode), 'userIds') as BulkPayload;
  }

  @Mutation(() => BulkPayload, {
    description:
      "Grants a client's roles to up to 1,000 users in one transaction, each as POST /users/{id}/role-mappings/clients/{clientUuid} would; an unknown client or role name fails the whole request (NOT_FOUND).",
  })
  async assignClientRoles(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('clientUuid', () => GraphQLID, { description: 'UUID (`id`) of the client whose roles are granted.' }) clientUuid: string,
    @Arg('userIds', () => [GraphQLID], { description: 'Ids of the users to grant the roles to.' }) userIds: string[],
    @Arg('roleNames', () => [GraphQLString], { description: "Names of the client's roles." }) roleNames: string[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await assignRoles(ctx, r, clientUuid, userIds, roleNames, mode), 'userIds') as BulkPayload;
  }

  @Mutation(() => BulkPayload, {
    description:
      'Deletes up to 1,000 objects of one kind in one transaction, each as its single DELETE would (cascades and admin events alike).',
  })
  async bulkDelete(
    @Ctx() ctx: RequestContext,
    @Arg('realm', () => GraphQLString) realm: string,
    @Arg('kind', () => BulkDeleteKind, { description: 'What the ids name.' }) kind: BulkDeleteKind,
    @Arg('ids', () => [GraphQLID], { description: 'Ids of the objects (client UUIDs for clients).' }) ids: string[],
    @Arg('mode', () => BulkMode, modeArg) mode: BulkMode,
  ): Promise<BulkPayload> {
    const r = await resolveRealm(ctx, realm);
    return payload(await bulkDelete(ctx, r, kind, ids, mode), 'ids') as BulkPayload;
  }
}
