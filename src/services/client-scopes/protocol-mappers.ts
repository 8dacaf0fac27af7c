import { randomUUID } from 'node:crypto';
import type { ProtocolMapperModel } from '../../db/models/client';
import type { RealmModel } from '../../db/models/realm';
import { type HttpError, errorA, errorB, notFound } from '../../core/errors';
import { write } from '../../core/db-errors';
import { invalidate } from '../../loaders/invalidate';
import { type ProtocolMapperRepresentation, toProtocolMapperRepresentation } from '../../representations/protocol-mapper';
import { recordAdminEvent } from '../../core/admin-events';
import { type ScopeOwner, requireOwnerAccess } from './scope-owner';
import type { RequestContext } from '../../core/context';
import { configProblem, mapperType } from '../../keycloak/mapper-types';
import { checkPairwiseMapper, PAIRWISE_MAPPER } from '../clients/pairwise';

/**
 * Protocol mappers of clients and client scopes — the seed's `{scopeOwner}/{id}/protocol-mappers`
 * family, one implementation parameterised by the owner (config reference §4.1), which the front
 * resolves (scope-owner.ts) and the functions here check rights on. Mapper names are unique per
 * owner and protocol (unique indexes, migration 0004).
 */
type MapperRow = {
  id: string;
  name: string;
  protocol: string;
  protocolMapper: string;
  config: Record<string, string>;
  clientId: string | null;
  clientScopeId: string | null;
};

const invalid = (msg: string): HttpError => errorB(400, msg, msg);

