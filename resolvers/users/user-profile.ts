import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Ctx, Field, FieldResolver, ObjectType, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { configuredUserStorageCredentialTypes } from '../../src/services/users/credentials';
import {
  type UserProfileMetadata as MetadataRep,
  getUnmanagedAttributes,
  getUserProfileMetadata,
} from '../../src/services/users/user-profile-metadata';
import { resolveUser } from '../../src/services/users/users';
import { Realm } from '../realms/types';
import { type InRealm, realmOf } from '../types/common';
import { JSONObject } from '../types/scalars';
import { User } from './types';

/**
 * The user profile as the admin context sees it (the same services as `GET /users/profile/metadata`
 * and `GET /users/{id}/unmanagedAttributes`), and the user-storage credential types of a user.
 */
@ObjectType({ description: 'An attribute of the user profile as the admin console renders it (Keycloak UserProfileAttributeMetadata).' })
export class UserProfileAttributeMetadata {
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) displayName!: string;
  @Field(() => GraphQLBoolean, { description: 'Required in the admin context.' }) required!: boolean;
  @Field(() => GraphQLBoolean, { description: 'Not editable by an admin.' }) readOnly!: boolean;
  @Field(() => JSONObject, { nullable: true }) annotations?: Record<string, unknown>;
  @Field(() => JSONObject, { nullable: true, description: 'Validator id → its configuration.' }) validators?: Record<string, unknown>;
  @Field(() => GraphQLString, { nullable: true, description: 'Name of the attribute group.' }) group?: string;
  @Field(() => GraphQLBoolean, { nullable: true }) multivalued?: boolean;
}

@ObjectType({ description: 'An attribute group of the user profile (Keycloak UserProfileAttributeGroupMetadata).' })
export class UserProfileAttributeGroupMetadata {
  @Field(() => GraphQLString, { nullable: true }) name?: string;
  @Field(() => GraphQLString, { nullable: true }) displayHeader?: string;
  @Field(() => GraphQLString, { nullable: true }) displayDescription?: string;
  @Field(() => JSONObject, { nullable: true }) annotations?: Record<string, unknown>;
}

@ObjectType({ description: 'The user profile the admin console renders user forms from (Keycloak UserProfileMetadata).' })
export class UserProfileMetadata {
  @Field(() => [UserProfileAttributeMetadata]) attributes!: UserProfileAttributeMetadata[];
  @Field(() => [UserProfileAttributeGroupMetadata]) groups!: UserProfileAttributeGroupMetadata[];
}

/** Realm → the user-profile metadata of the admin context. */
@Resolver(() => Realm)
export class RealmUserProfileResolver {
  @FieldResolver(() => UserProfileMetadata, { description: 'Attributes and groups for the admin context (GET /users/profile/metadata).' })
  userProfileMetadata(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<MetadataRep> {
    return getUserProfileMetadata(ctx, realmOf(realm));
  }
}

/** User → unmanaged attributes and user-storage credential types. */
@Resolver(() => User)
export class UserProfileResolver {
  @FieldResolver(() => JSONObject, {
    description:
      'Stored attributes the user profile does not declare: name → values; {} while unmanagedAttributePolicy is unset ' +
      '(GET /users/{id}/unmanagedAttributes).',
  })
  async unmanagedAttributes(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<Record<string, string[]>> {
    return getUnmanagedAttributes(ctx, realmOf(user), await resolveUser(ctx, realmOf(user), String(user.id)));
  }

  @FieldResolver(() => [GraphQLString], {
    description: 'Credential types the user storage provider configures (GET /users/{id}/configured-user-storage-credential-types).',
  })
  async configuredUserStorageCredentialTypes(@Root() user: InRealm, @Ctx() ctx: RequestContext): Promise<string[]> {
    return configuredUserStorageCredentialTypes(ctx, realmOf(user), await resolveUser(ctx, realmOf(user), String(user.id)));
  }
}
