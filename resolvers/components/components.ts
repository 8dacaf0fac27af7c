import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLString } from 'graphql';
import { Arg, Ctx, Directive, Field, FieldResolver, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  createComponent,
  deleteComponent,
  getComponent,
  listComponents,
  subComponentTypes,
  updateComponent,
} from '../../src/services/components/components';
import { parseComponentInput } from '../../src/services/components/input';
import { listRealmKeys } from '../../src/services/components/keys';
import { resolveRealm } from '../../src/services/realms/realms';
import { allInRealm, type InRealm, inRealm, plain, type Rep, realmOf } from '../types/common';
import { ConfigProperty } from '../clients/registration-types';
import { Realm } from '../realms/types';
import { writeInput } from '../types/inputs';
import { KeyStatus, KeyType, KeyUse } from '../types/enums';
import { JSONObject } from '../types/scalars';

/** A component of a realm (Keycloak ComponentRepresentation; secret config values masked). */
@Directive('@representation(name: "ComponentRepresentation")')
@ObjectType({
  description: 'A component: key provider, user federation provider or mapper, registration policy (Keycloak ComponentRepresentation).',
})
export class Component {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLString, { description: 'The SPI, e.g. org.keycloak.keys.KeyProvider.' }) providerType!: string;
  @Field(() => GraphQLString) parentId!: string;
  @Field(() => GraphQLString, { nullable: true }) subType?: string;
  @Field(() => JSONObject, { nullable: true, description: 'name → values; secrets read as **********.' }) config?: Record<string, string[]>;
}

/** A provider type of an SPI (Keycloak ComponentTypeRepresentation). */
@ObjectType({ description: 'A provider type of an SPI with its config properties (Keycloak ComponentTypeRepresentation).' })
export class ComponentType {
  @Field(() => GraphQLID) id!: string;
  @Field(() => GraphQLString, { nullable: true }) helpText?: string;
  @Field(() => [ConfigProperty], { description: 'Config properties (Keycloak ConfigPropertyRepresentation).' })
  properties!: ConfigProperty[];
  @Field(() => JSONObject) metadata!: Record<string, unknown>;
}

/** Input of createComponent / updateComponent: generated from the ComponentRepresentation table. */
const ComponentCreateInput = writeInput('ComponentRepresentation', 'create');
const ComponentUpdateInput = writeInput('ComponentRepresentation', 'update');

/** One key of the realm (Keycloak KeyMetadataRepresentation). */
@ObjectType({ description: 'A realm key (Keycloak KeyMetadataRepresentation); providerId is the component id.' })
export class RealmKey {
  @Field(() => GraphQLString) kid!: string;
  @Field(() => GraphQLString) providerId!: string;
  @Field(() => GraphQLFloat) providerPriority!: number;
  @Field(() => KeyStatus) status!: string;
  @Field(() => KeyType) type!: string;
  @Field(() => GraphQLString) algorithm!: string;
  @Field(() => KeyUse) use!: string;
  @Field(() => GraphQLString, { nullable: true }) publicKey?: string;
  @Field(() => GraphQLString, { nullable: true }) certificate?: string;
  @Field(() => GraphQLFloat, { nullable: true, description: 'Certificate notAfter, epoch milliseconds.' }) validTo?: number;
}

@ObjectType({ description: 'The keys of a realm and the active kid per algorithm (GET /keys).' })
export class RealmKeys {
  @Field(() => JSONObject, { description: 'algorithm → kid of the active key.' }) active!: Record<string, string>;
  @Field(() => [RealmKey]) keys!: RealmKey[];
}

const realmArg = () => Arg('realm', () => GraphQLString);
const idArg = () => Arg('id', () => GraphQLID);
const opt = (name: string) => Arg(name, () => GraphQLString, { nullable: true });
const input = (i: Rep) => parseComponentInput(plain(i));

/** Realm → components and keys. */
@Resolver(() => Realm)
export class RealmComponentsResolver {
  @FieldResolver(() => [Component], { description: 'Components of the realm (GET /components?parent&type&name&providerId).' })
  async components(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @opt('type') type?: string,
    @opt('parent') parent?: string,
    @opt('name') name?: string,
    @opt('providerId') providerId?: string,
  ): Promise<InRealm[]> {
    const filter = { type: type ?? undefined, parent: parent ?? undefined, name: name ?? undefined, providerId: providerId ?? undefined };
    return allInRealm(realmOf(realm), await listComponents(ctx, realmOf(realm), filter));
  }

  @FieldResolver(() => RealmKeys, { description: 'The realm keys (GET /keys).' })
  keys(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<Rep> {
    return listRealmKeys(ctx, realmOf(realm)) as unknown as Promise<Rep>;
  }
}

/** Component queries and writes. */
@Resolver(() => Component)
export class ComponentResolver {
  @Query(() => Component, { description: 'One component (GET /admin/realms/{realm}/components/{id}).' })
  async component(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<InRealm> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getComponent(ctx, r, id));
  }

  @FieldResolver(() => [ComponentType], {
    description: 'Provider types of an SPI that may be sub-components of this one (GET /components/{id}/sub-component-types?type=).',
  })
  async subComponentTypes(
    @Root() component: InRealm,
    @Ctx() ctx: RequestContext,
    @Arg('type', () => GraphQLString, { description: 'The SPI, e.g. org.keycloak.storage.ldap.mappers.LDAPStorageMapper.' }) type: string,
  ): Promise<object[]> {
    return subComponentTypes(ctx, realmOf(component), String(component.id), type);
  }

  @Mutation(() => Component, { description: 'Creates a component (POST /components); key providers generate their keys.' })
  async createComponent(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @Arg('input', () => ComponentCreateInput) i: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    return inRealm(r, await getComponent(ctx, r, await createComponent(ctx, r, input(i))));
  }

  @Mutation(() => Component, { description: 'Updates a component (PUT /components/{id}); config is merged.' })
  async updateComponent(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @idArg() id: string,
    @Arg('input', () => ComponentUpdateInput) i: Rep,
  ): Promise<Rep> {
    const r = await resolveRealm(ctx, realm);
    await updateComponent(ctx, r, id, input(i));
    return inRealm(r, await getComponent(ctx, r, id));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a component and its sub-components (DELETE /components/{id}).' })
  async deleteComponent(@Ctx() ctx: RequestContext, @realmArg() realm: string, @idArg() id: string): Promise<boolean> {
    await deleteComponent(ctx, await resolveRealm(ctx, realm), id);
    return true;
  }
}