/** Config values as strings; null and empty values dropped (`removeEmptyString`). */
function configOf(input: ProtocolMapperRepresentation['config']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input ?? {})) {
    if (v === null || v === undefined || v === '') continue;
    out[k] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/**
 * Validates mapper representations and turns them into rows of one owner: unknown type → 404
 * `ProtocolMapper provider not found`; missing name, protocol mismatch or bad config → 400.
 */
export function mapperRows(
  reps: ProtocolMapperRepresentation[],
  defaultProtocol: string,
  owner: { clientId?: string; clientScopeId?: string },
): MapperRow[] {
  return reps.map((rep) => {
    const type = typeof rep.protocolMapper === 'string' ? mapperType(rep.protocolMapper) : undefined;
    if (!type) throw notFound('ProtocolMapper provider not found');
    if (typeof rep.name !== 'string' || !rep.name.trim()) throw invalid('Protocol mapper name is required');
    const protocol = rep.protocol || type.protocol || defaultProtocol;
    if (protocol !== type.protocol) throw invalid(`Protocol mapper ${type.id} is not available for protocol ${protocol}`);
    const config = configOf(rep.config);
    const problem = configProblem(type, config);
    if (problem) throw invalid(problem);
    return {
      id: rep.id || randomUUID(),
      name: rep.name,
      protocol,
      protocolMapper: type.id,
      config,
      clientId: owner.clientId ?? null,
      clientScopeId: owner.clientScopeId ?? null,
    };
  });
}

/** Pairwise subject mappers of a client: validated against its redirect URIs, given a salt (services/clients/pairwise.ts). */
async function checkPairwise(ctx: RequestContext, o: ScopeOwner, rows: MapperRow[]): Promise<void> {
  if (o.type !== 'clients' || !rows.some((r) => r.protocolMapper === PAIRWISE_MAPPER)) return;
  const client = await ctx.loaders.clientById.load(o.id);
  if (!client) return;
  for (const r of rows) if (r.protocolMapper === PAIRWISE_MAPPER) await checkPairwiseMapper(client, r.config);
}

const ownerKey = (o: ScopeOwner) => (o.type === 'clients' ? { clientId: o.id } : { clientScopeId: o.id });

async function mappersOf(ctx: RequestContext, o: ScopeOwner): Promise<ProtocolMapperModel[]> {
  return o.type === 'clients' ? ctx.loaders.mappersByClient.load(o.id) : ctx.loaders.mappersByScope.load(o.id);
}

async function findMapper(ctx: RequestContext, o: ScopeOwner, mapperId: string): Promise<ProtocolMapperModel> {
  const pm = (await mappersOf(ctx, o)).find((m) => m.id === mapperId);
  if (!pm) throw notFound('Model not found');
  return pm;
}

const eventPath = (o: ScopeOwner, id: string) => `${o.path}/protocol-mappers/models/${id}`;
const sameName = () => errorA(409, 'Protocol mapper exists with same name');

/** GET /{scopeOwner}/{id}/protocol-mappers/models: mappers of installed types, by name. */
export async function listMappers(ctx: RequestContext, realm: RealmModel, o: ScopeOwner): Promise<ProtocolMapperRepresentation[]> {
  await requireOwnerAccess(ctx, realm, o, 'view');
  return (await mappersOf(ctx, o)).filter((m) => mapperType(m.protocolMapper)).map(toProtocolMapperRepresentation);
}

/** GET /{scopeOwner}/{id}/protocol-mappers/protocol/{protocol}: mappers of one protocol. */
export async function listMappersByProtocol(
  ctx: RequestContext,
  realm: RealmModel,
  o: ScopeOwner,
  protocol: string,
): Promise<ProtocolMapperRepresentation[]> {
  return (await listMappers(ctx, realm, o)).filter((m) => m.protocol === protocol);
}

/** GET /{scopeOwner}/{id}/protocol-mappers/models/{mapperId}: unknown → 404 `Model not found`. */
export async function getMapper(
  ctx: RequestContext,
  realm: RealmModel,
  o: ScopeOwner,
  mapperId: string,
): Promise<ProtocolMapperRepresentation> {
  await requireOwnerAccess(ctx, realm, o, 'view');
  const pm = await findMapper(ctx, o, mapperId);
  if (!mapperType(pm.protocolMapper)) throw notFound('Protocol mapper provider not found');
  return toProtocolMapperRepresentation(pm);
}

/** POST /{scopeOwner}/{id}/protocol-mappers/models: creates one mapper; same name and protocol → 409. Returns the id. */
export async function createMapper(
  ctx: RequestContext,
  realm: RealmModel,
  o: ScopeOwner,
  rep: ProtocolMapperRepresentation,
): Promise<string> {
  await requireOwnerAccess(ctx, realm, o, 'manage');
  const [row] = mapperRows([rep], o.protocol, ownerKey(o));
  await checkPairwise(ctx, o, [row]);
  await write(ctx, { unique: sameName }, async () => {
    await ctx.db.models.ProtocolMapper.create({ ...row });
    await recordAdminEvent(ctx, realm, {
      operationType: 'CREATE',
      resourceType: 'PROTOCOL_MAPPER',
      resourcePath: eventPath(o, row.id),
      representation: rep,
    });
  });
  invalidate.mappers(ctx.loaders, o.id);
  return row.id;
}

/** POST /{scopeOwner}/{id}/protocol-mappers/add-models: adds all or none; a duplicate name → 409 `conflict`. */
export async function addMappers(
  ctx: RequestContext,
  realm: RealmModel,
  o: ScopeOwner,
  reps: ProtocolMapperRepresentation[],
): Promise<void> {
  await requireOwnerAccess(ctx, realm, o, 'manage');
  const rows = mapperRows(reps, o.protocol, ownerKey(o));
  await checkPairwise(ctx, o, rows);
  await write(ctx, { unique: () => errorB(409, 'conflict', 'Protocol mapper name must be unique per protocol') }, async () => {
    for (const [i, row] of rows.entries()) {
      await ctx.db.models.ProtocolMapper.create({ ...row });
      await recordAdminEvent(ctx, realm, {
        operationType: 'CREATE',
        resourceType: 'PROTOCOL_MAPPER',
        resourcePath: eventPath(o, row.id),
        representation: reps[i],
      });
    }
  });
  invalidate.mappers(ctx.loaders, o.id);
}

/** PUT /{scopeOwner}/{id}/protocol-mappers/models/{mapperId}: replaces name, protocol, type and config. */
export async function updateMapper(
  ctx: RequestContext,
  realm: RealmModel,
  o: ScopeOwner,
  mapperId: string,
  rep: ProtocolMapperRepresentation,
): Promise<void> {
  await requireOwnerAccess(ctx, realm, o, 'manage');
  const pm = await findMapper(ctx, o, mapperId);
  const [row] = mapperRows([{ ...rep, id: pm.id }], o.protocol, ownerKey(o));
  await checkPairwise(ctx, o, [row]);
  try {
    await write(ctx, { unique: sameName }, async () => {
      pm.set({ name: row.name, protocol: row.protocol, protocolMapper: row.protocolMapper, config: row.config });
      await pm.save();
      await recordAdminEvent(ctx, realm, {
        operationType: 'UPDATE',
        resourceType: 'PROTOCOL_MAPPER',
        resourcePath: eventPath(o, pm.id),
        representation: rep,
      });
    });
  } finally {
    // the cached mapper was changed in memory: forget it whether or not the write went through
    invalidate.mappers(ctx.loaders, o.id);
  }
}

/** DELETE /{scopeOwner}/{id}/protocol-mappers/models/{mapperId}. */
export async function deleteMapper(ctx: RequestContext, realm: RealmModel, o: ScopeOwner, mapperId: string): Promise<void> {
  await requireOwnerAccess(ctx, realm, o, 'manage');
  const pm = await findMapper(ctx, o, mapperId);
  await ctx.db.transaction(async () => {
    await ctx.db.models.ProtocolMapper.destroy({ where: { id: pm.id } });
    await recordAdminEvent(ctx, realm, { operationType: 'DELETE', resourceType: 'PROTOCOL_MAPPER', resourcePath: eventPath(o, pm.id) });
  });
  invalidate.mappers(ctx.loaders, o.id);
}
