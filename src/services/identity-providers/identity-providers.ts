import { randomUUID } from 'node:crypto';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { requireAny } from '../../auth/permissions';
import { dropManagementPermissions, idpSpec } from '../authz/admin-permissions';
import type { IdentityProviderModel } from '../../db/models/identity-provider';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { pageOf, sqlPage } from '../../core/paging';
import { checkReservedChars } from '../../core/reserved-chars';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { batchLoad } from '../../loaders/batch';
import { type IdpProviderFactoryRep, identityProviderType, providerFactoryRepresentation } from '../../keycloak/identity-provider-types';
import {
  type IdentityProviderRep,
  SECRET_MASK,
  configOf,
  toBriefIdentityProviderRepresentation,
  toIdentityProviderRepresentation,
} from '../../representations/identity-provider';

type Rep = IdentityProviderRep;

/**
 * Identity providers of a realm (config reference §8.1–8.2): list with search and paging, create,
 * read by alias or internal id, update (alias change re-keys users' links), delete (with mappers
 * and users' links). View = view-identity-providers or manage-identity-providers; manage =
 * manage-identity-providers. Unknown providers are 404 `HTTP 404 Not Found`, after the check.
 */
export type IdpAccess = 'view' | 'manage';

/** Throws 403 unless the caller may view (or manage) the realm's identity providers. */
export function requireIdpAccess(ctx: RequestContext, realm: RealmModel, access: IdpAccess): Promise<void> {
  return access === 'view'
    ? requireAny(ctx, realm, 'view-identity-providers', 'manage-identity-providers')
    : requireAny(ctx, realm, 'manage-identity-providers');
}

const idpNotFound = () => errorC(404, 'HTTP 404 Not Found');

/**
 * The identity provider named by alias or internal id, or null. The lookups of one request tick
 * are one statement (GraphQL fields of a list of providers resolve each provider again).
 */
export async function findIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  aliasOrId: string,
): Promise<IdentityProviderModel | null> {
  return batchLoad(
    ctx.memo,
    `identity-providers:${realm.id}`,
    (keys: readonly string[]) => identityProvidersNamed(ctx, realm, keys),
    aliasOrId,
  );
}

/** The providers of a realm named by alias, else by internal id (in key order, null when neither): one statement. */
export async function identityProvidersNamed(
  ctx: RequestContext,
  realm: RealmModel,
  aliasesOrIds: readonly string[],
): Promise<Array<IdentityProviderModel | null>> {
  const keys = [...new Set(aliasesOrIds)];
  const rows = await ctx.db.models.IdentityProvider.findAll({
    where: { realmId: realm.id, [Op.or]: [{ alias: { [Op.in]: keys } }, { internalId: { [Op.in]: keys } }] },
  });
  const byAlias = new Map(rows.map((r) => [r.alias, r]));
  const byId = new Map(rows.map((r) => [r.internalId, r]));
  return aliasesOrIds.map((k) => byAlias.get(k) ?? byId.get(k) ?? null);
}

/** Checks access, then resolves `instances/{alias}` (404 `HTTP 404 Not Found`): the parent the `instances/{alias}/...` services take. */
export async function resolveIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  aliasOrId: string,
  access: IdpAccess,
): Promise<IdentityProviderModel> {
  await requireIdpAccess(ctx, realm, access);
  const idp = await findIdentityProvider(ctx, realm, aliasOrId);
  if (!idp) throw idpNotFound();
  return idp;
}

export interface ListIdpOptions {
  search?: string;
  brief?: boolean;
  first?: number;
  max?: number;
  realmOnly?: boolean;
}

/** Alias filter: `"x"` exact, otherwise a case-insensitive LIKE where `*` is a wildcard (prefix by default). */
function searchCondition(ctx: RequestContext, search: string) {
  if (search.length >= 2 && search.startsWith('"') && search.endsWith('"')) return { alias: search.slice(1, -1) };
  let pattern = search.toLowerCase().replace(/[!%_]/g, '!$&').replace(/\*/g, '%');
  if (!pattern.endsWith('%')) pattern += '%';
  return Sequelize.literal(`LOWER(alias) LIKE ${ctx.db.sequelize.escape(pattern)} ESCAPE '!'`);
}

