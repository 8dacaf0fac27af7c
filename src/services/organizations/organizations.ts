import { randomUUID } from 'node:crypto';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { requireAny } from '../../auth/permissions';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { write } from '../../core/db-errors';
import { errorA, errorC, type HttpError } from '../../core/errors';
import { isEmptyPage, pageOf, sqlPage } from '../../core/paging';
import { batchLoad } from '../../loaders/batch';
import type { OrganizationModel } from '../../db/models/organization';
import type { RealmModel } from '../../db/models/realm';
import { type OrganizationRep, toOrganizationRepresentation } from '../../representations/organization';
import { removeGroupRows, removeMemberRows } from './organization-rows';
import { invalidate } from '../../loaders/invalidate';

/**
 * Organizations of a realm (Keycloak 26's OrganizationsResource and OrganizationResource): list and
 * count with `search`/`exact` or the attribute query `q`, create, read, update, delete. Every
 * endpoint needs manage-realm (Keycloak's `auth.realm().requireManageRealm()`), then the realm's
 * `organizationsEnabled` (404 `Organizations not enabled for this realm.`), then the organization
 * (404 `Organization not found.`).
 */

/** Throws 403 without manage-realm, then 404 when the realm has organizations off (Keycloak's order). */
export async function requireOrganizations(ctx: RequestContext, realm: RealmModel): Promise<void> {
  await requireAny(ctx, realm, 'manage-realm');
  const on = realm.settings.organizationsEnabled;
  if (!(on === true || on === 'true')) throw errorA(404, 'Organizations not enabled for this realm.');
}

/** Resolves `/organizations/{id}` after the checks: 400 for a blank id, 404 `Organization not found.`. */
export async function resolveOrganization(ctx: RequestContext, realm: RealmModel, id: string): Promise<OrganizationModel> {
  await requireOrganizations(ctx, realm);
  if (!id.trim()) throw errorA(400, 'Id cannot be null.');
  const org = await batchLoad(
    ctx.memo,
    `organizations:${realm.id}`,
    async (ids: readonly string[]) => {
      const rows = await ctx.db.models.Organization.findAll({ where: { id: [...new Set(ids)], realmId: realm.id } });
      return ids.map((k) => rows.find((r) => r.id === k) ?? null);
    },
    id,
  );
  if (!org) throw errorA(404, 'Organization not found.');
  return org;
}

/** Representations of organizations: domains in one statement, attributes (full only) in another. */
export async function organizationRepresentations(
  ctx: RequestContext,
  orgs: OrganizationModel[],
  brief: boolean,
): Promise<OrganizationRep[]> {
  if (!orgs.length) return [];
  const ids = orgs.map((o) => o.id);
  const m = ctx.db.models;
  const [domains, attributes] = await Promise.all([
    m.OrganizationDomain.findAll({ where: { organizationId: ids }, order: [['name', 'ASC']] }),
    brief
      ? Promise.resolve([])
      : m.OrganizationAttribute.findAll({
          where: { organizationId: ids },
          order: [
            ['name', 'ASC'],
            ['value', 'ASC'],
          ],
        }),
  ]);
  return orgs.map((o) => {
    const attrs: Record<string, string[]> = {};
    for (const a of attributes) {
      if (a.organizationId !== o.id) continue;
      attrs[a.name] ??= [];
      attrs[a.name].push(a.value ?? '');
    }
    return toOrganizationRepresentation(o, {
      domains: domains.filter((d) => d.organizationId === o.id),
      attributes: brief ? undefined : attrs,
    });
  });
}

export interface OrganizationQuery {
  search?: string;
  exact?: boolean;
  q?: string;
  first?: number;
  max?: number;
  brief?: boolean;
}

/**
 * The `q` attribute query as Keycloak's SearchQueryUtils reads it: `key:value` pairs separated by
 * spaces, a key or value in double quotes may hold spaces; a later pair with the same key wins.
 */
export function parseSearchQuery(q: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /\s*("(?:[^"\\]|\\.)*"|[^\s:"]+)\s*:\s*("(?:[^"\\]|\\.)*"|\S+)/g;
  const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1).replace(/\\(.)/g, '$1') : s);
  for (const m of q.matchAll(re)) out.set(unquote(m[1]), unquote(m[2]));
  return out;
}

const like = (ctx: RequestContext, value: string) => ctx.db.sequelize.escape(`%${value.toLowerCase().replace(/[!%_]/g, '!$&')}%`);

