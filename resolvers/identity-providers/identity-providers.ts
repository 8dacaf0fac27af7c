import DataLoader from 'dataloader';
import { GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  addIdentityProvider,
  deleteIdentityProvider,
  getIdentityProvider,
  getIdentityProviderFactory,
  listIdentityProviders,
  reloadIdentityProviderKeys,
  requireIdpAccess,
  resolveIdentityProvider,
  updateIdentityProvider,
} from '../../src/services/identity-providers/identity-providers';
import {
  exportIdentityProvider,
  importIdentityProviderConfig,
  importIdentityProviderConfigFile,
} from '../../src/services/identity-providers/idp-import-config';
import {
  addIdpMapper,
  deleteIdpMapper,
  getIdpMapper,
  listIdpMapperTypes,
  mappersByProvider,
  updateIdpMapper,
} from '../../src/services/identity-providers/idp-mappers';
import { resolveRealm } from '../../src/services/realms/realms';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { writeInput } from '../types/inputs';
import { Realm } from '../realms/types';
import { JSONObject, JSON as JSONScalar } from '../types/scalars';
import { TextFile, textFile } from '../clients/client-extras';
import { ConfigProperty } from '../clients/registration-types';

/** A mapper of an identity provider (Keycloak IdentityProviderMapperRepresentation). */
@Directive('@representation(name: "IdentityProviderMapperRepresentation")')
@ObjectType({ description: 'A mapper of an identity provider (Keycloak IdentityProviderMapperRepresentation).' })
export class IdentityProviderMapper {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) identityProviderAlias!: string;
  @Field(() => GraphQLString, { description: 'The mapper type, e.g. oidc-hardcoded-role-idp-mapper.' }) identityProviderMapper!: string;
  @Field(() => JSONObject) config!: Record<string, string>;
}

/** An identity provider of a realm; `mappers` and `mapperTypes` come from the resolver below. */
@Directive('@representation(name: "IdentityProviderRepresentation")')
@ObjectType({ description: 'An identity provider of a realm (Keycloak IdentityProviderRepresentation; clientSecret masked).' })
export class IdentityProvider {
  @Field(() => GraphQLString) alias!: string;
  @Field(() => GraphQLString, { nullable: true }) displayName?: string;
  @Field() internalId!: string;
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLBoolean) enabled!: boolean;
  @Field(() => GraphQLBoolean) trustEmail!: boolean;
  @Field(() => GraphQLBoolean) storeToken!: boolean;
  @Field(() => GraphQLBoolean) addReadTokenRoleOnCreate!: boolean;
  @Field(() => GraphQLBoolean) authenticateByDefault!: boolean;
  @Field(() => GraphQLBoolean) linkOnly!: boolean;
  @Field(() => GraphQLBoolean) hideOnLogin!: boolean;
  @Field(() => GraphQLString, { nullable: true }) firstBrokerLoginFlowAlias?: string;
  @Field(() => GraphQLString, { nullable: true }) postBrokerLoginFlowAlias?: string;
  @Field(() => GraphQLString, { nullable: true }) organizationId?: string;
  @Field(() => JSONObject) config!: Record<string, string>;
}

/** An identity provider type (Keycloak's provider factory description, GET /identity-provider/providers/{id}). */
@ObjectType({ description: 'An identity provider type: its name and config properties (GET /identity-provider/providers/{provider_id}).' })
export class IdentityProviderFactory {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) helpText!: string;
  @Field(() => [ConfigProperty], { description: 'Config properties (Keycloak ConfigPropertyRepresentation).' })
  configProperties!: ConfigProperty[];
  @Field(() => [JSONScalar]) configMetadata!: unknown[];
}

const IdpCreateInput = writeInput('IdentityProviderRepresentation', 'create');
const IdpUpdateInput = writeInput('IdentityProviderRepresentation', 'update');
const MapperCreateInput = writeInput('IdentityProviderMapperRepresentation', 'create');
const MapperUpdateInput = writeInput('IdentityProviderMapperRepresentation', 'update');
const realmArg = () => Arg('realm', () => GraphQLString);
const aliasArg = () => Arg('alias', () => GraphQLString, { description: 'Alias or internal id of the identity provider.' });
const opt = { nullable: true } as const;

