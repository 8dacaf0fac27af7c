import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import type { RealmRepresentation } from '../../src/representations/realm';
import { realmRepresentation } from '../../src/services/realms/realm-representation';
import { createRealm } from '../../src/services/import-export/create-realm';
import { deleteRealm, getRealm, listRealms, resolveRealm, updateRealm } from '../../src/services/realms/realms';
import { type InRealm, type Rep, inRealm, plain, realmOf } from '../types/common';
import { representationInputAs } from '../types/inputs';
import { Role } from '../roles/types';
import { Realm } from './types';
import { JSONObject } from '../types/scalars';

/** POST /admin/realms body: every writable field of RealmRepresentation, `realm` required. */
const RealmCreateInput = representationInputAs('RealmRepresentation', 'RealmCreateInput', { required: ['realm'] });
/** PUT /admin/realms/{realm} body: the same fields, all optional (absent and null keep the stored value). */
const RealmUpdateInput = representationInputAs('RealmRepresentation', 'RealmUpdateInput');

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

  @Mutation(() => Realm, {
    description: 'Creates a realm from a RealmRepresentation, importing the collections it carries (POST /admin/realms).',
  })
  async createRealm(@Ctx() ctx: RequestContext, @Arg('input', () => RealmCreateInput) input: Rep): Promise<InRealm> {
    const realm = await createRealm(ctx, plain<RealmRepresentation>(input));
    return inRealm(realm, await realmRepresentation(ctx, realm));
  }

  @Mutation(() => Realm, {
    description:
      'Merges the given fields into a realm; a different `realm` renames it; collections are ignored (PUT /admin/realms/{realm}).',
  })
  async updateRealm(
    @Ctx() ctx: RequestContext,
    @Arg('name', () => GraphQLString) name: string,
    @Arg('input', () => RealmUpdateInput) input: Rep,
  ): Promise<InRealm> {
    const rep = plain<RealmRepresentation>(input);
    await updateRealm(ctx, await resolveRealm(ctx, name), rep);
    const realm = await resolveRealm(ctx, typeof rep.realm === 'string' ? rep.realm : name);
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

  @FieldResolver(() => Role, {
    nullable: true,
    description: "The realm's default role (`default-roles-<realm>`), full representations only.",
  })
  defaultRole(@Root() realm: InRealm): InRealm | null {
    const role = realm.defaultRole;
    return role && typeof role === 'object' ? inRealm(realmOf(realm), { ...role }) : null;
  }

  @FieldResolver(() => JSONObject)
  representation(@Root() realm: Rep): Rep {
    return realm;
  }
}
