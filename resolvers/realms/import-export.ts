import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { partialExport } from '../../src/services/import-export/partial-export';
import { type PartialImportResults as Results, partialImport } from '../../src/services/import-export/partial-import';
import { resolveRealm } from '../../src/services/realms/realms';
import { type Rep, plain } from '../types/common';
import { JSONObject } from '../types/scalars';

/**
 * GraphQL over partial import and partial export (`POST /{realm}/partialImport`,
 * `POST /{realm}/partial-export`): the same services, so the same rules, one transaction per
 * import and the same errors (409 on an existing resource under FAIL, 400 on a bad document).
 */
export enum PartialImportPolicy {
  FAIL = 'FAIL',
  SKIP = 'SKIP',
  OVERWRITE = 'OVERWRITE',
}
registerEnumType(PartialImportPolicy, {
  name: 'PartialImportPolicy',
  description: 'What a partial import does with a resource that exists (ifResourceExists).',
  valuesConfig: {
    FAIL: { description: 'Fail the whole import (409); nothing is written.' },
    SKIP: { description: 'Keep the existing resource and go on.' },
    OVERWRITE: { description: 'Replace the existing resource with the one imported.' },
  },
});

export enum PartialImportAction {
  ADDED = 'ADDED',
  SKIPPED = 'SKIPPED',
  OVERWRITTEN = 'OVERWRITTEN',
}
registerEnumType(PartialImportAction, {
  name: 'PartialImportAction',
  description: 'What a partial import did with one resource.',
  valuesConfig: {
    ADDED: { description: 'The resource did not exist and was created.' },
    SKIPPED: { description: 'The resource existed and was left as it was (SKIP).' },
    OVERWRITTEN: { description: 'The resource existed and was replaced (OVERWRITE).' },
  },
});

export enum PartialImportResourceType {
  CLIENT = 'CLIENT',
  REALM_ROLE = 'REALM_ROLE',
  CLIENT_ROLE = 'CLIENT_ROLE',
  IDP = 'IDP',
  IDP_MAPPER = 'IDP_MAPPER',
  GROUP = 'GROUP',
  USER = 'USER',
}
registerEnumType(PartialImportResourceType, {
  name: 'PartialImportResourceType',
  description: 'The kind of a resource of a partial import.',
  valuesConfig: {
    CLIENT: { description: 'A client.' },
    REALM_ROLE: { description: 'A realm role.' },
    CLIENT_ROLE: { description: 'A role of a client.' },
    IDP: { description: 'An identity provider.' },
    IDP_MAPPER: { description: 'A mapper of an identity provider.' },
    GROUP: { description: 'A group.' },
    USER: { description: 'A user.' },
  },
});

@ObjectType({ description: 'What a partial import did with one resource (Keycloak PartialImportResult).' })
export class PartialImportResult {
  @Field(() => PartialImportAction) action!: PartialImportAction;
  @Field(() => PartialImportResourceType) resourceType!: PartialImportResourceType;
  @Field(() => GraphQLString) resourceName!: string;
  @Field(() => GraphQLID, { description: 'The id of the resource (of the client, for a client role).' }) id!: string;
}

@ObjectType({ description: 'The outcome of a partial import (Keycloak PartialImportResults).' })
export class PartialImportResults {
  @Field(() => GraphQLInt) overwritten!: number;
  @Field(() => GraphQLInt) added!: number;
  @Field(() => GraphQLInt) skipped!: number;
  @Field(() => [PartialImportResult]) results!: PartialImportResult[];
}

const realmArg = () => Arg('realm', () => GraphQLString);

@Resolver()
export class ImportExportResolver {
  @Mutation(() => PartialImportResults, {
    description:
      'Imports users, groups, roles, clients, identity providers and their mappers into the realm (POST /partialImport); ' +
      'all or nothing. `ifResourceExists`, when given, replaces the one of the document.',
  })
  async partialImport(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => JSONObject, { description: 'The PartialImportRepresentation: a realm document.' }) input: Rep,
    @Arg('ifResourceExists', () => PartialImportPolicy, { nullable: true }) ifResourceExists?: PartialImportPolicy,
  ): Promise<Results> {
    const body = plain<Rep>(input);
    if (ifResourceExists) body.ifResourceExists = ifResourceExists;
    return partialImport(ctx, await resolveRealm(ctx, realm), body);
  }

  @Query(() => JSONObject, {
    description: 'The realm document for export, secrets masked (POST /partial-export); clients and groups/roles on request.',
  })
  async partialExport(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('exportClients', () => GraphQLBoolean, { defaultValue: false }) exportClients: boolean,
    @Arg('exportGroupsAndRoles', () => GraphQLBoolean, { defaultValue: false }) exportGroupsAndRoles: boolean,
  ): Promise<object> {
    return partialExport(ctx, await resolveRealm(ctx, realm), { exportClients, exportGroupsAndRoles });
  }
}
