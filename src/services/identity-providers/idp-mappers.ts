import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { IdentityProviderModel, IdpMapperModel } from '../../db/models/identity-provider';
import type { RealmModel } from '../../db/models/realm';
import { errorA, errorB, errorC } from '../../core/errors';
import { write } from '../../core/db-errors';
import { recordAdminEvent } from '../../core/admin-events';
import type { RequestContext } from '../../core/context';
import { type IdpMapperTypeRep, mapperTypesFor } from '../../keycloak/identity-provider-types';
import { type IdpMapperRep, configOf, toIdpMapperRepresentation } from '../../representations/identity-provider';
import { findIdentityProvider } from './identity-providers';

/**
 * Mappers of an identity provider (config reference §8.2, §8.4): `/instances/{alias}/mappers` CRUD
 * and `/mapper-types`. The provider comes resolved, with the access the endpoint needs
 * (resolveIdentityProvider); `named` is the alias or id of the request path. A mapper is looked up within its provider (unknown → 404 `Model not found`);
 * a name is unique per provider (unique index), a failed create is Keycloak's 400
 * `Failed to add mapper '<name>' to identity provider [<providerId>].`
 */
const modelNotFound = () => errorC(404, 'Model not found');
const path = (alias: string, id?: string) => `identity-provider/instances/${alias}/mappers${id ? `/${id}` : ''}`;

/** GET .../instances/{alias}/mapper-types (view): the mapper types this provider id supports, keyed by id. */
export function listIdpMapperTypes(idp: IdentityProviderModel): Record<string, IdpMapperTypeRep> {
  return mapperTypesFor(idp.providerId);
}

/** GET .../instances/{alias}/mappers (view). */
export async function listIdpMappers(ctx: RequestContext, idp: IdentityProviderModel): Promise<IdpMapperRep[]> {
  const rows = await ctx.db.models.IdpMapper.findAll({ where: { identityProviderId: idp.internalId }, order: [['name', 'ASC']] });
  return rows.map((m) => toIdpMapperRepresentation(m, idp.alias));
}

/** Mappers of many providers in one query, keyed by internal id (GraphQL batching; the caller checked view). */
export async function mappersByProvider(
  ctx: RequestContext,
  idps: Array<{ internalId: string; alias: string }>,
): Promise<Map<string, IdpMapperRep[]>> {
  const out = new Map<string, IdpMapperRep[]>(idps.map((p) => [p.internalId, []]));
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

/** GET .../instances/{alias}/mappers/{id} (view). */
export async function getIdpMapper(ctx: RequestContext, idp: IdentityProviderModel, id: string): Promise<IdpMapperRep> {
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
  rep: IdpMapperRep,
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
  await write(ctx, { unique: failed }, async () => {
    await ctx.db.models.IdpMapper.create({ id, realmId: realm.id, identityProviderId: idp.internalId, name, mapperType, config });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'IDENTITY_PROVIDER_MAPPER',
      resourcePath: path(idp.alias, id),
      representation: rep,
    });
  });
  return id;
}

/** POST .../instances/{alias}/mappers (manage). Returns the new id. */
export function addIdpMapper(ctx: RequestContext, realm: RealmModel, idp: IdentityProviderModel, rep: IdpMapperRep): Promise<string> {
  return createIdentityProviderMapper(ctx, realm, { ...rep, identityProviderAlias: idp.alias }, idp);
}

/** PUT .../instances/{alias}/mappers/{id} (manage): name and type replaced when given, config replaced. */
export async function updateIdpMapper(
  ctx: RequestContext,
  realm: RealmModel,
  idp: IdentityProviderModel,
  id: string,
  rep: IdpMapperRep,
  named = idp.alias,
): Promise<void> {
  const mapper = await mapperOf(ctx, idp, id);
  const config = configOf(rep.config);
  const taken = () => errorB(409, 'conflict', `Identity provider mapper ${String(rep.name)} already exists`);
  await write(ctx, { unique: taken }, async () => {
    if (typeof rep.name === 'string' && rep.name !== '') mapper.name = rep.name;
    if (typeof rep.identityProviderMapper === 'string' && rep.identityProviderMapper) mapper.mapperType = rep.identityProviderMapper;
    mapper.config = config;
    await mapper.save();
    await recordAdminEvent(ctx, realm, {
      operationType: 'UPDATE',
      resourceType: 'IDENTITY_PROVIDER_MAPPER',
      resourcePath: path(named, id),
      representation: rep,
    });
  });
}

/** DELETE .../instances/{alias}/mappers/{id} (manage). */
export async function deleteIdpMapper(
  ctx: RequestContext,
  realm: RealmModel,
  idp: IdentityProviderModel,
  id: string,
  named = idp.alias,
): Promise<void> {
  await mapperOf(ctx, idp, id);
  await ctx.db.transaction(async () => {
    await ctx.db.models.IdpMapper.destroy({ where: { id, identityProviderId: idp.internalId } });
    await recordAdminEvent(ctx, realm, {
      operationType: 'DELETE',
      resourceType: 'IDENTITY_PROVIDER_MAPPER',
      resourcePath: path(named, id),
    });
  });
}
