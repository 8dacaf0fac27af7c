import { randomUUID } from 'node:crypto';
import { requireCap } from '../../auth/permissions';
import type { RealmModel } from '../../db/models/realm';
import { cannotParse, notFound } from '../../core/errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';

/**
 * Realm localization texts (config reference §10.4): message overrides per locale, stored one row
 * per (realm, locale, key) in `realm_localization`. Reads need any admin role of the realm, writes
 * manage-realm. Keycloak records no admin event for these writes; idserver records them as
 * resource type REALM under `localization/...` so that every write is audited.
 */
export type Texts = Record<string, string>;

const NOT_FOUND = 'Localization text not found';

/** Keycloak reads the body as Map<String,String>: scalars become strings, nulls are dropped, nested values are a 400. */
export function asTexts(body: unknown): Texts {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw cannotParse('mapping');
  const out: Texts = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'object') throw cannotParse('mapping');
    out[k] = String(v);
  }
  return out;
}

async function textsOf(ctx: RequestContext, realm: RealmModel, locale: string): Promise<Texts> {
  const rows = await ctx.db.models.RealmLocalization.findAll({ where: { realmId: realm.id, locale }, order: [['key', 'ASC']] });
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** GET /{realm}/localization: the sorted locales that have at least one text (any admin role). */
export async function listLocales(ctx: RequestContext, realm: RealmModel): Promise<string[]> {
  await requireCap(ctx, realm, 'anyAdmin');
  const rows = await ctx.db.models.RealmLocalization.findAll({
    where: { realmId: realm.id },
    attributes: ['locale'],
    group: ['locale'],
    order: [['locale', 'ASC']],
  });
  return rows.map((r) => r.locale);
}

/** GET /{realm}/localization/{locale}: key → text; with the fallback flag, the default locale's texts under the locale's own. */
export async function getLocaleTexts(ctx: RequestContext, realm: RealmModel, locale: string, fallback = false): Promise<Texts> {
  await requireCap(ctx, realm, 'anyAdmin');
  const defaultLocale = typeof realm.settings.defaultLocale === 'string' ? realm.settings.defaultLocale.trim() : '';
  if (!fallback || !defaultLocale || defaultLocale === locale) return textsOf(ctx, realm, locale);
  return { ...(await textsOf(ctx, realm, defaultLocale)), ...(await textsOf(ctx, realm, locale)) };
}

/** All texts of a realm as `{locale: {key: text}}` (partial export, GraphQL). */
export async function allTexts(ctx: RequestContext, realm: RealmModel): Promise<Record<string, Texts>> {
  const rows = await ctx.db.models.RealmLocalization.findAll({
    where: { realmId: realm.id },
    order: [
      ['locale', 'ASC'],
      ['key', 'ASC'],
    ],
  });
  const out: Record<string, Texts> = {};
  for (const r of rows) {
    out[r.locale] ??= {};
    out[r.locale][r.key] = r.value;
  }
  return out;
}

/** GET /{realm}/localization/{locale}/{key}: the text, or 404 `Localization text not found`. */
export async function getText(ctx: RequestContext, realm: RealmModel, locale: string, key: string): Promise<string> {
  await requireCap(ctx, realm, 'anyAdmin');
  const row = await ctx.db.models.RealmLocalization.findOne({ where: { realmId: realm.id, locale, key } });
  if (!row) throw notFound(NOT_FOUND);
  return row.value;
}

/** Upserts texts of one locale in one statement (the unique index decides update or insert). Inside a transaction. */
export async function upsertTexts(ctx: RequestContext, realm: RealmModel, locale: string, texts: Texts): Promise<void> {
  const rows = Object.entries(texts).map(([key, value]) => ({ id: randomUUID(), realmId: realm.id, locale, key, value }));
  if (!rows.length) return;
  await ctx.db.models.RealmLocalization.bulkCreate(rows, {
    updateOnDuplicate: ['value'],
    conflictAttributes: ['realmId', 'locale', 'key'],
  });
}

/** POST /{realm}/localization/{locale}: merges the texts into the locale (manage-realm). */
export async function saveTexts(ctx: RequestContext, realm: RealmModel, locale: string, body: unknown): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  const texts = asTexts(body);
  await ctx.db.transaction(async () => {
    await upsertTexts(ctx, realm, locale, texts);
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'REALM',
      resourcePath: `localization/${locale}`,
      representation: texts,
    });
  });
}

/** PUT /{realm}/localization/{locale}/{key}: creates or replaces one text (manage-realm). */
export async function saveText(ctx: RequestContext, realm: RealmModel, locale: string, key: string, text: string): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  await ctx.db.transaction(async () => {
    await upsertTexts(ctx, realm, locale, { [key]: text });
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'REALM',
      resourcePath: `localization/${locale}/${key}`,
      representation: text,
    });
  });
}

/** DELETE /{realm}/localization/{locale}: removes every text of the locale; none → 404. */
export async function deleteLocale(ctx: RequestContext, realm: RealmModel, locale: string): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.RealmLocalization.destroy({ where: { realmId: realm.id, locale } });
    if (!n) throw notFound(`No localization texts for locale ${locale} found.`);
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'REALM', resourcePath: `localization/${locale}` });
  });
}

/** DELETE /{realm}/localization/{locale}/{key}: removes one text; missing → 404 `Localization text not found`. */
export async function deleteText(ctx: RequestContext, realm: RealmModel, locale: string, key: string): Promise<void> {
  await requireCap(ctx, realm, 'manageRealm');
  await ctx.db.transaction(async () => {
    const n = await ctx.db.models.RealmLocalization.destroy({ where: { realmId: realm.id, locale, key } });
    if (!n) throw notFound(NOT_FOUND);
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'REALM', resourcePath: `localization/${locale}/${key}` });
  });
}

/** Imports `localizationTexts` of a realm representation (POST /admin/realms). Inside the import transaction. */
export async function importLocalizationTexts(ctx: RequestContext, realm: RealmModel, value: unknown): Promise<void> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [locale, texts] of Object.entries(value as Record<string, unknown>)) {
    await upsertTexts(ctx, realm, locale, asTexts(texts));
  }
}
