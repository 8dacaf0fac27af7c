import { GraphQLBoolean, GraphQLString } from 'graphql';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import {
  deleteLocale,
  deleteText,
  getLocaleTexts,
  getText,
  listLocales,
  saveText,
  saveTexts,
} from '../../src/services/realms/localization';
import { resolveRealm } from '../../src/services/realms/realms';
import { type InRealm, realmOf } from '../types/common';
import { Realm } from './types';
import { JSONObject } from '../types/scalars';

const realmArg = () => Arg('realm', () => GraphQLString);
const localeArg = () => Arg('locale', () => GraphQLString);
const keyArg = () => Arg('key', () => GraphQLString);

/** Realm localization texts (GET/POST/PUT/DELETE /{realm}/localization...). */
@Resolver(() => Realm)
export class LocalizationResolver {
  @FieldResolver(() => [GraphQLString], { description: 'Locales with at least one realm text, sorted (GET /localization).' })
  async localizationLocales(@Root() realm: InRealm, @Ctx() ctx: RequestContext): Promise<string[]> {
    return listLocales(ctx, realmOf(realm));
  }

  @FieldResolver(() => JSONObject, { description: 'Texts of one locale, key → text (GET /localization/{locale}).' })
  async localizationTexts(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @localeArg() locale: string,
    @Arg('useRealmDefaultLocaleFallback', () => GraphQLBoolean, { nullable: true }) fallback?: boolean,
  ): Promise<object> {
    return getLocaleTexts(ctx, realmOf(realm), locale, fallback ?? false);
  }

  @FieldResolver(() => GraphQLString, {
    nullable: true,
    description: 'One text of a locale (GET /localization/{locale}/{key}); an unknown key is null with a NOT_FOUND error.',
  })
  async localizationText(
    @Root() realm: InRealm,
    @Ctx() ctx: RequestContext,
    @localeArg() locale: string,
    @keyArg() key: string,
  ): Promise<string> {
    return getText(ctx, realmOf(realm), locale, key);
  }

  @Mutation(() => JSONObject, { description: 'Merges texts into a locale (POST /localization/{locale}); returns the locale texts.' })
  async saveLocalizationTexts(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @localeArg() locale: string,
    @Arg('texts', () => JSONObject) texts: object,
  ): Promise<object> {
    const r = await resolveRealm(ctx, realm);
    await saveTexts(ctx, r, locale, texts);
    return getLocaleTexts(ctx, r, locale);
  }

  @Mutation(() => GraphQLBoolean, { description: 'Creates or replaces one text (PUT /localization/{locale}/{key}).' })
  async setLocalizationText(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @localeArg() locale: string,
    @keyArg() key: string,
    @Arg('text', () => GraphQLString) text: string,
  ): Promise<boolean> {
    await saveText(ctx, await resolveRealm(ctx, realm), locale, key, text);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes every text of a locale (DELETE /localization/{locale}).' })
  async deleteLocalizationTexts(@Ctx() ctx: RequestContext, @realmArg() realm: string, @localeArg() locale: string): Promise<boolean> {
    await deleteLocale(ctx, await resolveRealm(ctx, realm), locale);
    return true;
  }

  @Mutation(() => GraphQLBoolean, { description: 'Deletes one text (DELETE /localization/{locale}/{key}).' })
  async deleteLocalizationText(
    @Ctx() ctx: RequestContext,
    @realmArg() realm: string,
    @localeArg() locale: string,
    @keyArg() key: string,
  ): Promise<boolean> {
    await deleteText(ctx, await resolveRealm(ctx, realm), locale, key);
    return true;
  }
}
