import { Op } from 'sequelize';
import { realmWithVersion } from '../../auth/realm-keys';
import type { Db } from '../../db';
import type { RealmModel } from '../../db/models/realm';
import { EVENT_MAIL_TEXTS } from '../events/email-listener';
import { ENGLISH } from '../login/messages';

/**
 * Theme message bundles, `GET /resources/{realm}/{themeType}/{locale}` (Keycloak 26's
 * ThemeResource#getLocalizationTexts): the texts of a theme type for a locale, each `{key, value}`,
 * the server's built-in texts under the realm's localization texts. Public, as Keycloak's.
 *
 * idserver has one theme per type and built-in texts in English only: `login` has the login pages'
 * texts, `email` the event mails' texts, the other types (account, admin, welcome, common) none, so
 * their bundles are the realm's texts alone.
 */

/** Keycloak's Theme.Type values, matched without regard to case as Keycloak's valueOf(toUpperCase). */
const THEME_TYPES = ['login', 'account', 'admin', 'email', 'welcome', 'common'] as const;
type ThemeType = (typeof THEME_TYPES)[number];

const BUILT_IN: Record<ThemeType, Record<string, string>> = {
  login: ENGLISH,
  email: EVENT_MAIL_TEXTS,
  account: {},
  admin: {},
  welcome: {},
  common: {},
};

export interface BundleText {
  key: string;
  value: string;
  /** Only with `source=true`: where the text comes from. */
  source?: 'THEME' | 'REALM';
}

export function themeTypeOf(name: string): ThemeType | undefined {
  const lower = name.toLowerCase();
  return (THEME_TYPES as readonly string[]).includes(lower) ? (lower as ThemeType) : undefined;
}

/** A language tag as Java's Locale.forLanguageTag(...).toLanguageTag() writes it (`de_ch` is not a tag: `und`). */
interface Locale {
  language: string;
  region: string;
  variant: string;
}

function parseLocale(tag: string): Locale {
  const parts = tag.split('-');
  const language = parts[0] ?? '';
  if (!/^[a-zA-Z]{2,8}$/.test(language)) return { language: '', region: '', variant: '' };
  let i = 1;
  // A script subtag (`zh-Hant-TW`) is skipped: Keycloak's parent chain ignores it too.
  if (parts[i] && /^[a-zA-Z]{4}$/.test(parts[i])) i++;
  const region = parts[i] && /^([a-zA-Z]{2}|\d{3})$/.test(parts[i]) ? parts[i++].toUpperCase() : '';
  const variant = parts[i] && /^([a-zA-Z0-9]{5,8}|\d[a-zA-Z0-9]{3})$/.test(parts[i]) ? parts[i] : '';
  return { language: language.toLowerCase(), region, variant };
}

const tagOf = (l: Locale) => (l.language ? [l.language, l.region, l.variant].filter(Boolean).join('-') : 'und');

/**
 * The locales a request reads, most specific first, as Keycloak's LocaleUtil.getParentLocale chain:
 * `de-CH` → `de-CH`, `de`, `en`; `en` → `en`.
 */
export function applicableLocales(tag: string): string[] {
  const l = parseLocale(tag);
  const chain = [tagOf(l)];
  if (l.variant) chain.push(tagOf({ ...l, variant: '' }));
  if (l.region) chain.push(tagOf({ ...l, region: '', variant: '' }));
  if (chain[chain.length - 1] !== 'en') chain.push('en');
  return chain;
}

/** The built-in texts of a theme type in one locale (English only). */
const builtInOf = (type: ThemeType, locale: string): Record<string, string> => (locale === 'en' ? BUILT_IN[type] : {});

/**
 * The bundle, or undefined for an unknown realm or theme type (Keycloak: 404 without a body).
 * Without `source`: per key the text of the most specific locale, the realm's text before the built-in
 * one of the same locale (LocaleUtil.mergeGroupedMessages). With `source`: the built-in texts of the
 * locale itself (THEME) and every realm text of each applicable locale (REALM), as Keycloak lists them.
 */
export async function themeBundle(
  db: Db,
  realmName: string,
  themeType: string,
  localeTag: string,
  showSource: boolean,
): Promise<BundleText[] | undefined> {
  const type = themeTypeOf(themeType);
  const realm = type ? await realmWithVersion(db, realmName) : null;
  if (!type || !realm) return undefined;
  const locales = applicableLocales(localeTag);
  const realmTexts = await realmTextsOf(db, realm, locales);
  if (showSource) {
    const out: BundleText[] = Object.entries(builtInOf(type, locales[0])).map(([key, value]) => ({ key, value, source: 'THEME' }));
    for (const locale of locales) {
      for (const [key, value] of Object.entries(realmTexts.get(locale) ?? {})) out.push({ key, value, source: 'REALM' });
    }
    return out;
  }
  const merged: Record<string, string> = {};
  for (const locale of [...locales].reverse()) {
    Object.assign(merged, builtInOf(type, locale), realmTexts.get(locale) ?? {});
  }
  return Object.entries(merged).map(([key, value]) => ({ key, value }));
}

/** The realm's localization texts of the given locales, by locale (one indexed query). */
async function realmTextsOf(db: Db, realm: RealmModel, locales: string[]): Promise<Map<string, Record<string, string>>> {
  const rows = await db.models.RealmLocalization.findAll({
    where: { realmId: realm.id, locale: { [Op.in]: locales } },
    attributes: ['locale', 'key', 'value'],
    order: [['key', 'ASC']],
  });
  const out = new Map<string, Record<string, string>>();
  for (const r of rows) {
    const texts = out.get(r.locale) ?? {};
    texts[r.key] = r.value;
    out.set(r.locale, texts);
  }
  return out;
}