/** GET /{realm}/identity-provider/instances: ordered by alias, `max` 100 by default. */
export async function listIdentityProviders(ctx: RequestContext, realm: RealmModel, o: ListIdpOptions = {}): Promise<Rep[]> {
  await requireIdpAccess(ctx, realm, 'view');
  const and: WhereOptions[] = [{ realmId: realm.id }];
  if (o.search?.trim()) and.push(searchCondition(ctx, o.search));
  if (o.realmOnly) and.push({ organizationId: null });
  const rows = await ctx.db.models.IdentityProvider.findAll({
    where: { [Op.and]: and },
    order: [['alias', 'ASC']],
    ...sqlPage(pageOf(o, { defaultMax: 100, negativeMax: 'all' })),
  });
  return rows.map(o.brief ? toBriefIdentityProviderRepresentation : toIdentityProviderRepresentation);
}

/** GET /{realm}/identity-provider/instances/{alias}: the provider resolved with view access. */
export function getIdentityProvider(idp: IdentityProviderModel): Rep {
  return toIdentityProviderRepresentation(idp);
}

/** `Empty Space not allowed.` / `Character 'x' not allowed.` (Keycloak's ReservedCharValidator). */
export function validateAlias(alias: unknown): void {
  if (typeof alias !== 'string') return;
  if (/\s/.test(alias)) throw errorC(400, 'Empty Space not allowed.');
  checkReservedChars(alias);
}

const flag = (v: unknown, fallback = false) => (v === undefined || v === null ? fallback : v === true || v === 'true');
const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** The stored columns of a representation (RepresentationToModel.toModel): unknown provider id → 400. */
function columnsOf(rep: Rep) {
  if (!identityProviderType(rep.providerId)) throw errorA(400, `Invalid identity provider id [${String(rep.providerId ?? null)}`);
  const config = configOf(rep.config);
  let hideOnLogin = flag(rep.hideOnLogin);
  if (config.hideOnLoginPage !== undefined) {
    hideOnLogin = config.hideOnLoginPage === 'true';
    delete config.hideOnLoginPage;
  }
  return {
    alias: rep.alias as string,
    providerId: rep.providerId as string,
    displayName: text(rep.displayName),
    enabled: flag(rep.enabled, true),
    trustEmail: flag(rep.trustEmail),
    storeToken: flag(rep.storeToken),
    addReadTokenRoleOnCreate: flag(rep.addReadTokenRoleOnCreate),
    authenticateByDefault: flag(rep.authenticateByDefault),
    linkOnly: flag(rep.linkOnly),
    hideOnLogin,
    firstBrokerLoginFlowAlias: text(rep.firstBrokerLoginFlowAlias),
    postBrokerLoginFlowAlias: text(rep.postBrokerLoginFlowAlias),
    organizationId: text(rep.organizationId),
    config,
  };
}

const exists = (alias: unknown) => errorA(409, `Identity Provider ${String(alias)} already exists`);

/**
 * The broker login flows a provider names must exist in the realm (Keycloak raises
 * `No available authentication flow with alias: <alias>`; it answers 500, idserver 400).
 */
async function checkBrokerFlows(
  ctx: RequestContext,
  realm: RealmModel,
  columns: { firstBrokerLoginFlowAlias: string | null; postBrokerLoginFlowAlias: string | null },
): Promise<void> {
  const aliases = [columns.firstBrokerLoginFlowAlias, columns.postBrokerLoginFlowAlias].filter((a): a is string => typeof a === 'string');
  if (!aliases.length) return;
  const found = await ctx.db.models.AuthFlow.findAll({ where: { realmId: realm.id, alias: aliases }, attributes: ['alias'] });
  const missing = aliases.find((a) => !found.some((f) => f.alias === a));
  if (missing !== undefined) throw errorA(400, `No available authentication flow with alias: ${missing}`);
}

/**
 * Creates an identity provider from a representation, inside the caller's transaction if any, and
 * records the CREATE admin event. No permission check: POST /instances checks first; realm and
 * partial import call it directly. Returns the alias.
 */
export async function createIdentityProvider(ctx: RequestContext, realm: RealmModel, rep: Rep): Promise<string> {
  validateAlias(rep.alias);
  const columns = columnsOf(rep);
  if (typeof rep.alias !== 'string' || rep.alias === '') throw errorA(400, 'Invalid request');
  const alias = rep.alias;
  const internalId = typeof rep.internalId === 'string' && rep.internalId ? rep.internalId : randomUUID();
  await write(ctx, { unique: () => exists(alias) }, async () => {
    await checkBrokerFlows(ctx, realm, columns);
    await ctx.db.models.IdentityProvider.create({ ...columns, internalId, realmId: realm.id });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'IDENTITY_PROVIDER',
      resourcePath: `identity-provider/instances/${alias}`,
      representation: { ...rep, internalId, hideOnLogin: columns.hideOnLogin },
    });
  });
  return alias;
}

