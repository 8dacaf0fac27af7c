import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { IdentityProviderModel, IdpMapperModel } from '../../db/models/identity-provider';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorB, errorC } from '../../core/errors';
import { isUniqueViolation } from '../../core/db-errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { mapperTypesFor } from '../../keycloak/identity-provider-types';
import { findIdentityProvider, resolveIdentityProvider } from './identity-providers';
import { type Rep, configOf, toIdpMapperRepresentation } from './idp-representation';

/**
 * Mappers of an identity provider (config reference §8.2, §8.4): `/instances/{alias}/mappers` CRUD
 * and `/mapper-types`. A mapper is looked up within its provider (unknown → 404 `Model not found`);
 * a name is unique per provider (unique index), a failed create is Keycloak's 400
 * `Failed to add mapper '<name>' to identity provider [<providerId>].`
 */
const modelNotFound = () => errorC(404, 'Model not found');
const path = (alias: string, id?: string) => `identity-provider/instances/${alias}/mappers${id ? `/${id}` : ''}`;

/** GET .../instances/{alias}/mapper-types: the mapper types this provider id supports, keyed by id. */
export async function listIdpMapperTypes(ctx: RequestContext, realm: RealmModel, alias: string): Promise<Rep> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'view');
  return mapperTypesFor(idp.providerId);
}

/** GET .../instances/{alias}/mappers. */
export async function listIdpMappers(ctx: RequestContext, realm: RealmModel, alias: string): Promise<Rep[]> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'view');
  const rows = await ctx.db.models.IdpMapper.findAll({ where: { identityProviderId: idp.internalId }, order: [['name', 'ASC']] });
  return rows.map((m) => toIdpMapperRepresentation(m, idp.alias));
}

/** Mappers of many providers in one query, keyed by internal id (GraphQL batching; the caller checked view). */
export async function mappersByProvider(
  ctx: RequestContext,
  idps: Array<{ internalId: string; alias: string }>,
): Promise<Map<string, Rep[]>> {
  const out = new Map<string, Rep[]>(idps.map((p) => [p.internalId, []]));
  if (!idps.length) return out;
  const alias = new Map(idps.map((p) => [p.internalId, p.alias]));
  const rows = await ctx.db.models.IdpMapper.findAll({
    where: { identityProviderId: { [Op.in]: [...alias.keys()] } },
    order: [['name', 'ASC']],
  });
  for (const m of rows) out.get(m.identityProviderId)?.push(toIdpMapperRepresentation(m, alias.get(m.identityProviderId) as string));
  return out;
}

async function mapperOf(ctx: RequestContext, idp: IdentityProviderModel, id: string): Promise<IdpMapperModel> {
  const m = await ctx.db.models.IdpMapper.findOne({ where: { id, identityProviderId: idp.internalId } });
  if (!m) throw modelNotFound();
  return m;
}

/** GET .../instances/{alias}/mappers/{id}. */
export async function getIdpMapper(ctx: RequestContext, realm: RealmModel, alias: string, id: string): Promise<Rep> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'view');
  return toIdpMapperRepresentation(await mapperOf(ctx, idp, id), idp.alias);
}

/**
 * Creates a mapper of a provider (the provider given, or the one named by `identityProviderAlias`),
 * inside the caller's transaction if any, and records the CREATE admin event. No permission check:
 * POST .../mappers checks first; realm and partial import call it directly. Returns the new id.
 */
export async function createIdentityProviderMapper(
  ctx: RequestContext,
  realm: RealmModel,
  rep: Rep,
  provider?: IdentityProviderModel,
): Promise<string> {
  const named = typeof rep.identityProviderAlias === 'string' ? rep.identityProviderAlias : '';
  const idp = provider ?? (named ? await findIdentityProvider(ctx, realm, named) : null);
  if (!idp) throw errorA(400, `Identity provider ${named || 'null'} does not exist`);
  const name = typeof rep.name === 'string' && rep.name !== '' ? rep.name : null;
  const failed = () => errorA(400, `Failed to add mapper '${name}' to identity provider [${idp.providerId}].`);
  const mapperType = typeof rep.identityProviderMapper === 'string' && rep.identityProviderMapper ? rep.identityProviderMapper : null;
  if (!name || !mapperType) throw failed();
  const config = configOf(rep.config);
  const id = typeof rep.id === 'string' && rep.id ? rep.id : randomUUID();
  try {
    await ctx.db.transaction(async () => {
      await ctx.db.models.IdpMapper.create({ id, realmId: realm.id, identityProviderId: idp.internalId, name, mapperType, config });
      await recordAdminEvent(ctx, realm, {
        operationType: 'CREATE',
        resourceType: 'IDENTITY_PROVIDER_MAPPER',
        resourcePath: path(idp.alias, id),
        representation: rep,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw failed();
    throw e;
  }
  return id;
}

/** POST .../instances/{alias}/mappers (manage-identity-providers). Returns the new id. */
export async function addIdpMapper(ctx: RequestContext, realm: RealmModel, alias: string, rep: Rep): Promise<string> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'manage');
  return createIdentityProviderMapper(ctx, realm, { ...rep, identityProviderAlias: idp.alias }, idp);
}

/** PUT .../instances/{alias}/mappers/{id}: name and type replaced when given, config replaced. */
export async function updateIdpMapper(ctx: RequestContext, realm: RealmModel, alias: string, id: string, rep: Rep): Promise<void> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'manage');
  const mapper = await mapperOf(ctx, idp, id);
  const config = configOf(rep.config);
  try {
    await ctx.db.transaction(async () => {
      if (typeof rep.name === 'string' && rep.name !== '') mapper.name = rep.name;
      if (typeof rep.identityProviderMapper === 'string' && rep.identityProviderMapper) mapper.mapperType = rep.identityProviderMapper;
      mapper.config = config;
      await mapper.save();
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'IDENTITY_PROVIDER_MAPPER',
        resourcePath: path(alias, id),
        representation: rep,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw errorB(409, 'conflict', `Identity provider mapper ${String(rep.name)} already exists`);
    throw e;
  }
}

/** DELETE .../instances/{alias}/mappers/{id}. */
export async function deleteIdpMapper(ctx: RequestContext, realm: RealmModel, alias: string, id: string): Promise<void> {
  const idp = await resolveIdentityProvider(ctx, realm, alias, 'manage');
  await mapperOf(ctx, idp, id);
  await ctx.db.transaction(async () => {
    await ctx.db.models.IdpMapper.destroy({ where: { id, identityProviderId: idp.internalId } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'IDENTITY_PROVIDER_MAPPER',
      resourcePath: path(alias, id),
    });
  });
}