/** The WHERE of a listing or count: the attribute query when `q` is given, else name/domain search. */
function whereOf(ctx: RequestContext, realm: RealmModel, o: OrganizationQuery): WhereOptions {
  const and: WhereOptions[] = [{ realmId: realm.id }];
  const esc = (v: string) => ctx.db.sequelize.escape(v);
  if (o.q?.trim()) {
    for (const [key, value] of parseSearchQuery(o.q)) {
      if (!key.trim()) continue;
      if (key === 'alias') and.push({ alias: value });
      else
        and.push(
          Sequelize.literal(
            `id IN (SELECT organization_id FROM organization_attribute WHERE name = ${esc(key)} AND value = ${esc(value)})`,
          ),
        );
    }
    return { [Op.and]: and };
  }
  const search = o.search;
  if (search?.trim()) {
    const r = esc(realm.id);
    if (o.exact) {
      and.push(
        Sequelize.literal(
          `(name = ${esc(search)} OR id IN (SELECT organization_id FROM organization_domain WHERE realm_id = ${r} AND name = ${esc(search)}))`,
        ),
      );
    } else {
      const p = like(ctx, search);
      and.push(
        Sequelize.literal(
          `(LOWER(name) LIKE ${p} ESCAPE '!' OR id IN (SELECT organization_id FROM organization_domain WHERE realm_id = ${r} AND LOWER(name) LIKE ${p} ESCAPE '!'))`,
        ),
      );
    }
  }
  return { [Op.and]: and };
}

/** GET /{realm}/organizations: ordered by name, `first` 0, `max` 10 (negative: all), brief by default. */
export async function listOrganizations(ctx: RequestContext, realm: RealmModel, o: OrganizationQuery = {}): Promise<OrganizationRep[]> {
  await requireOrganizations(ctx, realm);
  const page = pageOf(o, { defaultMax: 10, negativeMax: 'all' });
  if (isEmptyPage(page)) return [];
  const rows = await ctx.db.models.Organization.findAll({ where: whereOf(ctx, realm, o), order: [['name', 'ASC']], ...sqlPage(page) });
  return organizationRepresentations(ctx, rows, o.brief !== false);
}

/** GET /{realm}/organizations/count: the number of organizations the same filters match. */
export async function countOrganizations(ctx: RequestContext, realm: RealmModel, o: OrganizationQuery = {}): Promise<number> {
  await requireOrganizations(ctx, realm);
  return ctx.db.models.Organization.count({ where: whereOf(ctx, realm, o) });
}

/** GET /{realm}/organizations/{id}: the full representation (with attributes). */
export async function getOrganization(ctx: RequestContext, org: OrganizationModel): Promise<OrganizationRep> {
  return (await organizationRepresentations(ctx, [org], false))[0];
}

// --- writes -----------------------------------------------------------------------------------

const blank = (v: unknown): boolean => typeof v !== 'string' || v.trim() === '';
const nameTaken = () => errorA(409, 'A organization with the same name already exists.');
const aliasTaken = () => errorA(409, 'A organization with the same alias already exists');
const domainTaken = (domain: string, realm: RealmModel) =>
  errorA(400, `Domain ${domain} is already linked to another organization in realm ${realm.name}`);

/** Keycloak's uriValidator: absent or blank is fine, otherwise an absolute http(s) URL. */
function validateUrl(url: unknown): void {
  if (url === undefined || url === null || url === '') return;
  let ok = false;
  try {
    const u = new URL(String(url));
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    ok = false;
  }
  if (!ok) throw errorA(400, 'Organization redirect URL is not valid.');
}

/** A domain as the e-mail validator accepts the part after `@`: labels of letters, digits and inner hyphens. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;
function validDomain(name: string): boolean {
  return name.length <= 255 && name.split('.').every((l) => LABEL.test(l));
}

/** The domains of a body, Keycloak's way: blank names dropped, each one valid, the last of a name wins. */
function domainsOf(rep: OrganizationRep): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const d of rep.domains ?? []) {
    if (!d || blank(d.name)) continue;
    const name = d.name as string;
    if (!validDomain(name)) throw errorA(400, `The specified domain is invalid: ${name}`);
    out.set(name, d.verified === true);
  }
  return out;
}

/** The attributes of a body (a single string is a one-value list), or undefined when absent. */
function attributesOf(rep: OrganizationRep): Map<string, string[]> | undefined {
  if (rep.attributes === undefined || rep.attributes === null) return undefined;
  const out = new Map<string, string[]>();
  for (const [k, v] of Object.entries(rep.attributes as Record<string, unknown>)) {
    const values = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
    out.set(k, values.filter((x) => x !== null && x !== undefined).map(String));
  }
  return out;
}