type Key = { internalId: string; alias: string };

/** One loader per request: mappers of every provider a query touches, in one SQL statement. */
function mapperLoader(ctx: RequestContext): DataLoader<Key, Rep[], string> {
  let loader = ctx.memo.get('idp-mappers') as DataLoader<Key, Rep[], string> | undefined;
  if (!loader) {
    loader = new DataLoader<Key, Rep[], string>(
      async (keys) => {
        const map = await mappersByProvider(ctx, [...keys]);
        return keys.map((k) => map.get(k.internalId) ?? []);
      },
      { cacheKeyFn: (k) => k.internalId },
    );
    ctx.memo.set('idp-mappers', loader);
  }
  return loader;
}

/** Realm → identity providers (`GET /identity-provider/instances`). */
@Resolver(() => Realm)
export class RealmIdentityProvidersResolver {
  @FieldResolver(() => [IdentityProvider], { description: 'Identity providers of the realm, by alias (GET /identity-provider/instances).' })
  async identityProviders(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('search', () => GraphQLString, opt) search?: string,
    @Arg('first', () => GraphQLInt, opt) first?: number,
    @Arg('max', () => GraphQLInt, opt) max?: number,
    @Arg('realmOnly', () => GraphQLBoolean, { nullable: true, description: 'Only providers not linked to an organization.' })
    realmOnly?: boolean,
  ): Promise<InRealm[]> {
    return allInRealm(realmOf(realm), await listIdentityProviders(ctx, realmOf(realm), { search, first, max, realmOnly }));
  }
}

