import { GraphQLBoolean, GraphQLID, GraphQLInt } from 'graphql';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { UserError } from '../types/user-error';

/** The enums of the bulk writes; values as src/services/bulk names them. */
export enum BulkMode {
  ATOMIC = 'ATOMIC',
  PER_ITEM = 'PER_ITEM',
}
registerEnumType(BulkMode, {
  name: 'BulkMode',
  description: 'What a failing item of a bulk write does to the others.',
  valuesConfig: {
    ATOMIC: {
      description:
        'All or nothing: the first failing item rolls the whole batch back (the items before it are ROLLED_BACK, those after it NOT_ATTEMPTED); nothing is written and no admin event recorded.',
    },
    PER_ITEM: {
      description: 'Each item on its own: a failing item is FAILED and leaves no trace, every other item is written (in one transaction).',
    },
  },
});

export enum BulkItemStatus {
  CREATED = 'CREATED',
  UPDATED = 'UPDATED',
  DELETED = 'DELETED',
  UNCHANGED = 'UNCHANGED',
  FAILED = 'FAILED',
  ROLLED_BACK = 'ROLLED_BACK',
  NOT_ATTEMPTED = 'NOT_ATTEMPTED',
}
registerEnumType(BulkItemStatus, {
  name: 'BulkItemStatus',
  description: 'What happened to one item of a bulk write.',
  valuesConfig: {
    CREATED: { description: 'Created (a user, a group membership, a role mapping).' },
    UPDATED: { description: 'Updated.' },
    DELETED: { description: 'Deleted.' },
    UNCHANGED: { description: 'Already so: the user was a member of the group, or held every role, before.' },
    FAILED: { description: 'Not written: see `errors`.' },
    ROLLED_BACK: { description: 'Succeeded, then rolled back because a later item failed (ATOMIC).' },
    NOT_ATTEMPTED: { description: 'Not tried, because an earlier item failed (ATOMIC).' },
  },
});

export enum BulkDeleteKind {
  USER = 'USER',
  GROUP = 'GROUP',
  ROLE = 'ROLE',
  CLIENT = 'CLIENT',
  CLIENT_SCOPE = 'CLIENT_SCOPE',
}
registerEnumType(BulkDeleteKind, {
  name: 'BulkDeleteKind',
  description: 'The kind of object `bulkDelete` deletes.',
  valuesConfig: {
    USER: { description: 'Users by id (DELETE /users/{id}).' },
    GROUP: { description: 'Groups by id, each with its subgroups (DELETE /groups/{id}).' },
    ROLE: { description: 'Realm or client roles by id (DELETE /roles-by-id/{id}).' },
    CLIENT: { description: 'Clients by UUID (DELETE /clients/{id}).' },
    CLIENT_SCOPE: { description: 'Client scopes by id (DELETE /client-scopes/{id}).' },
  },
});

@ObjectType({ description: 'The outcome of one item of a bulk write.' })
export class BulkItemResult {
  @Field(() => GraphQLInt, { description: 'Position of the item in the request, from 0.' })
  index!: number;

  @Field(() => GraphQLID, {
    nullable: true,
    description: 'The object of the item: the new id of a created user, the given id otherwise; null for a create that was not written.',
  })
  id?: string | null;

  @Field(() => BulkItemStatus, { description: 'What happened to the item.' })
  status!: BulkItemStatus;

  @Field(() => UserError, { nullable: true, description: 'Why the item FAILED (the first of `errors`); null otherwise.' })
  error?: UserError | null;

  @Field(() => [UserError], {
    description: 'Every problem of a FAILED item (a user-profile validation can report several attributes at once); empty otherwise.',
  })
  errors!: UserError[];
}

@ObjectType({ description: 'The result of a bulk write: one entry per item, in request order.' })
export class BulkPayload {
  @Field(() => GraphQLBoolean, { description: 'True when every item succeeded (and, in ATOMIC mode, was written).' })
  ok!: boolean;

  @Field(() => GraphQLInt, { description: 'Number of items that FAILED.' })
  failedCount!: number;

  @Field(() => [BulkItemResult], { description: 'One result per item, in the order of the request.' })
  results!: BulkItemResult[];
}