/** The violated unique index of an organization write, as Keycloak's error. */
function uniqueMeaning(realm: RealmModel, rep: OrganizationRep) {
  return (err: unknown): HttpError => {
    const e = err as { message?: string; parent?: { message?: string }; fields?: unknown };
    const text = `${e.message ?? ''} ${e.parent?.message ?? ''} ${JSON.stringify(e.fields ?? '')}`;
    if (/organization_domain/.test(text)) {
      const names = (rep.domains ?? []).map((d) => d?.name).filter((n): n is string => typeof n === 'string');
      return domainTaken(names.find((n) => text.includes(n)) ?? names[0] ?? '', realm);
    }
    if (/alias/.test(text)) return aliasTaken();
    return nameTaken();
  };
}

/** Writes domains and attributes of an organization as `toModel` does (absent attributes: kept; absent domains: none). */
async function writeParts(ctx: RequestContext, realm: RealmModel, org: OrganizationModel, rep: OrganizationRep): Promise<void> {
  const m = ctx.db.models;
  const domains = domainsOf(rep);
  if (domains.size) {
    const others = await m.OrganizationDomain.findAll({
      where: { realmId: realm.id, name: [...domains.keys()], organizationId: { [Op.ne]: org.id } },
      attributes: ['name'],
    });
    if (others.length) throw domainTaken(others[0].name, realm);
  }
  const current = await m.OrganizationDomain.findAll({ where: { organizationId: org.id } });
  const removed = current.filter((d) => !domains.has(d.name));
  if (removed.length) {
    await m.OrganizationDomain.destroy({ where: { id: removed.map((d) => d.id) } });
    await unsetIdpDomains(ctx, org, new Set(removed.map((d) => d.name)));
  }
  for (const d of current) {
    const verified = domains.get(d.name);
    if (verified !== undefined && verified !== d.verified) await d.update({ verified });
  }
  const known = new Set(current.map((d) => d.name));
  const added = [...domains].filter(([name]) => !known.has(name));
  if (added.length) {
    await m.OrganizationDomain.bulkCreate(
      added.map(([name, verified]) => ({ id: randomUUID(), realmId: realm.id, organizationId: org.id, name, verified })),
    );
  }
  const attributes = attributesOf(rep);
  if (attributes) {
    await m.OrganizationAttribute.destroy({ where: { organizationId: org.id } });
    const rows = [...attributes].flatMap(([name, values]) =>
      values.map((value) => ({ id: randomUUID(), organizationId: org.id, name, value })),
    );
    if (rows.length) await m.OrganizationAttribute.bulkCreate(rows);
  }
}

/** The config key of an identity provider naming the organization domain it serves. */
export const ORG_DOMAIN_CONFIG = 'kc.org.domain';

/** Providers of the organization whose `kc.org.domain` names a removed domain lose that setting. */
async function unsetIdpDomains(ctx: RequestContext, org: OrganizationModel, removed: Set<string>): Promise<void> {
  const idps = await ctx.db.models.IdentityProvider.findAll({ where: { organizationId: org.id } });
  for (const idp of idps) {
    const domain = idp.config[ORG_DOMAIN_CONFIG];
    if (domain === undefined || !removed.has(domain)) continue;
    const { [ORG_DOMAIN_CONFIG]: _gone, ...config } = idp.config;
    idp.config = config;
    await idp.save();
  }
}

/** POST /{realm}/organizations: creates the organization; returns its id (201 + Location by the front). */
export async function createOrganization(ctx: RequestContext, realm: RealmModel, rep: OrganizationRep | null): Promise<string> {
  await requireOrganizations(ctx, realm);
  return insertOrganization(ctx, realm, rep, true);
}

/**
 * Validates and stores a new organization with its domains and attributes, inside the caller's
 * transaction if any; no permission check (POST checks first, realm import calls it directly, then
 * without an admin event). Returns the id (the representation's when given and `keepId`).
 */