/** Identity provider queries, relations and writes. */
@Resolver(() => IdentityProvider)
export class IdentityProviderResolver {
  @Query(() => IdentityProvider, { description: 'One identity provider (GET /identity-provider/instances/{alias}).' })
  async identityProvider(@Ctx() ctx: RequestContext, @realmArg() realm: string, @aliasArg() alias: string): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, getIdentityProvider(await resolveIdentityProvider(ctx, r, alias, 'view')));
  }

  @FieldResolver(() => [IdentityProviderMapper], { description: 'Mappers of the provider (GET .../mappers), batched.' })
  async mappers(@Root() idp: InRealm, @Ctx() ctx: RequestContext): Promise<Rep[]> {
    await requireIdpAccess(ctx, realmOf(idp), 'view');
    return mapperLoader(ctx).load({ internalId: String(idp.internalId), alias: String(idp.alias) });
  }

  @FieldResolver(() => IdentityProviderMapper, { description: 'One mapper of the provider by id (GET .../mappers/{id}).' })
  async mapper(@Root() idp: InRealm, @Ctx() ctx: RequestContext, @Arg('id', () => GraphQLID) id: string): Promise<Rep> {
    return getIdpMapper(ctx, await resolveIdentityProvider(ctx, realmOf(idp), String(idp.alias), 'view'), id);
  }

  @FieldResolver(() => JSONObject, { description: 'Mapper types this provider supports, keyed by id (GET .../mapper-types).' })
  async mapperTypes(@Root() idp: InRealm, @Ctx() ctx: RequestContext): Promise<Rep> {
    return listIdpMapperTypes(await resolveIdentityProvider(ctx, realmOf(idp), String(idp.alias), 'view'));
  }

  @FieldResolver(() => JSONObject, { description: 'The whole representation, exactly as the REST GET returns it.' })
  representation(@Root() idp: Rep): Rep {
    return idp;
  }

  @Mutation(() => IdentityProvider, { description: 'Creates an identity provider (POST /identity-provider/instances).' })
  async createIdentityProvider(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => IdpCreateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const alias = await addIdentityProvider(ctx, r, plain(input));
    return inRealm(r, getIdentityProvider(await resolveIdentityProvider(ctx, r, alias, 'view')));
  }

  @Mutation(() => IdentityProvider, { description: 'Replaces an identity provider (PUT /identity-provider/instances/{alias}).' })
  async updateIdentityProvider(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @aliasArg() alias: string,
    @Arg('input', () => IdpUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    const body = plain<Rep>(input);
    await updateIdentityProvider(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'manage'), body, alias);
    const now = typeof body.alias === 'string' && body.alias ? body.alias : alias;
    return inRealm(r, getIdentityProvider(await resolveIdentityProvider(ctx, r, now, 'view')));
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Deletes an identity provider, its mappers and users’ links (DELETE .../instances/{alias}).',
  })
  async deleteIdentityProvider(@Ctx() ctx: RequestContext, @realmArg() realm: string, @aliasArg() alias: string): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await deleteIdentityProvider(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'manage'), alias);
    return true;
  }

  @Mutation(() => JSONObject, {
    description: 'Fetches provider metadata and returns its config map (POST /identity-provider/import-config).',
  })
  async importIdentityProviderConfig(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('providerId', () => GraphQLString) providerId: string,
    @Arg('fromUrl', () => GraphQLString) fromUrl: string,
  ): Promise<Rep> {
    return importIdentityProviderConfig(ctx, await resolveRealm(ctx, realm), { providerId, fromUrl });
  }

  @Mutation(() => JSONObject, {
    description:
      'Reads provider metadata from an uploaded file and returns its config map (POST /identity-provider/import-config, multipart).',
  })
  async importIdentityProviderConfigFile(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('providerId', () => GraphQLString) providerId: string,
    @Arg('file', () => GraphQLString, { description: 'The file content: OIDC discovery JSON or SAML metadata XML.' }) file: string,
  ): Promise<Rep> {
    return importIdentityProviderConfigFile(ctx, await resolveRealm(ctx, realm), { providerId, file });
  }

  @Query(() => IdentityProviderFactory, { description: 'An identity provider type (GET /identity-provider/providers/{provider_id}).' })
  async identityProviderFactory(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('providerId', () => GraphQLString, { description: 'e.g. oidc, saml, github.' }) providerId: string,
  ): Promise<object> {
    return getIdentityProviderFactory(ctx, await resolveRealm(ctx, realm), providerId);
  }

  @Query(() => TextFile, {
    description:
      'The public broker configuration of a SAML provider: this realm as SP metadata (GET /identity-provider/instances/{alias}/export).',
  })
  async identityProviderExport(@Ctx() ctx: RequestContext, @realmArg() realm: string, @aliasArg() alias: string): Promise<TextFile> {
    const r = await resolveRealm(ctx, realm);
    return textFile(await exportIdentityProvider(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'view')));
  }

  @Mutation(() => GraphQLBoolean, {
    description: 'Reloads the keys of a provider; true when reloaded (GET /identity-provider/instances/{alias}/reload-keys).',
  })
  async reloadIdentityProviderKeys(@Ctx() ctx: RequestContext, @realmArg() realm: string, @aliasArg() alias: string): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    return reloadIdentityProviderKeys(await resolveIdentityProvider(ctx, r, alias, 'manage'));
  }
}

/** Identity provider mapper writes. */
@Resolver(() => IdentityProviderMapper)
export class IdentityProviderMapperResolver {
  @Mutation(() => IdentityProviderMapper, { description: 'Adds a mapper to an identity provider (POST .../instances/{alias}/mappers).' })
  async createIdentityProviderMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @aliasArg() alias: string,
    @Arg('input', () => MapperCreateInput) input: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    const id = await addIdpMapper(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'manage'), plain(input));
    return getIdpMapper(ctx, await resolveIdentityProvider(ctx, r, alias, 'view'), id);
  }

  @Mutation(() => IdentityProviderMapper, { description: 'Updates a mapper (PUT .../instances/{alias}/mappers/{id}).' })
  async updateIdentityProviderMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @aliasArg() alias: string,
    @Arg('id', () => GraphQLID) id: string,
    @Arg('input', () => MapperUpdateInput) input: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    await updateIdpMapper(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'manage'), id, plain(input), alias);
    return getIdpMapper(ctx, await resolveIdentityProvider(ctx, r, alias, 'view'), id);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a mapper (DELETE .../instances/{alias}/mappers/{id}).' })
  async deleteIdentityProviderMapper(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @aliasArg() alias: string,
    @Arg('id', () => GraphQLID) id: string,
  ): Promise<boolean> {
    const r = await resolveRealm(ctx, realm);
    await deleteIdpMapper(ctx, r, await resolveIdentityProvider(ctx, r, alias, 'manage'), id, alias);
    return true;
  }
}
