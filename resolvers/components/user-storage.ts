import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { resolveRealm } from '../../src/services/realms/realms';
import {
  type LdapCapability,
  ldapServerCapabilities,
  parseTestLdapInput,
  testLdapConnection,
} from '../../src/services/user-storage/ldap-test';
import type { SyncResult } from '../../src/services/user-storage/sync-result';
import {
  removeImportedUsers,
  storageProviderName,
  syncMapper,
  syncStorage,
  unlinkUsers,
} from '../../src/services/user-storage/user-storage';
import { plain, type Rep } from '../types/common';

/** What a user or mapper sync did (Keycloak SynchronizationResult). */
@ObjectType({ description: 'What a user-storage or mapper sync did (Keycloak SynchronizationResult).' })
export class SynchronizationResult {
  @Field(() => GraphQLBoolean, { description: 'Whether the sync was skipped (another one running, a provider that does not sync).' })
  ignored!: boolean;
  @Field(() => GraphQLInt, { description: 'Users (or mapped values) imported.' }) added!: number;
  @Field(() => GraphQLInt, { description: 'Users (or mapped values) updated.' }) updated!: number;
  @Field(() => GraphQLInt, { description: 'Users removed.' }) removed!: number;
  @Field(() => GraphQLInt, { description: 'Entries that failed to sync (see the server log).' }) failed!: number;
  @Field(() => GraphQLString, { description: "Keycloak's summary, e.g. `3 imported users, 0 updated users`." }) status!: string;
}

/** A capability of an LDAP server's root DSE. */
@ObjectType({
  description: "A supported control, extension or feature of an LDAP server's root DSE (Keycloak LDAPCapabilityRepresentation).",
})
export class LdapServerCapability {
  @Field(() => GraphQLString, { description: 'Object identifier of the control, extension or feature.' }) oid!: string;
  @Field(() => GraphQLString, { description: 'CONTROL, EXTENSION or FEATURE.' }) type!: string;
}

@ObjectType({ description: 'The id and name of a user-storage provider (GET /user-storage/{id}/name).' })
export class UserStorageProviderName {
  @Field(() => GraphQLID, { description: 'Id of the provider (a component).' }) id!: string;
  @Field(() => GraphQLString, { description: 'Display name of the provider.' }) name!: string;
}

/** The connection settings to test (Keycloak TestLdapConnectionRepresentation; all strings, as there). */
@InputType({ description: 'LDAP connection settings to test (Keycloak TestLdapConnectionRepresentation).' })
export class TestLdapConnectionInput {
  @Field(() => GraphQLString, { nullable: true, description: 'testConnection, testAuthentication or queryServerCapabilities.' })
  action?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'ldap:// or ldaps:// URLs, space separated.' }) connectionUrl?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'DN to bind as (simple authentication).' }) bindDn?: string;
  @Field(() => GraphQLString, {
    nullable: true,
    description: 'The bind password; `**********` means the stored one of componentId (same URL and bind DN).',
  })
  bindCredential?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Accepted for compatibility (always, never); not used.' })
  useTruststoreSpi?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'Milliseconds.' }) connectionTimeout?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'The LDAP provider whose stored bind credential the mask stands for.' })
  componentId?: string;
  @Field(() => GraphQLString, { nullable: true, description: '"true" for StartTLS.' }) startTls?: string;
  @Field(() => GraphQLString, { nullable: true, description: 'simple or none.' }) authType?: string;
}

const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID, { description: 'Id of the user-storage provider (a component).' });
const ldapInput = (i: Rep) => parseTestLdapInput(plain(i));

/**
 * The user-storage operations of REST (`/user-storage`, `/testLDAPConnection`, `/ldap-server-capabilities`):
 * the same service functions, so the same permissions, counts and error codes.
 */
@Resolver()
export class UserStorageResolver {
  @Query(() => UserStorageProviderName, { description: 'The id and name of a user-storage provider (GET /user-storage/{id}/name).' })
  async userStorageProviderName(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<object> {
    return storageProviderName(ctx, await resolveRealm(ctx, realm), id);
  }

  @Mutation(() => SynchronizationResult, { description: 'Syncs the users of a user-storage provider (POST /user-storage/{id}/sync).' })
  async syncUserStorage(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('action', () => GraphQLString, { description: 'triggerFullSync or triggerChangedUsersSync.' }) action: string,
  ): Promise<SyncResult> {
    return syncStorage(ctx, await resolveRealm(ctx, realm), id, action);
  }

  @Mutation(() => GraphQLBoolean, {
    description: "Deletes the local copies of a provider's users (POST /user-storage/{id}/remove-imported-users).",
  })
  async removeImportedUsers(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    await removeImportedUsers(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: "Makes a provider's users local users (POST /user-storage/{id}/unlink-users)." })
  async unlinkUsers(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    await unlinkUsers(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }

  @Mutation(() => SynchronizationResult, {
    description: "Syncs a mapper's data in one direction (POST /user-storage/{parentId}/mappers/{id}/sync).",
  })
  async syncUserStorageMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('parentId', () => GraphQLID, { description: 'Id of the user-storage provider.' }) parentId: string,
    @Arg('id', () => GraphQLID, { description: 'Id of the mapper (a sub-component of the provider).' }) id: string,
    @Arg('direction', () => GraphQLString, { description: 'fedToKeycloak or keycloakToFed.' }) direction: string,
  ): Promise<SyncResult> {
    return syncMapper(ctx, await resolveRealm(ctx, realm), parentId, id, direction);
  }

  @Mutation(() => GraphQLBoolean, {
    description:
      "Connects (testConnection) or binds (testAuthentication) with the given settings (POST /testLDAPConnection); a failure is a user error with Keycloak's code.",
  })
  async testLdapConnection(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => TestLdapConnectionInput, { description: 'The connection settings.' }) i: Rep,
  ): Promise<boolean> {
    await testLdapConnection(ctx, await resolveRealm(ctx, realm), ldapInput(i));
    return true;
  }

  @Mutation(() => [LdapServerCapability], {
    description: "The root DSE's supported controls, extensions and features (POST /ldap-server-capabilities).",
  })
  async ldapServerCapabilities(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => TestLdapConnectionInput, { description: 'The connection settings.' }) i: Rep,
  ): Promise<LdapCapability[]> {
    return ldapServerCapabilities(ctx, await resolveRealm(ctx, realm), ldapInput(i));
  }
}
