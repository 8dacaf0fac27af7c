import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { realmRepresentation } from '../../src/services/realms/realm-representation';
import { createRealm } from '../../src/services/import-export/create-realm';
import { deleteRealm, getRealm, listRealms, resolveRealm, updateRealm } from '../../src/services/realms/realms';
import { type InRealm, type Rep, inRealm } from '../types/common';
import { Realm } from './types';
import { JSONObject } from '../types/scalars';

/** Realms: `GET/POST /admin/realms`, `GET/PUT/DELETE /admin/realms/{realm}`. */
@Resolver(() => Realm)
export class RealmResolver {
  @Query(() => [Realm], { description: 'Realms the caller may see (GET /admin/realms).' })
  async realms(@Ctx() ctx: RequestContext, @Arg('brief', () => GraphQLBoolean, { nullable: true }) brief?: boolean): Promise<InRealm[]> {
    const reps = await listRealms(ctx, { brief: brief ?? false });
    const models = await ctx.loaders.realmByName.loadMany(reps.map((r) => String(r.realm)));
    return reps.map((rep, i) => inRealm(models[i] as never, rep));
  }

  @Query(() => Realm, { description: 'One realm (GET /admin/realms/{realm}).' })
  async realm(@Ctx() ctx: RequestContext, @Arg('name', () => GraphQLString) name: string): Promise<InRealm> {
    const realm = await resolveRealm(ctx, name);
    return inRealm(realm, await getRealm(ctx, realm));
  }

  @Mutation(() => Realm, { description: 'Creates a realm from a RealmRepresentation (POST /admin/realms).' })
  async createRealm(@Ctx() ctx: RequestContext, @Arg('input', () => JSONObject) input: Rep): Promise<InRealm> {
    const realm = await createRealm(ctx, input);
    return inRealm(realm, await realmRepresentation(ctx, realm));
  }

  @Mutation(() => Realm, { description: 'Merges a partial RealmRepresentation into a realm (PUT /admin/realms/{realm}).' })
  async updateRealm(
    @Ctx() ctx: RequestContext,
    @Arg('name', () => GraphQLString) name: string,
    @Arg('input', () => JSONObject) input: Rep,
  ): Promise<InRealm> {
    await updateRealm(ctx, await resolveRealm(ctx, name), input);
    const realm = await resolveRealm(ctx, typeof input.realm === 'string' ? input.realm : name);
    return inRealm(realm, await getRealm(ctx, realm));
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes a realm (DELETE /admin/realms/{realm}).' })
  async deleteRealm(@Ctx() ctx: RequestContext, @Arg('name', () => GraphQLString) name: string): Promise<boolean> {
    await deleteRealm(ctx, await resolveRealm(ctx, name));
    return true;
  }

  @FieldResolver(() => GraphQLString)
  name(@Root() realm: Rep): string {
    return String(realm.realm);
  }

  @FieldResolver(() => JSONObject)
  representation(@Root() realm: Rep): Rep {
    return realm;
  }
}