/** POST /{realm}/identity-provider/instances (manage-identity-providers). Returns the alias. */
export async function addIdentityProvider(ctx: RequestContext, realm: RealmModel, rep: Rep): Promise<string> {
  await requireIdpAccess(ctx, realm, 'manage');
  return createIdentityProvider(ctx, realm, rep);
}

/**
 * PUT /{realm}/identity-provider/instances/{alias} (the provider resolved with manage access; `named`
 * is the alias or id of the request path, as the admin event records it): the provider is rebuilt
 * from the body (absent flags fall back to their defaults, config replaced; `clientSecret`
 * `**********` keeps the stored secret); the internal id is kept; a new alias re-keys users' links;
 * duplicate alias → 409.
 */
export async function updateIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  idp: IdentityProviderModel,
  rep: Rep,
  named = idp.alias,
): Promise<void> {
  const oldAlias = idp.alias;
  const alias = typeof rep.alias === 'string' && rep.alias !== '' ? rep.alias : oldAlias;
  if (alias !== oldAlias) validateAlias(alias);
  const columns = columnsOf({ ...rep, alias });
  const config = columns.config;
  if (config.clientSecret === SECRET_MASK) {
    if (idp.config.clientSecret !== undefined) config.clientSecret = idp.config.clientSecret;
    else delete config.clientSecret;
  }
  try {
    await write(ctx, { unique: () => exists(alias) }, async () => {
      await checkBrokerFlows(ctx, realm, columns);
      idp.set(columns);
      await idp.save();
      if (alias !== oldAlias) {
        await ctx.db.models.FederatedIdentity.update(
          { identityProvider: alias },
          { where: { realmId: realm.id, identityProvider: oldAlias } },
        );
      }
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'IDENTITY_PROVIDER',
        resourcePath: `identity-provider/instances/${named}`,
        representation: rep,
      });
    });
  } catch (e) {
    await idp.reload().catch(() => undefined);
    throw e;
  }
}

/** DELETE /{realm}/identity-provider/instances/{alias} (resolved with manage access): removes it, its mappers and users' links to it. */
export async function deleteIdentityProvider(
  ctx: RequestContext,
  realm: RealmModel,
  idp: IdentityProviderModel,
  named = idp.alias,
): Promise<void> {
  await ctx.db.transaction(async () => {
    await removeIdentityProviderRows(ctx, realm, idp);
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'IDENTITY_PROVIDER',
      resourcePath: `identity-provider/instances/${named}`,
    });
  });
}

/**
 * Deletes a provider with its mappers, users' links and fine-grained management permissions (as
 * Keycloak's IdentityProviderRemovedEvent listener does), inside the caller's transaction (also for
 * partial import OVERWRITE).
 */
export async function removeIdentityProviderRows(ctx: RequestContext, realm: RealmModel, idp: IdentityProviderModel): Promise<void> {
  const m = ctx.db.models;
  await dropManagementPermissions(ctx, realm, [idpSpec(idp.internalId)]);
  await m.FederatedIdentity.destroy({ where: { realmId: realm.id, identityProvider: idp.alias } });
  await m.IdpMapper.destroy({ where: { identityProviderId: idp.internalId } });
  await m.IdentityProvider.destroy({ where: { internalId: idp.internalId } });
}

/** GET .../instances/{alias}/reload-keys (resolved with manage access): no key cache to refresh here, so `false`. */
export function reloadIdentityProviderKeys(_idp: IdentityProviderModel): boolean {
  return false;
}

/** Aliases of all identity providers of the realm (ordered), for users' federated identities. */
export async function identityProviderAliases(ctx: { db: RequestContext['db'] }, realmId: string): Promise<string[]> {
  const rows = await ctx.db.models.IdentityProvider.findAll({ where: { realmId }, attributes: ['alias'], order: [['alias', 'ASC']] });
  return rows.map((r) => r.alias);
}

/** GET /{realm}/identity-provider/providers/{provider_id} (view): the factory; unknown id → 400 `HTTP 400 Bad Request`. */
export async function getIdentityProviderFactory(
  ctx: RequestContext,
  realm: RealmModel,
  providerId: string,
): Promise<IdpProviderFactoryRep> {
  await requireIdpAccess(ctx, realm, 'view');
  const type = identityProviderType(providerId);
  if (!type) throw errorC(400, 'HTTP 400 Bad Request');
  return providerFactoryRepresentation(type);
}