export async function insertOrganization(
  ctx: RequestContext,
  realm: RealmModel,
  rep: OrganizationRep | null,
  event: boolean,
  keepId = false,
): Promise<string> {
  if (rep === null || rep === undefined) throw errorA(400, 'Organization cannot be null.');
  if (typeof rep.alias === 'string' && /\s/.test(rep.alias)) throw errorC(400, 'Empty Space not allowed.');
  validateUrl(rep.redirectUrl);
  if (blank(rep.name)) throw errorA(400, 'Name can not be null');
  const name = rep.name as string;
  let alias = rep.alias as string | undefined;
  if (blank(alias)) {
    if (/\s/.test(name)) throw errorA(400, 'Name contains a reserved character and cannot be used as alias');
    alias = name;
  }
  const id = keepId && typeof rep.id === 'string' && rep.id ? rep.id : randomUUID();
  const m = ctx.db.models;
  await write(ctx, { unique: uniqueMeaning(realm, rep) }, async () => {
    if (await m.Organization.findOne({ where: { realmId: realm.id, name }, attributes: ['id'] })) throw nameTaken();
    if (await m.Organization.findOne({ where: { realmId: realm.id, alias }, attributes: ['id'] })) throw aliasTaken();
    const org = await m.Organization.create({
      id,
      realmId: realm.id,
      name,
      alias,
      enabled: rep.enabled !== false,
      description: rep.description ?? null,
      redirectUrl: rep.redirectUrl ?? null,
    });
    await writeParts(ctx, realm, org, rep);
    if (event) {
      await recordAdminEvent(ctx, realm, {
        operationType: 'CREATE',
        resourceType: 'ORGANIZATION',
        resourcePath: `organizations/${id}`,
        representation: { ...rep, id },
      });
    }
  });
  return id;
}

/**
 * PUT /{realm}/organizations/{id}: replaces name, enabled, description, redirectUrl and domains
 * (absent domains: none), and the attributes when given. A new name already used as a name or a
 * domain (or no name at all, as Keycloak's search then matches every organization) is 409; the
 * alias cannot change (400 `Cannot change the alias`).
 */
export async function updateOrganization(
  ctx: RequestContext,
  realm: RealmModel,
  org: OrganizationModel,
  rep: OrganizationRep,
): Promise<void> {
  const m = ctx.db.models;
  const name = rep.name;
  await write(ctx, { unique: uniqueMeaning(realm, rep) }, async () => {
    if (name !== org.name) {
      if (blank(name)) throw nameTaken();
      const byName = await m.Organization.count({ where: { realmId: realm.id, name: name as string } });
      const byDomain = await m.OrganizationDomain.count({ where: { realmId: realm.id, name: name as string } });
      if (byName + byDomain > 0) throw nameTaken();
    }
    validateUrl(rep.redirectUrl);
    const alias = blank(rep.alias) ? (name as string) : (rep.alias as string);
    if (alias !== org.alias) throw errorA(400, 'Cannot change the alias');
    org.set({
      name,
      enabled: rep.enabled !== false,
      description: rep.description ?? null,
      redirectUrl: rep.redirectUrl ?? null,
    });
    await org.save();
    await writeParts(ctx, realm, org, rep);
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'ORGANIZATION',
      resourcePath: `organizations/${org.id}`,
      representation: rep,
    });
  }).catch(async (e) => {
    await org.reload().catch(() => undefined);
    throw e;
  });
}

/**
 * DELETE /{realm}/organizations/{id}: managed members are deleted, unmanaged ones leave; linked
 * identity providers are unlinked (and lose `kc.org.domain`); domains and attributes go with it.
 */
export async function deleteOrganization(ctx: RequestContext, realm: RealmModel, org: OrganizationModel): Promise<void> {
  const m = ctx.db.models;
  await write(ctx, {}, async () => {
    const members = await m.OrganizationMember.findAll({ where: { organizationId: org.id } });
    await removeMemberRows(ctx, org, members);
    for (const idp of await m.IdentityProvider.findAll({ where: { organizationId: org.id } })) {
      await unlinkIdentityProviderRow(idp);
    }
    const groups = await m.Group.findAll({ where: { organizationId: org.id, parentId: org.id }, attributes: ['id'] });
    await removeGroupRows(
      ctx,
      groups.map((g) => g.id),
    );
    await m.Organization.destroy({ where: { id: org.id } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'ORGANIZATION', resourcePath: `organizations/${org.id}` });
  });
  invalidate.groups(ctx.loaders);
}

/** Unlinks a provider from its organization: no organization, no `kc.org.domain` (Keycloak's removeIdentityProvider). */
export async function unlinkIdentityProviderRow(idp: {
  organizationId: string | null;
  config: Record<string, string>;
  save(): Promise<unknown>;
}): Promise<void> {
  const { [ORG_DOMAIN_CONFIG]: _gone, ...config } = idp.config;
  idp.organizationId = null;
  idp.config = config;
  await idp.save();
}
